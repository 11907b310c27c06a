"""The per-kind validation table (``kubelite.apiserver.validation._KINDS``): each kind's rules live in the module
named by its entry and are imported with the kind's first validation (issue #17, cold start). A wrong module or
function name would only surface with that kind's first write, so every entry is resolved here."""

from __future__ import annotations

import importlib

import pytest

from kubelite.apiserver import validation
from kubelite.apiserver.registry import strategies

_ENTRIES = sorted(validation._KINDS)


@pytest.mark.parametrize(("group", "kind"), _ENTRIES, ids=[f"{g or 'core'}/{k}" for g, k in _ENTRIES])
def test_every_entry_resolves_to_its_modules_rules(group: str, kind: str) -> None:
    module, _ = validation._KINDS[(group, kind)]
    entry = validation._entry(group, kind)
    assert entry is not None
    create, update, status = entry
    assert callable(create) and callable(update) and (status is None or callable(status))
    # the rules come from the module the entry names (RBAC and the metadata-only updates wrap them)
    mod = importlib.import_module(f"kubelite.apiserver.validation.{module}")
    assert getattr(create, "__module__", None) in (mod.__name__, validation.__name__)
    assert validation._entry(group, kind) is entry  # resolved once


def test_a_kind_without_an_entry_gets_the_metadata_rules_only() -> None:
    assert validation._entry("example.com", "Widget") is None
    assert ("example.com", "Widget") not in validation._RESOLVED
    errs = validation.validate_create("example.com", "Widget", {"metadata": {"name": "Bad_Name"}})
    assert [e.field for e in errs] == ["metadata.name"]


def test_an_entry_validates_as_its_module_does() -> None:
    """The table's Deployment rules are apps' own: the same errors for the same object."""
    from kubelite.apiserver.validation import apps

    bad = {"metadata": {"name": "web", "namespace": "default"}, "spec": {"replicas": -1, "selector": {}}}
    assert [str(e) for e in validation.validate_create("apps", "Deployment", bad)] == [
        str(e) for e in apps.validate_deployment(bad)]
    assert validation.validate_create("apps", "Deployment", bad)  # and it is invalid


def test_the_lazy_dra_strategies_are_the_registry_modules() -> None:
    """``strategies.RESOURCE_PLURALS`` names exactly the resource.k8s.io kinds with their own strategy, so the
    strategy set can register them without importing ``registry.resource``."""
    from kubelite.apiserver.registry import resource

    assert sorted(strategies.RESOURCE_PLURALS) == sorted(resource.STRATEGIES)
