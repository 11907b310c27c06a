"""Shared views: one decoded object per stored object version, shared by every informer that asks.

client-go's shared informers hand every cache and every handler the same object per event; that sharing
is what makes many informers over one resource cheap. kubelite does the same across informers:

- The store keeps each version's JSON as :class:`StoredBytes` (a ``bytes`` able to carry attributes).
- :func:`shared_view` decodes a version once per target type (a Struct class, or None for a dict) and
  returns that same object to every later caller: a watch fan-out to N informers costs one decode and
  N references. The view is the control-plane view: managedFields are dropped, as
  kube-controller-manager's informer transform drops them (``trim`` in ``CreateControllerContext``).
- **Equal parts are shared across views.** Below an object's top level, every part of a typed view (a
  container, its env list and probes, a toleration, an owner reference, a pod condition, a dict of labels or
  quantities) is one frozen object for every view holding an equal part: the replicas of a template and the
  successive versions of an object hold each once (see "shared parts" below). Nothing a reader can see
  changes but identity (``a.spec.containers is b.spec.containers`` for two replicas).
- A version's views are kept while it is the current version and dropped when the store supersedes it
  (:func:`release_views`): the history window keeps bytes only, and an informer still behind by a whole
  version decodes that version privately (correct, just not shared). :data:`STATS` counts decodes and
  hits.

The isolation contract: **a shared view is read-only, and enforced so at the point of mutation.** Only
clients built with sharing on (the cluster's own components, see ``Client.sharing_decodes``) receive
views, and only through informers; a user's client, its watches, lists and gets, and the operator
framework's cache reader always get private copies, so nothing a user does to an object can reach the
control plane's caches or the store. The components' side of client-go's contract ("handlers must not
mutate what they are handed") is enforced, not trusted:

- Every view is **frozen** (:func:`freeze`): each Struct in it is an instance of its read-only twin (a
  subclass of the generated class with the same name and fields, so ``isinstance``, encoding, ``repr`` and
  equality with a mutable object are unchanged), every list a :class:`FrozenList` and every dict a
  :class:`FrozenDict` (subclasses of ``list`` and ``dict``). Setting an attribute, or calling any mutating
  method of a list or dict anywhere inside a view, raises :class:`SharedViewMutated` at once, naming what
  was mutated; reading costs what it did. ``msgspec.structs.replace`` of a view is a read-only shallow
  copy (its other fields are still shared).
- To change an object, copy it: :func:`thaw` (or ``copy.deepcopy``, which a view answers with a thawed
  copy; ``copy.copy`` gives a mutable top level over still-frozen children, exactly as shared as they
  are) returns an ordinary mutable object of the generated class, as client-go's ``DeepCopy`` does.
- :func:`verify_views` stays as the backstop for writes that bypass the frozen types
  (``list.append(view_list, x)``): it compares every view with a private decode and raises
  :class:`SharedViewMutated` (the cluster runs it over the store on exit). A bypassing write to a shared
  part shows in every view that holds the part, and each of them fails the check.
"""

from __future__ import annotations

import sys
import types
import typing
from typing import Any, NoReturn

import msgspec

from kubelite.memo import BoundedCache, memoize

__all__ = [
    "STATS", "FrozenDict", "FrozenList", "SharedViewMutated", "StoredBytes", "ViewStats", "freeze", "is_frozen",
    "release_views", "shared_view", "thaw", "thawed_type", "verify_views",
]

_untyped_decoder: msgspec.json.Decoder[Any] = msgspec.json.Decoder()
_encode = msgspec.json.Encoder().encode


class ViewStats:
    """Process-wide counters (plain ints): views decoded, views handed out again, fresh decodes of bytes
    that carry no views (re-encoded or superseded versions)."""

    __slots__ = ("decoded", "fresh", "hits")

    def __init__(self) -> None:
        self.decoded = 0
        self.hits = 0
        self.fresh = 0


STATS = ViewStats()
_RELEASED: dict[Any, Any] = {}  # the views of a superseded version (never filled)


