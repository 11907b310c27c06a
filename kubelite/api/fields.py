"""Field selectors (``spec.nodeName=node-1,status.phase!=Failed``) and the fields each resource exposes.

Follows ``k8s.io/apimachinery/pkg/fields/selector.go`` (``ParseSelector``, ``EscapeValue``,
``UnescapeValue``), ``pkg/runtime`` (``DefaultMetaV1FieldSelectorConversion``), each registry's
``ToSelectableFields`` / ``GetAttrs`` (``pkg/registry/*/*/strategy.go``), each API group's field label
conversion funcs (``pkg/apis/*/v1/conversion.go``) and, for custom resources, apiextensions-apiserver's
``crConverter.ConvertFieldLabel`` and ``customResourceStrategy.selectableFields``.

Contract:
- A :class:`FieldSelector` is immutable and hashable: an AND of ``(field, op, value)`` terms, op ``"="`` or
  ``"!="``, in upstream's order (terms sorted as raw text). ``str()`` is upstream's ``String()``.
- :func:`object_fields` computes the field set of a plain JSON object (camelCase keys) exactly as the
  upstream registry does: absent values select as ``""``, booleans as ``"true"``/``"false"``, counters as
  decimal text. It reads the object and never mutates it.
- :func:`check_supported` / :func:`convert_selector` reject field labels the resource does not support
  with a 400 BadRequest whose message is upstream's for that kind; ``convert_selector`` also applies
  upstream's renames (pods accept the legacy ``spec.host`` for ``spec.nodeName``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final

import msgspec

from kubelite.errors import BadRequest
from kubelite.memo import memoize

__all__ = [
    "EVERYTHING",
    "SUPPORTED",
    "FieldSelector",
    "check_supported",
    "convert_selector",
    "escape_value",
    "object_fields",
    "parse_field_selector",
    "unescape_value",
]

Term = tuple[str, str, str]


class FieldSelector:
    """An immutable AND of ``(field, op, value)`` terms; a missing field reads as ``""``."""

    __slots__ = ("requirements",)

    requirements: tuple[Term, ...]

    def __init__(self, requirements: Iterable[Term] = ()) -> None:
        object.__setattr__(self, "requirements", tuple(requirements))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("FieldSelector is immutable")

    def matches(self, fields: Mapping[str, str]) -> bool:
        for field, op, value in self.requirements:  # noqa: SIM110 - a plain loop beats all() here
            if (fields.get(field, "") == value) != (op == "="):
                return False
        return True

    def empty(self) -> bool:
        return not self.requirements

    def fields(self) -> tuple[str, ...]:
        """The field labels the selector mentions, in order, without repeats."""
        return tuple(dict.fromkeys(f for f, _, _ in self.requirements))

    def single_value(self, field: str) -> str | None:
        """The value ``field`` must equal, if some ``field=value`` term pins it (``RequiresExactMatch``)."""
        for f, op, value in self.requirements:
            if f == field and op == "=":
                return value
        return None

    def __str__(self) -> str:
        return ",".join(f"{f}{op}{escape_value(v)}" for f, op, v in self.requirements)

    def __repr__(self) -> str:
        return f"FieldSelector({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FieldSelector):
            return NotImplemented
        return self.requirements == other.requirements

    def __hash__(self) -> int:
        return hash(self.requirements)


EVERYTHING: Final = FieldSelector()

# --- the string syntax ----------------------------------------------------------------------------------


def escape_value(s: str) -> str:
    """Upstream ``EscapeValue``: backslash-escape ``\\``, ``,`` and ``=``."""
    if "\\" not in s and "," not in s and "=" not in s:
        return s
    return s.replace("\\", "\\\\").replace(",", "\\,").replace("=", "\\=")


def unescape_value(s: str) -> str:
    """Upstream ``UnescapeValue``; ValueError on a bad escape or an unescaped ``,``/``=``."""
    if "\\" not in s and "," not in s and "=" not in s:
        return s
    out: list[str] = []
    in_slash = False
    for c in s:
        if in_slash:
            if c not in "\\,=":
                raise ValueError(f"invalid field selector: invalid escape sequence: \\{c}")
            out.append(c)
            in_slash = False
        elif c == "\\":
            in_slash = True
        elif c in ",=":
            # Go prints the rune with %v, i.e. as its code point.
            raise ValueError(f"invalid field selector: unescaped character in value: {ord(c)}")
        else:
            out.append(c)
    if in_slash:
        raise ValueError("invalid field selector: invalid escape sequence: \\")
    return "".join(out)


def _split_terms(s: str) -> list[str]:
    """Split on commas not escaped by a backslash (escapes are kept for unescape_value)."""
    terms: list[str] = []
    start = 0
    in_slash = False
    for i, c in enumerate(s):
        if in_slash:
            in_slash = False
        elif c == "\\":
            in_slash = True
        elif c == ",":
            terms.append(s[start:i])
            start = i + 1
    terms.append(s[start:])
    return terms


def _split_term(term: str) -> tuple[str, str, str] | None:
    """``lhs op rhs`` at the first operator; "!=" and "==" win over "=" at the same position."""
    for i, c in enumerate(term):
        if c == "!" and term.startswith("!=", i):
            return term[:i], "!=", term[i + 2:]
        if c == "=":
            if term.startswith("==", i):
                return term[:i], "=", term[i + 2:]
            return term[:i], "=", term[i + 1:]
    return None


# bound: distinct field selectors: one per informer or list call shape
@memoize("api.fields.parse_field_selector", maxsize=4096)
def parse_field_selector(s: str) -> FieldSelector:
    """Upstream ``fields.ParseSelector``; ``"=="`` is normalised to ``"="``. ValueError on bad syntax."""
    if not s:
        return EVERYTHING
    terms: list[Term] = []
    for part in sorted(_split_terms(s)):
        if not part:
            continue
        split = _split_term(part)
        if split is None:
            raise ValueError(f"invalid selector: '{s}'; can't understand '{part}'")
        lhs, op, rhs = split
        terms.append((lhs, op, unescape_value(rhs)))
    return FieldSelector(terms)


# --- what each resource exposes -------------------------------------------------------------------------

# Extractors read validated objects (string fields hold strings), so a missing value is simply falsy and
# reads as Go's zero value. Each fills ``out`` in place; written out by hand because this runs for every
# object a field-selecting watcher sees.
_Extract = Callable[[Mapping[str, Any], dict[str, str]], None]
_EMPTY: Final[Mapping[str, Any]] = {}


def _pod(obj: Mapping[str, Any], out: dict[str, str]) -> None:
    """pkg/registry/core/pod/strategy.go ToSelectableFields (status.podIPs is accepted but never set)."""
    spec = obj.get("spec") or _EMPTY
    status = obj.get("status") or _EMPTY
    out["spec.nodeName"] = spec.get("nodeName") or ""
    out["spec.restartPolicy"] = spec.get("restartPolicy") or ""
    out["spec.schedulerName"] = spec.get("schedulerName") or ""
    out["spec.serviceAccountName"] = spec.get("serviceAccountName") or ""
    out["spec.hostNetwork"] = "true" if spec.get("hostNetwork") is True else "false"
    out["status.phase"] = status.get("phase") or ""
    ips = status.get("podIPs")
    out["status.podIP"] = (ips[0].get("ip") or "") if ips else ""
    out["status.nominatedNodeName"] = status.get("nominatedNodeName") or ""


def _event(obj: Mapping[str, Any], out: dict[str, str]) -> None:
    """pkg/registry/core/event/strategy.go ToSelectableFields."""
    io = obj.get("involvedObject") or _EMPTY
    out["involvedObject.kind"] = io.get("kind") or ""
    out["involvedObject.namespace"] = io.get("namespace") or ""
    out["involvedObject.name"] = io.get("name") or ""
    out["involvedObject.uid"] = io.get("uid") or ""
    out["involvedObject.apiVersion"] = io.get("apiVersion") or ""
    out["involvedObject.resourceVersion"] = io.get("resourceVersion") or ""
    out["involvedObject.fieldPath"] = io.get("fieldPath") or ""
    out["reason"] = obj.get("reason") or ""
    reporting = obj.get("reportingComponent") or ""
    out["reportingComponent"] = reporting
    out["source"] = (obj.get("source") or _EMPTY).get("component") or reporting
    out["type"] = obj.get("type") or ""


def _node(obj: Mapping[str, Any], out: dict[str, str]) -> None:
    out["spec.unschedulable"] = "true" if (obj.get("spec") or _EMPTY).get("unschedulable") is True else "false"


def _namespace(obj: Mapping[str, Any], out: dict[str, str]) -> None:
    out["status.phase"] = (obj.get("status") or _EMPTY).get("phase") or ""
    out["name"] = out["metadata.name"]  # "This is a bug, but we need to support it for backward compatibility."


def _persistent_volume(obj: Mapping[str, Any], out: dict[str, str]) -> None:
    out["name"] = out["metadata.name"]  # same upstream compatibility quirk as namespaces


def _secret(obj: Mapping[str, Any], out: dict[str, str]) -> None:
    out["type"] = obj.get("type") or ""


def _service(obj: Mapping[str, Any], out: dict[str, str]) -> None:
    spec = obj.get("spec") or _EMPTY
    out["spec.clusterIP"] = spec.get("clusterIP") or ""
    out["spec.type"] = spec.get("type") or ""


def _replicas(obj: Mapping[str, Any], out: dict[str, str]) -> None:
    out["status.replicas"] = str((obj.get("status") or _EMPTY).get("replicas") or 0)


def _job(obj: Mapping[str, Any], out: dict[str, str]) -> None:
    out["status.successful"] = str((obj.get("status") or _EMPTY).get("succeeded") or 0)


def _csr(obj: Mapping[str, Any], out: dict[str, str]) -> None:
    out["spec.signerName"] = (obj.get("spec") or _EMPTY).get("signerName") or ""


# (group, plural) -> extractor of what upstream's ToSelectableFields adds beyond metadata.name (and
# metadata.namespace for namespaced kinds), which object_fields sets itself.
_EXTRACTORS: Final[dict[tuple[str, str], _Extract]] = {
    ("", "pods"): _pod,
    ("", "events"): _event,
    ("", "nodes"): _node,
    ("", "namespaces"): _namespace,
    ("", "persistentvolumes"): _persistent_volume,
    ("", "secrets"): _secret,
    ("", "services"): _service,
    ("", "replicationcontrollers"): _replicas,
    ("apps", "replicasets"): _replicas,
    ("batch", "jobs"): _job,
    ("certificates.k8s.io", "certificatesigningrequests"): _csr,
}

# Cluster-scoped kinds with a table above (their field set has no metadata.namespace).
_CLUSTER_SCOPED: Final = frozenset({
    ("", "nodes"), ("", "namespaces"), ("", "persistentvolumes"),
    ("certificates.k8s.io", "certificatesigningrequests"),
})

# (group, plural) -> (accepted field labels, rejection message format). The accepted set is the kind's field
# label conversion func; kinds without one use DefaultMetaV1FieldSelectorConversion.
_FIELD_LABEL_CONVERSIONS: Final[dict[tuple[str, str], tuple[frozenset[str], str]]] = {
    ("", "pods"): (frozenset({
        "metadata.name", "metadata.namespace", "spec.nodeName", "spec.restartPolicy", "spec.schedulerName",
        "spec.serviceAccountName", "spec.hostNetwork", "status.phase", "status.podIP", "status.podIPs",
        "status.nominatedNodeName", "spec.host",
    }), "field label not supported: {}"),
    ("", "nodes"): (frozenset({"metadata.name", "spec.unschedulable"}), "field label not supported: {}"),
    ("", "replicationcontrollers"): (
        frozenset({"metadata.name", "metadata.namespace", "status.replicas"}), "field label not supported: {}"),
    ("", "events"): (frozenset({
        "involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid",
        "involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath", "reason",
        "reportingComponent", "source", "type", "metadata.namespace", "metadata.name",
    }), "field label not supported: {}"),
    ("", "namespaces"): (frozenset({"status.phase", "metadata.name"}), "field label not supported: {}"),
    ("", "secrets"): (frozenset({"type", "metadata.namespace", "metadata.name"}), "field label not supported: {}"),
    ("", "services"): (
        frozenset({"metadata.namespace", "metadata.name", "spec.clusterIP", "spec.type"}),
        "field label not supported: {}",
    ),
    ("batch", "jobs"): (
        frozenset({"metadata.name", "metadata.namespace", "status.successful"}),
        'field label "{}" not supported for batchv1.Job',
    ),
    ("certificates.k8s.io", "certificatesigningrequests"): (
        frozenset({"metadata.name", "spec.signerName"}), "field label not supported: {}"),
}
_DEFAULT_CONVERSION: Final = (
    frozenset({"metadata.name", "metadata.namespace"}),
    '"{}" is not a known field selector: only "metadata.name", "metadata.namespace"',
)
# Upstream renames applied by a conversion func: (group, plural, label) -> new label.
_RENAMES: Final = {("", "pods", "spec.host"): "spec.nodeName"}

# The field labels a selector may use, per built-in kind, beyond metadata.name / metadata.namespace.
SUPPORTED: Final[dict[tuple[str, str], tuple[str, ...]]] = {
    gr: tuple(sorted(labels - {"metadata.name", "metadata.namespace"}))
    for gr, (labels, _) in _FIELD_LABEL_CONVERSIONS.items()
}


def _go_sprint(value: Any) -> str:
    """``fmt.Sprint`` of a decoded JSON scalar, as the CRD strategy stringifies selectable fields.

    CRD validation only admits string, integer and boolean selectable fields; other values are rendered
    as JSON for lack of anything better.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e6:
        return str(int(value))  # Go prints small integral floats without a fraction
    return msgspec.json.encode(value).decode()


