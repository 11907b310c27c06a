"""Plugin registry: plugin name -> factory (upstream ``framework/runtime/registry.go``).

A factory is ``factory(args: dict, handle) -> plugin``; ``args`` is the plugin's ``pluginConfig``
entry (``{}`` when none). Registering a name twice is an error, as upstream's ``Registry.Register``.
Out-of-tree plugins are registered on the scheduler (``Scheduler.register_plugin``) before it builds
its profiles, then enabled by name in a profile like any in-tree plugin.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

__all__ = ["PluginFactory", "Registry"]

PluginFactory = Callable[[Mapping[str, Any], Any], Any]


class Registry:
    """Plugin name → factory (upstream ``runtime.Registry``); profiles enable plugins by these names."""

    def __init__(self, factories: Mapping[str, PluginFactory] | None = None) -> None:
        self._factories: dict[str, PluginFactory] = dict(factories or {})

    def register(self, name: str, factory: PluginFactory) -> None:
        """Add ``factory`` as ``name``; ValueError if the name is taken (``Registry.Register``)."""
        if name in self._factories:
            raise ValueError(f"a plugin named {name} already exists")
        self._factories[name] = factory

    def unregister(self, name: str) -> None:
        """Remove ``name``; ValueError if it is not registered (``Registry.Unregister``)."""
        if name not in self._factories:
            raise ValueError(f"no plugin named {name} exists")
        del self._factories[name]

    def merge(self, other: Registry) -> None:
        """Register every plugin of ``other``; ValueError on a name both have (``Registry.Merge``)."""
        for name, f in other.items():
            self.register(name, f)

    def get(self, name: str) -> PluginFactory | None:
        """The factory registered as ``name``, or None."""
        return self._factories.get(name)

    def items(self) -> Iterator[tuple[str, PluginFactory]]:
        """(name, factory) pairs in registration order (a snapshot)."""
        return iter(list(self._factories.items()))

    def __contains__(self, name: object) -> bool:
        return name in self._factories
