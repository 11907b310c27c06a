"""resource.k8s.io/v1 (dynamic resource allocation) validation, after upstream's
``pkg/apis/resource/validation/validation.go``: DeviceClass, ResourceClaim, ResourceClaimTemplate and
ResourceSlice.

Contract: the functions read defaulted v1 JSON dicts and return :class:`~kubelite.errors.FieldError`
values in upstream's order. Covered: names, request names and their uniqueness, exactly one of
``exactly``/``firstAvailable``, device class names, allocation modes and counts, CEL selectors present,
constraints naming existing requests, opaque configuration (driver, JSON object parameters), the
ResourceSlice's pool, its exactly-one node selection, device names and attributes (one value each, qualified
names), list limits, and the immutability of a claim's (and a template's) spec. Not covered: compiling
the CEL selector expressions (the ``cel`` helper's library), capacity request policies, device taints'
time fields and the partitionable-device counter consistency rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubelite.api import names
from kubelite.apiserver.validation.common import as_dict
from kubelite.apiserver.validation.meta import validate_object_meta, validate_object_meta_update
from kubelite.errors import FieldError

__all__ = [
    "validate_device_class", "validate_device_class_update", "validate_resource_claim",
    "validate_resource_claim_status_update", "validate_resource_claim_template",
    "validate_resource_claim_template_update", "validate_resource_claim_update", "validate_resource_slice",
    "validate_resource_slice_update",
]

MAX_REQUESTS = 32
MAX_SELECTORS = 32
MAX_CONFIGS = 32
MAX_CONSTRAINTS = 32
MAX_SUBREQUESTS = 8
MAX_DEVICES_PER_SLICE = 128
MAX_ATTRIBUTES_AND_CAPACITIES = 32
MAX_DRIVER_NAME = 63
_ALLOCATION_MODES = ("All", "ExactCount")
_VALUE_KEYS = ("bool", "int", "string", "version")


def _list(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def _subdomain_name(name: str, prefix: bool) -> list[str]:
    return names.name_is_dns_subdomain(name, prefix)


def _driver(path: str, driver: Any) -> list[FieldError]:
    """validateDriverName: a DNS subdomain of at most 63 bytes."""
    if not isinstance(driver, str) or not driver:
        return [FieldError.required(path)]
    errs = []
    if len(driver) > MAX_DRIVER_NAME:
        errs.append(FieldError.too_long(path, driver, MAX_DRIVER_NAME))
    errs.extend(FieldError.invalid(path, driver, m) for m in names.is_dns1123_subdomain(driver.lower()))
    if driver != driver.lower():
        errs.append(FieldError.invalid(path, driver, "must be a DNS subdomain (lowercase)"))
    return errs


def _too_many(path: str, items: list[Any], limit: int) -> list[FieldError]:
    return [FieldError.too_many(path, len(items), limit)] if len(items) > limit else []


def _selectors(path: str, selectors: Any) -> list[FieldError]:
    items = _list(selectors)
    errs = _too_many(path, items, MAX_SELECTORS)
    for i, sel in enumerate(items):
        cel = as_dict(as_dict(sel).get("cel"))
        if not as_dict(sel).get("cel"):
            errs.append(FieldError.required(f"{path}[{i}].cel"))
        elif not isinstance(cel.get("expression"), str) or not cel["expression"].strip():
            errs.append(FieldError.required(f"{path}[{i}].cel.expression"))
    return errs


def _opaque(path: str, opaque: Any) -> list[FieldError]:
    o = as_dict(opaque)
    errs = _driver(f"{path}.driver", o.get("driver"))
    params = o.get("parameters")
    if params is None:
        errs.append(FieldError.required(f"{path}.parameters"))
    elif not isinstance(params, dict):
        errs.append(FieldError.invalid(f"{path}.parameters", "<value omitted>", "parameters must be a valid JSON object"))
    return errs


def _configs(path: str, configs: Any, requests: set[str] | None) -> list[FieldError]:
    items = _list(configs)
    errs = _too_many(path, items, MAX_CONFIGS)
    for i, cfg in enumerate(items):
        c = as_dict(cfg)
        if requests is not None:
            for j, r in enumerate(_list(c.get("requests"))):
                if isinstance(r, str) and r.split("/", 1)[0] not in requests:
                    errs.append(FieldError.invalid(f"{path}[{i}].requests[{j}]", r,
                                                   "must be the name of a request in the claim or the name of a request and its subrequest separated with '/'"))
        if c.get("opaque") is None:
            errs.append(FieldError.required(f"{path}[{i}].opaque"))
        else:
            errs.extend(_opaque(f"{path}[{i}].opaque", c["opaque"]))
    return errs


def _exact(path: str, req: Mapping[str, Any]) -> list[FieldError]:
    errs: list[FieldError] = []
    cls = req.get("deviceClassName")
    if not cls:
        errs.append(FieldError.required(f"{path}.deviceClassName"))
    else:
        errs.extend(FieldError.invalid(f"{path}.deviceClassName", cls, m) for m in names.is_dns1123_subdomain(cls))
    errs.extend(_selectors(f"{path}.selectors", req.get("selectors")))
    mode = req.get("allocationMode")
    count = req.get("count")
    if mode == "ExactCount":
        if not isinstance(count, int) or count <= 0:
            errs.append(FieldError.invalid(f"{path}.count", count, "must be greater than zero"))
    elif mode == "All":
        if count not in (None, 0):
            errs.append(FieldError.invalid(f"{path}.count", count, "must not be specified when allocationMode is 'All'"))
    elif not mode:
        errs.append(FieldError.required(f"{path}.allocationMode"))
    else:
        errs.append(FieldError.not_supported(f"{path}.allocationMode", mode, _ALLOCATION_MODES))
    return errs


def _label_name(path: str, name: Any) -> list[FieldError]:
    if not isinstance(name, str) or not name:
        return [FieldError.required(path)]
    return [FieldError.invalid(path, name, m) for m in names.is_dns1123_label(name)]


def _unique_name(path: str, name: Any, seen: set[str]) -> list[FieldError]:
    """A list entry's DNS-label name, unique within its list (``seen`` collects them)."""
    errs = _label_name(path, name)
    if isinstance(name, str) and name:
        if name in seen:
            errs.append(FieldError.duplicate(path, name))
        seen.add(name)
    return errs


