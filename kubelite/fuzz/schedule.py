"""Schedules: the seeded decisions a fuzz run takes at its perturbation points.

A perturbation point is named by where it sits (``watch:webapp/configmaps``: the reflector of user
``webapp``'s configmaps informer; ``api.after:webapp``; ``queue.dup:webapp/widgets``; ``crash:webapp``; ``ready:loop``, the event loop's ready tasks), and
each time a run reaches a point the point's occurrence counter goes up by one. A :class:`Decision` names a
point, an occurrence and what to do there. A schedule is the list of the decisions that were *not* the
default (deliver, proceed, reconcile): everything else happens as it would without a fuzzer.

Guarantees:
- A run is a pure function of (seed, schedule): the cluster's RNG is seeded with the seed and the
  perturber never draws from it, so replaying the recorded schedule (without drawing anything) takes the
  same decisions at the same occurrences and yields the same trace.
- Removing decisions from a schedule gives another valid schedule (the dropped ones just take the default),
  which is what delta debugging (:mod:`kubelite.fuzz.minimize`) needs.
- Knobs (:class:`Knobs`) are probabilities per kind of decision plus their bounds; they only shape
  *generation*. A recorded schedule replays whatever knobs are set.
"""

from __future__ import annotations

from typing import Any

import msgspec

__all__ = ["ACTIONS", "PROBABILITIES", "Decision", "Knobs", "parse_knobs"]

#: every action a decision may take, by the family of point it applies to
ACTIONS: dict[str, tuple[str, ...]] = {
    "watch": ("delay", "hold", "relist", "expire"),
    "api.before": ("yield", "latency", "fail"),
    "api.after": ("yield", "latency", "timeout"),
    "crash": ("crash",),
    "queue.defer": ("defer",),
    "queue.dup": ("duplicate",),
    "ready": ("shuffle",),
}


class Decision(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """At the ``n``-th time (0-based) the run reaches ``point``, do ``action`` (with ``value``)."""

    point: str
    n: int
    action: str
    value: float | int | str = 0

    @property
    def family(self) -> str:
        """The perturbation point's family (before the ``:``), e.g. ``client``."""
        return self.point.split(":", 1)[0]

    @property
    def site(self) -> str:
        """The point's site (after the ``:``), e.g. a controller's name; "" if none."""
        return self.point.split(":", 1)[1] if ":" in self.point else ""

    def key(self) -> tuple[str, int]:
        """(point, n): identifies the decision within a run."""
        return (self.point, self.n)


class Knobs(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """How likely each perturbation is at each occurrence of its point while generating a schedule.

    Probabilities are per occurrence; the ``max_*`` bounds cap the drawn values (virtual seconds). ``users``
    limits every point to those client/manager identities (default: every identity the target created
    through its :class:`~kubelite.fuzz.Env`); ``verbs`` and ``resources`` (``"example.com/widgets/status"``
    for a subresource) limit the ``api`` points further. The ``ready`` point (the event loop's ready tasks)
    belongs to no user: ``ready_shuffle=0`` switches it off. Setting a probability to 0 switches a kind off."""

    watch_delay: float = 0.08
    watch_hold: float = 0.04
    watch_relist: float = 0.01
    watch_expire: float = 0.01
    api_yield: float = 0.25
    api_latency: float = 0.05
    api_fail: float = 0.02
    api_timeout: float = 0.02  # 504 after commit, writes only
    crash: float = 0.03  # per write of a user that has a manager
    queue_defer: float = 0.2
    queue_duplicate: float = 0.15
    #: each time the clock's driver sees several tasks ready at once: run them in a shuffled order
    ready_shuffle: float = 0.2
    max_delay: float = 2.0
    max_hold: int = 4
    max_latency: float = 0.5
    max_gap: float = 3.0
    restart_after: float = 1.0
    #: status codes an ``api_fail`` draws from (before the request: nothing is stored)
    fail_codes: tuple[int, ...] = (409, 429, 500, 503)
    users: tuple[str, ...] | None = None
    #: limit the ``api`` points to these verbs ("create", "patch", ...) and resources ("configmaps",
    #: "example.com/widgets", "example.com/widgets/status" for a subresource); None: every request
    verbs: tuple[str, ...] | None = None
    resources: tuple[str, ...] | None = None
    #: at most this many decisions per run (keeps a schedule readable and shrinking fast)
    max_decisions: int = 64


    @classmethod
    def off(cls) -> Knobs:
        """Knobs that never perturb anything (a plain run of the target, invariants still checked)."""
        return msgspec.convert(dict.fromkeys(PROBABILITIES, 0.0), cls)


#: the knobs that are probabilities
PROBABILITIES = ("watch_delay", "watch_hold", "watch_relist", "watch_expire", "api_yield", "api_latency",
                 "api_fail", "api_timeout", "crash", "queue_defer", "queue_duplicate", "ready_shuffle")
_INT_KNOBS = {"max_hold", "max_decisions"}


def parse_knobs(text: str | None, base: Knobs | None = None) -> Knobs:
    """``"crash=0.1,api_yield=0.5,users=webapp"`` (the CLI's ``--knobs``) over ``base`` (default knobs)."""
    values: dict[str, Any] = msgspec.to_builtins(base if base is not None else Knobs())
    for part in (text or "").split(","):
        part = part.strip()
        if not part:
            continue
        name, sep, raw = part.partition("=")
        name = name.strip().replace("-", "_").replace(".", "_")
        if not sep or name not in values:
            known = ", ".join(sorted(values))
            raise ValueError(f"unknown knob {part!r}: expected NAME=VALUE with NAME one of {known}")
        raw = raw.strip()
        if name in ("users", "verbs", "resources"):
            values[name] = tuple(u for u in raw.split("+") if u) or None
        elif name == "fail_codes":
            values[name] = tuple(int(c) for c in raw.split("+") if c)
        elif name in _INT_KNOBS:
            values[name] = int(raw)
        else:
            values[name] = float(raw)
    return msgspec.convert(values, Knobs)
