"""ControllerRevision helpers shared by the DaemonSet and StatefulSet controllers (pkg/controller/history).

Contract:
- A ControllerRevision is an immutable snapshot: its ``data`` (the owner's ``{"spec": {"template": ...,
  "$patch": "replace"}}`` patch) never changes after creation; only ``revision`` (the ordinal) is
  rewritten, when an old snapshot becomes current again (a rollback).
- :func:`hash_controller_revision` follows ``HashControllerRevision``: FNV-1 (32 bit, not 1a) over the
  data's JSON, then the collision count's decimal digits, rendered with ``rand.SafeEncodeString``.
  Deviation: the JSON is msgspec's canonical (sorted-key, compact) encoding of the typed template, so
  hashes differ from a real cluster's, but they are stable across runs and processes.
- :func:`create_controller_revision` (``realHistory.CreateControllerRevision``) bumps the collision
  count and renames while the name is taken by a revision with different data; an existing revision
  with equal data is returned as is.
- Functions here never mutate informer-cache objects.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import msgspec

from kubelite.api.labels import Selector
from kubelite.api.types import ControllerRevision
from kubelite.client import Client
from kubelite.controllers.controller_utils import controller_ref, owner_reference
from kubelite.controllers.podutil import parse_timestamp
from kubelite.errors import AlreadyExists, Conflict
from kubelite.rand import SUFFIX_ALPHABET

__all__ = [
    "CONTROLLER_REVISION_HASH_LABEL",
    "controller_revision_name",
    "create_controller_revision",
    "equal_revision",
    "find_equal_revisions",
    "hash_controller_revision",
    "new_controller_revision",
    "next_revision",
    "owned_revisions",
    "revision_data",
    "safe_encode",
    "sort_controller_revisions",
    "template_patch",
    "update_controller_revision",
]

#: ``history.ControllerRevisionHashLabel``: the hash of a ControllerRevision's data
CONTROLLER_REVISION_HASH_LABEL = "controller.kubernetes.io/hash"

_encode = msgspec.json.Encoder(order="sorted").encode


def safe_encode(s: str) -> str:
    """``rand.SafeEncodeString``: map each byte onto the alphabet without vowels (no bad words)."""
    n = len(SUFFIX_ALPHABET)
    return "".join(SUFFIX_ALPHABET[b % n] for b in s.encode())


def revision_data(data: Any) -> bytes:
    """The canonical bytes of a revision's data (upstream compares ``Data.Raw`` byte for byte)."""
    return _encode(data)


def hash_controller_revision(data: Any, probe: int | None) -> str:
    """``HashControllerRevision``: FNV-1 32 over the data, plus the probe's decimal digits."""
    h = 0x811C9DC5
    raw = revision_data(data)
    if probe is not None:
        raw += str(probe).encode()
    for b in raw:
        h = ((h * 0x01000193) & 0xFFFFFFFF) ^ b
    return safe_encode(str(h))


def controller_revision_name(prefix: str, hash_: str) -> str:
    """``ControllerRevisionName``: ``<prefix>-<hash>``, the prefix cut to 223 bytes (names stay <= 253)."""
    return f"{prefix[:223]}-{hash_}"


def template_patch(template: Any) -> dict[str, Any]:
    """``getPatch`` of the DaemonSet and StatefulSet controllers: the template, marked ``$patch: replace``."""
    tmpl = msgspec.to_builtins(template) if template is not None else {}
    tmpl["$patch"] = "replace"
    return {"spec": {"template": tmpl}}


def equal_revision(a: ControllerRevision | None, b: ControllerRevision | None) -> bool:
    """``EqualRevision``: equal data (the hash labels, when both parse as integers, must agree too)."""
    if a is None or b is None:
        return a is b
    ha = _int_hash(a)
    hb = _int_hash(b)
    if ha is not None and hb is not None and ha != hb:
        return False
    return revision_data(a.data) == revision_data(b.data)


