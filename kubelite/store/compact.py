"""Stored versions, and the compact form the history window keeps superseded ones in.

Guarantees:
- A :class:`StoredObject` is one version of one object: its key, revision, JSON bytes and the labels and
  selectable fields the store filters on. Immutable by convention: nobody outside the store mutates it.
- Its labels are one read-only dict per distinct label set, shared by every version that has that set (a
  template's replicas), and its selectable fields a read-only :class:`FieldSet` whose field labels are one
  tuple per kind: what a version costs beyond its JSON does not grow with the labels and fields it repeats
  (issue #17, memory per pod). Both select exactly as the plain dicts did, and mutating them raises.
- A :class:`CompactObject` is the same version with its JSON deflated inside a :class:`CompactBlock`: one
  zlib stream (level 1) holding a batch of versions back to back, against its table's preset dictionary.
  ``data`` returns the version's bytes exactly as they were stored (plain ``bytes``, a fresh object per read);
  nothing here is mutable, so a compact version may be shared between history events.
- :func:`deflate` turns a batch of versions into compact ones sharing one block, and splits the block's size
  between them (their ``held`` sum to the block's bytes exactly), so a byte bound that counts ``held`` counts
  what is really kept.
- A block's last inflation is remembered by its :class:`Inflated` (one per table): reading the versions of
  one block one after another (a watch replayed from an old revision, a list at one) inflates it once. That
  cache changes nothing a reader sees.

Why batches: a deflate stream's set-up with a preset dictionary (allocating and clearing its window and hash
tables, loading the dictionary) costs more than deflating a 4 KiB pod, so one stream per batch takes most
of the compression's cost off each write; and a batch shares its keys and values across versions, so it
deflates further than each version alone (deflate's 32 KiB window bounds what one block can refer back to,
which is why the store's batches are about that size).
"""

from __future__ import annotations

import sys
import zlib
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from kubelite.api.views import FrozenDict
from kubelite.memo import memoize

if TYPE_CHECKING:
    from kubelite.store.store import _Event

__all__ = ["CompactBlock", "CompactObject", "FieldSet", "Inflated", "StoredObject", "deflate", "object_key"]

_decode = msgspec.json.Decoder().decode
_LEVEL = 1  # zlib's fastest level: with the table's preset dictionary it already gets ~7x on pods


def object_key(namespace: str, name: str) -> str:
    return f"{namespace}/{name}" if namespace else name


def interned(m: dict[str, str]) -> dict[str, str]:
    """A version's labels as the store keeps them: one shared, read-only dict per distinct label set (a
    :class:`~kubelite.api.views.FrozenDict`: any mutation raises), every string interned. The replicas of a
    template and the versions of one pod then hold one dict, and no string of the request body stays alive
    through it."""
    try:
        return _label_set(tuple(m.items()))
    except TypeError:  # (a value that is not a string: validation rejects it; kept as given)
        intern = sys.intern
        return {intern(k): intern(v) if type(v) is str else v for k, v in m.items()}


# bound: distinct label sets among recently written versions (a template's replicas share one)
@memoize("store.label_set", maxsize=4096)
def _label_set(items: tuple[tuple[str, str], ...]) -> dict[str, str]:
    intern = sys.intern
    return FrozenDict({intern(k): intern(v) for k, v in items})  # (shared: read-only, as a view is)


