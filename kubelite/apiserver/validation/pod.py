"""Pod, PodSpec and PodTemplateSpec validation, plus upstream's pod update rules.

Follows ``pkg/apis/core/validation/validation.go``: ``ValidatePodCreate``, ``ValidatePodSpec`` (in its
order: volumes, containers, init containers, host-network ports, restartPolicy, dnsPolicy, nodeSelector,
affinity, serviceAccountName, nodeName, activeDeadlineSeconds, hostname, subdomain, tolerations,
priorityClassName, preemptionPolicy), ``ValidateVolumes``, ``ValidateTolerations``, ``validateAffinity``,
``ValidatePodTemplateSpec``, ``ValidatePodUpdate`` and ``ValidatePodStatusUpdate``.

Contract: read-only over JSON; every function returns or appends :class:`FieldError` values in upstream's
order. Out of scope (kubelite runs no real nodes): security contexts, seccomp/AppArmor annotations,
Windows host-process rules, DNS config, topology spread constraints, resource claims and pod-level
resources; ephemeral containers are only checked for presence on create.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

import msgspec

from kubelite.api import names
from kubelite.apiserver.validation.common import (
    as_dict,
    as_list,
    dns1123_label,
    label_selector,
    labels,
    memo_valid,
    qualified_name,
    quantity,
    semantic_equal,
)
from kubelite.apiserver.validation.container import validate_containers, validate_init_containers
from kubelite.apiserver.validation.meta import validate_object_meta, validate_object_meta_update
from kubelite.errors import FieldError

__all__ = [
    "UPDATABLE_POD_SPEC_FIELDS",
    "pod_status_rules",
    "validate_pod_create",
    "validate_pod_spec",
    "validate_pod_status_update",
    "validate_pod_template_spec",
    "validate_pod_update",
    "validate_tolerations",
]

_MAX_INT32: Final = 2**31 - 1
_RESTART_POLICIES: Final = ("Always", "OnFailure", "Never")
_DNS_POLICIES: Final = ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")
_TAINT_EFFECTS: Final = ("NoSchedule", "PreferNoSchedule", "NoExecute")
# Volume sources in upstream's validateVolumeSource order (the first one set wins, others are Forbidden).
_VOLUME_SOURCES: Final = (
    "emptyDir", "hostPath", "gitRepo", "gcePersistentDisk", "awsElasticBlockStore", "secret", "nfs", "iscsi",
    "glusterfs", "flocker", "persistentVolumeClaim", "rbd", "quobyte", "downwardAPI", "fc", "flexVolume", "azureFile",
    "vsphereVolume", "azureDisk", "csi", "photonPersistentDisk", "portworxVolume", "scaleIO", "projected",
    "storageos", "cinder", "cephfs", "configMap", "ephemeral", "image",
)
UPDATABLE_POD_SPEC_FIELDS: Final = ",".join((
    "`spec.containers[*].image`",
    "`spec.initContainers[*].image`",
    "`spec.activeDeadlineSeconds`",
    "`spec.tolerations` (only additions to existing tolerations)",
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
))
_MODE_MSG: Final = "must be a number between 0 and 0777 (octal), both inclusive"


def _mode(value: Any, path: str, errs: list[FieldError]) -> None:
    if isinstance(value, int) and not 0 <= value <= 0o777:
        errs.append(FieldError.invalid(path, value, _MODE_MSG))


def _volume_source(vol: Mapping[str, Any], path: str, errs: list[FieldError]) -> None:
    """``validateVolumeSource``: exactly one source, with its required fields."""
    count = 0
    for key in _VOLUME_SOURCES:
        src = vol.get(key)
        if src is None:
            continue
        p = f"{path}.{key}"
        if count:
            errs.append(FieldError.forbidden(p, "may not specify more than 1 volume type"))
            continue
        count += 1
        src = as_dict(src)
        if key == "hostPath":
            if not src.get("path"):
                errs.append(FieldError.required(f"{p}.path"))
        elif key == "secret":
            if not src.get("secretName"):
                errs.append(FieldError.required(f"{p}.secretName"))
            _mode(src.get("defaultMode"), f"{p}.defaultMode", errs)
        elif key == "configMap":
            if not src.get("name"):
                errs.append(FieldError.required(f"{p}.name"))
            _mode(src.get("defaultMode"), f"{p}.defaultMode", errs)
        elif key == "persistentVolumeClaim":
            if not src.get("claimName"):
                errs.append(FieldError.required(f"{p}.claimName"))
        elif key == "nfs":
            if not src.get("server"):
                errs.append(FieldError.required(f"{p}.server"))
            if not src.get("path"):
                errs.append(FieldError.required(f"{p}.path"))
            elif not src["path"].startswith("/"):
                errs.append(FieldError.invalid(f"{p}.path", src["path"], "must be an absolute path"))
        elif key == "emptyDir":
            limit = src.get("sizeLimit")
            if limit is not None:
                q = quantity(limit, f"{p}.sizeLimit", errs)
                if q is not None and q.sign() < 0:
                    errs.append(FieldError.forbidden(f"{p}.sizeLimit", "SizeLimit field must be a valid resource quantity"))
        elif key in ("downwardAPI", "projected"):
            _mode(src.get("defaultMode"), f"{p}.defaultMode", errs)
        elif key == "flexVolume":
            validate_flex_volume(src, p, errs)
    if count == 0:
        errs.append(FieldError.required(path, "must specify a volume type"))


def validate_flex_volume(src: Mapping[str, Any], path: str, errs: list[FieldError]) -> None:
    """``validateFlexVolumeSource`` (pods) / ``validateFlexPersistentVolumeSource`` (PVs)."""
    if not src.get("driver"):
        errs.append(FieldError.required(f"{path}.driver"))
    for key in as_dict(src.get("options")):
        namespace = key.split("/", 1)[0] if "/" in key else key
        normalized = "." + namespace.lower()
        if normalized.endswith((".kubernetes.io", ".k8s.io")):
            errs.append(FieldError.invalid(f"{path}.options[{key}]", key,
                                           "kubernetes.io and k8s.io namespaces are reserved"))


def _volumes(volumes: Sequence[Any], path: str, errs: list[FieldError]) -> dict[str, Any]:
    """``ValidateVolumes``: returns the valid volumes by name (mounts may only refer to those)."""
    valid: dict[str, Any] = {}
    for i, vol in enumerate(volumes):
        vol = as_dict(vol)
        p = f"{path}[{i}]"
        el: list[FieldError] = []
        _volume_source(vol, p, el)
        name = vol.get("name") or ""
        if not name:
            el.append(FieldError.required(f"{p}.name"))
        else:
            dns1123_label(name, f"{p}.name", el)
        if name in valid:
            el.append(FieldError.duplicate(f"{p}.name", name))
        if el:
            errs.extend(el)
        else:
            valid[name] = vol
    return valid


@memo_valid
def validate_tolerations(tolerations: Sequence[Any], path: str, errs: list[FieldError]) -> None:
    """``ValidateTolerations``."""
    for i, tol in enumerate(tolerations):
        tol = as_dict(tol)
        p = f"{path}[{i}]"
        key = tol.get("key") or ""
        operator = tol.get("operator") or ""
        effect = tol.get("effect") or ""
        value = tol.get("value") or ""
        if key:
            qualified_name(key, f"{p}.key", errs)
        if not key and operator != "Exists":
            errs.append(FieldError.invalid(
                f"{p}.operator", operator,
                'operator must be Exists when `key` is empty, which means "match all values and all keys"'))
        if tol.get("tolerationSeconds") is not None and effect != "NoExecute":
            errs.append(FieldError.invalid(f"{p}.effect", effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
        if operator in ("Equal", ""):
            msgs = names.is_valid_label_value(value)
            if msgs:
                errs.append(FieldError.invalid(f"{p}.operator", value, ";".join(msgs)))
        elif operator == "Exists":
            if value:
                errs.append(FieldError.invalid(f"{p}.operator", dict(tol), "value must be empty when `operator` is 'Exists'"))
        else:
            errs.append(FieldError.not_supported(f"{p}.operator", operator, ("Equal", "Exists")))
        if effect and effect not in _TAINT_EFFECTS:
            errs.append(FieldError.not_supported(f"{p}.effect", effect, _TAINT_EFFECTS))


def _node_selector_requirement(req: Mapping[str, Any], path: str, errs: list[FieldError]) -> None:
    """``ValidateNodeSelectorRequirement``."""
    op = req.get("operator")
    values = as_list(req.get("values"))
    if op in ("In", "NotIn"):
        if not values:
            errs.append(FieldError.required(f"{path}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
    elif op in ("Exists", "DoesNotExist"):
        if values:
            errs.append(FieldError.forbidden(
                f"{path}.values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
    elif op in ("Gt", "Lt"):
        if len(values) != 1:
            errs.append(FieldError.required(
                f"{path}.values", "must be specified single value when `operator` is 'Lt' or 'Gt'"))
    else:
        errs.append(FieldError.invalid(f"{path}.operator", op, "not a valid selector operator"))
    qualified_name(req.get("key") or "", f"{path}.key", errs)


def _node_selector_term(term: Mapping[str, Any], path: str, errs: list[FieldError]) -> None:
    for j, req in enumerate(as_list(term.get("matchExpressions"))):
        _node_selector_requirement(as_dict(req), f"{path}.matchExpressions[{j}]", errs)
    for j, req in enumerate(as_list(term.get("matchFields"))):
        req = as_dict(req)
        p = f"{path}.matchFields[{j}]"
        if req.get("key") != "metadata.name":
            errs.append(FieldError.not_supported(f"{p}.key", req.get("key"), ("metadata.name",)))


def _pod_affinity_term(term: Mapping[str, Any], path: str, errs: list[FieldError]) -> None:
    """``validatePodAffinityTerm``."""
    label_selector(term.get("labelSelector"), f"{path}.labelSelector", errs)
    label_selector(term.get("namespaceSelector"), f"{path}.namespaceSelector", errs)
    for ns in as_list(term.get("namespaces")):
        for msg in names.name_is_dns_label(ns, False):
            errs.append(FieldError.invalid(f"{path}.namespace", ns, msg))
    topology_key = term.get("topologyKey") or ""
    if not topology_key:
        errs.append(FieldError.required(f"{path}.topologyKey", "can not be empty"))
    qualified_name(topology_key, f"{path}.topologyKey", errs)


def _weighted(terms: Sequence[Any], path: str, inner: str, errs: list[FieldError]) -> None:
    for i, term in enumerate(terms):
        term = as_dict(term)
        weight = term.get("weight")
        if not isinstance(weight, int) or not 1 <= weight <= 100:
            errs.append(FieldError.invalid(f"{path}[{i}].weight", weight, "must be in the range 1-100"))
        sub = as_dict(term.get(inner))
        if inner == "preference":
            _node_selector_term(sub, f"{path}[{i}].preference", errs)
        else:
            _pod_affinity_term(sub, f"{path}[{i}].podAffinityTerm", errs)


def _affinity(affinity: Mapping[str, Any], path: str, errs: list[FieldError]) -> None:
    """``validateAffinity``: node affinity, pod affinity and anti-affinity."""
    node = affinity.get("nodeAffinity")
    if node is not None:
        node = as_dict(node)
        p = f"{path}.nodeAffinity"
        required = node.get("requiredDuringSchedulingIgnoredDuringExecution")
        if required is not None:
            rp = f"{p}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
            terms = as_list(as_dict(required).get("nodeSelectorTerms"))
            if not terms:
                errs.append(FieldError.required(rp, "must have at least one node selector term"))
            for i, term in enumerate(terms):
                _node_selector_term(as_dict(term), f"{rp}[{i}]", errs)
        preferred = as_list(node.get("preferredDuringSchedulingIgnoredDuringExecution"))
        _weighted(preferred, f"{p}.preferredDuringSchedulingIgnoredDuringExecution", "preference", errs)
    for kind in ("podAffinity", "podAntiAffinity"):
        pa = affinity.get(kind)
        if pa is None:
            continue
        pa = as_dict(pa)
        p = f"{path}.{kind}"
        for i, term in enumerate(as_list(pa.get("requiredDuringSchedulingIgnoredDuringExecution"))):
            _pod_affinity_term(as_dict(term), f"{p}.requiredDuringSchedulingIgnoredDuringExecution[{i}]", errs)
        preferred = as_list(pa.get("preferredDuringSchedulingIgnoredDuringExecution"))
        _weighted(preferred, f"{p}.preferredDuringSchedulingIgnoredDuringExecution", "podAffinityTerm", errs)


def _enum(value: Any, allowed: tuple[str, ...], path: str, errs: list[FieldError]) -> None:
    """The ``validateRestartPolicy`` / ``validateDNSPolicy`` shape: "" is Required, else NotSupported."""
    if value in allowed:
        return
    if not value:
        errs.append(FieldError.required(path))
    else:
        errs.append(FieldError.not_supported(path, value, allowed))


@memo_valid  # a pure function of (spec, path), re-run for every replica and every pod update
def validate_pod_spec(spec: Mapping[str, Any], path: str, errs: list[FieldError]) -> None:
    """``ValidatePodSpec``."""
    _validate_pod_spec(spec, path, errs)


def _validate_pod_spec(spec: Mapping[str, Any], path: str, errs: list[FieldError]) -> None:
    volumes = _volumes(as_list(spec.get("volumes")), f"{path}.volumes", errs) if spec.get("volumes") else {}
    containers = as_list(spec.get("containers"))
    validate_containers(containers, volumes, f"{path}.containers", errs)
    init = spec.get("initContainers")
    if init:
        validate_init_containers(as_list(init), containers, volumes, f"{path}.initContainers", errs)
    if spec.get("hostNetwork"):
        for i, ctr in enumerate(containers):
            for j, port in enumerate(as_list(as_dict(ctr).get("ports"))):
                port = as_dict(port)
                if port.get("hostPort") != port.get("containerPort"):
                    errs.append(FieldError.invalid(
                        f"{path}.containers[{i}].ports[{j}].containerPort", port.get("containerPort"),
                        "must match `hostPort` when `hostNetwork` is true"))
    _enum(spec.get("restartPolicy"), _RESTART_POLICIES, f"{path}.restartPolicy", errs)
    _enum(spec.get("dnsPolicy"), _DNS_POLICIES, f"{path}.dnsPolicy", errs)
    node_selector = spec.get("nodeSelector")
    if node_selector:
        labels(node_selector, f"{path}.nodeSelector", errs)
    affinity = spec.get("affinity")
    if affinity:
        _affinity(as_dict(affinity), f"{path}.affinity", errs)
    for key in ("serviceAccountName", "nodeName"):
        value = spec.get(key)
        if value:
            for msg in names.name_is_dns_subdomain(value, False):
                errs.append(FieldError.invalid(f"{path}.{key}", value, msg))
    deadline = spec.get("activeDeadlineSeconds")
    if deadline is not None and not 1 <= deadline <= _MAX_INT32:
        errs.append(FieldError.invalid(
            f"{path}.activeDeadlineSeconds", deadline, f"must be between 1 and {_MAX_INT32}, inclusive"))
    for key in ("hostname", "subdomain"):
        value = spec.get(key)
        if value:
            dns1123_label(value, f"{path}.{key}", errs)
    tolerations = spec.get("tolerations")
    if tolerations:
        validate_tolerations(as_list(tolerations), f"{path}.tolerations", errs)
    priority_class = spec.get("priorityClassName")
    if priority_class:
        for msg in names.name_is_dns_subdomain(priority_class, False):
            errs.append(FieldError.invalid(f"{path}.priorityClassName", priority_class, msg))
    preemption = spec.get("preemptionPolicy")
    if preemption is not None and preemption not in ("PreemptLowerPriority", "Never"):
        _enum(preemption, ("PreemptLowerPriority", "Never"), f"{path}.preemptionPolicy", errs)


def validate_pod_template_meta(template: Any, path: str, errs: list[FieldError]) -> None:
    """The template's labels and annotations: all that ``ValidatePodTemplateSpecForStatefulSet`` checks
    (upstream leaves the PodSpec of a StatefulSet unvalidated, its volume mounts may name claim templates)."""
    meta = as_dict(as_dict(template).get("metadata"))
    template_labels = meta.get("labels")
    if template_labels:
        labels(template_labels, f"{path}.labels", errs)
    annotations = meta.get("annotations")
    if annotations:
        errs.extend(names.validate_annotations(annotations, f"{path}.annotations"))


def validate_pod_template_spec(template: Any, path: str, errs: list[FieldError]) -> None:
    """``ValidatePodTemplateSpec``: template labels/annotations, then the PodSpec."""
    template = as_dict(template)
    validate_pod_template_meta(template, path, errs)
    spec = as_dict(template.get("spec"))
    validate_pod_spec(spec, f"{path}.spec", errs)
    if spec.get("ephemeralContainers"):
        errs.append(FieldError.forbidden(
            f"{path}.spec.ephemeralContainers", "ephemeral containers not allowed in pod template"))


def validate_pod_create_metadata(pod: Mapping[str, Any]) -> list[FieldError]:
    """The metadata half of ``ValidatePodCreate`` (the per-object part a templated create runs)."""
    return validate_object_meta(as_dict(pod.get("metadata")), namespaced=True, name_fn=names.name_is_dns_subdomain)


def validate_pod_create(pod: Mapping[str, Any]) -> list[FieldError]:
    """``ValidatePodCreate``: the metadata, then the spec."""
    errs = validate_pod_create_metadata(pod)
    spec = as_dict(pod.get("spec"))
    validate_pod_spec(spec, "spec", errs)
    if spec.get("ephemeralContainers"):
        errs.append(FieldError.forbidden("spec.ephemeralContainers", "cannot be set on create"))
    return errs


def _container_updates(new: Sequence[Any], old: Sequence[Any], path: str, errs: list[FieldError]) -> bool:
    """``ValidateContainerUpdates``; True means stop (containers were added or removed)."""
    if len(new) != len(old):
        errs.append(FieldError.forbidden(path, "pod updates may not add or remove containers"))
        return True
    for i, ctr in enumerate(new):
        image = as_dict(ctr).get("image") or ""
        if not image:
            errs.append(FieldError.required(f"{path}[{i}].image"))
        if image.strip() != image:
            errs.append(FieldError.invalid(f"{path}[{i}].image", image, "must not have leading or trailing whitespace"))
    return False


def _only_added_tolerations(new: Sequence[Any], old: Sequence[Any], path: str, errs: list[FieldError]) -> None:
    """``validateOnlyAddedTolerations``: every old toleration is still there (tolerationSeconds may change)."""
    def strip(t: Any) -> dict[str, Any]:
        return {k: v for k, v in as_dict(t).items() if k != "tolerationSeconds"}

    stripped_new = [strip(t) for t in new]
    for t in old:
        if strip(t) not in stripped_new:
            errs.append(FieldError.forbidden(path, "existing toleration can not be modified except its tolerationSeconds"))
            return
    validate_tolerations(new, path, errs)


def _spec_diff(old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    """A short stand-in for upstream's ``cmp.Diff`` of the two specs: one -/+ pair per changed field."""
    lines = ["  core.PodSpec{"]
    for key in sorted({*old, *new}):
        if old.get(key) != new.get(key):
            if key in old:
                lines.append(f"- \t{key}: {msgspec.json.encode(old[key]).decode()},")
            if key in new:
                lines.append(f"+ \t{key}: {msgspec.json.encode(new[key]).decode()},")
    lines.append("  }")
    return "\n".join(lines)


