"""Startup, liveness and readiness probes of one container run, evaluated against the workload model.

Follows ``pkg/kubelet/prober/worker.go`` (``run``, ``doProbe``) and ``prober_manager.go``:
- a probe ticks every ``periodSeconds`` on its worker's own phase: upstream's worker is made when the
  kubelet adds the pod (``AddPod``) and keeps its ticker across container restarts, so the ticks fall at
  ``origin + k * periodSeconds`` (``origin``: the pod's admission on the node), not at the container's start;
  the tick at ``origin`` finds no running container (the worker's first ``doProbe``), and neither does a
  tick at the container's start instant (the status manager does not have the new container running yet);
  ticks before ``initialDelaySeconds`` after the start are skipped. So a container whose process needs a
  few seconds to listen is not probed (and no ``Unhealthy`` event written) at the very instant it starts,
  unless it is a readiness probe: ``UpdatePodStatus`` triggers a readiness run at once when a running
  container has no readiness result yet (``manualTriggerCh``), which with no initial delay probes at the
  start (and, behind a startup probe, at its success);
- liveness and readiness do not run until the startup probe (if any) has succeeded;
- the result flips to success after ``successThreshold`` consecutive successes and to failure after
  ``failureThreshold`` consecutive failures; initial results are failure for readiness, success for
  liveness and unknown for startup;
- a startup or liveness failure puts the worker on hold (upstream ``onHold``): the kubelet kills the
  container, and the next run gets fresh workers.

What a probe answers comes from the workload model (:mod:`kubelite.workload`): readiness
succeeds from ``readyAfter``, liveness and startup from ``healthyAfter``, and every probe times out from
``hangAfter``; an exec probe that checks a file the container's script creates or removes
(``cat /tmp/healthy``) follows the script's files, and ``true``/``false``/``exit N`` have fixed answers
(:func:`kubelite.kubelet.command.exec_probe`). Since the answer is monotone in time (fail, succeed, then fail once hung), a worker whose
result is settled skips straight to the first tick after the next change: a healthy container costs no
timer at all, while a failing one ticks every period (each failure is an ``Unhealthy`` event, as
upstream). Pure code: the caller passes the time and acts on the returned :class:`ProbeOutcome`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Final

from kubelite.api.types.core_v1 import Probe
from kubelite.kubelet.command import exec_probe, file_exists
from kubelite.workload import ImageProfile

__all__ = ["LIVENESS", "READINESS", "STARTUP", "ProbeOutcome", "ProbeSpec", "ProbeWorker"]

STARTUP: Final = "startup"
LIVENESS: Final = "liveness"
READINESS: Final = "readiness"
_TITLE = {STARTUP: "Startup", LIVENESS: "Liveness", READINESS: "Readiness"}


class ProbeSpec:
    """A probe's parameters with upstream defaults (``SetDefaults_Probe``), plus its handler."""

    __slots__ = ("exec_rule", "failure_threshold", "handler", "initial_delay", "kind", "period",
                 "success_threshold", "termination_grace", "timeout")

    def __init__(self, kind: str, probe: Probe) -> None:
        self.kind = kind
        self.initial_delay = float(probe.initial_delay_seconds or 0)
        self.period = float(probe.period_seconds or 10)
        self.timeout = float(probe.timeout_seconds or 1)
        self.success_threshold = int(probe.success_threshold or 1)
        self.failure_threshold = int(probe.failure_threshold or 3)
        grace = probe.termination_grace_period_seconds
        self.termination_grace = float(grace) if grace is not None else None
        self.handler = probe
        # an exec probe whose answer the command itself decides (a file check, true/false/exit N)
        cmd = probe.exec.command if probe.exec is not None else None
        self.exec_rule = exec_probe(cmd) if cmd else None

    def failure_message(self, pod_ip: str, ports: Mapping[str, int], hung: bool) -> str:
        """What upstream's prober reports for a refused or timed-out probe of this handler."""
        h = self.handler
        if h.http_get is not None:
            g = h.http_get
            host = g.host or pod_ip
            port = _port(g.port, ports)
            url = f"{(g.scheme or 'HTTP').lower()}://{host}:{port}{g.path or '/'}"
            if hung:
                return f'Get "{url}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)'
            return f'Get "{url}": dial tcp {host}:{port}: connect: connection refused'
        if h.tcp_socket is not None:
            t = h.tcp_socket
            addr = f"{t.host or pod_ip}:{_port(t.port, ports)}"
            return f"dial tcp {addr}: i/o timeout" if hung else f"dial tcp {addr}: connect: connection refused"
        if h.grpc is not None:
            addr = f"{pod_ip}:{h.grpc.port}"
            if hung:
                return f'timeout: health rpc did not complete within {self.timeout:g}s'
            return f'timeout: failed to connect service "{addr}" within {self.timeout:g}s'
        cmd = " ".join((h.exec.command if h.exec is not None else None) or ())
        if hung:
            return f'command timed out: "{cmd}" timed out after {self.timeout:g}s'
        return ""


