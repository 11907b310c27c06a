"""The stored encoding is canonical: an object's JSON depends on its content only, never on the order in
which a client, defaulting or admission inserted its keys (upstream encodes a Go struct in its type's field
order, maps sorted; kubelite's generated types order fields by name, and the store sorts every level)."""

from __future__ import annotations

from typing import Any

import msgspec

from kubelite.api.codec import to_dict
from kubelite.api.types import ObjectMeta, Pod
from kubelite.api.types.core_v1 import Container, PodSpec
from kubelite.cluster import Cluster


def unsorted_levels(v: Any, path: str = "") -> list[str]:
    """The paths of every map whose keys are not in sorted order."""
    out: list[str] = []
    if isinstance(v, dict):
        if list(v) != sorted(v):
            out.append(path or ".")
        for k, x in v.items():
            out += unsorted_levels(x, f"{path}.{k}")
    elif isinstance(v, list):
        for i, x in enumerate(v):
            out += unsorted_levels(x, f"{path}[{i}]")
    return out


def reversed_keys(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: reversed_keys(v[k]) for k in reversed(v)}
    if isinstance(v, list):
        return [reversed_keys(x) for x in v]
    return v


async def test_what_defaulting_and_admission_insert_is_stored_in_canonical_order() -> None:
    async with Cluster(seed=4, nodes=0, controllers=False) as cluster:
        c = cluster.client
        # keys in reverse order; defaulting appends restartPolicy, dnsPolicy, ... and admission the service
        # account's volume and the default tolerations after them
        body = {"spec": {"containers": [{"name": "c", "image": "nginx:1.25",
                                          "resources": {"requests": {"memory": "1Mi", "cpu": "1m"}}}]},
                "metadata": {"namespace": "default", "name": "dict", "labels": {"z": "1", "a": "2"}},
                "kind": "Pod", "apiVersion": "v1"}
        created = await c.create(body)
        assert unsorted_levels(created) == []
        stored = await c.get("pods", "dict", namespace="default")
        assert unsorted_levels(stored) == []


async def test_the_same_content_by_two_histories_is_stored_as_the_same_bytes() -> None:
    """One pod created from a dict (defaulting inserts its fields after the client's), one from the typed
    struct (fields by name), then each replaced with its keys reversed: the specs' bytes are equal throughout."""
    async with Cluster(seed=4, nodes=0, controllers=False) as cluster:
        c = cluster.client
        await c.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a", "namespace": "default"},
                        "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]}})
        await c.create(to_dict(Pod(metadata=ObjectMeta(name="b", namespace="default"),
                                   spec=PodSpec(containers=[Container(name="c", image="nginx:1.25")]))))

        async def specs() -> tuple[bytes, bytes]:
            a = await c.get("pods", "a", namespace="default")
            b = await c.get("pods", "b", namespace="default")
            return msgspec.json.encode(a["spec"]), msgspec.json.encode(b["spec"])

        first = await specs()
        assert first[0] == first[1]
        for name in "ab":
            got = await c.get("pods", name, namespace="default")
            got["metadata"]["labels"] = {"y": "1", "x": "2"}
            await c.replace(reversed_keys(got))
        assert await specs() == first
        for name in "ab":
            assert unsorted_levels(await c.get("pods", name, namespace="default")) == []