# bound: one decoder per Struct type viewed (the generated API types)
@memoize("api.views.decoder", maxsize=1024)
def _decoder(tp: Any) -> msgspec.json.Decoder[Any]:
    return msgspec.json.Decoder(tp)


class StoredBytes(bytes):
    """The JSON bytes of one stored object version, able to carry that version's shared views.

    A plain ``bytes`` everywhere else (it compares, hashes, slices and joins as bytes). Its instance
    ``__dict__`` exists only once a view was asked for; the views live exactly as long as the bytes, so
    a version's views go when the store, its history and every watcher queue have let the version go.
    """

    views: dict[Any, Any]


class SharedViewMutated(RuntimeError, TypeError):
    """Someone mutated (or tried to mutate) a shared view: an object an informer handed them.

    Raised at the point of mutation by the frozen views, and by :func:`verify_views` for a write that
    bypassed them. A ``TypeError`` too, as Python's own immutable types raise."""


_HINT = "informer objects are shared by every cache and handler and must not be changed (copy them first: thaw())"


def _refuse(what: str) -> NoReturn:
    raise SharedViewMutated(f"a shared {what} view is read-only: {_HINT}")


# --- the frozen containers ---


def _list_mutator(*_: Any, **__: Any) -> NoReturn:
    _refuse("list")


def _dict_mutator(*_: Any, **__: Any) -> NoReturn:
    _refuse("dict")


class FrozenList(list[Any]):
    """A ``list`` inside a shared view: reads as a list (``==``, ``+``, slicing and ``list(x)`` give plain
    lists), and every in-place change raises :class:`SharedViewMutated`."""

    __slots__ = ()
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _list_mutator
    append = extend = insert = pop = remove = clear = sort = reverse = _list_mutator

    def __copy__(self) -> list[Any]:
        return list(self)

    def __deepcopy__(self, memo: Any) -> Any:
        return thaw(self)

    def __reduce__(self) -> Any:
        return list, (list(self),)


class FrozenDict(dict[Any, Any]):
    """A ``dict`` inside a shared view: reads as a dict (``|``, ``.copy()``, ``dict(x)`` and ``{**x}`` give
    plain dicts), and every in-place change raises :class:`SharedViewMutated`."""

    __slots__ = ()
    __setitem__ = __delitem__ = __ior__ = _dict_mutator
    clear = pop = popitem = setdefault = update = _dict_mutator

    def __copy__(self) -> dict[Any, Any]:
        return dict(self)

    def __deepcopy__(self, memo: Any) -> Any:
        return thaw(self)

    def __reduce__(self) -> Any:
        return dict, (dict(self),)


# --- the frozen Struct twins ---

_SCALARS = frozenset({str, int, float, bool, bytes, type(None)})
# Every string in a view is interned: the many pods of one template, and the versions of one pod, then hold one
# copy of each image, label, namespace, condition type and timestamp (CPython's interned strings are mortal:
# they go when the last view holding them does).
_intern = sys.intern
_TWINS: dict[type, type] = {}  # generated class -> its read-only twin
_PLANS: dict[type, Any] = {}  # class (and twin) -> (twin, (field, kind, Struct class) for each non-scalar field)


def _scalar(tp: Any) -> bool:
    """Whether a field annotation can only hold immutable scalars (nothing to freeze inside)."""
    if tp in _SCALARS:
        return True
    origin = typing.get_origin(tp)
    if origin is typing.Union or origin is types.UnionType:
        return all(_scalar(a) for a in typing.get_args(tp))
    return origin is typing.Literal


def _struct_setattr(self: Any, name: str, value: Any) -> NoReturn:
    _refuse(f"{type(self).__name__} (setting .{name})")


def _struct_delattr(self: Any, name: str) -> NoReturn:
    _refuse(f"{type(self).__name__} (deleting .{name})")


def _struct_eq(self: Any, other: Any) -> Any:
    """Field-wise equality with the twin's base class too (msgspec's compares exact types only)."""
    if self is other:
        return True
    base = type(self).__thawed__
    if not isinstance(other, base):
        return NotImplemented
    return all(getattr(self, f) == getattr(other, f) for f in base.__struct_fields__)


