"""kubelite.lazy: package names imported on first read (PEP 562), and the packages that use it."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import types
from collections.abc import Iterator

import pytest

from kubelite.lazy import lazy_exports


@pytest.fixture
def package() -> Iterator[types.ModuleType]:
    pkg = types.ModuleType("kubelite_lazy_test_pkg")
    pkg.__getattr__, pkg.__dir__ = lazy_exports(pkg.__name__, {"sqrt": "math", "dumps": "json"})  # type: ignore[method-assign]
    sys.modules[pkg.__name__] = pkg
    yield pkg
    del sys.modules[pkg.__name__]


def test_a_name_is_its_module_attribute_and_cached_after_the_first_read(package: types.ModuleType) -> None:
    assert "sqrt" not in vars(package)
    assert package.sqrt is math.sqrt
    assert vars(package)["sqrt"] is math.sqrt  # later reads are plain attribute lookups
    assert package.dumps is json.dumps


def test_an_unknown_name_is_an_attribute_error(package: types.ModuleType) -> None:
    with pytest.raises(AttributeError, match="module 'kubelite_lazy_test_pkg' has no attribute 'cos'"):
        _ = package.cos
    assert not hasattr(package, "cos")


def test_dir_lists_exports_before_they_load(package: types.ModuleType) -> None:
    assert {"sqrt", "dumps"} <= set(dir(package))
    assert "sqrt" not in vars(package)


_SCRIPT = """
import json, sys
import kubelite.api.types as t
import kubelite.kubelet as k
before = sorted(m for m in ("kubelite.api.types.core_v1", "kubelite.api.types.apps_v1", "kubelite.kubelet.kubelet")
                if m in sys.modules)
pod, deployment, kubelet = t.Pod, t.Deployment, k.Kubelet
print(json.dumps({"before": before, "pod": pod.__module__, "deployment": deployment.__module__,
                  "kubelet": kubelet.__module__, "all_resolve": all(getattr(t, n) is not None for n in t.__all__)}))
"""


def test_types_and_kubelets_load_their_modules_on_first_use() -> None:
    """``kubelite.api.types`` re-exports every kind but imports a group/version module when one of its names is
    first read (tools/gen_api.py writes it so); ``kubelite.kubelet`` imports no kubelet until one is asked for."""
    out = json.loads(subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True,
                                    check=True).stdout)
    assert out == {"before": [], "pod": "kubelite.api.types.core_v1", "deployment": "kubelite.api.types.apps_v1",
                   "kubelet": "kubelite.kubelet.kubelet", "all_resolve": True}
