"""Remembered authorization decisions are exactly what RBAC decides again (``auth/decisions.py``).

Invariant: a cluster whose apiserver remembers decisions per request attributes answers every request
(allowed or the same 403) exactly as a cluster that asks RBAC on every request, across any sequence of
RBAC writes; so a revoked RoleBinding (or a Role losing a rule, a ClusterRole leaving an aggregation)
is honoured on the very next request, and a new grant too.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
import pytest

from kubelite.apiserver.auth.decisions import Decisions
from kubelite.apiserver.auth.rbac import RBACAuthorizer
from kubelite.client import Client
from kubelite.cluster import Cluster
from kubelite.errors import ApiError, Forbidden

API_ONLY: dict[str, Any] = {"scheduler": False, "controllers": False, "network": False}
G = "rbac.authorization.k8s.io"


def _role(name: str, verbs: list[str], resources: list[str], *, ns: str = "default",
          names: list[str] | None = None) -> dict[str, Any]:
    rule: dict[str, Any] = {"apiGroups": [""], "resources": resources, "verbs": verbs}
    if names:
        rule["resourceNames"] = names
    return {"apiVersion": f"{G}/v1", "kind": "Role", "metadata": {"name": name, "namespace": ns}, "rules": [rule]}


def _binding(name: str, role_kind: str, role: str, users: list[str], *, ns: str = "default") -> dict[str, Any]:
    kind = "RoleBinding" if ns else "ClusterRoleBinding"
    meta = {"name": name, "namespace": ns} if ns else {"name": name}
    return {"apiVersion": f"{G}/v1", "kind": kind, "metadata": meta,
            "subjects": [{"kind": "User", "apiGroup": G, "name": u} for u in users],
            "roleRef": {"apiGroup": G, "kind": role_kind, "name": role}}


async def _setup(cluster: Cluster) -> None:
    c = cluster.client
    for i in range(2):
        await c.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"c{i}", "namespace": "default"},
                        "data": {"k": "v"}})


async def _allowed(c: Client, verb: str = "get", name: str = "c0") -> bool:
    try:
        if verb == "get":
            await c.get("configmaps", name, namespace="default")
        else:
            await c.list("configmaps", namespace="default")
    except Forbidden:
        return False
    return True


# (what is revoked, the grant's objects, the revoking write)
_GRANT = [_role("reader", ["get", "list"], ["configmaps"]), _binding("alice-reads", "Role", "reader", ["alice"])]


async def _delete_binding(c: Client) -> None:
    await c.delete("rolebindings", "alice-reads", namespace="default")


async def _drop_subject(c: Client) -> None:
    b = await c.get("rolebindings", "alice-reads", namespace="default")
    b["subjects"] = [{"kind": "User", "apiGroup": G, "name": "bob"}]
    await c.replace(b)


async def _narrow_role(c: Client) -> None:
    r = await c.get("roles", "reader", namespace="default")
    r["rules"][0]["verbs"] = ["list"]
    await c.replace(r)


async def _delete_role(c: Client) -> None:
    await c.delete("roles", "reader", namespace="default")


async def _name_only(c: Client) -> None:
    r = await c.get("roles", "reader", namespace="default")
    r["rules"][0]["resourceNames"] = ["c1"]
    await c.replace(r)


@pytest.mark.parametrize("revoke", [_delete_binding, _drop_subject, _narrow_role, _delete_role, _name_only],
                         ids=["delete-rolebinding", "drop-subject", "role-loses-verb", "delete-role",
                              "role-narrowed-to-other-name"])
async def test_a_revocation_is_honoured_on_the_very_next_request(revoke: Callable[[Client], Awaitable[None]]) -> None:
    async with Cluster(seed=1, **API_ONLY) as cluster:
        await _setup(cluster)
        alice = cluster.client.as_user("alice")
        assert not await _allowed(alice)  # (a denial remembered...)
        for obj in _GRANT:
            await cluster.client.create(obj)
        assert await _allowed(alice)  # (...is not served once granted)
        assert await _allowed(alice)  # remembered now
        assert len(cluster.apiserver.authorizer.decisions) > 0
        await revoke(cluster.client)
        assert not await _allowed(alice)
        with pytest.raises(Forbidden) as e:
            await alice.get("configmaps", "c0", namespace="default")
        assert 'User "alice" cannot get resource "configmaps"' in e.value.status.message


async def test_an_aggregated_clusterrole_follows_its_members_on_the_next_request() -> None:
    """A ClusterRole leaving an aggregation (its label removed) takes its rules out of the aggregate at once."""
    async with Cluster(seed=1, **API_ONLY) as cluster:
        await _setup(cluster)
        c, alice = cluster.client, cluster.client.as_user("alice")
        await c.create({"apiVersion": f"{G}/v1", "kind": "ClusterRole", "metadata": {"name": "agg"},
                        "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {"agg": "yes"}}]}, "rules": []})
        await c.create({"apiVersion": f"{G}/v1", "kind": "ClusterRole",
                        "metadata": {"name": "cm-reader", "labels": {"agg": "yes"}},
                        "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"]}]})
        await c.create(_binding("alice-agg", "ClusterRole", "agg", ["alice"], ns=""))
        assert await _allowed(alice) and await _allowed(alice)
        member = await c.get("clusterroles", "cm-reader")
        member["metadata"]["labels"] = {}
        await c.replace(member)
        assert not await _allowed(alice)


def test_decisions_are_dropped_at_every_rbac_write_and_bounded() -> None:
    rbac = RBACAuthorizer()
    d = Decisions(rbac, limit=3)
    d.put(("a",), (True, "x"))
    assert d.get(("a",)) == (True, "x")
    rbac.upsert("Role", _role("r", ["get"], ["pods"]))
    assert d.get(("a",)) is None and len(d) == 0
    for k in "abc":
        d.put((k,), (False, ""))
    d.put(("d",), (True, ""))  # at the bound: cleared, then kept
    assert len(d) == 1 and d.get(("d",)) == (True, "")
    rbac.remove("Role", "default", "r")
    d.put(("e",), (True, ""))  # a put after a write starts the new generation's table
    assert len(d) == 1 and d.get(("d",)) is None


# --- the property: remembered and fresh decisions agree over random RBAC writes -------------------------

Op = Callable[[Cluster], Awaitable[Any]]
_USERS = ("alice", "bob", "carol")


def _rbac_write(r: random.Random) -> Op:
    who, roll = list(_USERS[: 1 + r.randrange(3)]), r.random()
    verbs = r.sample(["get", "list", "update", "delete"], 1 + r.randrange(3))
    names = ["c0"] if r.random() < 0.3 else None
    ns = "" if r.random() < 0.3 else "default"
    tag = r.randrange(3)
    plural = r.choice(["roles", "rolebindings", "clusterrolebindings"])

    async def op(cluster: Cluster) -> Any:
        c = cluster.client
        if roll < 0.35:
            await c.apply(_role(f"r{tag}", verbs, ["configmaps"], names=names), field_manager="t", force=True)
        elif roll < 0.7:
            kind = "Role" if ns else "ClusterRole"
            if kind == "ClusterRole":
                await c.apply({"apiVersion": f"{G}/v1", "kind": "ClusterRole", "metadata": {"name": f"cr{tag}"},
                               "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": verbs}]},
                              field_manager="t", force=True)
            await c.apply(_binding(f"b{tag}", kind, f"r{tag}" if ns else f"cr{tag}", who, ns=ns),
                          field_manager="t", force=True)
        else:
            with contextlib.suppress(ApiError):  # (it may not exist)
                await c.delete(plural, f"b{tag}" if "binding" in plural else f"r{tag}",
                               namespace="default" if plural != "clusterrolebindings" else None)
        return None
    return op


def _request(r: random.Random) -> Op:
    who, verb, name = r.choice(_USERS), r.choice(["get", "get", "list", "update"]), r.choice(["c0", "c1"])
    value = str(r.randrange(5))

    async def op(cluster: Cluster) -> Any:
        c = cluster.client.as_user(who)
        if verb == "get":
            return await c.get("configmaps", name, namespace="default")
        if verb == "list":
            return len(await c.list("configmaps", namespace="default"))
        cm = await cluster.client.get("configmaps", name, namespace="default")
        cm["data"] = {"k": value}
        return await c.replace(cm)
    return op


async def _outcome(cluster: Cluster, op: Op) -> tuple[Any, ...]:
    try:
        return ("ok", msgspec.json.encode(await op(cluster)))
    except ApiError as e:
        return ("error", type(e).__name__, msgspec.json.encode(e.status))


@pytest.mark.parametrize("seed", range(8), ids=lambda s: f"seed-{s}")
async def test_remembered_and_fresh_decisions_answer_alike(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    r = random.Random(seed)
    ops = [_rbac_write(r) if r.random() < 0.25 else _request(r) for _ in range(60)]
    real_get = Decisions.get
    hits = [0]

    def counted(self: Decisions, key: tuple[Any, ...]) -> Any:
        out = real_get(self, key)
        hits[0] += out is not None
        return out

    async with Cluster(seed=seed, **API_ONLY) as fresh, Cluster(seed=seed, **API_ONLY) as cached:
        await _setup(fresh)
        await _setup(cached)
        forbidden = 0
        for i, op in enumerate(ops):
            with monkeypatch.context() as m:
                m.setattr(Decisions, "get", lambda self, key: None)  # every request asks RBAC
                want = await _outcome(fresh, op)
            with monkeypatch.context() as m:
                m.setattr(Decisions, "get", counted)
                got = await _outcome(cached, op)
            assert got == want, f"op {i}"
            forbidden += want[:2] == ("error", "Forbidden")
    assert hits[0] > 3  # remembered decisions served (and agreed)
    assert 0 < forbidden < len(ops)  # both answers occurred
