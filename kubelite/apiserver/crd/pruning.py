"""Pruning of fields a structural schema does not describe, for custom and built-in resources.

Contract:
- :func:`prune` removes, in place, every map key the schema does not describe and returns the
  paths of what it removed; :func:`unknown_fields` walks the same way and returns the same
  paths without touching ``obj``. The schema is never mutated.
- Paths use upstream's unknown-field format (``UnknownFieldPathOptions``): keys joined by
  ``.``, list indices as ``[i]`` (``spec.containers[0].foo``); they are returned sorted, as
  ``PruneWithOptions`` sorts them, ready for ``unknown field "<path>"`` warnings/errors.
- Rules follow apiextensions-apiserver ``pkg/apiserver/schema/pruning/algorithm.go``:
  ``x-kubernetes-preserve-unknown-fields`` keeps a subtree (but nested ``properties`` /
  ``additionalProperties`` switch pruning back on), ``additionalProperties`` describes every
  other key, and in an ``x-kubernetes-embedded-resource`` object (and at the resource root when
  ``is_resource_root``) ``apiVersion``, ``kind`` and ``metadata`` are kept.
- ``metadata`` of the resource root and of embedded resources is then reduced to the fields of
  ``ObjectMeta`` (upstream does this when it round-trips metadata through ``metav1.ObjectMeta``
  in ``objectmeta.GetObjectMetaWithOptions``), with the dropped paths reported as
  ``metadata.<field>``. This is what makes ``metadata.foo`` an unknown field for both CRs and
  built-in kinds.
- Schemas are treated as immutable once used: each schema node is compiled once into a small
  pruning node, cached per process (bounded), because this walk runs on every create/update of
  every kind. Mutating a schema dict in place after use is not supported (build a new one).
- Values of the wrong shape are not fixed: a scalar where the schema says object is kept, an
  object where the schema says scalar loses all its keys (as upstream); validation then reports
  the type error.
"""

from __future__ import annotations

from typing import Any

from kubelite.api.schema import Schema
from kubelite.memo import BoundedCache

__all__ = ["OBJECT_META_SCHEMA", "prune", "unknown_fields"]

_META_FIELDS = frozenset(("apiVersion", "kind", "metadata"))
_CONTAINERS = (dict, list)

_STR: dict[str, Any] = {"type": "string"}
_STR_MAP: dict[str, Any] = {"type": "object", "additionalProperties": _STR}

# The known fields of meta/v1 ObjectMeta (Kubernetes 1.37), as a structural schema.
OBJECT_META_SCHEMA: Schema = Schema.of({
    "type": "object",
    "properties": {
        "annotations": _STR_MAP,
        "creationTimestamp": _STR,
        "deletionGracePeriodSeconds": {"type": "integer"},
        "deletionTimestamp": _STR,
        "finalizers": {"type": "array", "items": _STR},
        "generateName": _STR,
        "generation": {"type": "integer"},
        "labels": _STR_MAP,
        "managedFields": {"type": "array", "items": {"type": "object", "properties": {
            "apiVersion": _STR,
            "fieldsType": _STR,
            "fieldsV1": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
            "manager": _STR,
            "operation": _STR,
            "subresource": _STR,
            "time": _STR,
        }}},
        "name": _STR,
        "namespace": _STR,
        "ownerReferences": {"type": "array", "items": {"type": "object", "properties": {
            "apiVersion": _STR,
            "blockOwnerDeletion": {"type": "boolean"},
            "controller": {"type": "boolean"},
            "kind": _STR,
            "name": _STR,
            "uid": _STR,
        }}},
        "resourceVersion": _STR,
        "selfLink": _STR,
        "uid": _STR,
    },
})


class _Node:
    """The pruning view of one schema node, with children compiled on first visit.

    Nodes are shared per schema node (see :func:`_node`), so the recursive and ``$ref``-shared
    definitions of built-in kinds compile once per process, not once per request.
    """

    __slots__ = ("ap", "ap_true", "embedded", "expanded", "items", "preserve", "props", "schema")

    def __init__(self, schema: Schema) -> None:
        self.schema = schema
        self.preserve = schema.preserve_unknown_fields
        self.embedded = schema.embedded_resource
        # additionalProperties: true is a nil schema upstream: objects below it lose every key.
        self.ap_true = schema.additional_properties is None and schema.additional_properties_allowed
        self.expanded = False
        self.props: dict[str, _Node] = {}
        self.ap: _Node | None = None
        self.items: _Node | None = None

    def expand(self) -> None:
        s = self.schema
        self.props = {k: _node(v) for k, v in s.properties.items()}
        ap = s.additional_properties
        self.ap = _node(ap) if ap is not None else None
        items = s.items
        self.items = _node(items) if items is not None else None
        self.expanded = True


