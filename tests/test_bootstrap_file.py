"""``kubelite/bootstrap.json``, the bootstrap objects a first start reads instead of building them (issue #17, cold
start): committed output of ``tools/gen_bootstrap.py``, current with the policy's sources."""

from __future__ import annotations

import importlib.util
import pathlib
from types import ModuleType

import msgspec

from kubelite import cluster

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("_gen_bootstrap", ROOT / "tools/gen_bootstrap.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_file_is_what_regenerating_writes() -> None:
    """Fails after a change to the bootstrap policy, the add-ons' roles, the system namespaces, the StorageClass
    or the PriorityClasses until ``python tools/gen_bootstrap.py`` is run."""
    assert _tool().is_current()
    assert cluster.BOOTSTRAP_FILE.read_bytes() == cluster.bootstrap_payload_json()


def test_a_stale_file_is_reported(tmp_path: pathlib.Path) -> None:
    """The check compares bytes: one changed object makes it fail (it cannot pass while checking nothing)."""
    stale = tmp_path / "bootstrap.json"
    stale.write_bytes(cluster.bootstrap_payload_json().replace(b'"cluster-admin"', b'"cluster-admins"', 1))
    assert not _tool().is_current(stale)


def test_a_start_seeds_exactly_the_objects_the_sources_build() -> None:
    """The rows read from the file are byte for byte the encodings the sources build, in the same order (so the
    seeded objects, their uids drawn in that order, and every replay stay as they were)."""
    built = cluster.build_bootstrap_payload()
    assert cluster._bootstrap_payload() == built
    kinds = {(g, p) for g, p, _ in built}
    assert {("", "namespaces"), ("rbac.authorization.k8s.io", "clusterroles"),
            ("rbac.authorization.k8s.io", "clusterrolebindings"), ("storage.k8s.io", "storageclasses"),
            ("scheduling.k8s.io", "priorityclasses")} <= kinds
    names = [msgspec.json.decode(d)["metadata"]["name"] for _, p, d in built if p == "clusterroles"]
    assert "cluster-admin" in names and "system:kube-scheduler" in names
