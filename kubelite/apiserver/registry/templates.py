"""Per-template create results: a pod stamped out of a template pays a hash and a lookup for its spec.

ReplicaSets, Jobs, DaemonSets and StatefulSets create many pods from one template: the pods differ in
their metadata (name, labels, owner references) and share their whole spec. Everything the create
pipeline does to that spec (the typed decode, defaulting, the mutating admission plugins, the initial
status, validation, the spec's managedFields set) is a pure function of

- the spec as sent (its JSON encoding: two specs that encode alike are the same JSON value),
- the namespace, the request's ``fieldValidation`` mode and the annotations as sent (LimitRanger adds one),
- and the contents of the tables the caching admission plugins read (LimitRanges, ServiceAccounts,
  PriorityClasses: each plugin declares them, see :mod:`kubelite.apiserver.admission.chain`), keyed
  by each table's last write, so any write to one of them misses every entry made before it.

:class:`CreateTemplates` remembers that function's value per key for one apiserver (one store: the
table revisions it keys on mean nothing in another). The generic store's create then has two ways
through the same steps (``GenericStore.create``): a miss runs every step and, if the create
succeeded cleanly, records the template's share of the result; a hit runs only the per-object steps
(metadata decode and validation, NamespaceLifecycle, ResourceQuota and the other per-object admission,
names, uid and timestamps, the metadata's managedFields, the store write) over the recorded spec.

Guarantees:
- **Only clean successes are recorded.** A create that was rejected, warned (unknown fields, policy
  warnings), ran a user admission hook, was a dry run, or whose metadata the template steps changed
  in a way this module does not know (anything but added annotations) records nothing, so every
  rejection runs the whole path and reports exactly what it always did. A spec is recorded at its
  second clean create (the first only marks it seen), so specs that never repeat cost nothing extra. ``tests/apiserver/
  registry/test_templates.py`` holds every hit to the uncached path's bytes and every rejection to its
  Status.
- **Bounded.** At most ``maxsize`` templates (LRU, :class:`~kubelite.memo.BoundedCache`).
- **Isolation.** A recorded spec and status are private copies (decoded from their encoding) and are
  then shared, read-only, by every object created from them: the create only reads them and the store
  keeps the encoded bytes, never the dicts. Nobody outside the apiserver is handed them: requests that
  would show the object to a user hook never use the memo.
- **Determinism.** A hit consumes the cluster's RNG exactly as a miss does (generateName suffix, then
  uid, at the same step), so a replay is byte-identical whatever the memo holds.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from kubelite.apiserver.ssa.compare import STRIPPED_META, all_fields
from kubelite.apiserver.ssa.fieldpath import FieldSet, pe_sort_key
from kubelite.apiserver.ssa.managed_fields import (
    ManagerKey,
    VersionedSet,
    encode_managed_fields,
)
from kubelite.memo import BoundedCache
from kubelite.rand import random_suffix

if TYPE_CHECKING:
    from kubelite.api.resources import ResourceInfo
    from kubelite.api.schema import Schema
    from kubelite.apiserver.admission.chain import AdmissionChain
    from kubelite.apiserver.registry.strategy import Strategy
    from kubelite.apiserver.registry.tables import ResourceTables
    from kubelite.apiserver.request import Request

__all__ = ["CreateTemplates", "Template", "TemplateKey"]

_encode = msgspec.json.Encoder().encode
#: what is spliced into a stored object is encoded as the store encodes (``order="deterministic"``: keys sorted
#: at every level), so a memo hit stores the very bytes the whole path stores
_encode_stored = msgspec.json.Encoder(order="deterministic").encode
_decode = msgspec.json.Decoder().decode
#: a body the memo can serve: nothing but these top-level fields (a status, say, takes the whole path)
_BODY_KEYS = frozenset({"apiVersion", "kind", "metadata", "spec"})
# metadata the per-object steps set or drop; any other difference between the sent and the final
# metadata came from a template step, and only added annotations are understood
_OBJECT_META = frozenset({"name", "generateName", "namespace", "uid", "creationTimestamp", "resourceVersion",
                          "generation", "managedFields", "selfLink", "deletionTimestamp",
                          "deletionGracePeriodSeconds", "annotations"})
#: templates remembered per apiserver: a cluster runs a few hundred distinct pod templates at once (one per
#: ReplicaSet, Job or StatefulSet revision); each entry holds a decoded spec (a few KiB)
DEFAULT_MAXSIZE = 1024
#: specs seen once (by the hash of their key): only a spec's second clean create records it, so one-off
#: specs (a DaemonSet's pods, whose node affinity names their node; bare pods) neither pay for recording
#: nor evict templates that repeat (TinyLFU's doorkeeper)
_SEEN_MAXSIZE = 8192
#: spec texts seen (by hash), whatever the rest of their key: a create whose spec text is not among them is a
#: first sight (:meth:`CreateTemplates.first_sight`), and skips the memo tables keyed on encodings
_SPECS_MAXSIZE = 8192

TemplateKey = tuple[Hashable, ...]


class _Envelope(msgspec.Struct, forbid_unknown_fields=True):
    """A templated kind's create body with its spec left as JSON text (:meth:`CreateTemplates.key_of_json`):
    nothing but these top-level fields, metadata an object (any other shape takes the whole decode)."""

    metadata: dict[str, Any]
    spec: msgspec.Raw
    apiVersion: str | msgspec.UnsetType = msgspec.UNSET
    kind: str | msgspec.UnsetType = msgspec.UNSET


_decode_envelope = msgspec.json.Decoder(_Envelope).decode


class Template(msgspec.Struct, frozen=True, kw_only=True):
    """The template's share of a create's result (shared read-only by every object made from it)."""

    spec: dict[str, Any]
    #: the initial status (the strategy's ``initial_status``), None when the kind keeps the caller's
    status: dict[str, Any] | None
    #: annotations the template steps added (LimitRanger's ``kubernetes.io/limit-ranger``), in order
    annotations: tuple[tuple[str, str], ...]
    #: the created object's managedFields set outside ``metadata``, as (path element, subtree) in wire order;
    #: None when managedFields were not tracked
    fields: tuple[tuple[str, FieldSet], ...] | None
    #: the encodings of ``spec`` (under the strategy's template field) and ``status``: a hit's store write
    #: splices them instead of encoding the shared dicts again (:meth:`spliced`)
    encoded: dict[str, msgspec.Raw]
    #: per (metadata shape, manager, apiVersion): the encoded ``fieldsV1`` of a create's managedFields entry
    #: (:func:`managed_fields`); bounded by ``_MANAGED_PER_TEMPLATE``
    managed: dict[Hashable, msgspec.Raw] = msgspec.field(default_factory=dict)
    #: names the template steps generated per object (``admission.chain.generate_name``), in draw order:
    #: (base, the recorded name, where it stands in ``spec`` as a trie of keys and indices)
    renames: tuple[tuple[str, str, _Trie], ...] = ()
    #: on a per-object view (:meth:`for_object`): the recorded names and the names drawn for this object
    names: tuple[tuple[str, str], ...] = ()

    def for_object(self, rng: random.Random) -> Template:
        """The template as one create uses it: itself, or when its steps generate names, a view with
        fresh names drawn from ``rng`` as the steps draw them (same order, same calls: the RNG sequence is
        the uncached path's), put wherever the recorded names stood: in the spec (copied along those paths
        only), its recorded encoding and the managedFields the create records (:func:`managed_fields`)."""
        if not self.renames:
            return self
        names = tuple((old, base + random_suffix(rng)) for base, old, _ in self.renames)
        spec: Any = self.spec
        for (_, _, trie), (_, new) in zip(self.renames, names, strict=True):
            spec = _put(spec, trie, new)
        field = next(k for k in self.encoded if k != "status")
        encoded = dict(self.encoded)
        encoded[field] = msgspec.Raw(_renamed(bytes(self.encoded[field]), names))
        return msgspec.structs.replace(self, spec=spec, encoded=encoded, names=names)

    def spliced(self, obj: dict[str, Any], field: str) -> dict[str, Any] | None:
        """What the store encodes in place of ``obj``'s template parts: their recorded encodings, for the
        parts that are still the template's own (an identity check: a step that replaced one is
        encoded as it is), or None when none is."""
        out = {k: raw for k, raw in self.encoded.items()
               if obj.get(k) is (self.spec if k == field else self.status)}
        return out or None


class CreateTemplates:
    """The per-template create memo of one apiserver (see the module docstring)."""

    def __init__(self, *, tables: ResourceTables, admission: AdmissionChain, maxsize: int = DEFAULT_MAXSIZE) -> None:
        self.tables = tables
        self.admission = admission
        self.enabled = True
        #: creates the memo served (a hit whose metadata then needs the whole decode is not one)
        self.served = 0
        #: creates whose spec text was a first sight (:meth:`first_sight`)
        self.first_sights = 0
        self._memo: BoundedCache[TemplateKey, Template] = BoundedCache(None, maxsize=maxsize)
        self._seen: BoundedCache[int, bool] = BoundedCache(None, maxsize=_SEEN_MAXSIZE)
        self._specs: BoundedCache[int, bool] = BoundedCache(None, maxsize=_SPECS_MAXSIZE)

    def statistics(self) -> Any:
        return self._memo.statistics()

    def clear(self) -> None:
        self._memo.clear()
        self._seen.clear()
        self._specs.clear()

    def entries(self) -> list[Template]:
        """The remembered templates, least recently used first."""
        return self._memo.values()

    # --- lookup ---
    def key(self, info: ResourceInfo, strategy: Strategy, req: Request, *, track_managed_fields: bool) -> TemplateKey | None:
        """The memo key of a create request whose body is decoded JSON, None when the memo cannot serve it."""
        tables = self._servable(info, strategy, req)
        body = req.body
        if tables is None or not isinstance(body, dict):
            return None
        if not body.keys() <= _BODY_KEYS or body.get("apiVersion", info.api_version) != info.api_version:
            return None
        if body.get("kind", info.kind) != info.kind or type(body.get("metadata")) is not dict:
            return None
        spec = body.get(strategy.template_field)  # type: ignore[arg-type]
        if type(spec) is not dict:
            return None
        try:
            raw = _encode(spec)
        except (TypeError, ValueError, msgspec.EncodeError):
            return None  # not JSON data (a surrogate, say): the decoder's slow path deals with it
        return self._key(info, req, tables, body["metadata"], raw, track_managed_fields)

    def key_of_json(
        self, info: ResourceInfo, strategy: Strategy, req: Request, *, track_managed_fields: bool,
    ) -> tuple[TemplateKey, dict[str, Any]] | None:
        """The memo key of a create whose body is its JSON bytes (the in-process client's copy), and the
        body's metadata, decoded; None when the memo cannot serve it. Only the metadata is decoded: the
        spec's JSON text is the key as it is (equal text, equal value), so a hit never decodes it, nor
        encodes it again. It is the same key :meth:`key` makes of the decoded body (msgspec writes a
        nested value as it writes it alone)."""
        tables = self._servable(info, strategy, req)
        if tables is None or strategy.template_field != "spec" or type(req.body) is not bytes:
            return None
        try:
            env = _decode_envelope(req.body)
        except msgspec.DecodeError:  # (ValidationError included) another shape: the whole decode says what
            return None
        if env.apiVersion not in (msgspec.UNSET, info.api_version) or env.kind not in (msgspec.UNSET, info.kind):
            return None
        raw = bytes(env.spec)
        if raw[:1] != b"{":
            return None
        key = self._key(info, req, tables, env.metadata, raw, track_managed_fields)
        return (key, env.metadata) if key is not None else None

    def _servable(self, info: ResourceInfo, strategy: Strategy, req: Request) -> tuple[tuple[str, str], ...] | None:
        """The admission tables a create of ``info`` keys on, None when the memo cannot serve it at all."""
        if strategy.template_field is None or not self.enabled:
            return None
        if req.options.dry_run or (req.version and req.version != info.version) or info.storage_version \
                or not info.builtin:
            return None
        return self.admission.template_tables(info.group, info.plural)  # None: a plugin or hook it must not skip

    def _key(
        self, info: ResourceInfo, req: Request, tables: tuple[tuple[str, str], ...], meta: dict[str, Any],
        raw: bytes, track_managed_fields: bool,
    ) -> TemplateKey | None:
        # the annotations as sent: a template step (LimitRanger) may set one, and what it set is replayed
        # over exactly these (it may have set one to the value sent, which recording cannot tell apart)
        annotations = meta.get("annotations")
        try:
            sent_ann = _encode(annotations) if annotations else b""
        except (TypeError, ValueError, msgspec.EncodeError):
            return None
        tables_rv = tuple(self.tables.last_write(g, p) for g, p in tables)
        return (info.group, info.plural, req.namespace, req.options.field_validation, track_managed_fields,
                tables_rv, sent_ann, raw)

    def get(self, key: TemplateKey) -> Template | None:
        return self._memo.get(key)

    def first_sight(self, key: TemplateKey) -> bool:
        """Whether the spec text of a create the memo missed (``key``) was never seen before, in any
        namespace or admission state; it is seen from now on. A first sight's spec, and so its defaulted
        spec, its QoS inputs and its field set, are in none of the memo tables keyed on encodings (but by
        a coincidence of text: two texts that default alike), so its create skips them
        (``kubelite.memo.ENCODED_KEYS``): their key encodes and inserts would be pure cost. Most specs
        that are not templates (bare pods, a DaemonSet's pods pinned to their node, every spec of a
        workload with unique images or env) are seen once."""
        h = hash(key[-1])
        if h in self._specs:
            return False  # (a hash collision only means the create consults the tables)
        self._specs.put(h, True)
        self.first_sights += 1
        return True

    # --- recording ---
    def seen(self, key: TemplateKey) -> bool:
        """Whether a clean create with this key happened before (its next clean create is recorded)."""
        return hash(key) in self._seen  # a collision only records a spec one create early

    def record(
        self, key: TemplateKey, strategy: Strategy, sent_meta: dict[str, Any] | None, obj: dict[str, Any],
        generated: Sequence[tuple[str, str]] = (),
    ) -> None:
        """After a clean create with ``key``: mark the key seen (``sent_meta`` None: it was not seen
        before), or remember the template's share of ``obj``, the create's final object, made from a body
        whose decoded metadata was ``sent_meta`` (copied before any step ran); ``generated``: the names
        the admission plugins drew for it (``AdmissionRequest.generated``)."""
        field = strategy.template_field
        assert field is not None
        if sent_meta is None:
            self._seen.put(hash(key), True)
            return
        meta = obj["metadata"]
        for k in {*sent_meta, *meta} - _OBJECT_META:
            if sent_meta.get(k) != meta.get(k):
                return  # a template step changed metadata this module does not replay
        sent_ann = sent_meta.get("annotations") or {}
        final_ann = meta.get("annotations") or {}
        if not isinstance(sent_ann, dict) or not isinstance(final_ann, dict) or any(k not in final_ann for k in sent_ann):
            return
        added = tuple((k, v) for k, v in final_ann.items() if sent_ann.get(k) != v)
        if not set(obj) <= {"apiVersion", "kind", "metadata", field, "status"}:
            return
        fields: tuple[tuple[str, FieldSet], ...] | None = None
        entries = meta.get("managedFields")
        if key[4]:  # managedFields tracked
            if not isinstance(entries, list) or len(entries) != 1:
                return
            fields = tuple((k, v) for k, v in entries[0]["fieldsV1"].items() if k != "f:metadata")
        status = obj.get("status")
        encoded = {field: msgspec.Raw(_encode_stored(obj[field]))}
        if status is not None:
            encoded["status"] = msgspec.Raw(_encode_stored(status))
        sent = key[-1]
        assert isinstance(sent, bytes)
        renames = _renames(generated, sent, obj[field], encoded, added, fields) if generated else ()
        if renames is None:
            return
        self._memo.put(key, Template(
            spec=_decode(encoded[field]), status=_decode(encoded["status"]) if status is not None else None,
            annotations=added, fields=fields, encoded=encoded, renames=renames,
        ))


def managed_fields(
    t: Template, obj: dict[str, Any], schema: Schema | None, *, manager: str, api_version: str, now: str,
) -> list[dict[str, Any]] | None:
    """The managedFields of a create from ``t``: what ``FieldManager.update(None, obj, ...)`` returns for
    the whole object, with the template's set shared instead of walked again. The creator owns every
    field it set; ``metadata`` is walked per object (it is the object's own), less stripmeta's fields
    (``managedFields`` is not set yet, the others are strings and integers, so leaving them out of the
    walk is the set difference stripmeta takes).

    The entry's ``fieldsV1`` depends only on the template, the metadata's shape (label and annotation
    keys, owners, finalizers), the manager and the apiVersion, so its encoding is remembered per template
    and shape and spliced (a ``msgspec.Raw``): per create the entry costs its six keys and the time. A
    per-object view with generated names (:meth:`Template.for_object`) puts its names into that encoding;
    None (then ``FieldManager.update`` runs) when the object's own metadata mentions a recorded name."""
    assert t.fields is not None
    kept = {k: v for k, v in obj["metadata"].items() if k not in STRIPPED_META}
    if t.names and _mentions(kept, t.names):
        return None
    shape = _shape(kept)
    mkey = (shape, manager, api_version) if shape is not None else None
    raw = t.managed.get(mkey) if mkey is not None else None
    if raw is None:
        fields = _template_set(t, _metadata_set(kept, shape, schema))
        if not fields:
            raw = _NO_ENTRY
        elif mkey is None and not t.names:
            return _entries(fields, manager=manager, api_version=api_version, now=now)
        else:
            raw = msgspec.Raw(_encode_stored(fields))
        if mkey is not None:
            if len(t.managed) >= _MANAGED_PER_TEMPLATE:
                t.managed.clear()
            t.managed[mkey] = raw
    if raw is _NO_ENTRY:
        return []
    if t.names:  # (the remembered encodings hold the recorded names)
        raw = msgspec.Raw(_renamed(bytes(raw), t.names))
    return [{"manager": manager or "unknown", "operation": "Update", "apiVersion": api_version, "time": now,
             "fieldsType": "FieldsV1", "fieldsV1": raw}]


def _mentions(kept: dict[str, Any], names: tuple[tuple[str, str], ...]) -> bool:
    try:
        text = _encode(kept)
    except (TypeError, ValueError, msgspec.EncodeError):
        return True
    return any(old.encode() in text for old, _ in names)


_NO_ENTRY = msgspec.Raw(b"{}")  # (an empty set: no entry)
#: metadata shapes remembered per template: the owners stamping pods out of it (one per ReplicaSet) times
#: their label-key sets
_MANAGED_PER_TEMPLATE = 64


def _template_set(t: Template, own: FieldSet | None) -> FieldSet:
    """The whole object's set: the template's, with ``own`` (the metadata's) in its wire-order place."""
    assert t.fields is not None
    fields: FieldSet = {}
    placed = own is None
    for k, v in t.fields:
        if not placed and pe_sort_key(k) > _META_KEY:
            fields["f:metadata"] = own  # type: ignore[assignment]
            placed = True
        fields[k] = v
    if not placed:
        fields["f:metadata"] = own  # type: ignore[assignment]
    return fields


def _entries(fields: FieldSet, *, manager: str, api_version: str, now: str) -> list[dict[str, Any]]:
    key = ManagerKey(manager or "unknown", "Update", api_version, "")
    return encode_managed_fields({key: VersionedSet(fields, api_version, False)}, {key: now}, in_wire_order=key)


_META_KEY = pe_sort_key("f:metadata")
# metadata a create keeps whose field set is known from its shape alone: label and annotation keys (their
# values are strings, leaves), the finalizers and owner references themselves (set and map lists),
# generateName (a leaf)
_SHAPED_META = frozenset({"labels", "annotations", "finalizers", "ownerReferences", "generateName"})
#: bound: distinct metadata shapes (label keys, owners): a few per workload, as many as its pods are alike
_META_SETS: BoundedCache[tuple[Any, ...], FieldSet | None] = BoundedCache(
    "apiserver.registry.templates.metadata_sets", maxsize=4096)


def _metadata_set(kept: dict[str, Any], key: tuple[Any, ...] | None, schema: Schema | None) -> FieldSet | None:
    """The creator's set under ``f:metadata`` of the ``kept`` metadata (None: nothing), remembered by the
    metadata's shape ``key`` (:func:`_shape`): the pods of one ReplicaSet differ in name (never owned) and
    share their label keys and owner."""
    if key is not None:
        hit = _META_SETS.get(key, _MISSING)
        if hit is not _MISSING:
            return hit
    own = all_fields({"metadata": kept}, schema).get("f:metadata")
    if own is not None:
        own = {k: v for k, v in own.items() if k != "."} or None  # metadata itself is stripped
    if key is not None:
        _META_SETS.put(key, own)
    return own


_MISSING: Any = object()


def _shape(kept: dict[str, Any]) -> tuple[Any, ...] | None:
    """What the set of ``kept`` metadata depends on, or None when it is not only the shaped fields."""
    out: list[Any] = []
    for k, v in kept.items():
        if k not in _SHAPED_META:
            return None
        if k in ("labels", "annotations"):
            if type(v) is not dict or any(type(x) is not str for x in v.values()):
                return None
            out.append((k, tuple(v)))
        elif k == "generateName":
            out.append((k, None))
        else:
            try:
                out.append((k, _encode(v)))
            except (TypeError, ValueError, msgspec.EncodeError):
                return None
    return tuple(out)


# --- names the template steps generate per object ---------------------------------------------------

_Trie = dict[Any, Any]
_LEAF: Any = None  # (a trie's leaf: the name stands here)


def _renames(
    generated: Sequence[tuple[str, str]], sent: bytes, spec: dict[str, Any], encoded: dict[str, msgspec.Raw],
    added: tuple[tuple[str, str], ...], fields: tuple[tuple[str, FieldSet], ...] | None,
) -> tuple[tuple[str, str, _Trie], ...] | None:
    """Where each generated name stands in the final ``spec``, or None when the template cannot replay
    them exactly. A name can be replaced by another drawn the same way only if the steps treated it as an
    opaque string: so every occurrence of its base in what is recorded (the spec's and status's encodings,
    the field set, the added annotations) must be an occurrence of the name itself (no other string
    shares the base, so no comparison, sort or length check could tell two names apart), none may be in
    the spec as sent, none may be a key of the spec, and the names must differ from each other."""
    texts = [bytes(raw) for raw in encoded.values()]
    texts.append(_encode_stored(dict(fields)) if fields else b"")
    texts.append(_encode(added) if added else b"")
    names = [name for _, name in generated]
    if len(set(names)) != len(names):
        return None
    out: list[tuple[str, str, _Trie]] = []
    for base, name in generated:
        b_base, b_name = base.encode(), name.encode()
        if not base or b_base in sent or any(t.count(b_base) != t.count(b_name) for t in texts):
            return None
        trie: _Trie = {}
        found = _find(spec, name, (), trie)
        if found is None or found != bytes(encoded[next(k for k in encoded if k != "status")]).count(b'"' + b_name + b'"'):
            return None
        out.append((base, name, trie))
    return tuple(out)


def _find(node: Any, name: str, path: tuple[Any, ...], trie: _Trie) -> int | None:
    """Add to ``trie`` every path under ``node`` whose value is the string ``name``; their count, or None
    when ``name`` is a key somewhere."""
    if type(node) is dict:
        items: Any = node.items()
        if name in node:
            return None
    elif type(node) is list:
        items = enumerate(node)
    else:
        if node == name:
            at = trie
            for k in path[:-1]:
                at = at.setdefault(k, {})
            at[path[-1]] = _LEAF
            return 1
        return 0
    n = 0
    for k, v in items:
        found = _find(v, name, (*path, k), trie)
        if found is None:
            return None
        n += found
    return n


def _put(node: Any, trie: _Trie, name: str) -> Any:
    """``node`` with ``name`` at the trie's leaves: the containers on the way copied, the rest shared."""
    out = dict(node) if type(node) is dict else list(node)
    for k, sub in trie.items():
        out[k] = name if sub is _LEAF else _put(node[k], sub, name)
    return out


def _renamed(text: bytes, names: tuple[tuple[str, str], ...]) -> bytes:
    for old, new in names:
        text = text.replace(old.encode(), new.encode())
    return text