def _lookup(obj: Mapping[str, Any], keys: Sequence[str]) -> Any:
    cur: Any = obj
    for k in keys:
        if not isinstance(cur, Mapping):
            return None
        cur = cur.get(k)
    return cur


def object_fields(
    group: str, plural: str, obj: Mapping[str, Any], selectable_fields: Sequence[str] = (),
    *, namespaced: bool | None = None,
) -> dict[str, str]:
    """The field set of ``obj`` (upstream ``GetAttrs``), keyed by field label.

    ``selectable_fields`` are a custom resource's ``selectableFields`` JSONPaths. ``namespaced`` defaults to
    what is known of the built-in kind (custom resources: pass it, else they count as namespaced).
    """
    meta = obj.get("metadata") or _EMPTY
    out: dict[str, str] = {"metadata.name": meta.get("name") or ""}
    if namespaced is None:
        namespaced = (group, plural) not in _CLUSTER_SCOPED
    if namespaced:
        out["metadata.namespace"] = meta.get("namespace") or ""
    extract = _EXTRACTORS.get((group, plural))
    if extract is not None:
        extract(obj, out)
    for json_path in selectable_fields:
        label = json_path.removeprefix(".")  # simple dotted JSONPaths, as CRD validation requires
        value = _lookup(obj, label.split("."))
        out[label] = "" if value is None else _go_sprint(value)
    return out


