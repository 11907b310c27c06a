"""Index functions: the secondary keys an :class:`~kubelite.informer.store.Indexer` maintains.

Follows client-go ``tools/cache/index.go``. An :data:`IndexFunc` maps an object to the list of values it
is indexed under (zero, one or many); :data:`Indexers` names them. The indexer calls every index
function on every add, update and delete, so they must be cheap, deterministic and side-effect free,
and must not mutate the object (it is the shared cache copy).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubelite.informer.meta import namespace_of

__all__ = [
    "NAMESPACE_INDEX",
    "IndexFunc",
    "Indexers",
    "Indices",
    "meta_namespace_index_func",
    "namespace_index",
]

#: An object -> the values it is indexed under.
IndexFunc = Callable[[Any], list[str]]
#: index name -> IndexFunc.
Indexers = dict[str, IndexFunc]
#: index name -> indexed value -> ordered set of store keys (a dict with None values: O(1) removal and a
#: deterministic iteration order, which a ``set`` of strings does not have across processes).
Indices = dict[str, dict[str, dict[str, None]]]

#: The name of the namespace index (upstream ``cache.NamespaceIndex``).
NAMESPACE_INDEX = "namespace"


def meta_namespace_index_func(obj: Any) -> list[str]:
    """Index an object by its namespace (upstream ``MetaNamespaceIndexFunc``); cluster-scoped objects
    are indexed under ``""``."""
    # Every informer made by the factory runs this twice per update: the Struct case is inlined.
    if isinstance(obj, dict):
        return [namespace_of(obj)]
    m = obj.metadata
    return [(m.namespace or "") if m is not None else ""]


#: The namespace index function under its short name: ``Indexers({NAMESPACE_INDEX: namespace_index})``.
namespace_index = meta_namespace_index_func