def _claim_spec(path: str, spec: Any) -> list[FieldError]:
    devices = as_dict(as_dict(spec).get("devices"))
    requests = _list(devices.get("requests"))
    errs = _too_many(f"{path}.devices.requests", requests, MAX_REQUESTS)
    seen: set[str] = set()
    for i, r in enumerate(requests):
        rp = f"{path}.devices.requests[{i}]"
        req = as_dict(r)
        errs.extend(_unique_name(f"{rp}.name", req.get("name"), seen))
        exactly, first = req.get("exactly"), req.get("firstAvailable")
        if exactly is not None and first is not None:
            errs.append(FieldError.invalid(rp, "<value omitted>", "exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set"))
        elif exactly is None and first is None:
            errs.append(FieldError.required(rp, "exactly one of `exactly` or `firstAvailable` is required"))
        elif exactly is not None:
            errs.extend(_exact(f"{rp}.exactly", as_dict(exactly)))
        else:
            subs = _list(first)
            errs.extend(_too_many(f"{rp}.firstAvailable", subs, MAX_SUBREQUESTS))
            sub_seen: set[str] = set()
            for j, sub in enumerate(subs):
                sp = f"{rp}.firstAvailable[{j}]"
                errs.extend(_unique_name(f"{sp}.name", as_dict(sub).get("name"), sub_seen))
                errs.extend(_exact(sp, as_dict(sub)))
    constraints = _list(devices.get("constraints"))
    errs.extend(_too_many(f"{path}.devices.constraints", constraints, MAX_CONSTRAINTS))
    for i, c in enumerate(constraints):
        cp = f"{path}.devices.constraints[{i}]"
        for j, r in enumerate(_list(as_dict(c).get("requests"))):
            if isinstance(r, str) and r.split("/", 1)[0] not in seen:
                errs.append(FieldError.invalid(f"{cp}.requests[{j}]", r,
                                               "must be the name of a request in the claim or the name of a request and its subrequest separated with '/'"))
        attr = as_dict(c).get("matchAttribute")
        if attr is None:
            errs.append(FieldError.required(f"{cp}.matchAttribute"))
        else:
            errs.extend(_fully_qualified(f"{cp}.matchAttribute", attr))
    errs.extend(_configs(f"{path}.devices.config", devices.get("config"), seen))
    return errs


