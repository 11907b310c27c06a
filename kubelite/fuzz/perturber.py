"""The fuzz perturber: a :class:`kubelite.perturb.Perturber` that draws or replays a schedule.

Generating (no schedule given), each occurrence of a point in scope draws from the perturber's own
``random.Random`` (seeded from the run's seed, never the cluster's RNG) whether to perturb it, within the
:class:`~kubelite.fuzz.schedule.Knobs`; every non-default decision is appended to :attr:`taken`.
Replaying, the decision at each occurrence is looked up in the given schedule and nothing is drawn. Either
way, what is taken is recorded in the run's trace, so a generated run and the replay of its schedule have
the same trace digest.

Scope: only the identities the target created through its :class:`~kubelite.fuzz.Env` (or those in
``knobs.users``) are perturbed; the built-in components and the target's own admin client never are. After
:meth:`stop` (the run's final quiet phase) no point is perturbed any more.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from kubelite.apiserver.faults import FAULT_KINDS
from kubelite.clock import Clock
from kubelite.errors import ServerTimeout
from kubelite.fuzz.schedule import Decision, Knobs
from kubelite.fuzz.trace import Trace
from kubelite.perturb import ApiCall, WatchAction

__all__ = ["SchedulePerturber"]

_SEED_SALT = 0x6B75_6265  # keeps the perturber's stream apart from the cluster's RNG for the same seed


def _ms(x: float) -> float:
    return round(x, 3)


class SchedulePerturber:
    """See the module docstring."""

    def __init__(self, *, clock: Clock, knobs: Knobs, seed: int, trace: Trace,
                 schedule: Sequence[Decision] | None = None) -> None:
        self.clock = clock
        self.knobs = knobs
        self.trace = trace
        self.generating = schedule is None
        self._rng = random.Random(seed ^ _SEED_SALT)
        self._plan = {d.key(): d for d in schedule or ()}
        self.taken: list[Decision] = []
        self._counts: dict[str, int] = {}
        #: points reached at least once, and the actions taken at least once (for coverage reports)
        self.points_reached: set[str] = set()
        self.active = True
        self._held = 0
        self.users: set[str] = set()
        #: user -> callback that crashes (and later restarts) that user's manager
        self.crash_handlers: dict[str, Callable[[], None]] = {}
        self._crashing: set[str] = set()

    # --- scope and bookkeeping ---
    def _in_scope(self, user: str) -> bool:
        if not self.active:
            return False
        allowed = self.knobs.users
        return user in allowed if allowed is not None else user in self.users

    def _api_in_scope(self, call: ApiCall) -> bool:
        if not self._in_scope(call.user):
            return False
        k = self.knobs
        if k.verbs is not None and call.verb not in k.verbs:
            return False
        if k.resources is not None:
            res = f"{call.resource}/{call.subresource}" if call.subresource else call.resource
            if res not in k.resources:
                return False
        return True

    def _decide(self, point: str, draw: Callable[[random.Random], tuple[str, float | int] | None],
                context: str = "") -> Decision | None:
        n = self._counts.get(point, 0)
        self._counts[point] = n + 1
        self.points_reached.add(point.split(":", 1)[0])
        if self.generating:
            if len(self.taken) >= self.knobs.max_decisions:
                return None
            choice = draw(self._rng)
            d = Decision(point=point, n=n, action=choice[0], value=choice[1]) if choice is not None else None
        else:
            d = self._plan.get((point, n))
        if d is not None:
            self.taken.append(d)
            self.trace.decision(d, context)
        return d

    @contextlib.contextmanager
    def holding(self) -> Iterator[None]:
        self._held += 1
        try:
            yield
        finally:
            self._held -= 1

    def busy(self) -> str | None:
        if self._crashing:
            return f"manager {sorted(self._crashing)[0]} is crashing or restarting"
        if self._held:
            return f"{self._held} perturbation(s) holding work back"
        return None

    def stop(self) -> None:
        """No more perturbations (the run's final quiet phase)."""
        self.active = False

    # --- watch ---
    def watch_event(self, site: str, event: str) -> WatchAction:
        if not self._in_scope(site.split("/", 1)[0]):
            return None
        k = self.knobs

        def draw(rng: random.Random) -> tuple[str, float | int] | None:
            u = rng.random()
            if (u := u - k.watch_delay) < 0:
                return ("delay", _ms(rng.uniform(0.01, k.max_delay)))
            if (u := u - k.watch_hold) < 0:
                return ("hold", rng.randint(1, k.max_hold))
            if (u := u - k.watch_relist) < 0:
                return ("relist", _ms(rng.uniform(0.0, k.max_gap)))
            if u - k.watch_expire < 0:
                return ("expire", _ms(rng.uniform(0.0, k.max_gap)))
            return None

        d = self._decide(f"watch:{site}", draw, event)
        return (d.action, float(d.value)) if d is not None else None

    # --- api ---
    async def _pause(self, d: Decision) -> None:
        if d.action == "yield":
            for _ in range(int(d.value)):
                await self.clock.sleep(0)
        elif d.action == "latency":
            with self.holding():
                await self.clock.sleep(float(d.value))

    async def before_request(self, call: ApiCall) -> None:
        if not self._api_in_scope(call):
            return
        k = self.knobs

        def draw(rng: random.Random) -> tuple[str, float | int] | None:
            u = rng.random()
            if (u := u - k.api_yield) < 0:
                return ("yield", rng.randint(1, 3))
            if (u := u - k.api_latency) < 0:
                return ("latency", _ms(rng.uniform(0.001, k.max_latency)))
            if u - k.api_fail < 0 and k.fail_codes:
                return ("fail", rng.choice(k.fail_codes))
            return None

        d = self._decide(f"api.before:{call.user}", draw, repr(call))
        if d is None:
            return
        if d.action == "fail":
            raise FAULT_KINDS[int(d.value)](call.resource, call.name)
        await self._pause(d)

    async def after_request(self, call: ApiCall) -> None:
        if not self._in_scope(call.user):
            return
        if call.is_write:
            self.trace.note(f"api {call!r}")
            if call.user in self.crash_handlers and call.user not in self._crashing:
                crash = self._decide(f"crash:{call.user}",
                                     lambda rng: ("crash", 0) if rng.random() < self.knobs.crash else None,
                                     repr(call))
                if crash is not None:
                    self._crashing.add(call.user)
                    self.crash_handlers[call.user]()
                    # this task belongs to the manager that is crashing: it never takes another step
                    await asyncio.get_running_loop().create_future()
        if not self._api_in_scope(call):
            return
        k = self.knobs
        write = call.is_write

        def draw(rng: random.Random) -> tuple[str, float | int] | None:
            u = rng.random()
            if (u := u - k.api_yield) < 0:
                return ("yield", rng.randint(1, 3))
            if (u := u - k.api_latency) < 0:
                return ("latency", _ms(rng.uniform(0.001, k.max_latency)))
            if write and u - k.api_timeout < 0:
                return ("timeout", 0)
            return None

        d = self._decide(f"api.after:{call.user}", draw, repr(call))
        if d is None:
            return
        if d.action == "timeout":
            raise ServerTimeout.make(
                "the server was unable to return a response in the time allotted, but may still be processing "
                "the request", retry_after_seconds=1)
        await self._pause(d)

    def crashed(self, user: str) -> None:
        """The crash of ``user``'s manager is over (it has restarted)."""
        self._crashing.discard(user)

    # --- the event loop's ready tasks ---
    def reorder_ready(self, ready: Any) -> None:
        """The clock's ``ready_hook``: maybe run the distinct tasks ready in this loop iteration in a
        seeded shuffled order (other callbacks keep their places; one task's own steps are never swapped)."""
        if not self.active or (self.generating and self.knobs.ready_shuffle <= 0):
            return
        slots: list[int] = []
        seen: set[int] = set()
        for i, handle in enumerate(ready):
            owner = getattr(getattr(handle, "_callback", None), "__self__", None)
            if isinstance(owner, asyncio.Task):
                if id(owner) in seen:
                    return  # a task with two pending steps: leave this iteration alone
                seen.add(id(owner))
                slots.append(i)
        if len(slots) < 2:
            return
        p = self.knobs.ready_shuffle
        d = self._decide("ready:loop", lambda rng: ("shuffle", rng.randrange(1 << 30)) if rng.random() < p else None,
                         f"{len(slots)} tasks")
        if d is None:
            return
        order = list(slots)
        random.Random(int(d.value)).shuffle(order)
        handles = [ready[i] for i in order]
        for i, h in zip(slots, handles):
            ready[i] = h

    # --- queue ---
    def defer(self, site: str, request: str) -> bool:
        if not self._in_scope(site.split("/", 1)[0]):
            return False
        p = self.knobs.queue_defer
        return self._decide(f"queue.defer:{site}", lambda rng: ("defer", 0) if rng.random() < p else None,
                            request) is not None

    def duplicate(self, site: str, request: str) -> bool:
        if not self._in_scope(site.split("/", 1)[0]):
            return False
        p = self.knobs.queue_duplicate
        return self._decide(f"queue.dup:{site}", lambda rng: ("duplicate", 0) if rng.random() < p else None,
                            request) is not None
