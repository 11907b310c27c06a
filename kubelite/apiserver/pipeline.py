"""The steps every request shares before its verb's own work: authorization and decoding.

- :class:`Authorizer` decides one verb on one resource for one user: members of ``system:masters`` are
  always allowed (upstream's privileged group bypass), everyone else is asked of RBAC, and a denial raises
  the 403 kube-apiserver returns. The request entry point authorizes the request's own verb; the store
  authorizes the verbs a request implies (``create`` when an apply or a PUT creates the object) before it
  writes anything.
- :class:`Decoder` is upstream's decoding step: the body must be an object of the endpoint's kind and
  version; types and unknown fields are checked as the Go decoder and ``fieldValidation`` (Strict / Warn /
  Ignore) handle them. For built-in kinds the result is the typed round trip, so explicit nulls read as
  absent exactly as they do after upstream decodes into Go structs, and the zero values Go's JSON encoder
  omits (``omitempty``: ``finalizers: []``, ``labels: {}``, ``globalDefault: false``) are dropped
  (:mod:`kubelite.api.omitempty`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from kubelite.api import jsonsafe
from kubelite.api.omitempty import omit_empty, omit_empty_message
from kubelite.api.quantity_fields import QuantityError, canonicalize_quantities
from kubelite.api.resources import ResourceInfo, SubresourceInfo
from kubelite.api.schema import Schema, builtin_schemas
from kubelite.apiserver.auth.decisions import Decisions
from kubelite.apiserver.auth.rbac import Attributes, RBACAuthorizer, forbidden
from kubelite.apiserver.auth.request_info import request_attributes
from kubelite.apiserver.auth.user import SYSTEM_PRIVILEGED_GROUP, UserInfo
from kubelite.apiserver.crd import prune, unknown_fields
from kubelite.apiserver.crds import CustomResources
from kubelite.apiserver.registry.conversion import Scheme
from kubelite.apiserver.registry.strategies import StrategySet
from kubelite.errors import BadRequest, Forbidden
from kubelite.memo import memoize

__all__ = ["Authorizer", "Decoder"]

_encode = jsonsafe.encode  # lone surrogates become U+FFFD, as upstream's JSON decoder makes them


class Authorizer:
    """RBAC's decision for a request, remembered per attributes until the next RBAC write
    (``auth/decisions.py``: a hit is exactly what the full check decides)."""

    def __init__(self, rbac: RBACAuthorizer) -> None:
        self.rbac = rbac
        self.decisions = Decisions(rbac)

    def authorize(
        self, user: UserInfo, verb: str, info: ResourceInfo, subresource: str, namespace: str, name: str,
    ) -> None:
        if SYSTEM_PRIVILEGED_GROUP in user.groups:
            return
        key = (user.name, user.groups, verb, info.group, info.plural, info.namespaced, subresource, namespace, name)
        decision = self.decisions.get(key)
        if decision is None:
            decision = self.rbac.authorize(request_attributes(user, verb, info, subresource, namespace, name))
            self.decisions.put(key, decision)
        if not decision[0]:
            raise forbidden(request_attributes(user, verb, info, subresource, namespace, name), decision[1])

    def authorize_implied(
        self, user: UserInfo, verb: str, info: ResourceInfo, subresource: str, namespace: str, name: str,
    ) -> None:
        """A verb the request implies beyond its own (``create`` when an update or apply creates):
        upstream's ``withAuthorization``, whose denial is ``errors.NewForbidden(resource, name, reason)``."""
        if SYSTEM_PRIVILEGED_GROUP in user.groups:
            return
        ns = namespace if info.namespaced else ""
        key = ("implied", user.name, user.groups, verb, info.group, info.plural, subresource, ns, name)
        decision = self.decisions.get(key)
        if decision is None:
            decision = self.rbac.authorize(Attributes(
                user=user, verb=verb, namespace=ns, api_group=info.group, resource=info.plural,
                subresource=subresource, name=name,
            ))
            self.decisions.put(key, decision)
        if not decision[0]:
            raise Forbidden.make(f"{info.group_resource} {msgspec.json.encode(name).decode()} is forbidden: "
                                 f"{decision[1]}", name=name, group=info.group, kind=info.plural)