def _port(port: Any, ports: Mapping[str, int]) -> Any:
    if isinstance(port, str) and not port.isdigit():
        return ports.get(port, port)
    return port


class ProbeOutcome:
    """What one probe run changed. ``failed_message`` is set for every failed run (an Unhealthy event);
    ``flipped`` when the worker's result changed (to ``result``)."""

    __slots__ = ("failed_message", "flipped", "result")

    def __init__(self, result: bool | None, flipped: bool, failed_message: str | None) -> None:
        self.result = result
        self.flipped = flipped
        self.failed_message = failed_message


class ProbeWorker:
    """One probe of one container run (upstream ``worker``). Invariant: ``next_at`` is the absolute time
    of the next run that can change anything, or None when nothing ever will (or on hold)."""

    __slots__ = ("count", "files", "last_ok", "next_at", "on_hold", "origin", "result", "rule", "spec",
                 "started_at")

    def __init__(self, spec: ProbeSpec, started_at: float, *, origin: float | None = None, gated: bool,
                 files: tuple[tuple[float, str, bool], ...] = ()) -> None:
        """``started_at``: the container run's start; ``origin``: the phase of the ticks (the pod's admission
        on the node, where upstream's worker starts its ticker; defaults to ``started_at``)."""
        self.spec = spec
        self.files = files
        rule = spec.exec_rule
        # a file check is answered by the script's files only when the script touches that path
        if rule is not None and rule[0] == "file" and not any(p == rule[1] for _, p, _ in files):
            rule = None
        self.rule = rule
        self.started_at = started_at
        self.origin = started_at if origin is None else origin
        self.result: bool | None = None if spec.kind == STARTUP else spec.kind == LIVENESS
        self.last_ok: bool | None = None
        self.count = 0
        self.on_hold = False
        # A gated worker (liveness/readiness behind a startup probe) is armed by ``ungate``.
        self.next_at: float | None = None if gated else self._first(started_at)

    def title(self) -> str:
        return _TITLE[self.spec.kind]

    def ungate(self, now: float) -> None:
        """The startup probe succeeded at ``now``: run from the next tick (readiness: at once, triggered)."""
        if self.next_at is None and not self.on_hold:
            self.next_at = self._first(now)

    def _first(self, now: float) -> float:
        """The first run once the container is running (and started) at ``now``: readiness is triggered at
        once when no initial delay holds it back (``UpdatePodStatus``'s manual trigger); otherwise the first
        tick after ``now``."""
        if self.spec.kind == READINESS and now - self.started_at >= self.spec.initial_delay:
            return now
        return self._tick_after(now)

    def _tick_after(self, t: float) -> float:
        """The first tick after ``t`` at which the worker probes (see the module docstring)."""
        spec = self.spec
        k = math.floor((t - self.origin) / spec.period + 1e-9) + 1
        return self._tick_at_or_after(self.origin + k * spec.period)

    def _tick_at_or_after(self, t: float) -> float:
        """The first tick at or after ``t`` at which the worker probes: past the container's start instant and
        not held back by ``initialDelaySeconds`` (doProbe's ``time.Since(startedAt) < InitialDelaySeconds``)."""
        spec = self.spec
        t = max(t, self.started_at + spec.initial_delay)
        k = max(1, math.ceil((t - self.origin) / spec.period - 1e-9))
        at = self.origin + k * spec.period
        if at - self.started_at < 1e-9:
            at += spec.period  # the start instant itself: the container is not running in the status yet
        return at

    @staticmethod
    def truth(kind: str, profile: ImageProfile, elapsed: float) -> tuple[bool, bool]:
        """``(ok, hung)`` for a probe of ``kind`` ``elapsed`` seconds after the container started."""
        hang = profile.hang_after
        if hang is not None and elapsed >= hang:
            return False, True
        threshold = profile.ready_after if kind == READINESS else profile.healthy_from()
        return elapsed >= threshold, False

    def _answer(self, profile: ImageProfile, elapsed: float) -> tuple[bool, bool]:
        rule = self.rule
        if rule is None:
            return self.truth(self.spec.kind, profile, elapsed)
        hang = profile.hang_after
        if hang is not None and elapsed >= hang:
            return False, True
        if rule[0] == "fixed":
            return bool(rule[1]), False
        return file_exists(self.files, str(rule[1]), elapsed), False

    def _next_change(self, profile: ImageProfile, elapsed: float) -> float | None:
        """Seconds after start at which this probe's answer next changes after ``elapsed``, or None."""
        rule = self.rule
        if rule is not None:
            hang = profile.hang_after
            nxt = None
            if rule[0] == "file":
                now_ok = file_exists(self.files, str(rule[1]), elapsed)
                for t, p, _ in self.files:
                    if t > elapsed and p == rule[1] and file_exists(self.files, p, t) != now_ok:
                        nxt = t
                        break
            if hang is not None and elapsed < hang and (nxt is None or hang < nxt):
                nxt = hang
            return nxt
        threshold = profile.ready_after if self.spec.kind == READINESS else profile.healthy_from()
        hang = profile.hang_after
        if elapsed < threshold and (hang is None or threshold < hang):
            return threshold
        if hang is not None and elapsed < hang:
            return hang
        return None

    def run(self, now: float, profile: ImageProfile, pod_ip: str, ports: Mapping[str, int]) -> ProbeOutcome:
        """Run the probe due at ``now`` (the caller checks ``next_at <= now``) and schedule the next."""
        spec = self.spec
        elapsed = now - self.started_at
        ok, hung = self._answer(profile, elapsed)
        if ok == self.last_ok:
            self.count += 1
        else:
            self.last_ok, self.count = ok, 1
        before = self.result
        if ok and self.count >= spec.success_threshold:
            self.result = True
        elif not ok and self.count >= spec.failure_threshold:
            self.result = False
        flipped = before != self.result
        message = None if ok else spec.failure_message(pod_ip, ports, hung)
        if not ok and not self.result and spec.kind in (LIVENESS, STARTUP) and flipped:
            self.on_hold = True
            self.next_at = None
        elif ok and self.result and spec.kind != STARTUP:
            # settled on success: nothing happens until the answer changes
            change = self._next_change(profile, elapsed)
            self.next_at = None if change is None else self._tick_at_or_after(self.started_at + change)
        elif ok and self.result and spec.kind == STARTUP:
            self.next_at = None  # upstream stops running a startup probe once it succeeded
        else:
            # failing (or not yet settled): every run matters, and each failure is an Unhealthy event
            self.next_at = self._tick_after(now)
        return ProbeOutcome(self.result, flipped, message)
