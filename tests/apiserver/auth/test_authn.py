"""Token authentication: known tokens, service-account tokens, anonymous and 401s."""

from __future__ import annotations

import pytest

from kubelite.apiserver.auth.authn import TokenAuthenticator
from kubelite.apiserver.auth.user import ANONYMOUS, UserInfo
from kubelite.errors import Unauthorized


def test_known_token_returns_user_with_authenticated_group() -> None:
    authn = TokenAuthenticator()
    authn.add_token("t-bob", UserInfo(name="bob", groups=("dev",)))
    user = authn.authenticate("t-bob")
    assert user.name == "bob"
    assert user.groups == ("dev", "system:authenticated")


def test_authenticated_group_not_duplicated() -> None:
    authn = TokenAuthenticator()
    authn.add_token("t", UserInfo(name="bob", groups=("system:authenticated",)))
    assert authn.authenticate("t").groups == ("system:authenticated",)


def test_service_account_token() -> None:
    authn = TokenAuthenticator()
    authn.add_service_account_token("sa-token", "default", "builder", uid="123")
    user = authn.authenticate("sa-token")
    assert user.name == "system:serviceaccount:default:builder"
    assert user.uid == "123"
    assert set(user.groups) == {"system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"}


@pytest.mark.parametrize("token", ["nope", "t-bob "], ids=["unknown", "near-miss"])
def test_unknown_token_is_401(token: str) -> None:
    authn = TokenAuthenticator()
    authn.add_token("t-bob", UserInfo(name="bob"))
    with pytest.raises(Unauthorized) as exc:
        authn.authenticate(token)
    assert exc.value.status.code == 401
    assert exc.value.status.reason == "Unauthorized"
    assert exc.value.message == "Unauthorized"


@pytest.mark.parametrize("token", [None, ""], ids=["none", "empty"])
def test_no_token_is_anonymous_when_allowed(token: str | None) -> None:
    assert TokenAuthenticator().authenticate(token) is ANONYMOUS


def test_no_token_is_401_when_anonymous_disabled() -> None:
    with pytest.raises(Unauthorized):
        TokenAuthenticator(allow_anonymous=False).authenticate(None)


def test_removed_token_is_401() -> None:
    authn = TokenAuthenticator()
    authn.add_token("t", UserInfo(name="bob"))
    authn.remove_token("t")
    with pytest.raises(Unauthorized):
        authn.authenticate("t")


def test_empty_token_cannot_be_registered() -> None:
    with pytest.raises(ValueError, match="empty"):
        TokenAuthenticator().add_token("", UserInfo(name="bob"))