# id(raw) -> (raw, node); holding raw keeps the id from being reused while the entry lives.
#: bounded by the schema nodes of the CRDs in use (CRD schemas come and go)
_NODES: BoundedCache[int, tuple[Any, _Node]] = BoundedCache("apiserver.crd.pruning_nodes", maxsize=1 << 16)


def _node(schema: Schema) -> _Node:
    raw = schema.raw
    hit = _NODES.get(id(raw))
    if hit is not None and hit[0] is raw:
        return hit[1]
    node = _Node(schema)
    _NODES.put(id(raw), (raw, node))
    return node


_OBJECT_META_NODE = _Node(OBJECT_META_SCHEMA)

# A path is a linked list of fragments, built without copying: None (root) or (parent, key|index).
_Path = tuple[Any, str | int] | None


def _fmt(path: _Path) -> str:
    parts: list[str | int] = []
    while path is not None:
        path, frag = path
        parts.append(frag)
    out = ""
    for frag in reversed(parts):
        if isinstance(frag, int):
            out += f"[{frag}]"
        else:
            out = f"{out}.{frag}" if out else frag
    return out


class _Walk:
    """One pruning pass over an object; ``found`` collects the dropped paths."""

    __slots__ = ("found", "mutate")

    def __init__(self, mutate: bool) -> None:
        self.mutate = mutate
        self.found: list[str] = []

    def prune(self, x: Any, n: _Node | None, embedded: bool, path: _Path) -> None:
        if n is not None and n.preserve:
            self.skip(x, n, embedded, path)
            return
        if isinstance(x, dict):
            if n is None:
                self.found.extend(_fmt((path, k)) for k in x)
                if self.mutate:
                    x.clear()
                return
            if not n.expanded:
                n.expand()
            props, ap = n.props, n.ap
            drop: list[str] | None = None
            for k, v in x.items():
                if embedded and k in _META_FIELDS:
                    if k == "metadata":
                        self.meta(v, path)
                    continue
                sub = props.get(k, ap)
                if sub is not None:
                    # Scalars have nothing to prune; skip the call on the hot path.
                    if isinstance(v, _CONTAINERS):
                        self.prune(v, sub, sub.embedded, (path, k))
                elif n.ap_true:
                    if isinstance(v, _CONTAINERS):
                        self.prune(v, None, False, (path, k))
                elif drop is None:
                    drop = [k]
                else:
                    drop.append(k)
            for k in drop or ():
                # Upstream drops a stray apiVersion/kind/metadata at the very root silently.
                if path is not None or k not in _META_FIELDS:
                    self.found.append(_fmt((path, k)))
                if self.mutate:
                    del x[k]
        elif isinstance(x, list):
            items = None
            if n is not None:
                if not n.expanded:
                    n.expand()
                items = n.items
            embedded_items = items.embedded if items is not None else False
            for i, v in enumerate(x):
                if isinstance(v, _CONTAINERS):
                    self.prune(v, items, embedded_items, (path, i))

    def skip(self, x: Any, n: _Node, embedded: bool, path: _Path) -> None:
        """Inside preserve-unknown-fields: keep unknown keys, prune where the schema is explicit."""
        if not n.expanded:
            n.expand()
        if isinstance(x, dict):
            props, ap = n.props, n.ap
            for k, v in x.items():
                if embedded and k in _META_FIELDS:
                    if k == "metadata":
                        self.meta(v, path)
                    continue
                sub = props.get(k, ap)
                if sub is not None:
                    self.prune(v, sub, sub.embedded, (path, k))
                elif n.ap_true:
                    self.prune(v, None, False, (path, k))
        elif isinstance(x, list):
            items = n.items
            if items is None:
                return
            for i, v in enumerate(x):
                self.skip(v, items, items.embedded, (path, i))

    def meta(self, v: Any, path: _Path) -> None:
        if isinstance(v, dict):
            self.prune(v, _OBJECT_META_NODE, False, (path, "metadata"))


def _run(obj: Any, schema: Schema, is_resource_root: bool, mutate: bool) -> list[str]:
    w = _Walk(mutate)
    # PruneWithOptions treats the resource root as an embedded resource.
    w.prune(obj, _node(schema), is_resource_root or schema.embedded_resource, None)
    w.found.sort()
    return w.found


def prune(obj: Any, schema: Schema, *, is_resource_root: bool = True) -> list[str]:
    """Drop, in place, every field ``schema`` does not describe; return their sorted paths."""
    return _run(obj, schema, is_resource_root, True)


def unknown_fields(obj: Any, schema: Schema, *, is_resource_root: bool = True) -> list[str]:
    """The sorted paths :func:`prune` would drop, leaving ``obj`` untouched."""
    return _run(obj, schema, is_resource_root, False)