def _with_old_images(new: Sequence[Any], old: Sequence[Any]) -> list[dict[str, Any]]:
    out = []
    for c, o in zip(new, old):
        munged = dict(as_dict(c))
        o = as_dict(o)
        if "image" in o:
            munged["image"] = o["image"]
        else:
            munged.pop("image", None)
        out.append(munged)
    return out


def validate_pod_update(pod: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """``ValidatePodUpdate``: metadata rules, the new spec's own validity, then only images,
    activeDeadlineSeconds, added tolerations and a negative grace period set to 1 may change."""
    errs = validate_object_meta_update(as_dict(pod.get("metadata")), as_dict(old.get("metadata")))
    spec = as_dict(pod.get("spec"))
    old_spec = as_dict(old.get("spec"))
    validate_pod_spec(spec, "spec", errs)
    containers = as_list(spec.get("containers"))
    old_containers = as_list(old_spec.get("containers"))
    if _container_updates(containers, old_containers, "spec.containers", errs):
        return errs
    init = as_list(spec.get("initContainers"))
    old_init = as_list(old_spec.get("initContainers"))
    if _container_updates(init, old_init, "spec.initContainers", errs):
        return errs
    deadline = spec.get("activeDeadlineSeconds")
    old_deadline = old_spec.get("activeDeadlineSeconds")
    if deadline is not None:
        if not 0 <= deadline <= _MAX_INT32:
            errs.append(FieldError.invalid(
                "spec.activeDeadlineSeconds", deadline, f"must be between 0 and {_MAX_INT32}, inclusive"))
            return errs
        if old_deadline is not None and old_deadline < deadline:
            errs.append(FieldError.invalid("spec.activeDeadlineSeconds", deadline, "must be less than or equal to previous value"))
            return errs
    elif old_deadline is not None:
        errs.append(FieldError.invalid("spec.activeDeadlineSeconds", None, "must not update from a positive integer to nil value"))
    _only_added_tolerations(as_list(spec.get("tolerations")), as_list(old_spec.get("tolerations")), "spec.tolerations", errs)
    if semantic_equal(spec, old_spec):
        return errs
    munged = dict(spec)
    munged["containers"] = _with_old_images(containers, old_containers)
    if "initContainers" in spec:
        munged["initContainers"] = _with_old_images(init, old_init)
    for key in ("activeDeadlineSeconds", "tolerations"):
        if key in old_spec:
            munged[key] = old_spec[key]
        else:
            munged.pop(key, None)
    old_grace = old_spec.get("terminationGracePeriodSeconds")
    if isinstance(old_grace, int) and old_grace < 0 and munged.get("terminationGracePeriodSeconds") == 1:
        munged["terminationGracePeriodSeconds"] = old_grace
    if not semantic_equal(munged, old_spec):
        errs.append(FieldError.forbidden(
            "spec",
            f"pod updates may not change fields other than {UPDATABLE_POD_SPEC_FIELDS}\n{_spec_diff(old_spec, munged)}",
        ))
    return errs


def validate_pod_status_update(pod: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """``ValidatePodStatusUpdate``: metadata rules, nodeName untouched, a valid nominatedNodeName and
    valid pod IPs."""
    errs = validate_object_meta_update(as_dict(pod.get("metadata")), as_dict(old.get("metadata")))
    pod_status_rules(pod, old, errs)
    return errs


def pod_status_rules(pod: Mapping[str, Any], old: Mapping[str, Any], errs: list[FieldError]) -> None:
    """What ``ValidatePodStatusUpdate`` checks besides the metadata rules (the heartbeat write path runs
    only these when the metadata is unchanged: ``kubelite.apiserver.heartbeat``)."""
    if as_dict(pod.get("spec")).get("nodeName") != as_dict(old.get("spec")).get("nodeName"):
        errs.append(FieldError.forbidden("status.nodeName", "may not be changed directly"))
    status = as_dict(pod.get("status"))
    nominated = status.get("nominatedNodeName")
    if nominated and nominated != as_dict(old.get("status")).get("nominatedNodeName"):
        for msg in names.name_is_dns_subdomain(nominated, False):
            errs.append(FieldError.invalid("status.nominatedNodeName", nominated, msg))
    pod_ips = as_list(status.get("podIPs"))
    seen: set[str] = set()
    for i, entry in enumerate(pod_ips):
        ip = as_dict(entry).get("ip") or ""
        for msg in names.is_valid_ip(ip):
            errs.append(FieldError.invalid(f"status.podIPs[{i}]", ip, msg))
        if ip in seen:
            errs.append(FieldError.duplicate(f"status.podIPs[{i}]", ip))
        seen.add(ip)