def _fully_qualified(path: str, name: Any) -> list[FieldError]:
    """validateFullyQualifiedName: ``<domain>/<C identifier>``."""
    if not isinstance(name, str) or not name:
        return [FieldError.required(path)]
    domain, slash, ident = name.partition("/")
    if not slash:
        return [FieldError.required(path, "a fully qualified name must be a domain and a name separated by a slash")]
    errs = [FieldError.invalid(path, name, m) for m in names.is_dns1123_subdomain(domain)]
    errs.extend(FieldError.invalid(path, name, m) for m in names.is_c_identifier(ident))
    return errs


# --- the kinds ---

def validate_device_class(obj: Mapping[str, Any]) -> list[FieldError]:
    errs = validate_object_meta(as_dict(obj.get("metadata")), namespaced=False, name_fn=_subdomain_name)
    spec = as_dict(obj.get("spec"))
    errs.extend(_selectors("spec.selectors", spec.get("selectors")))
    errs.extend(_configs("spec.config", spec.get("config"), None))
    return errs


def validate_device_class_update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    return validate_object_meta_update(as_dict(obj.get("metadata")), as_dict(old.get("metadata"))) + \
        validate_device_class(obj)


def validate_resource_claim(obj: Mapping[str, Any]) -> list[FieldError]:
    errs = validate_object_meta(as_dict(obj.get("metadata")), namespaced=True, name_fn=_subdomain_name)
    return errs + _claim_spec("spec", obj.get("spec"))


def _immutable_spec(obj: Mapping[str, Any], old: Mapping[str, Any], path: str = "spec") -> list[FieldError]:
    new_spec, old_spec = obj.get("spec"), old.get("spec")
    if new_spec != old_spec:
        return [FieldError.invalid(path, "<value omitted>", "field is immutable")]
    return []


def validate_resource_claim_update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    errs = validate_object_meta_update(as_dict(obj.get("metadata")), as_dict(old.get("metadata")))
    immutable = _immutable_spec(obj, old)
    return errs + (immutable or validate_resource_claim(obj))


def validate_resource_claim_status_update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    errs = validate_object_meta_update(as_dict(obj.get("metadata")), as_dict(old.get("metadata")))
    status, old_status = as_dict(obj.get("status")), as_dict(old.get("status"))
    allocation = status.get("allocation")
    if old_status.get("allocation") is not None and allocation != old_status.get("allocation"):
        errs.append(FieldError.invalid("status.allocation", "<value omitted>", "field is immutable"))
    if allocation is not None:
        results = _list(as_dict(as_dict(allocation).get("devices")).get("results"))
        requests = {as_dict(r).get("name") for r in _list(as_dict(as_dict(obj.get("spec")).get("devices")).get("requests"))}
        for i, r in enumerate(results):
            rp = f"status.allocation.devices.results[{i}]"
            res = as_dict(r)
            req = res.get("request")
            if not isinstance(req, str) or req.split("/", 1)[0] not in requests:
                errs.append(FieldError.invalid(f"{rp}.request", req, "must be the name of a request in the claim or the name of a request and its subrequest separated with '/'"))
            errs.extend(_driver(f"{rp}.driver", res.get("driver")))
            if not res.get("pool"):
                errs.append(FieldError.required(f"{rp}.pool"))
            errs.extend(_label_name(f"{rp}.device", res.get("device")))
    reserved = _list(status.get("reservedFor"))
    if len(reserved) > 256:
        errs.append(FieldError.too_many("status.reservedFor", len(reserved), 256))
    if reserved and allocation is None:
        errs.append(FieldError.forbidden("status.reservedFor", "may not be specified when `allocated` is not set"))
    seen: set[str] = set()
    for i, ref in enumerate(reserved):
        uid = as_dict(ref).get("uid")
        if not uid:
            errs.append(FieldError.required(f"status.reservedFor[{i}].uid"))
        elif uid in seen:
            errs.append(FieldError.duplicate(f"status.reservedFor[{i}].uid", uid))
        else:
            seen.add(uid)
    return errs


def validate_resource_claim_template(obj: Mapping[str, Any]) -> list[FieldError]:
    errs = validate_object_meta(as_dict(obj.get("metadata")), namespaced=True, name_fn=_subdomain_name)
    return errs + _claim_spec("spec.spec", as_dict(obj.get("spec")).get("spec"))


def validate_resource_claim_template_update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    errs = validate_object_meta_update(as_dict(obj.get("metadata")), as_dict(old.get("metadata")))
    return errs + (_immutable_spec(obj, old) or validate_resource_claim_template(obj))


