"""Invariants: what must hold in every run, checked where it can first be seen to break.

Two kinds (:class:`Invariant` may implement either or both):
- ``always(view, change)`` runs synchronously right after *every* committed write (inside the store's
  commit, before any watcher hears of it), with the :class:`Change` and a :class:`ClusterView` of the store
  as of that write. Use it for safety properties ("a status never goes backwards").
- ``at_quiescence(view)`` runs once the cluster is quiescent (``Cluster.quiesce``: every queue empty,
  every informer synced and caught up, the event loop idle). Use it for convergence properties ("every
  widget owns exactly one ConfigMap").

A check returns ``True`` (holds), ``False`` (broken) or a list of problem strings (empty: holds). Returning
anything else (``None``, say, from a function that forgot to return) is an error, never a pass: a check
that cannot fail is a defect. Write your own with the :func:`always` and :func:`at_quiescence` decorators;
the built-ins below are switched on by name (:data:`BUILTIN`). Invariants with state (:meth:`observe`)
are rebuilt for every run by :meth:`Invariant.fresh`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from kubelite.store import Store, StoredObject

__all__ = [
    "BUILTIN",
    "Change",
    "ClusterView",
    "Invariant",
    "NoLeakAfterOwnerDeletion",
    "OwnersExist",
    "SingleController",
    "StatusNeverRegresses",
    "always",
    "at_quiescence",
    "problems_of",
]


def _resource_name(group: str, plural: str) -> str:
    return f"{plural}.{group}" if group else plural


class Change:
    """One committed write: ``type`` is ADDED, MODIFIED or DELETED; ``old``/``new`` are decoded on demand
    (``new`` is the final state for a deletion, ``old`` is None for a creation)."""

    __slots__ = ("_new", "_old", "_view", "cur", "prev", "resource", "rv", "type")

    def __init__(self, view: ClusterView, resource: str, typ: str, rv: int, cur: StoredObject,
                 prev: StoredObject | None) -> None:
        self._view = view
        self.resource = resource
        self.type = typ
        self.rv = rv
        self.cur = cur
        self.prev = prev
        self._new: dict[str, Any] | None = None
        self._old: dict[str, Any] | None = None

    @property
    def key(self) -> str:
        """The changed object's store key (``namespace/name`` or ``name``)."""
        return self.cur.key

    @property
    def new(self) -> dict[str, Any]:
        """The object after the change, decoded (once, on first use)."""
        if self._new is None:
            self._new = self._view.decode(self.cur)
        return self._new

    @property
    def old(self) -> dict[str, Any] | None:
        """The object before the change, decoded, or None for a create."""
        if self.prev is None:
            return None
        if self._old is None:
            self._old = self._view.decode(self.prev)
        return self._old


class ClusterView:
    """Read-only, decoded access to the store for invariants. Resources are named as kubectl names them
    (``"configmaps"``, ``"widgets.example.com"``). Objects are shared between checks: do not mutate them."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._cache: dict[int, tuple[StoredObject, dict[str, Any]]] = {}

    def decode(self, obj: StoredObject) -> dict[str, Any]:
        """A stored object as a dict (decoded once per stored revision)."""
        hit = self._cache.get(id(obj))
        if hit is not None and hit[0] is obj:
            return hit[1]
        if len(self._cache) > 20_000:
            self._cache.clear()
        decoded = obj.decode()
        self._cache[id(obj)] = (obj, decoded)
        return decoded

    def _table(self, resource: str) -> Any:
        plural, _, group = resource.partition(".")
        if "/" in resource:
            group, _, plural = resource.rpartition("/")
        table = self._store.tables.get((group, plural))
        if table is None:
            raise KeyError(f"no resource {resource!r} in this cluster")
        return table

    def list(self, resource: str, namespace: str | None = None) -> list[dict[str, Any]]:
        """Every object of ``resource`` (in ``namespace`` if given) as dicts."""
        table = self._table(resource)
        objs = table.objects.values()
        return [self.decode(o) for o in objs if namespace is None or o.namespace == namespace]

    def get(self, resource: str, name: str, namespace: str = "") -> dict[str, Any] | None:
        """One object of ``resource`` as a dict, or None."""
        table = self._table(resource)
        obj = table.objects.get(f"{namespace}/{name}" if namespace else name)
        return self.decode(obj) if obj is not None else None

    def objects(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """Every stored object, as (resource name, object), in a stable order."""
        for (group, plural), table in sorted(self._store.tables.items()):
            name = _resource_name(group, plural)
            for obj in table.objects.values():
                yield name, self.decode(obj)

    def uids(self) -> dict[str, tuple[str, dict[str, Any]]]:
        """Every object by uid: (resource, object)."""
        return {o["metadata"].get("uid", ""): (r, o) for r, o in self.objects()}


def problems_of(name: str, result: Any) -> list[str]:
    """Normalise a check's result (see the module docstring)."""
    if result is True:
        return []
    if result is False:
        return [f"{name} does not hold"]
    if isinstance(result, list | tuple):
        return [str(p) for p in result]
    raise TypeError(f"invariant {name!r} returned {type(result).__name__}; return True, False or a list of problems")