# built-in kinds with fields of any shape (JSONSchemaProps' default/example, ControllerRevision.data)
_OPEN_KINDS = {("apiextensions.k8s.io", "customresourcedefinitions"), ("apps", "controllerrevisions")}


def check_depth(body: Any) -> None:
    """400 for data nested deeper than the pipeline's recursive walkers can take (jsonsafe.MAX_DEPTH)."""
    meta = body.get("metadata") if isinstance(body, dict) else None
    if isinstance(meta, dict) and "managedFields" in meta:
        # fieldsV1 mirrors the object four levels down; its decoder guards itself
        body = {**body, "metadata": {k: v for k, v in meta.items() if k != "managedFields"}}
    try:
        jsonsafe.check_depth(body)
    except jsonsafe.TooDeep as e:
        raise BadRequest.make(str(e)) from None


def canonical_quantities(info: ResourceInfo, obj: dict[str, Any]) -> dict[str, Any]:
    """Decoding into resource.Quantity canonicalises (``1000m`` -> ``1``) or rejects with 400 (built-in
    kinds; custom resources are unstructured upstream)."""
    schema = builtin_schemas().get(info.schema_ref) if info.builtin and info.schema_ref else None
    if schema is not None:
        try:
            canonicalize_quantities(obj, schema)
        except QuantityError as e:
            raise BadRequest.make(
                f'{info.kind} in version "{info.version}" cannot be handled as a {info.kind}: {e}'
            ) from None
    return obj


