"""Derived status strings kubectl computes on the client side, shared by ``get`` and ``describe``.

Follows ``pkg/printers/internalversion/printers.go``: :func:`pod_summary` is ``printPod``'s READY,
STATUS and RESTARTS logic (init containers, sidecars, waiting/terminated reasons, ``Completed`` with a
container still running, ``Terminating``, ``Unknown`` for pods on a lost node); :func:`node_status` is
``printNode``'s STATUS (``Ready``/``NotReady``/``Unknown`` plus ``SchedulingDisabled``) and
:func:`node_roles` its ROLES. Pure functions of the object; they never mutate it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

__all__ = ["PodSummary", "format_labels", "format_selector", "layout_containers", "node_roles", "node_status",
           "pod_summary"]

Obj = Mapping[str, Any]


class PodSummary(NamedTuple):
    ready: int
    total: int
    reason: str
    restarts: int
    #: finishedAt of the latest restart (for "3 (45s ago)"), or None
    last_restart: str | None


def _restartable(container: Obj | None) -> bool:
    return container is not None and container.get("restartPolicy") == "Always"


def _cond_true(st: Obj, type_: str) -> bool:
    return any(c.get("type") == type_ and c.get("status") == "True" for c in st.get("conditions") or ())


def _later(a: str | None, b: str | None) -> str | None:
    # RFC 3339 UTC timestamps of one precision compare correctly as strings
    if b is None:
        return a
    return b if a is None or b > a else a


def _terminated_reason(term: Obj, prefix: str) -> str:
    if term.get("reason"):
        return prefix + str(term["reason"])
    if term.get("signal"):
        return f"{prefix}Signal:{term['signal']}"
    return f"{prefix}ExitCode:{term.get('exitCode', 0)}"


def pod_summary(pod: Obj) -> PodSummary:
    """``printPod``: (ready containers, total, STATUS, restarts, last restart time)."""
    st: Obj = pod.get("status") or {}
    spec: Obj = pod.get("spec") or {}
    meta: Obj = pod.get("metadata") or {}
    phase = str(st.get("phase") or "")
    reason = str(st.get("reason") or phase)
    for c in st.get("conditions") or ():
        if c.get("type") == "PodScheduled" and c.get("reason") == "SchedulingGated":
            reason = "SchedulingGated"
    inits = {c.get("name"): c for c in spec.get("initContainers") or ()}
    total = len(spec.get("containers") or ()) + sum(1 for c in inits.values() if _restartable(c))
    ready = restarts = sidecar_restarts = 0
    last: str | None = None
    sidecar_last: str | None = None
    initializing = False
    init_statuses = st.get("initContainerStatuses") or ()
    for i, cs in enumerate(init_statuses):
        restarts += int(cs.get("restartCount") or 0)
        finished = ((cs.get("lastState") or {}).get("terminated") or {}).get("finishedAt")
        last = _later(last, finished)
        sidecar = _restartable(inits.get(cs.get("name")))
        if sidecar:
            sidecar_restarts += int(cs.get("restartCount") or 0)
            sidecar_last = _later(sidecar_last, finished)
        state = cs.get("state") or {}
        term, wait = state.get("terminated"), state.get("waiting")
        if term is not None and term.get("exitCode", 0) == 0:
            continue
        if sidecar and cs.get("started"):
            ready += 1 if cs.get("ready") else 0
            continue
        if term is not None:
            reason = _terminated_reason(term, "Init:")
        elif wait is not None and wait.get("reason") and wait.get("reason") != "PodInitializing":
            reason = "Init:" + str(wait["reason"])
        else:
            reason = f"Init:{i}/{len(inits)}"
        initializing = True
        break
    if not initializing or _cond_true(st, "Initialized"):
        restarts, last = sidecar_restarts, sidecar_last
        has_running = False
        for cs in reversed(st.get("containerStatuses") or ()):
            restarts += int(cs.get("restartCount") or 0)
            last = _later(last, ((cs.get("lastState") or {}).get("terminated") or {}).get("finishedAt"))
            state = cs.get("state") or {}
            term, wait = state.get("terminated"), state.get("waiting")
            if wait is not None and wait.get("reason"):
                reason = str(wait["reason"])
            elif term is not None:
                reason = _terminated_reason(term, "")
            elif cs.get("ready") and state.get("running") is not None:
                has_running = True
                ready += 1
        if reason == "Completed" and has_running:
            reason = "Running" if _cond_true(st, "Ready") else "NotReady"
    if meta.get("deletionTimestamp") and st.get("reason") == "NodeLost":
        reason = "Unknown"
    elif meta.get("deletionTimestamp") and phase not in ("Succeeded", "Failed"):
        reason = "Terminating"
    return PodSummary(ready, total, reason, restarts, last)


def node_status(node: Obj) -> str:
    """``printNode`` STATUS: the Ready condition as Ready/NotReady (Unknown without one), then
    SchedulingDisabled for a cordoned node."""
    out = []
    for c in (node.get("status") or {}).get("conditions") or ():
        if c.get("type") == "Ready":
            out = ["Ready" if c.get("status") == "True" else "NotReady"]
    if not out:
        out = ["Unknown"]
    if (node.get("spec") or {}).get("unschedulable"):
        out.append("SchedulingDisabled")
    return ",".join(out)


def node_roles(node: Obj) -> str:
    """``findNodeRoles``: ``node-role.kubernetes.io/<role>`` keys and the ``kubernetes.io/role`` value."""
    roles = set()
    for k, v in ((node.get("metadata") or {}).get("labels") or {}).items():
        if k.startswith("node-role.kubernetes.io/") and k[len("node-role.kubernetes.io/"):]:
            roles.add(k[len("node-role.kubernetes.io/"):])
        elif k == "kubernetes.io/role" and v:
            roles.add(str(v))
    return ",".join(sorted(roles)) or "<none>"


def format_labels(labels: Mapping[str, Any] | None) -> str:
    """``labels.FormatLabels``: sorted ``k=v`` pairs, ``<none>`` when empty."""
    if not labels:
        return "<none>"
    return ",".join(f"{k}={labels[k]}" for k in sorted(labels))


def format_selector(sel: Obj | None) -> str:
    """``metav1.LabelSelectorAsSelector(...).String()``: requirements sorted by key; an empty selector
    matches everything (printed as ``<none>`` by the table printers, which pass through "")."""
    if not sel:
        return "<none>"
    reqs: list[tuple[str, str]] = []
    for k, v in (sel.get("matchLabels") or {}).items():
        reqs.append((k, f"{k}={v}"))
    for e in sel.get("matchExpressions") or ():
        key, op, vals = e.get("key", ""), e.get("operator", ""), sorted(e.get("values") or ())
        text = {"In": f"{key} in ({','.join(vals)})", "NotIn": f"{key} notin ({','.join(vals)})",
                "Exists": key, "DoesNotExist": f"!{key}"}.get(op, f"{key} {op}")
        reqs.append((key, text))
    return ",".join(t for _, t in sorted(reqs)) or "<none>"


def layout_containers(containers: Sequence[Obj]) -> tuple[str, str]:
    """``layoutContainerCells``: (names, images), comma-joined."""
    return (",".join(str(c.get("name", "")) for c in containers),
            ",".join(str(c.get("image", "")) for c in containers))
