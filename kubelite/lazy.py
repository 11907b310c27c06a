"""Lazy package exports (PEP 562): a package names what it re-exports, and each name's module is imported
the first time the name is read, so importing the package stays cheap (issue #17, cold start).

``exports`` maps a public name to the module that defines it::

    __getattr__, __dir__ = lazy_exports(__name__, {"Kubelet": "kubelite.kubelet.kubelet", ...})

Contract: reading a name imports its module and caches the value in the package's namespace (later reads
are plain attribute lookups); an unknown name raises ``AttributeError`` as a normal module does; ``dir()``
lists the exports whether or not they have been loaded. Type checkers see the names through the package's
``if TYPE_CHECKING:`` imports.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(package: str, exports: Mapping[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package`` for ``exports`` (public name -> defining module)."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *exports})

    return __getattr__, __dir__
