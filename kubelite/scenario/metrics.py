"""The seed's monitoring metrics, computed from what a run observed.

- **Pod startup latency**: from a pod's creation to its first ``Running`` phase and to its first
  ``Ready`` condition, as the informers saw them on the cluster clock (sub-second, unlike the API's
  second-resolution timestamps); p50/p90/p99 by nearest rank (upstream's e2e ``podStartup`` SLI
  measures creation → Running the same way).
- **Scheduling success rate**: scheduled attempts over all attempts (the scheduler's
  ``schedule_attempts_total`` by result), plus how many pods ever got a node.
- **Time for replicas to converge**: for each Deployment and StatefulSet, every span from the moment
  it stopped being converged (created, scaled, template changed, a replica lost) to the moment
  ``observedGeneration`` caught up and ready = updated = available = desired replicas; recorded
  exactly as the informer delivers the status change.
- **Traffic success rate**: answered requests over sent, overall and per Service.

All values are plain numbers in nested dicts (JSON-ready, and addressable from expressions as
``metrics.traffic.success_rate``, ``metrics.pod_startup.ready.p99``, ...).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from kubelite.informer import ResourceEventHandlerFuncs

__all__ = ["ConvergenceTracker", "LazyMetrics", "compute_metrics", "lazy_metrics", "percentiles"]


def percentiles(values: Iterable[float]) -> dict[str, float | int]:
    v = sorted(values)
    n = len(v)
    if not n:
        return {"count": 0}

    def rank(p: float) -> float:
        return round(v[max(0, math.ceil(p / 100 * n) - 1)], 3)

    return {"count": n, "p50": rank(50), "p90": rank(90), "p99": rank(99), "max": round(v[-1], 3)}


def _converged(obj: dict[str, Any], kind: str) -> bool:
    meta, spec, st = obj["metadata"], obj.get("spec") or {}, obj.get("status") or {}
    want = spec.get("replicas", 1)
    if st.get("observedGeneration", 0) < meta.get("generation", 0):
        return False
    if kind == "deployment":
        return bool(st.get("replicas", 0) == st.get("updatedReplicas", 0) == st.get("readyReplicas", 0)
                    == st.get("availableReplicas", 0) == want)
    return bool(st.get("readyReplicas", 0) == st.get("updatedReplicas", st.get("readyReplicas", 0)) == want
                and st.get("replicas", 0) == want)


class ConvergenceTracker:
    """Spans of non-convergence per workload, from informer notifications (see the module docstring)."""

    def __init__(self, view: Any) -> None:
        self.view = view
        self.spans: dict[str, list[float]] = {}
        self.open: dict[str, float] = {}
        for kind, resource in (("deployment", "deployments"), ("statefulset", "statefulsets")):
            view.informers[resource].add_event_handler(self._handler(kind))

    def _handler(self, kind: str) -> ResourceEventHandlerFuncs:
        def on_add(obj: Any) -> None:
            self._seen(kind, obj)

        def on_update(old: Any, new: Any) -> None:
            self._seen(kind, new)

        def on_delete(obj: Any) -> None:
            self._gone(kind, obj)

        return ResourceEventHandlerFuncs(on_add=on_add, on_update=on_update, on_delete=on_delete)

    def _key(self, kind: str, obj: Any) -> str:
        meta = getattr(obj, "obj", obj)["metadata"]
        return f"{kind}/{meta.get('namespace')}/{meta['name']}"

    def _seen(self, kind: str, obj: dict[str, Any]) -> None:
        key = self._key(kind, obj)
        now = self.view.t()
        self.spans.setdefault(key, [])
        if _converged(obj, kind):
            start = self.open.pop(key, None)
            if start is not None:
                self.spans[key].append(round(now - start, 3))
        elif key not in self.open:
            self.open[key] = now

    def _gone(self, kind: str, obj: Any) -> None:
        self.open.pop(self._key(kind, obj), None)

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key in sorted(self.spans):
            spans = self.spans[key]
            out[key] = {"count": len(spans), "last": spans[-1] if spans else None,
                        "max": max(spans) if spans else None, "converged": key not in self.open}
        return out


def _counts(h: Any) -> tuple[int, int, dict[str, int]]:
    """(sent, succeeded, errors) of one traffic stream. ``TrafficHandle.report()`` rebuilds its per-second
    table on every call (O(run length)); checking ``always`` expectations every second would make a run
    quadratic, so the running totals are read directly while the handle offers no O(1) accessor."""
    totals = getattr(h, "totals", None)
    if callable(totals):
        sent, ok, errors = totals()
        return int(sent), int(ok), dict(errors)
    ok_list, bad_list, errs = getattr(h, "_ok", None), getattr(h, "_bad", None), getattr(h, "_errors", None)
    if isinstance(ok_list, list) and isinstance(bad_list, list) and isinstance(errs, dict):
        ok = sum(ok_list)
        return ok + sum(bad_list), ok, dict(errs)
    rep = h.report()
    return rep.sent, rep.succeeded, dict(rep.errors)


def _traffic(handles: Mapping[str, Sequence[Any]]) -> dict[str, Any]:
    by_service: dict[str, Any] = {}
    sent = ok = 0
    errors: dict[str, int] = {}
    for key in sorted(handles):
        s_sent = s_ok = 0
        s_err: dict[str, int] = {}
        for h in handles[key]:
            h_sent, h_ok, h_errors = _counts(h)
            s_sent += h_sent
            s_ok += h_ok
            for reason, n in h_errors.items():
                s_err[reason] = s_err.get(reason, 0) + n
        by_service[key] = {"sent": s_sent, "succeeded": s_ok, "failed": s_sent - s_ok,
                           "success_rate": round(s_ok / s_sent, 6) if s_sent else None,
                           "errors": dict(sorted(s_err.items()))}
        sent += s_sent
        ok += s_ok
        for reason, n in s_err.items():
            errors[reason] = errors.get(reason, 0) + n
    return {"sent": sent, "succeeded": ok, "failed": sent - ok,
            "success_rate": round(ok / sent, 6) if sent else None, "errors": dict(sorted(errors.items())),
            "by_service": by_service}


class LazyMetrics(Mapping[str, Any]):
    """The metrics mapping expressions read: each section is computed on first access (an expectation on
    ``metrics.traffic`` does not pay for the startup percentiles every second)."""

    def __init__(self, sections: dict[str, Callable[[], Any]]) -> None:
        self._sections = sections
        self._values: dict[str, Any] = {}

    def __getitem__(self, key: str) -> Any:
        if key not in self._values:
            self._values[key] = self._sections[key]()
        return self._values[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._sections)

    def __len__(self) -> int:
        return len(self._sections)


def lazy_metrics(view: Any, *, scheduler: Any, convergence: ConvergenceTracker,
                 traffic: Callable[[], Mapping[str, Sequence[Any]]]) -> LazyMetrics:
    sections: dict[str, Callable[[], Any]] = {
        "pod_startup": lambda: _startup(view),
        "scheduling": lambda: _scheduling(view, scheduler),
        "convergence": convergence.summary,
        "traffic": lambda: _traffic(traffic()),
    }
    if scheduler is None:
        del sections["scheduling"]
    return LazyMetrics(sections)


def _startup(view: Any) -> dict[str, Any]:
    running = [tr.running - tr.created for tr in view.pods.values() if tr.running is not None]
    ready = [tr.ready - tr.created for tr in view.pods.values() if tr.ready is not None]
    return {"running": percentiles(running), "ready": percentiles(ready)}


def _scheduling(view: Any, scheduler: Any) -> dict[str, Any]:
    st = scheduler.statistics()
    attempts = dict(sorted(st.attempts.items()))
    total = sum(attempts.values())
    pods = view.list("pods")
    bound = sum(1 for p in pods if (p.get("spec") or {}).get("nodeName"))
    return {
        "attempts": attempts, "success_rate": round(st.scheduled / total, 6) if total else None,
        "pods_scheduled": bound, "pods_unscheduled": len(pods) - bound,
        "preemption_attempts": st.preemption_attempts, "preemption_victims": st.preemption_victims,
    }


def compute_metrics(view: Any, *, scheduler: Any, convergence: ConvergenceTracker,
                    traffic: Mapping[str, Sequence[Any]]) -> dict[str, Any]:
    """Every section, computed now (for the final result)."""
    m = lazy_metrics(view, scheduler=scheduler, convergence=convergence, traffic=lambda: traffic)
    return {k: m[k] for k in m}
