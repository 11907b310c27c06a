"""What request handlers and REST objects work with: one apiserver's collaborators, all public.

A :class:`Scope` is built once per apiserver and handed to every handler call (upstream's
``handlers.RequestScope`` plus the storage it serves). Nothing in it is request-scoped.
"""

from __future__ import annotations

import random

import msgspec

from kubelite.apiserver.crds import CustomResources
from kubelite.apiserver.pipeline import Authorizer, Decoder
from kubelite.apiserver.registry.store import GenericStore
from kubelite.apiserver.registry.strategies import StrategySet
from kubelite.apiserver.registry.tables import ResourceTables
from kubelite.clock import Clock

__all__ = ["Scope"]


class Scope(msgspec.Struct, kw_only=True, frozen=True):
    clock: Clock
    rng: random.Random
    tables: ResourceTables
    store: GenericStore
    strategies: StrategySet
    decoder: Decoder
    authorizer: Authorizer
    crs: CustomResources