def _struct_ne(self: Any, other: Any) -> Any:
    eq = _struct_eq(self, other)
    return eq if eq is NotImplemented else not eq


def _struct_copy(self: Any) -> Any:
    """``copy.copy``: a mutable top level (its children stay the shared, frozen ones)."""
    base = type(self).__thawed__
    return base(**{f: getattr(self, f) for f in base.__struct_fields__})


def _struct_deepcopy(self: Any, memo: Any) -> Any:
    return thaw(self)


def _twin(cls: type) -> type:
    """The read-only twin of a Struct class: same name, fields and config; refuses every write."""
    twin = _TWINS.get(cls)
    if twin is None:
        twin = msgspec.defstruct(
            cls.__name__, [], bases=(cls,), module=cls.__module__,
            namespace={"__setattr__": _struct_setattr, "__delattr__": _struct_delattr, "__eq__": _struct_eq,
                       "__ne__": _struct_ne, "__hash__": None, "__copy__": _struct_copy,
                       "__deepcopy__": _struct_deepcopy, "__thawed__": cls, "__qualname__": cls.__qualname__},
        )
        _TWINS[cls] = twin
        _TWINS[twin] = twin
    return twin


_STRUCT, _STRUCTS, _SCALAR_LIST, _SCALAR_DICT, _ANY, _STR = range(6)


def _field_kind(tp: Any) -> tuple[int, Any]:
    """How to freeze a value of a field annotated ``tp`` (precomputed per class, so the walk does no type
    dispatch): a string (interned), a Struct, a list of Structs, a list or dict of scalars, or anything
    (walked generically)."""
    if tp is str:
        return _STR, None
    origin = typing.get_origin(tp)
    if origin is typing.Union or origin is types.UnionType:
        options = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(options) == 1:
            return _field_kind(options[0])
        return _ANY, None
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
        return _STRUCT, tp
    args = typing.get_args(tp)
    if origin is list and len(args) == 1:
        if isinstance(args[0], type) and issubclass(args[0], msgspec.Struct):
            return _STRUCTS, args[0]
        if _scalar(args[0]):
            return _SCALAR_LIST, None
    if origin is dict and len(args) == 2 and _scalar(args[1]):
        return _SCALAR_DICT, None
    return _ANY, None


def _plan(cls: type) -> tuple[type, tuple[tuple[str, int, Any], ...]]:
    plan = _PLANS.get(cls)
    if plan is None:
        fields = tuple((f.name, *kind) for f in msgspec.structs.fields(cls)
                       if (kind := _field_kind(f.type))[0] == _STR or not _scalar(f.type))
        plan = _PLANS[cls] = (_twin(cls), fields)
        _PLANS[plan[0]] = plan
        _note_unshared(cls)
        if cls.__name__ in _UNSHARED_NAMES:
            _UNSHARED.add(cls)
    return plan


def _freeze_struct(v: Any) -> Any:
    twin, fields = _PLANS.get(type(v)) or _plan(type(v))
    if type(v) is twin:
        return v
    for name, kind, _sub in fields:
        x = getattr(v, name)
        if x is None:
            continue
        if kind == _STR:
            setattr(v, name, _intern(x))
        elif kind == _STRUCT:
            setattr(v, name, _shared_part(x))
        elif kind == _STRUCTS:
            setattr(v, name, _shared_list([_shared_part(e) for e in x]))
        elif kind == _SCALAR_LIST:
            setattr(v, name, FrozenList([_intern(e) if type(e) is str else e for e in x]))
        elif kind == _SCALAR_DICT:
            setattr(v, name, _shared_dict(x))
        else:
            setattr(v, name, _freeze(x))
    v.__class__ = twin
    return v


