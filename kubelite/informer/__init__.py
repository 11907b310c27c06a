"""Informers: a local, indexed, event-driven cache of API objects, as client-go ``tools/cache`` builds it.

Data flow (one concept per module, named after upstream's files)::

    apiserver --list/watch--> Reflector --> DeltaFIFO --pop--> process_deltas --> Indexer (the cache)
                              reflector.py  delta_fifo.py      controller.py        store.py, thread_safe_store.py
                                                                      |
                                                                      +--> SharedProcessor --> one ProcessorListener
                                                                           processor.py        (buffer + task) per handler

``SharedIndexInformer`` (shared_informer.py) wires them together; ``SharedInformerFactory``
(factory.py) shares one informer per resource; ``Lister`` (lister.py) reads the cache.

The promise to users: handlers and listers see the cache's own objects, which nobody may mutate;
every handler sees each object's changes in order, in its own task; the cache is eventually consistent
with the apiserver and recovers by itself from closed watches (re-watch), compaction (relist) and
errors (backoff). All time is the cluster clock's and all randomness the cluster RNG's.
"""

from kubelite.informer.backoff import Backoff, BackoffManager
from kubelite.informer.controller import Controller, process_deltas
from kubelite.informer.delta_fifo import Delta, DeltaFIFO, Deltas, DeltaType, FIFOClosedError, RequeueError
from kubelite.informer.factory import SharedInformerFactory
from kubelite.informer.handlers import (
    FilteringResourceEventHandler,
    ResourceEventHandler,
    ResourceEventHandlerFuncs,
)
from kubelite.informer.index import (
    NAMESPACE_INDEX,
    Indexers,
    IndexFunc,
    Indices,
    meta_namespace_index_func,
    namespace_index,
)
from kubelite.informer.lister import Lister, NamespaceLister
from kubelite.informer.meta import ObjectMetaView, meta_of
from kubelite.informer.processor import ProcessorListener, SharedProcessor
from kubelite.informer.reflector import Reflector
from kubelite.informer.shared_informer import Registration, SharedIndexInformer, wait_for_cache_sync
from kubelite.informer.store import (
    DeletedFinalStateUnknown,
    Indexer,
    KeyFunc,
    KeyListerGetter,
    Store,
    deletion_handling_meta_namespace_key_func,
    meta_namespace_key_func,
    split_meta_namespace_key,
)
from kubelite.informer.thread_safe_store import ThreadSafeStore

__all__ = [
    "NAMESPACE_INDEX",
    "Backoff",
    "BackoffManager",
    "Controller",
    "DeletedFinalStateUnknown",
    "Delta",
    "DeltaFIFO",
    "DeltaType",
    "Deltas",
    "FIFOClosedError",
    "FilteringResourceEventHandler",
    "IndexFunc",
    "Indexer",
    "Indexers",
    "Indices",
    "KeyFunc",
    "KeyListerGetter",
    "Lister",
    "NamespaceLister",
    "ObjectMetaView",
    "ProcessorListener",
    "Reflector",
    "Registration",
    "RequeueError",
    "ResourceEventHandler",
    "ResourceEventHandlerFuncs",
    "SharedIndexInformer",
    "SharedInformerFactory",
    "SharedProcessor",
    "Store",
    "ThreadSafeStore",
    "deletion_handling_meta_namespace_key_func",
    "meta_namespace_index_func",
    "meta_namespace_key_func",
    "meta_of",
    "namespace_index",
    "process_deltas",
    "split_meta_namespace_key",
    "wait_for_cache_sync",
]
