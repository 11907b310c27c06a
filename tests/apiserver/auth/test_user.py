"""User identities: service-account names and groups, the well-known identities."""

from __future__ import annotations

import pytest

from kubelite.apiserver.auth.user import (
    ADMIN,
    ANONYMOUS,
    node_user,
    parse_service_account_username,
    service_account_user,
)


def test_service_account_user_follows_upstream_naming() -> None:
    u = service_account_user("kube-system", "replicaset-controller", uid="u1")
    assert u.name == "system:serviceaccount:kube-system:replicaset-controller"
    assert u.uid == "u1"
    assert u.groups == ("system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated")


def test_well_known_identities() -> None:
    assert ADMIN.name == "kubelite-admin"
    assert ADMIN.groups == ("system:masters", "system:authenticated")
    assert ANONYMOUS.name == "system:anonymous"
    assert ANONYMOUS.groups == ("system:unauthenticated",)
    assert node_user("n1").name == "system:node:n1"
    assert "system:nodes" in node_user("n1").groups


def test_user_info_is_hashable_and_frozen() -> None:
    assert hash(service_account_user("a", "b")) == hash(service_account_user("a", "b"))
    with pytest.raises(AttributeError):
        ADMIN.name = "x"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("username", "expected"),
    [
        ("system:serviceaccount:ns:sa", ("ns", "sa")),
        ("system:serviceaccount:ns", None),
        ("system:serviceaccount:ns:sa:extra", None),
        ("system:serviceaccount::sa", None),
        ("bob", None),
    ],
    ids=["valid", "no-name", "too-many-parts", "empty-namespace", "plain-user"],
)
def test_parse_service_account_username(username: str, expected: tuple[str, str] | None) -> None:
    assert parse_service_account_username(username) == expected