def convert_selector(
    group: str, plural: str, selector: FieldSelector, selectable_fields: Sequence[str] | None = None,
    *, namespaced: bool = True,
) -> FieldSelector:
    """Check every field label against the kind's conversion func and apply its renames.

    ``selectable_fields`` not None marks a custom resource (``crConverter``): ``metadata.name``, then
    ``metadata.namespace`` if ``namespaced``, then the CRD's selectable fields are accepted.
    Raises BadRequest (400) with upstream's message for the first unsupported label.
    """
    if not selector.requirements:
        return selector
    if selectable_fields is not None:
        allowed = {"metadata.name", *(p.removeprefix(".") for p in selectable_fields)}
        if namespaced:
            allowed.add("metadata.namespace")
        message = "field label not supported: {}"
    else:
        labels, message = _FIELD_LABEL_CONVERSIONS.get((group, plural), _DEFAULT_CONVERSION)
        allowed = set(labels)
    renamed = False
    terms: list[Term] = []
    for field, op, value in selector.requirements:
        if field not in allowed:
            raise BadRequest.make(message.format(field))
        new = _RENAMES.get((group, plural, field)) if selectable_fields is None else None
        if new is not None:
            field, renamed = new, True
        terms.append((field, op, value))
    return FieldSelector(terms) if renamed else selector


def check_supported(
    group: str, plural: str, selector: FieldSelector, selectable_fields: Sequence[str] | None = None,
    *, namespaced: bool = True,
) -> None:
    """Raise BadRequest (400, upstream's message) if ``selector`` uses a label the kind does not support."""
    convert_selector(group, plural, selector, selectable_fields, namespaced=namespaced)
