"""API faults scoped by user and subresource (cluster.faults.inject), so a fault can hit one client's
status writes and never the test's own requests."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.cluster import Cluster
from kubelite.errors import InternalError


def cm(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "default"}}


@pytest.mark.parametrize(("rule", "admin_fails", "op_fails"), [
    ({"user": "op"}, False, True),
    ({"user": "someone-else"}, False, False),
    ({}, True, True),
], ids=["that-user-only", "another-user", "unscoped"])
async def test_fault_scoped_by_user(cluster: Cluster, rule: dict[str, Any], admin_fails: bool, op_fails: bool) -> None:
    op = cluster.client_as("op", groups=["system:masters"])
    for who, client, expect in (("admin", cluster.client, admin_fails), ("op", op, op_fails)):
        cluster.faults.clear()
        cluster.faults.inject(500, verb="create", resource="configmaps", **rule)
        if expect:
            with pytest.raises(InternalError):
                await client.create(cm(f"{who}-x"))
        else:
            await client.create(cm(f"{who}-x"))


@pytest.mark.parametrize(("subresource", "status_fails", "main_fails"), [
    ("status", True, False),
    ("", False, True),
    (None, True, True),
], ids=["status-only", "main-resource-only", "any"])
async def test_fault_scoped_by_subresource(cluster: Cluster, subresource: str | None, status_fails: bool,
                                           main_fails: bool) -> None:
    await cluster.client.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n1"}})
    cluster.faults.inject(500, verb="patch", resource="namespaces", subresource=subresource, times=None)
    calls = [("status", status_fails, {"status": {"conditions": []}}),
             ("", main_fails, {"metadata": {"labels": {"a": "b"}}})]
    for sub, fails, patch in calls:
        if fails:
            with pytest.raises(InternalError):
                await cluster.client.patch("namespaces", "n1", patch, patch_type="merge", subresource=sub)
        else:
            await cluster.client.patch("namespaces", "n1", patch, patch_type="merge", subresource=sub)