class Invariant:
    """Base class: override ``always`` and/or ``at_quiescence`` (and ``observe`` for state)."""

    name = "invariant"
    checks_always = False
    checks_at_quiescence = False

    def fresh(self) -> Invariant:
        """A copy with empty state, for one run (stateless invariants return themselves)."""
        return self

    def observe(self, change: Change) -> None:
        """Called for every committed write before ``always`` (for invariants that keep history)."""

    def always(self, view: ClusterView, change: Change) -> Any:
        """Checked after every committed write: True (or None/empty) if it holds, else a message or list of messages.
        Checked after every committed write: True (or None/empty) if it holds, else a message or list of messages."""
        return True

    def at_quiescence(self, view: ClusterView) -> Any:
        """Checked when the cluster is quiet: True (or None/empty) if it holds, else a message or list of messages."""
        return True

    def __repr__(self) -> str:
        return f"<invariant {self.name}>"


class _FunctionInvariant(Invariant):
    def __init__(self, fn: Callable[..., Any], *, when: str, name: str | None) -> None:
        self.fn = fn
        self.name = name or fn.__name__
        self.checks_always = when == "always"
        self.checks_at_quiescence = when == "at_quiescence"

    def always(self, view: ClusterView, change: Change) -> Any:
        return self.fn(view, change)

    def at_quiescence(self, view: ClusterView) -> Any:
        return self.fn(view)


def always(fn: Callable[[ClusterView, Change], Any] | None = None, *, name: str | None = None) -> Any:
    """Decorator: ``fn(view, change)`` must hold after every committed write."""
    if fn is None:
        return lambda f: _FunctionInvariant(f, when="always", name=name)
    return _FunctionInvariant(fn, when="always", name=name)


def at_quiescence(fn: Callable[[ClusterView], Any] | None = None, *, name: str | None = None) -> Any:
    """Decorator: ``fn(view)`` must hold whenever the cluster is quiescent."""
    if fn is None:
        return lambda f: _FunctionInvariant(f, when="at_quiescence", name=name)
    return _FunctionInvariant(fn, when="at_quiescence", name=name)


def _owner_refs(obj: dict[str, Any]) -> list[dict[str, Any]]:
    return list((obj.get("metadata") or {}).get("ownerReferences") or ())


def _describe(resource: str, obj: dict[str, Any]) -> str:
    meta = obj.get("metadata") or {}
    ns = meta.get("namespace")
    return f"{resource} {ns}/{meta.get('name')}" if ns else f"{resource} {meta.get('name')}"


