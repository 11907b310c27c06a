"""ControllerRevision helpers: hashing, naming, ordering and equality (pkg/controller/history)."""

from __future__ import annotations

import pytest

from kubelite.api.types import ControllerRevision, ObjectMeta
from kubelite.controllers.history import (
    controller_revision_name,
    find_equal_revisions,
    hash_controller_revision,
    safe_encode,
    sort_controller_revisions,
    template_patch,
)

ALPHABET = set("bcdfghjklmnpqrstvwxz2456789")


@pytest.mark.parametrize(("a", "b", "same"), [
    ({"x": 1}, {"x": 1}, True),
    ({"x": 1, "y": 2}, {"y": 2, "x": 1}, True),
    ({"x": 1}, {"x": 2}, False),
], ids=["equal", "key-order", "different"])
def test_hash_depends_on_content_only(a: dict[str, int], b: dict[str, int], same: bool) -> None:
    assert (hash_controller_revision(a, None) == hash_controller_revision(b, None)) is same


def test_collision_count_changes_the_hash_and_output_is_safe() -> None:
    data = template_patch(None)
    h0, h1 = hash_controller_revision(data, 0), hash_controller_revision(data, 1)
    assert h0 != h1 and set(h0) <= ALPHABET and set(h1) <= ALPHABET
    assert safe_encode("0123") == "4567"  # bytes 48..51 mod 27


@pytest.mark.parametrize(("prefix", "want_len"), [("web", 3 + 1 + 5), ("x" * 300, 223 + 1 + 5)],
                         ids=["short", "truncated"])
def test_revision_name(prefix: str, want_len: int) -> None:
    assert len(controller_revision_name(prefix, "abcde")) == want_len


def rev(name: str, revision: int, data: dict[str, int], ts: str = "2025-01-01T00:00:00Z") -> ControllerRevision:
    return ControllerRevision(metadata=ObjectMeta(name=name, creation_timestamp=ts), revision=revision, data=data)


def test_sort_and_find_equal() -> None:
    a, b, c = rev("a", 2, {"v": 1}), rev("b", 1, {"v": 2}), rev("c", 2, {"v": 1}, "2024-01-01T00:00:00Z")
    assert [r.metadata.name for r in sort_controller_revisions([a, b, c])] == ["b", "c", "a"]
    assert [r.metadata.name for r in find_equal_revisions([a, b, c], rev("n", 9, {"v": 1}))] == ["a", "c"]
