"""Bounded memo tables with statistics: the one helper behind every module-level cache in kubelite.

Contract:
- A memo table never grows past its ``maxsize``; every table states its bound where it is declared (and
  why that bound suffices).
- :class:`BoundedCache` is a mapping with least-recently-used eviction (a hit refreshes the key; inserting
  into a full table evicts the key used longest ago), as groupcache's ``lru.Cache`` that client-go's event
  correlator uses. Values are shared: callers store only immutable values or values they never mutate.
- :func:`memoize` bounds a pure function of hashable arguments (``functools.lru_cache`` underneath, which
  is LRU and implemented in C); use it where the key is the argument tuple itself.
- :meth:`BoundedCache.statistics` and :func:`statistics` return frozen :class:`CacheStatistics` records
  (trio-style ``statistics()``), never live counters. Evictions of a :func:`memoize` table are derived from
  its counters (misses minus entries, since its last :meth:`clear`).
- Named tables register themselves (by name, once) so :func:`statistics` can list them all and
  :func:`clear_all` can reset them (tests, benchmarks). Memo tables hold derived data only: clearing one
  changes speed, never answers. A name belongs to the module that declared it: a second table of that
  name is a ``ValueError``, while a fresh import of the same module (pytester's in-process runs unload
  the modules a run imported, so the next run imports them again) replaces its old tables.
- :data:`ENCODED_KEYS` is the one switch of the tables keyed on a value's JSON encoding (pod defaulting,
  QoS, ``memo_valid`` validation, managedFields sets): a create whose spec was never seen before turns them
  off for its synchronous steps (:func:`encoded_keys_off`), since none of them can hold its values and
  their key encodes and inserts are then pure cost. Skipping a table changes speed, never answers.
Plain sync code: single-threaded asyncio needs no locks.
"""

from __future__ import annotations

import functools
import re
import sys
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Generic, Protocol, TypeVar

import msgspec

__all__ = ["ENCODED_KEYS", "BoundedCache", "CacheStatistics", "clear_all", "compiled", "encoded_keys_off", "memoize",
           "statistics"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
F = TypeVar("F", bound=Callable[..., Any])


class CacheStatistics(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    maxsize: int
    size: int
    hits: int
    misses: int
    evictions: int


class _Table(Protocol):
    def statistics(self) -> CacheStatistics: ...

    def clear(self) -> None: ...


class _EncodedKeys:
    """Whether the memo tables keyed on a value's JSON encoding are consulted (and filled)."""

    __slots__ = ("on",)

    def __init__(self) -> None:
        self.on = True


#: read by every table keyed on an encoding before it encodes its key (see the module docstring)
ENCODED_KEYS = _EncodedKeys()
_R = TypeVar("_R")


def encoded_keys_off(fn: Callable[..., _R], *args: Any) -> _R:
    """``fn(*args)`` (synchronous) with the tables keyed on an encoding neither consulted nor filled."""
    keyed = ENCODED_KEYS
    was = keyed.on
    keyed.on = False
    try:
        return fn(*args)
    finally:
        keyed.on = was


_REGISTRY: dict[str, _Table] = {}
#: name -> the globals of the module execution that declared it (a re-import runs with fresh globals)
_OWNERS: dict[str, dict[str, Any]] = {}


def _register(name: str, table: _Table, owner: dict[str, Any]) -> None:
    """Register ``table`` as ``name``, declared by the module whose globals are ``owner``."""
    old = _OWNERS.get(name)
    if old is not None and (old is owner or old.get("__name__") != owner.get("__name__")):
        raise ValueError(f"a memo table named {name!r} already exists")
    _REGISTRY[name] = table
    _OWNERS[name] = owner


class BoundedCache(Generic[K, V]):
    """A mapping of at most ``maxsize`` entries with LRU eviction and hit/miss/eviction counts. With a
    ``name`` it is registered for :func:`statistics`; instance-level caches pass ``name=None``."""

    __slots__ = ("_data", "evictions", "hits", "maxsize", "misses", "name")

    def __init__(self, name: str | None, *, maxsize: int) -> None:
        if maxsize < 1:
            raise ValueError(f"maxsize must be at least 1, got {maxsize}")
        self.name = name or ""
        self.maxsize = maxsize
        self._data: OrderedDict[K, V] = OrderedDict()
        self.hits = self.misses = self.evictions = 0
        if name is not None:
            _register(name, self, sys._getframe(1).f_globals)

    def get(self, key: K, default: V | None = None) -> V | None:
        data = self._data
        try:
            value = data[key]
        except KeyError:
            self.misses += 1
            return default
        data.move_to_end(key)
        self.hits += 1
        return value

    def put(self, key: K, value: V) -> None:
        data = self._data
        data[key] = value
        data.move_to_end(key)
        if len(data) > self.maxsize:
            data.popitem(last=False)
            self.evictions += 1

    def pop(self, key: K) -> V | None:
        return self._data.pop(key, None)

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def values(self) -> list[V]:
        """The values, least recently used first (no hit is counted)."""
        return list(self._data.values())

    def __len__(self) -> int:
        return len(self._data)

    def clear(self) -> None:
        self._data.clear()

    def statistics(self) -> CacheStatistics:
        return CacheStatistics(name=self.name, maxsize=self.maxsize, size=len(self._data), hits=self.hits,
                               misses=self.misses, evictions=self.evictions)


class _Memoized:
    """The registry's view of one :func:`memoize` table."""

    __slots__ = ("_base_misses", "fn", "name")

    def __init__(self, name: str, fn: Any) -> None:
        self.name = name
        self.fn = fn
        self._base_misses = 0

    def statistics(self) -> CacheStatistics:
        info = self.fn.cache_info()
        return CacheStatistics(name=self.name, maxsize=info.maxsize, size=info.currsize, hits=info.hits,
                               misses=info.misses,
                               evictions=max(0, info.misses - self._base_misses - info.currsize))

    def clear(self) -> None:
        self._base_misses = self.fn.cache_info().misses
        self.fn.cache_clear()


def memoize(name: str, *, maxsize: int, typed: bool = False) -> Callable[[F], F]:
    """Bound a pure function's results to ``maxsize`` entries (LRU), registered under ``name``."""
    if maxsize < 1:
        raise ValueError(f"maxsize must be at least 1, got {maxsize}")

    def wrap(fn: F) -> F:
        cached = functools.lru_cache(maxsize=maxsize, typed=typed)(fn)
        _register(name, _Memoized(name, cached), fn.__globals__)
        return cached  # type: ignore[return-value]
    return wrap


def statistics() -> list[CacheStatistics]:
    """Every registered table's statistics, by name."""
    return [_REGISTRY[n].statistics() for n in sorted(_REGISTRY)]


def clear_all() -> None:
    """Empty every registered table (their counters keep counting)."""
    for t in _REGISTRY.values():
        t.clear()


# bound: one entry per module-level pattern constant handed in (callers pass only their constants, a few dozen)
@memoize("memo.compiled", maxsize=64)
def compiled(pattern: str) -> re.Pattern[str]:
    """``re.compile(pattern)`` on the pattern's first use instead of at import, kept for the process (``re``'s own
    cache evicts). For the long module-level patterns a cluster's start does not use: a compile costs with the
    pattern's length (the 330-character image reference grammar took 10 ms; issue #17, cold start)."""
    return re.compile(pattern)