class SingleController(Invariant):
    """No two controllers own one object: at most one ownerReference has ``controller: true`` (upstream
    validation enforces this on every write), and an object's controller never changes from one owner
    that still exists to another (two controllers adopting the same object in turn)."""

    name = "single_controller"
    checks_always = True

    def always(self, view: ClusterView, change: Change) -> Any:
        """No object has more than one ownerReference with ``controller: true`` (what apimachinery validation also
        rejects)."""
        if change.type == "DELETED":
            return True
        new = [r for r in _owner_refs(change.new) if r.get("controller")]
        if len(new) > 1:
            return [f"{_describe(change.resource, change.new)} has {len(new)} controller owners"]
        old = change.old
        if not new or old is None:
            return True
        before = [r for r in _owner_refs(old) if r.get("controller")]
        if before and before[0].get("uid") != new[0].get("uid") and before[0].get("uid") in view.uids():
            return [f"{_describe(change.resource, change.new)} changed controller from {before[0].get('kind')} "
                    f"{before[0].get('name')} to {new[0].get('kind')} {new[0].get('name')} while the first still exists"]
        return True


class OwnersExist(Invariant):
    """At quiescence every ownerReference names an object that exists (same uid): dependents of deleted
    owners are gone (needs the garbage collector: ``controllers=["garbagecollector"]``)."""

    name = "owners_exist"
    checks_at_quiescence = True

    def at_quiescence(self, view: ClusterView) -> Any:
        """Every ownerReference names an object that exists with that uid."""
        uids = view.uids()
        out = []
        for resource, obj in view.objects():
            for ref in _owner_refs(obj):
                if ref.get("uid") not in uids:
                    out.append(f"{_describe(resource, obj)} is owned by {ref.get('kind')} {ref.get('name')}, "
                               "which does not exist")
        return out


class NoLeakAfterOwnerDeletion(Invariant):
    """At quiescence nothing that was ever owned by a since-deleted object still exists, even if its
    ownerReference was dropped on the way (an orphaned child is a leak)."""

    name = "no_leak_after_owner_deletion"
    checks_at_quiescence = True

    def __init__(self) -> None:
        self._owners_ever: dict[str, set[str]] = {}
        self._deleted: set[str] = set()

    def fresh(self) -> Invariant:
        """A new instance for the next run (it remembers owners across changes)."""
        return NoLeakAfterOwnerDeletion()

    def observe(self, change: Change) -> None:
        """Record the owners each object ever had and which of them were deleted."""
        refs = _owner_refs(change.new)
        uid = (change.new.get("metadata") or {}).get("uid", "")
        if change.type == "DELETED":
            self._deleted.add(uid)
            return
        if refs:
            self._owners_ever.setdefault(uid, set()).update(r.get("uid", "") for r in refs)

    def at_quiescence(self, view: ClusterView) -> Any:
        """Every object whose owners were all deleted is gone (the garbage collector caught up)."""
        out = []
        for resource, obj in view.objects():
            owners = self._owners_ever.get((obj.get("metadata") or {}).get("uid", ""))
            if owners and owners & self._deleted:
                out.append(f"{_describe(resource, obj)} outlived its deleted owner")
        return out


class StatusNeverRegresses(Invariant):
    """``status.observedGeneration`` never decreases, and never exceeds ``metadata.generation``."""

    name = "status_never_regresses"
    checks_always = True

    def always(self, view: ClusterView, change: Change) -> Any:
        """An object's ``status.observedGeneration`` never goes down and never passes ``metadata.generation``."""
        if change.type != "MODIFIED":
            return True
        new, old = change.new, change.old
        assert old is not None
        n = (new.get("status") or {}).get("observedGeneration")
        o = (old.get("status") or {}).get("observedGeneration")
        out = []
        if isinstance(n, int) and isinstance(o, int) and n < o:
            out.append(f"{_describe(change.resource, new)}: status.observedGeneration went from {o} back to {n}")
        gen = (new.get("metadata") or {}).get("generation")
        if isinstance(n, int) and isinstance(gen, int) and n > gen:
            out.append(f"{_describe(change.resource, new)}: status.observedGeneration {n} is ahead of generation {gen}")
        return out


#: the built-in invariants by name (``FuzzTarget(invariants=["owners_exist", ...])``)
BUILTIN: dict[str, Callable[[], Invariant]] = {
    "single_controller": SingleController,
    "owners_exist": OwnersExist,
    "no_leak_after_owner_deletion": NoLeakAfterOwnerDeletion,
    "status_never_regresses": StatusNeverRegresses,
}