def _int_hash(r: ControllerRevision) -> int | None:
    labels = r.metadata.labels if r.metadata is not None else None
    v = (labels or {}).get(CONTROLLER_REVISION_HASH_LABEL)
    if v is None:
        return None
    try:
        return int(v) & 0xFFFFFFFF
    except ValueError:
        return None


def find_equal_revisions(revisions: Iterable[ControllerRevision], needle: ControllerRevision) -> list[ControllerRevision]:
    """``FindEqualRevisions``, preserving order."""
    want = revision_data(needle.data)
    return [r for r in revisions if revision_data(r.data) == want and equal_revision(r, needle)]


def _sort_key(r: ControllerRevision) -> tuple[int, float, str]:
    m = r.metadata
    ts = m.creation_timestamp if m is not None else None
    return (r.revision or 0, parse_timestamp(ts) if ts else 0.0, (m.name or "") if m is not None else "")


def sort_controller_revisions(revisions: Iterable[ControllerRevision]) -> list[ControllerRevision]:
    """``SortControllerRevisions``: by revision, then creation time, then name."""
    return sorted(revisions, key=_sort_key)


def next_revision(revisions: Sequence[ControllerRevision]) -> int:
    """``nextRevision``: one more than the highest revision in a sorted list (1 when empty)."""
    return (revisions[-1].revision or 0) + 1 if revisions else 1


def owned_revisions(candidates: Iterable[ControllerRevision], parent: Any, selector: Selector) -> list[ControllerRevision]:
    """``ListControllerRevisions``: those matching ``selector`` owned by ``parent`` or by no controller."""
    uid = parent.metadata.uid
    out = []
    for r in candidates:
        if not selector.matches(r.metadata.labels if r.metadata is not None else None):
            continue
        ref = controller_ref(r)
        if ref is None or ref.uid == uid:
            out.append(r)
    return out


def new_controller_revision(
    parent: Any, template_labels: Mapping[str, str] | None, data: dict[str, Any], revision: int,
    collision_count: int | None, *, annotations: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """``NewControllerRevision``: the body of a revision owned by ``parent`` (a controllerRef)."""
    h = hash_controller_revision(data, collision_count)
    m = parent.metadata
    labels = dict(template_labels or {})
    labels[CONTROLLER_REVISION_HASH_LABEL] = h
    meta: dict[str, Any] = {"name": controller_revision_name(m.name, h), "namespace": m.namespace,
                            "labels": labels, "ownerReferences": [owner_reference(parent)]}
    if annotations:
        meta["annotations"] = dict(annotations)
    return {"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": meta, "data": data,
            "revision": revision}


async def create_controller_revision(
    client: Client, parent: Any, body: dict[str, Any], collision_count: int,
) -> tuple[ControllerRevision, int]:
    """``CreateControllerRevision``: create ``body``, renaming on collisions. Returns the revision and the
    (possibly raised) collision count, which the caller must persist in its status."""
    m = parent.metadata
    while True:
        h = hash_controller_revision(body["data"], collision_count)
        body["metadata"]["name"] = controller_revision_name(m.name, h)
        try:
            created = msgspec.convert(await client.create(body), ControllerRevision)
            return created, collision_count
        except AlreadyExists:
            exists: ControllerRevision = await client.get(ControllerRevision, body["metadata"]["name"],
                                                          namespace=m.namespace)
            if revision_data(exists.data) == revision_data(body["data"]):
                return exists, collision_count
            collision_count += 1


async def update_controller_revision(client: Client, rev: ControllerRevision, new_revision: int) -> ControllerRevision:
    """``UpdateControllerRevision``: set ``revision`` (retrying on conflicts with a fresh read)."""
    for _ in range(5):
        if rev.revision == new_revision:
            return rev
        try:
            out: ControllerRevision = await client.replace(msgspec.structs.replace(rev, revision=new_revision))
            return out
        except Conflict:
            m = rev.metadata
            assert m is not None
            rev = await client.get(ControllerRevision, m.name or "", namespace=m.namespace)
    raise RuntimeError("updating a ControllerRevision: too many conflicts")