def _attributes(path: str, attrs: Any) -> list[FieldError]:
    errs: list[FieldError] = []
    for key, value in sorted(as_dict(attrs).items()):
        kp = f"{path}[{key}]"
        ident = key.rpartition("/")[2]
        if "/" in key:
            errs.extend(FieldError.invalid(kp, key, m) for m in names.is_dns1123_subdomain(key.rpartition("/")[0]))
        errs.extend(FieldError.invalid(kp, key, m) for m in names.is_c_identifier(ident))
        set_keys = [k for k in _VALUE_KEYS if as_dict(value).get(k) is not None]
        if not set_keys:
            errs.append(FieldError.required(kp, "exactly one value must be specified"))
        elif len(set_keys) > 1:
            errs.append(FieldError.invalid(kp, "<value omitted>", "exactly one value must be specified"))
    return errs


def validate_resource_slice(obj: Mapping[str, Any]) -> list[FieldError]:
    errs = validate_object_meta(as_dict(obj.get("metadata")), namespaced=False, name_fn=_subdomain_name)
    spec = as_dict(obj.get("spec"))
    errs.extend(_driver("spec.driver", spec.get("driver")))
    pool = as_dict(spec.get("pool"))
    if not spec.get("pool"):
        errs.append(FieldError.required("spec.pool"))
    else:
        pname = pool.get("name")
        if not isinstance(pname, str) or not pname:
            errs.append(FieldError.required("spec.pool.name"))
        else:
            for segment in pname.split("/"):
                errs.extend(FieldError.invalid("spec.pool.name", pname, m) for m in names.is_dns1123_subdomain(segment))
        if not isinstance(pool.get("generation"), int) or pool["generation"] < 0:
            errs.append(FieldError.invalid("spec.pool.generation", pool.get("generation"), "must be greater than or equal to 0"))
        if not isinstance(pool.get("resourceSliceCount"), int) or pool["resourceSliceCount"] <= 0:
            errs.append(FieldError.invalid("spec.pool.resourceSliceCount", pool.get("resourceSliceCount"),
                                           "must be greater than zero"))
    selection = [k for k in ("nodeName", "nodeSelector", "allNodes", "perDeviceNodeSelection") if spec.get(k)]
    if not selection:
        errs.append(FieldError.required("spec", "exactly one of `nodeName`, `nodeSelector`, `allNodes`, "
                                                "`perDeviceNodeSelection` is required"))
    elif len(selection) > 1:
        errs.append(FieldError.invalid("spec", f"{{`{'`, `'.join(selection)}`}}", "exactly one of `nodeName`, "
                                       "`nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required, but multiple fields are set"))
    if isinstance(spec.get("nodeName"), str) and spec["nodeName"]:
        errs.extend(FieldError.invalid("spec.nodeName", spec["nodeName"], m)
                    for m in names.name_is_dns_subdomain(spec["nodeName"], False))
    devices = _list(spec.get("devices"))
    errs.extend(_too_many("spec.devices", devices, MAX_DEVICES_PER_SLICE))
    seen: set[str] = set()
    for i, d in enumerate(devices):
        dp = f"spec.devices[{i}]"
        dev = as_dict(d)
        errs.extend(_unique_name(f"{dp}.name", dev.get("name"), seen))
        attrs, capacity = as_dict(dev.get("attributes")), as_dict(dev.get("capacity"))
        errs.extend(_attributes(f"{dp}.attributes", attrs))
        if len(attrs) + len(capacity) > MAX_ATTRIBUTES_AND_CAPACITIES:
            errs.append(FieldError.too_many(f"{dp}.attributes", len(attrs) + len(capacity),
                                            MAX_ATTRIBUTES_AND_CAPACITIES))
    return errs


def validate_resource_slice_update(obj: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    errs = validate_object_meta_update(as_dict(obj.get("metadata")), as_dict(old.get("metadata")))
    errs.extend(validate_resource_slice(obj))
    old_spec, new_spec = as_dict(old.get("spec")), as_dict(obj.get("spec"))
    for field in ("nodeName", "driver"):
        if new_spec.get(field) != old_spec.get(field):
            errs.append(FieldError.invalid(f"spec.{field}", new_spec.get(field), "field is immutable"))
    if as_dict(new_spec.get("pool")).get("name") != as_dict(old_spec.get("pool")).get("name"):
        errs.append(FieldError.invalid("spec.pool.name", as_dict(new_spec.get("pool")).get("name"), "field is immutable"))
    return errs
