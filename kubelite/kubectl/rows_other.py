"""``kubectl get`` rows for the networking, policy, RBAC, storage, coordination and scheduling kinds.

Each function follows the same-named ``print*`` in ``pkg/printers/internalversion/printers.go`` (the table
the apiserver serves; it always prints wide, so the priority-1 cells are always there): ``printIngress``,
``printIngressClass``, ``printNetworkPolicy``, ``printResourceQuota``, ``printServiceAccount``,
``printRoleBinding``/``printClusterRoleBinding`` (``rbac.SubjectsStrings``), ``printStorageClass``,
``printLease``, ``printPriorityClass``, ``printControllerRevision``. Same contract as
:mod:`kubelite.kubectl.rows_core`: the object as the API returns it, the virtual ``now`` and ``wide`` in, the
cells out; the object is never mutated.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubelite.kubectl.status import format_selector
from kubelite.kubectl.timefmt import since

__all__ = ["ROWS"]

Obj = Mapping[str, Any]


def _meta(o: Obj) -> Obj:
    return o.get("metadata") or {}


def _name(o: Obj) -> str:
    return str(_meta(o).get("name", ""))


def _age(o: Obj, now: float) -> str:
    return since(_meta(o).get("creationTimestamp"), now)


def _hosts(rules: list[Obj]) -> str:
    """``formatHosts``: up to three hosts, ``*`` when no rule names one, ``+ N more...`` past three."""
    hosts: list[str] = []
    more = False
    for rule in rules:
        if len(hosts) == 3:
            more = True
        if not more and rule.get("host"):
            hosts.append(str(rule["host"]))
    if not hosts:
        return "*"
    text = ",".join(hosts)
    return f"{text} + {len(rules) - 3} more..." if more else text


def ingress_row(i: Obj, now: float, wide: bool) -> list[str]:
    spec = i.get("spec") or {}
    lb = ((i.get("status") or {}).get("loadBalancer") or {}).get("ingress") or ()
    address = ",".join(str(x.get("ip") or x.get("hostname") or "") for x in lb if x.get("ip") or x.get("hostname"))
    return [_name(i), str(spec.get("ingressClassName") or "<none>"), _hosts(list(spec.get("rules") or ())), address,
            "80, 443" if spec.get("tls") else "80", _age(i, now)]


def ingressclass_row(c: Obj, now: float, wide: bool) -> list[str]:
    spec = c.get("spec") or {}
    params = "<none>"
    p = spec.get("parameters")
    if p:
        params = str(p.get("kind", "")) + (f".{p['apiGroup']}" if p.get("apiGroup") else "") + f"/{p.get('name', '')}"
    return [_name(c), str(spec.get("controller", "")), params, _age(c, now)]


def networkpolicy_row(n: Obj, now: float, wide: bool) -> list[str]:
    selector = (n.get("spec") or {}).get("podSelector") or {}
    return [_name(n), format_selector(selector), _age(n, now)]


def resourcequota_row(q: Obj, now: float, wide: bool) -> list[str]:
    """``used/hard`` for every ``status.hard`` resource, ``limits.*`` in LIMIT, the rest in REQUEST."""
    status = q.get("status") or {}
    hard, used = status.get("hard") or {}, status.get("used") or {}
    request: list[str] = []
    limit: list[str] = []
    for r in sorted(hard):
        (limit if r.split(".")[0] == "limits" and "." in r else request).append(f"{r}: {used.get(r, '0')}/{hard[r]}")
    return [_name(q), ", ".join(request), ", ".join(limit), _age(q, now)]


def serviceaccount_row(s: Obj, now: float, wide: bool) -> list[str]:
    return [_name(s), str(len(s.get("secrets") or ())), _age(s, now)]


def rolebinding_row(b: Obj, now: float, wide: bool) -> list[str]:
    ref = b.get("roleRef") or {}
    row = [_name(b), f"{ref.get('kind', '')}/{ref.get('name', '')}", _age(b, now)]
    if wide:
        users: list[str] = []
        groups: list[str] = []
        sas: list[str] = []
        for s in b.get("subjects") or ():
            kind = s.get("kind")
            if kind == "ServiceAccount":
                sas.append(f"{s.get('namespace', '')}/{s.get('name', '')}")
            elif kind == "User":
                users.append(str(s.get("name", "")))
            elif kind == "Group":
                groups.append(str(s.get("name", "")))
        row += [", ".join(users), ", ".join(groups), ", ".join(sas)]
    return row


def storageclass_row(c: Obj, now: float, wide: bool) -> list[str]:
    annotations = _meta(c).get("annotations") or {}
    default = "true" in (annotations.get("storageclass.kubernetes.io/is-default-class"),
                         annotations.get("storageclass.beta.kubernetes.io/is-default-class"))
    return [_name(c) + (" (default)" if default else ""), str(c.get("provisioner", "")),
            str(c.get("reclaimPolicy") or "Delete"), str(c.get("volumeBindingMode") or "Immediate"),
            "true" if c.get("allowVolumeExpansion") else "false", _age(c, now)]


def lease_row(le: Obj, now: float, wide: bool) -> list[str]:
    return [_name(le), str((le.get("spec") or {}).get("holderIdentity") or ""), _age(le, now)]


def priorityclass_row(p: Obj, now: float, wide: bool) -> list[str]:
    """PreemptionPolicy is a priority-0 column written only when printing wide, which the server always does."""
    return [_name(p), str(int(p.get("value") or 0)), "true" if p.get("globalDefault") else "false", _age(p, now),
            str(p.get("preemptionPolicy") or "")]


def controllerrevision_row(r: Obj, now: float, wide: bool) -> list[str]:
    controller = "<none>"
    for ref in _meta(r).get("ownerReferences") or ():
        if ref.get("controller"):
            api_version = str(ref.get("apiVersion", ""))
            group = api_version.rpartition("/")[0] if "/" in api_version else ""
            kind = str(ref.get("kind", "")).lower()
            controller = f"{kind}.{group}/{ref.get('name', '')}" if group else f"{kind}/{ref.get('name', '')}"
            break
    return [_name(r), controller, str(int(r.get("revision") or 0)), _age(r, now)]


_BINDING_COLUMNS = (("NAME", "ROLE", "AGE"), ("USERS", "GROUPS", "SERVICEACCOUNTS"), rolebinding_row)

#: resource -> (columns, wide columns, row function), as rows_core.ROWS
ROWS: dict[str, tuple[tuple[str, ...], tuple[str, ...], Any]] = {
    "ingresses": (("NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"), (), ingress_row),
    "ingressclasses": (("NAME", "CONTROLLER", "PARAMETERS", "AGE"), (), ingressclass_row),
    "networkpolicies": (("NAME", "POD-SELECTOR", "AGE"), (), networkpolicy_row),
    "resourcequotas": (("NAME", "REQUEST", "LIMIT", "AGE"), (), resourcequota_row),
    "serviceaccounts": (("NAME", "SECRETS", "AGE"), (), serviceaccount_row),
    "rolebindings": _BINDING_COLUMNS,
    "clusterrolebindings": _BINDING_COLUMNS,
    "storageclasses": (("NAME", "PROVISIONER", "RECLAIMPOLICY", "VOLUMEBINDINGMODE", "ALLOWVOLUMEEXPANSION", "AGE"),
                       (), storageclass_row),
    "leases": (("NAME", "HOLDER", "AGE"), (), lease_row),
    "priorityclasses": (("NAME", "VALUE", "GLOBAL-DEFAULT", "AGE", "PREEMPTIONPOLICY"), (), priorityclass_row),
    "controllerrevisions": (("NAME", "CONTROLLER", "REVISION", "AGE"), (), controllerrevision_row),
}
#: each resource's API group (a printer serves its kind only in its own group)
GROUPS = {"ingresses": "networking.k8s.io", "ingressclasses": "networking.k8s.io",
          "networkpolicies": "networking.k8s.io", "resourcequotas": "", "serviceaccounts": "",
          "rolebindings": "rbac.authorization.k8s.io", "clusterrolebindings": "rbac.authorization.k8s.io",
          "storageclasses": "storage.k8s.io", "leases": "coordination.k8s.io", "priorityclasses": "scheduling.k8s.io",
          "controllerrevisions": "apps"}