# --- shared parts ---
# The parts of a view below its object's top level (a container, a toleration, an owner reference, a pod
# condition, a probe) are shared with every other view holding an equal part: the replicas of one template
# and the successive versions of one object then hold one frozen copy of each (hash-consing, keyed on the
# part's class and JSON encoding; a part is frozen, so sharing it is as safe as sharing the view).
# A hit skips the part's freeze walk, which pays for most of the key's encode. The table is bounded (LRU):
# an evicted part stays alive in the views that hold it, and an equal part decoded later is simply a copy.
# Parts unlikely to repeat are never keyed: an object's metadata, spec and status structs (named by the
# generated classes' ``metadata``/``spec``/``status`` fields; their own parts are shared) and a
# container's status and a pod IP (unique to their pod).


# bound: distinct parts among recently built views: a template's ~40 parts times the templates in use
_PARTS: BoundedCache[tuple[Any, ...], Any] = BoundedCache("api.views.shared_parts", maxsize=16_384)
_UNSHARED: set[type] = set()
_UNSHARED_NAMES = frozenset({"ContainerStatus", "ManagedFieldsEntry", "PodIP"})


def _note_unshared(cls: type) -> None:
    """Record which part classes are never keyed (see above), from ``cls``'s ``metadata``/``spec``/``status``
    field annotations."""
    for f in msgspec.structs.fields(cls):
        if f.name in ("metadata", "spec", "status", "template"):
            _kind, sub = _field_kind(f.type)
            if isinstance(sub, type):
                _UNSHARED.add(sub)


def _shared_part(x: Any) -> Any:
    """The frozen part equal to ``x`` (a freshly decoded Struct below a view's top level): a shared one
    when an equal part was frozen before (see above), else ``x`` itself, frozen and remembered."""
    cls = type(x)
    if cls in _UNSHARED:
        return _freeze_struct(x)
    key = (cls, _encode(x))
    got = _PARTS.get(key)
    if got is None:
        got = _freeze_struct(x)
        _PARTS.put(key, got)
    return got


def _shared_list(parts: list[Any]) -> FrozenList:
    """The frozen list of these (shared) parts: one per distinct sequence of parts. Keyed on the parts'
    identities, which is sound because the remembered list holds those very parts (an identity in a key
    cannot be reused while its entry lives)."""
    if not parts or getattr(type(parts[0]), "__thawed__", None) in _UNSHARED:  # (container statuses)
        return FrozenList(parts)
    key = (FrozenList, tuple(map(id, parts)))
    got = _PARTS.get(key)  # type: ignore[arg-type]
    if got is None:
        got = FrozenList(parts)
        _PARTS.put(key, got)  # type: ignore[arg-type]
    return got  # type: ignore[no-any-return]


def _shared_dict(x: dict[Any, Any]) -> FrozenDict:
    """The frozen dict of scalars equal to ``x`` (labels, annotations, resource quantities): one per distinct
    set of items (in order; ``True`` and ``1`` are told apart by their types)."""
    items = tuple(x.items())
    key = (FrozenDict, items, tuple(map(type, x.values())))
    got = _PARTS.get(key)  # type: ignore[arg-type]
    if got is None:
        got = FrozenDict({_intern(k): _intern(e) if type(e) is str else e for k, e in items})
        _PARTS.put(key, got)  # type: ignore[arg-type]
    return got  # type: ignore[no-any-return]


def _freeze_dict(v: dict[Any, Any]) -> FrozenDict:
    # scalars are handled inline (no call per leaf): the untyped views (a pod's kubelet) are mostly leaves
    out = {}
    for k, x in v.items():
        tp = type(x)
        if tp is str:
            x = _intern(x)
        elif tp is dict:
            x = _freeze_dict(x)
        elif tp is list:
            x = _freeze_list(x)
        elif tp not in _SCALARS:
            x = _freeze(x)
        out[_intern(k)] = x
    return FrozenDict(out)


def _freeze_list(v: list[Any]) -> FrozenList:
    out = []
    for x in v:
        tp = type(x)
        if tp is str:
            x = _intern(x)
        elif tp is dict:
            x = _freeze_dict(x)
        elif tp is list:
            x = _freeze_list(x)
        elif tp not in _SCALARS:
            x = _freeze(x)
        out.append(x)
    return FrozenList(out)