class Decoder:
    def __init__(self, *, strategies: StrategySet, crs: CustomResources, scheme: Scheme | None = None) -> None:
        self.strategies = strategies
        self.crs = crs
        self.scheme = scheme if scheme is not None else Scheme()

    def decode(
        self, info: ResourceInfo, body: Any, field_validation: str | None, warnings: list[str],
        *, is_apply: bool = False, version: str = "",
    ) -> dict[str, Any]:
        """Types and unknown fields of a body of ``info``'s kind; returns the object to continue with.

        ``version``: the version the request addresses ("" for the storage version). A built-in kind's
        body of another served version is decoded in that version and returned converted to the storage
        version (an apply configuration is returned as sent, in its version)."""
        if version and version != info.version and info.builtin:
            served = info.at_version(version)
            decoded = self.decode(served, body, field_validation, warnings, is_apply=is_apply)
            return decoded if is_apply else self.scheme.to_storage(info, decoded, version)
        mode = field_validation or "Warn"
        if mode not in ("Strict", "Warn", "Ignore"):
            raise BadRequest.make(
                f'fieldValidation {mode} is invalid, valid values are: "Ignore", "Warn", "Strict"'
            )
        if not isinstance(body, dict):
            raise BadRequest.make("the body of the request was in an unknown format")
        api_version, kind = body.get("apiVersion"), body.get("kind")
        if api_version is not None and kind is not None and (kind != info.kind or not self._version_ok(info, api_version)):
            raise BadRequest.make(
                f"the API version in the data ({api_version}) does not match the expected API version "
                f"({info.api_version})" if kind == info.kind else
                f"{kind} in version \"{api_version}\" cannot be handled as a {info.kind}: no kind \"{kind}\" is "
                f"registered for version \"{api_version}\""
            )
        body["apiVersion"] = api_version or info.api_version
        body["kind"] = info.kind
        meta = body.get("metadata")
        if meta is None:
            body["metadata"] = {}
        elif not isinstance(meta, dict):
            raise BadRequest.make(f"{info.kind} in version \"{info.version}\" cannot be handled as a {info.kind}: "
                                  "metadata must be an object")
        if not info.builtin or (info.group, info.plural) in _OPEN_KINDS:
            check_depth(body)  # open-ended data: the walkers below recurse on whatever was sent
        struct = info.struct
        if struct is None:
            schema = self.crs.schema(info)
            if schema is not None:
                _handle_unknown(mode, unknown_fields(body, schema), body, schema, warnings, prune)
            return body
        schema_ref = info.schema_ref or ""
        typed = self._typed(struct, info.kind, info.version,
                            (lambda: builtin_schemas().get(schema_ref)) if info.storage_version else
                            (lambda: self.strategies.for_resource(info).schema()), body, mode, warnings)
        if is_apply:
            return body  # apply configurations keep explicit nulls (they mean "remove"), so only check them
        return self._builtin_out(info, typed)

    def _builtin_out(self, info: ResourceInfo, typed: Any) -> dict[str, Any]:
        out: dict[str, Any] = omit_empty(msgspec.to_builtins(typed), info.api_version, info.kind)
        out = canonical_quantities(info, out)
        if not info.storage_version and self.scheme.normalizes(info):
            out = self.scheme.to_storage(info, out, info.version)
        return out

    def decode_json(self, info: ResourceInfo, raw: bytes, field_validation: str | None) -> dict[str, Any] | None:
        """:meth:`decode` of a built-in body given as its JSON bytes (the in-process client's copy) in its
        storage version, parsed straight into its typed Struct: no dict of the body is built to be
        converted (half a small object's decode). None whenever the body is anything but a clean decode of
        its own kind and version (then :meth:`decode` of the parsed body runs and reports, warns or prunes
        exactly as it always does): the Struct's defaults for ``apiVersion`` and ``kind`` are the values
        :meth:`decode` fills in, so an equal pair means the body sent them or left them out."""
        if not info.builtin or (info.group, info.plural) in _OPEN_KINDS or field_validation not in (
                None, "Strict", "Warn", "Ignore"):
            return None
        struct = info.struct
        assert struct is not None
        try:
            typed: Any = _struct_decoder(struct).decode(raw)
        except (msgspec.ValidationError, msgspec.DecodeError):
            return None
        if typed.kind != info.kind or typed.api_version != info.api_version:
            return None
        return self._builtin_out(info, typed)

    def decode_parts(self, info: ResourceInfo, metadata: dict[str, Any], field: str, raw: bytes) -> dict[str, Any] | None:
        """:meth:`decode` of a built-in body that is ``apiVersion``, ``kind``, ``metadata`` (decoded) and
        ``field`` (its JSON text ``raw``, as the per-template memo's key holds it), decoding that text
        straight into its typed field: the body's bytes are parsed once, and no dict of the field is built
        to be converted. None when a part does not decode cleanly: then :meth:`decode` of the whole body
        runs and reports, warns or prunes exactly as it always does."""
        struct = info.struct
        assert struct is not None
        part = {"apiVersion": info.api_version, "kind": info.kind, "metadata": metadata}
        try:
            typed: Any = msgspec.convert(part, struct)
            value = _field_decoder(struct, field).decode(raw)
        except (msgspec.ValidationError, msgspec.DecodeError, UnicodeEncodeError):
            return None
        return self._builtin_out(info, msgspec.structs.replace(typed, **{_attr(struct, field): value}))

    def decode_metadata(self, info: ResourceInfo, metadata: dict[str, Any]) -> dict[str, Any] | None:
        """The typed decode of a built-in body's ``apiVersion``, ``kind`` and ``metadata`` alone, for a
        create whose template field the per-template memo holds (``registry/templates.py``, which has
        checked the body's shape): the same values :meth:`decode` gives those fields. None when the
        metadata does not convert cleanly (then :meth:`decode` runs and reports or prunes)."""
        assert info.struct is not None
        part = {"apiVersion": info.api_version, "kind": info.kind, "metadata": metadata}
        try:
            out: dict[str, Any] = msgspec.to_builtins(msgspec.convert(part, info.struct))
        except (msgspec.ValidationError, UnicodeEncodeError):
            return None
        omit_empty_message(out.setdefault("metadata", {}), "meta.v1.ObjectMeta")
        return out

    def decode_subresource(self, sub: SubresourceInfo, body: Any, warnings: list[str]) -> dict[str, Any]:
        """A subresource's body (Binding, Eviction, Scale): kind, version, types and unknown fields are
        checked as for any object (``fieldValidation`` Warn)."""
        if not isinstance(body, dict):
            raise BadRequest.make("the body of the request was in an unknown format")
        av, kind = body.get("apiVersion"), body.get("kind")
        if av is not None and kind is not None and (kind != sub.kind or av != sub.api_version):
            raise BadRequest.make(
                f'{kind} in version "{av}" cannot be handled as a {sub.kind}: no kind "{kind}" is registered '
                f'for version "{av}"'
            )
        meta = body.get("metadata")
        if meta is not None and not isinstance(meta, dict):
            raise BadRequest.make(f'{sub.kind} in version "{sub.version}" cannot be handled as a {sub.kind}: '
                                  "metadata must be an object")
        assert sub.struct is not None and sub.schema_ref is not None
        schema_ref = sub.schema_ref
        typed = self._typed(sub.struct, sub.kind, sub.version, lambda: builtin_schemas().get(schema_ref),
                            body, "Warn", warnings)
        out: dict[str, Any] = omit_empty(msgspec.to_builtins(typed), sub.api_version, sub.kind)
        out.setdefault("metadata", {})
        return out

    def _typed(
        self, struct: type, kind: str, version: str, schema_fn: Callable[[], Schema | None], body: dict[str, Any],
        mode: str, warnings: list[str],
    ) -> Any:
        # The strict decode checks types and unknown fields. Converting the JSON data directly gives the
        # same result as decoding its encoding, without the encode; anything it rejects takes the JSON
        # path below, so errors and pruning are exactly the decoder's.
        try:
            return msgspec.convert(body, struct)
        except msgspec.ValidationError:
            pass
        except UnicodeEncodeError:
            # a lone surrogate: what upstream's JSON decoder makes of one (U+FFFD), then decode again
            clean = jsonsafe.replace_surrogates(body)
            body.clear()
            body.update(clean)
            return self._typed(struct, kind, version, schema_fn, body, mode, warnings)
        try:
            return msgspec.json.decode(_encode(body), type=struct)
        except msgspec.ValidationError as e:
            if "unknown field" not in str(e):
                raise BadRequest.make(f'{kind} in version "{version}" cannot be handled as a {kind}: {e}') from None
        schema = schema_fn()
        assert schema is not None
        _handle_unknown(mode, unknown_fields(body, schema), body, schema, warnings, prune)
        try:
            return msgspec.json.decode(_encode(body), type=struct)
        except msgspec.ValidationError as e:
            raise BadRequest.make(f'{kind} in version "{version}" cannot be handled as a {kind}: {e}') from None

    def _version_ok(self, info: ResourceInfo, api_version: str) -> bool:
        if api_version == info.api_version:
            return True
        return not info.builtin and self.crs.serves(info, api_version)


