"""The client's side of the ``api`` perturbation point (see :mod:`kubelite.perturb`).

:class:`PerturbedServer` stands between a :class:`~kubelite.client.Client` and the apiserver, as a
network and a client library's transport do: before each request it lets the perturber yield, sleep or
fail the request (nothing reaches the server), and after a successful one yield, sleep, lose the
response (504 after commit) or stop the caller for good (its process crashed). Watches are not
perturbed here: reflectors have their own ``watch`` point. Everything else (``registry``,
``authenticator``, ...) is the server's own attribute.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from kubelite.perturb import ApiCall, Perturber

if TYPE_CHECKING:
    from kubelite.apiserver.auth.user import UserInfo

__all__ = ["PerturbedServer"]


def _resource(group: str, plural: str) -> str:
    return f"{group}/{plural}" if group else plural


class _Names(msgspec.Struct):
    name: Any = None
    generateName: Any = None  # (the wire name)


class _Named(msgspec.Struct):
    metadata: _Names | None = None


_decode_names = msgspec.json.Decoder(_Named).decode


def _metadata(body: Any) -> dict[str, Any]:
    """The name and generateName of a create's body: decoded JSON, or its JSON bytes (the client's copy)."""
    if isinstance(body, dict):
        meta = body.get("metadata")
        return meta if isinstance(meta, dict) else {}
    if isinstance(body, bytes):
        try:
            names = _decode_names(body).metadata
        except msgspec.DecodeError:
            return {}
        return {"name": names.name, "generateName": names.generateName} if names is not None else {}
    return {}


class PerturbedServer:
    """Forwards every request to ``server``, asking ``perturber`` before and after."""

    def __init__(self, server: Any, perturber: Perturber) -> None:
        self._server = server
        self.perturber = perturber

    def __getattr__(self, name: str) -> Any:
        return getattr(self._server, name)

    async def _call(self, call: ApiCall, method: str, *args: Any, **kw: Any) -> Any:
        p = self.perturber
        await p.before_request(call)
        resp = await getattr(self._server, method)(*args, **kw)
        await p.after_request(call)
        return resp

    async def create(self, user: UserInfo, group: str, plural: str, namespace: str, body: dict[str, Any] | bytes,
                     **kw: Any) -> Any:
        meta = _metadata(body)
        name = kw.get("name") or meta.get("name") or (f"{meta['generateName']}*" if meta.get("generateName") else "")
        call = ApiCall(user.name, "create", _resource(group, plural), kw.get("subresource", ""), namespace, name)
        return await self._call(call, "create", user, group, plural, namespace, body, **kw)

    async def get(self, user: UserInfo, group: str, plural: str, namespace: str, name: str, **kw: Any) -> Any:
        call = ApiCall(user.name, "get", _resource(group, plural), kw.get("subresource", ""), namespace, name)
        return await self._call(call, "get", user, group, plural, namespace, name, **kw)

    async def list(self, user: UserInfo, group: str, plural: str, namespace: str = "", **kw: Any) -> Any:
        call = ApiCall(user.name, "list", _resource(group, plural), "", namespace, "")
        return await self._call(call, "list", user, group, plural, namespace, **kw)

    async def update(self, user: UserInfo, group: str, plural: str, namespace: str, name: str,
                     body: dict[str, Any], **kw: Any) -> Any:
        call = ApiCall(user.name, "update", _resource(group, plural), kw.get("subresource", ""), namespace, name)
        return await self._call(call, "update", user, group, plural, namespace, name, body, **kw)

    async def patch(self, user: UserInfo, group: str, plural: str, namespace: str, name: str, patch: Any,
                    patch_type: str, **kw: Any) -> Any:
        call = ApiCall(user.name, "patch", _resource(group, plural), kw.get("subresource", ""), namespace, name)
        return await self._call(call, "patch", user, group, plural, namespace, name, patch, patch_type, **kw)

    async def delete(self, user: UserInfo, group: str, plural: str, namespace: str, name: str, **kw: Any) -> Any:
        call = ApiCall(user.name, "delete", _resource(group, plural), "", namespace, name)
        return await self._call(call, "delete", user, group, plural, namespace, name, **kw)

    async def delete_collection(self, user: UserInfo, group: str, plural: str, namespace: str = "",
                                **kw: Any) -> Any:
        call = ApiCall(user.name, "deletecollection", _resource(group, plural), "", namespace, "")
        return await self._call(call, "delete_collection", user, group, plural, namespace, **kw)