def _freeze(v: Any) -> Any:
    tp = type(v)
    if tp is dict:
        return _freeze_dict(v)
    if tp is list:
        return _freeze_list(v)
    if tp is str:
        return _intern(v)
    if isinstance(v, msgspec.Struct):
        return _freeze_struct(v)
    return v


def freeze(obj: Any) -> Any:
    """Make a freshly decoded object read-only in place, all the way down, and return it (a list or dict
    is replaced by its frozen twin, so use the result). Only for objects nobody else holds yet."""
    return _freeze(obj)


def is_frozen(obj: Any) -> bool:
    """Whether ``obj`` is a shared, read-only view (or a frozen part of one)."""
    return type(obj) in (FrozenList, FrozenDict) or getattr(type(obj), "__thawed__", None) not in (None, type(obj))


def thawed_type(tp: Any) -> Any:
    """The generated class behind a read-only twin (anything else: itself)."""
    return getattr(tp, "__thawed__", tp) if isinstance(tp, type) else tp


def thaw(obj: Any) -> Any:
    """A deep, mutable copy of ``obj`` (a view or any API object) as the generated classes, plain lists and
    dicts: client-go's ``DeepCopy``. One encode and one decode."""
    if isinstance(obj, msgspec.Struct):
        return _decoder(thawed_type(type(obj))).decode(_encode(obj))
    return _untyped_decoder.decode(_encode(obj))


def _strip_managed_fields(obj: Any) -> Any:
    """kube-controller-manager's informer transform (``CreateControllerContext``'s ``trim``:
    ``accessor.SetManagedFields(nil)``): the control plane's caches do not keep managedFields."""
    if isinstance(obj, dict):
        meta = obj.get("metadata")
        if isinstance(meta, dict) and "managedFields" in meta:
            del meta["managedFields"]
        return obj
    meta = getattr(obj, "metadata", None)
    if meta is not None and getattr(meta, "managed_fields", None) is not None:
        meta.managed_fields = None
    return obj


def _fresh_view(data: bytes, tp: Any) -> Any:
    decoded = _untyped_decoder.decode(data) if tp is None else _decoder(tp).decode(data)
    return _freeze(_strip_managed_fields(decoded))


def shared_view(data: bytes, tp: Any = None) -> Any:
    """The shared read-only view of one stored version as ``tp`` (a Struct class; None: a dict), without
    managedFields and frozen (:func:`freeze`): decoded on the first call for ``(data, tp)``, the same object
    on every later one.
    Bytes that are not :class:`StoredBytes` (a re-encoded DELETED, a bookmark) get a fresh view."""
    if type(data) is not StoredBytes:
        STATS.fresh += 1
        return _fresh_view(data, tp)
    views = getattr(data, "views", None)
    if views is None:
        views = data.views = {}
    elif views is _RELEASED:  # superseded: no longer shared
        STATS.fresh += 1
        return _fresh_view(data, tp)
    else:
        view = views.get(tp)
        if view is not None:
            STATS.hits += 1
            return view
    STATS.decoded += 1
    view = views[tp] = _fresh_view(data, tp)
    return view


def release_views(data: bytes) -> None:
    """The store superseded this version: drop its views (their holders keep them) and share no more."""
    if getattr(data, "views", None) is not None:  # never viewed: nothing to drop (no __dict__ is made)
        data.views = _RELEASED  # type: ignore[attr-defined]


def verify_views(data: bytes, where: str = "") -> None:
    """Raise :class:`SharedViewMutated` if a shared view of ``data`` differs from a fresh decode."""
    if type(data) is not StoredBytes:
        return
    views = getattr(data, "views", None)
    if not views:
        return
    for tp, view in views.items():
        # against a private decode, never through the shared parts (a broken part would compare equal to itself)
        fresh = _untyped_decoder.decode(data) if tp is None else _decoder(tp).decode(data)
        if view != _strip_managed_fields(fresh):
            name = "dict" if tp is None else getattr(tp, "__name__", str(tp))
            raise SharedViewMutated(
                f"a shared {name} view of {where or 'a stored object'} was mutated by its reader: informer "
                "objects are shared by every cache and handler and must not be changed (copy them first)"
            )