@memoize("apiserver.pipeline.field_decoder", maxsize=256)
def _field_decoder(struct: type, field: str) -> msgspec.json.Decoder[Any]:
    """A JSON decoder of ``struct``'s field named ``field`` on the wire (one per kind and field)."""
    for f in msgspec.structs.fields(struct):
        if f.encode_name == field:
            return msgspec.json.Decoder(f.type)
    raise KeyError(field)


@memoize("apiserver.pipeline.struct_decoder", maxsize=256)
def _struct_decoder(struct: type) -> msgspec.json.Decoder[Any]:
    """A JSON decoder straight into ``struct`` (one per built-in kind and version)."""
    return msgspec.json.Decoder(struct)


@memoize("apiserver.pipeline.field_attr", maxsize=256)
def _attr(struct: type, field: str) -> str:
    return next(f.name for f in msgspec.structs.fields(struct) if f.encode_name == field)


def _handle_unknown(
    mode: str, unknown: list[str], body: dict[str, Any], schema: Schema, warnings: list[str],
    prune: Callable[..., list[str]],
) -> None:
    if not unknown:
        return
    if mode == "Strict":
        raise BadRequest.make("strict decoding error: " + ", ".join(f'unknown field "{p}"' for p in unknown))
    prune(body, schema)
    if mode == "Warn":
        warnings.extend(f'unknown field "{p}"' for p in unknown)