class FieldSet(Mapping[str, str]):
    """A version's selectable fields as the store keeps them: a read-only mapping of field label to value.

    The labels are one tuple (with its index) shared by every version whose kind computes the same labels,
    the values a tuple of interned strings, so a version's field set costs two slots and a tuple instead of
    a dict (a pod's 9 fields: 544 → 168 bytes; an Event's 14: 1,176 → 208). As before, an empty value is
    not a member (a field selector reads a missing field as ``""``, as upstream's ``fields.Set`` does, so
    ``spec.nodeName=`` still selects an unscheduled pod). Equal to any mapping with the same members."""

    __slots__ = ("_index", "_values")

    def __init__(self, index: dict[str, int], values: tuple[str, ...]) -> None:
        self._index = index
        self._values = values

    def get(self, key: str, default: Any = None) -> Any:  # (the selectors' one read: no Mapping dispatch)
        i = self._index.get(key)
        if i is None:
            return default
        v = self._values[i]
        return v if v != "" else default

    def __getitem__(self, key: str) -> str:
        v = self.get(key)
        if v is None:
            raise KeyError(key)
        return v  # type: ignore[no-any-return]

    def __contains__(self, key: object) -> bool:
        i = self._index.get(key)  # type: ignore[call-overload]
        return i is not None and self._values[i] != ""

    def __iter__(self) -> Iterator[str]:
        return (k for k, i in self._index.items() if self._values[i] != "")

    def __len__(self) -> int:
        return sum(1 for v in self._values if v != "")

    def __eq__(self, other: object) -> bool:
        if type(other) is FieldSet and other._index is self._index:
            return self._values == other._values
        return Mapping.__eq__(self, other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"FieldSet({dict(self)!r})"


# bound: one index per distinct tuple of field labels: one per kind (and per CRD's selectable fields)
@memoize("store.field_index", maxsize=1024)
def _field_index(labels: tuple[str, ...]) -> dict[str, int]:
    return {sys.intern(k): i for i, k in enumerate(labels)}


def selectable(m: dict[str, str]) -> FieldSet:
    """A version's selectable fields as the store keeps them (:class:`FieldSet`), values interned (see
    :func:`interned`)."""
    return FieldSet(_field_index(tuple(m)), tuple(map(sys.intern, m.values())))


class StoredObject:
    """One version of one object. Immutable by convention: nobody outside the store mutates it."""

    __slots__ = ("data", "event", "fields", "key", "labels", "name", "namespace", "rv", "trigger")

    def __init__(
        self, key: str, namespace: str, name: str, rv: int, data: bytes, labels: dict[str, str] | None,
        fields: Mapping[str, str] | None, trigger: str | None,
    ) -> None:
        self.key = key
        self.namespace = namespace
        self.name = name
        self.rv = rv
        self.data = data
        self.labels = labels
        self.fields = fields
        self.trigger = trigger
        #: the history event that recorded this version while it is in the window (the store's bookkeeping)
        self.event: _Event | None = None

    def decode(self) -> dict[str, Any]:
        return _decode(self.data)  # type: ignore[no-any-return]

    def __repr__(self) -> str:
        return f"StoredObject({self.key!r}, rv={self.rv})"


class Inflated:
    """A table's last inflated block (see the module docstring): ``block`` and its JSON ``raw``."""

    __slots__ = ("block", "raw")

    def __init__(self) -> None:
        self.block: CompactBlock | None = None
        self.raw = b""


class CompactBlock:
    """A batch of versions' JSON, back to back, deflated as one stream against ``zdict``."""

    __slots__ = ("_cache", "_z", "_zdict")

    def __init__(self, z: bytes, zdict: bytes, cache: Inflated) -> None:
        self._z = z
        self._zdict = zdict
        self._cache = cache

    def inflate(self) -> bytes:
        cache = self._cache
        if cache.block is self:
            return cache.raw
        d = zlib.decompressobj(zdict=self._zdict)
        raw = d.decompress(self._z) + d.flush()
        cache.block, cache.raw = self, raw
        return raw

    def __len__(self) -> int:
        return len(self._z)


class CompactObject(StoredObject):
    """A version as the history window keeps it: the same key, revision, labels and fields, and its JSON a
    slice of a :class:`CompactBlock`. ``data`` inflates it (a plain ``bytes``, equal to the version's JSON)."""

    __slots__ = ("_block", "_end", "_start", "held")

    def __init__(self, old: StoredObject, block: CompactBlock, start: int, end: int, held: int) -> None:
        # (not StoredObject.__init__: ``data`` is the property below, and the base slot stays empty)
        self.key, self.namespace, self.name, self.rv = old.key, old.namespace, old.name, old.rv
        self.labels, self.fields, self.trigger = old.labels, old.fields, old.trigger
        self.event = None
        self._block, self._start, self._end = block, start, end
        #: this version's share of its block's bytes (what the history window's byte bound counts)
        self.held = held

    @property
    def data(self) -> bytes:  # type: ignore[override]  # read-only: a compact version is never rewritten
        return self._block.inflate()[self._start:self._end]

    @property
    def block(self) -> CompactBlock:
        return self._block


def deflate(versions: Sequence[StoredObject], zdict: bytes, cache: Inflated) -> list[CompactObject]:
    """``versions`` (plain ones) made compact in one block, in order; their ``held`` sum to the block's size."""
    datas = [o.data for o in versions]
    raw = b"".join(datas)
    c = zlib.compressobj(_LEVEL, zdict=zdict)
    block = CompactBlock(c.compress(raw) + c.flush(), zdict, cache)
    size, total = len(block), len(raw)
    out: list[CompactObject] = []
    start = given = 0
    for o, d in zip(versions, datas, strict=True):
        end = start + len(d)
        share = size * end // total - given  # (cumulative shares, so they sum to the block's size exactly)
        given += share
        out.append(CompactObject(o, block, start, end, share))
        start = end
    return out
