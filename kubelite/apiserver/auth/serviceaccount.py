"""Bound service-account tokens: the JWTs kube-apiserver issues for TokenRequest and accepts as bearer tokens.

Follows ``pkg/serviceaccount`` (``jwt.go``: the signer, ``JWTTokenAuthenticator``; ``claims.go``: ``Claims`` and
the validator's ``Validate``) and ``pkg/registry/core/serviceaccount/storage/token.go`` (what the TokenRequest
REST object puts into a token).

Contract:
- :class:`TokenIssuer` signs ES256 JWTs with one P-256 key (kube-apiserver's signer takes an RSA or an ECDSA
  ``--service-account-signing-key-file``; ECDSA because its key derives from a seed in microseconds, where a
  seeded RSA key costs seconds of pure-Python prime search). The key is made on first use (the first
  TokenRequest), from a generator seeded by the cluster RNG at that moment, and signatures are RFC 6979's
  deterministic ones, so the same seed issues byte-identical tokens; a cluster that never asks for a token
  pays nothing (no key, no ``jwt``/``cryptography`` import).
- :meth:`TokenIssuer.authenticate` is upstream's ``JWTTokenAuthenticator.AuthenticateToken`` followed by the
  validator: the signature and issuer must be ours, the token's audiences must meet the apiserver's
  (``--api-audiences``), ``exp``/``nbf`` are checked on the cluster clock with go-jose's one-minute leeway, and
  the service account, and the Pod, Secret or Node the token is bound to, must still exist with the uid the
  token names and not have been deleted for more than 60 s. Any failure is ``None`` (401 to the caller);
  nothing is cached, so a deletion or an expiry takes effect on the next request.
- The identity is ``serviceaccount.UserInfo``: ``system:serviceaccount:NS:NAME`` in ``system:serviceaccounts``
  and ``system:serviceaccounts:NS`` (plus ``system:authenticated``), uid the service account's, extras
  ``authentication.kubernetes.io/credential-id`` (``JTI=...``) and the bound pod's or node's name and uid.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import random
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from kubelite.apiserver.auth.user import ALL_AUTHENTICATED, UserInfo, service_account_user
from kubelite.memo import BoundedCache
from kubelite.rand import new_uid

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric import ec

__all__ = ["ISSUER", "LEEWAY", "TokenIssuer", "ec_key_from_rng", "looks_like_jwt"]

#: kube-apiserver's ``--service-account-issuer`` as kubeadm sets it (also the default ``--api-audiences``)
ISSUER = "https://kubernetes.default.svc.cluster.local"
#: go-jose ``jwt.DefaultLeeway``: ``exp`` and ``nbf`` are checked with one minute of slack
LEEWAY = 60.0
#: claims.go: an object deleted less than this long ago still validates (its deletion may not be observed yet)
_DELETION_GRACE = 60.0
_EXTRA_CREDENTIAL_ID = "authentication.kubernetes.io/credential-id"
_EXTRA_POD_NAME, _EXTRA_POD_UID = "authentication.kubernetes.io/pod-name", "authentication.kubernetes.io/pod-uid"
_EXTRA_NODE_NAME, _EXTRA_NODE_UID = "authentication.kubernetes.io/node-name", "authentication.kubernetes.io/node-uid"

#: reads one stored object as a plain dict: (group, plural, namespace, name) -> object or None
Reader = Callable[[str, str, str, str], "dict[str, Any] | None"]


def looks_like_jwt(token: str) -> bool:
    """``jwt.go`` ``hasCorrectIssuer``'s first test: three dot-separated parts, the JOSE header first."""
    return token.count(".") == 2 and token.startswith("eyJ")


# P-256's group order: a private scalar is drawn from [1, n)
_P256_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551


def ec_key_from_rng(rng: random.Random) -> ec.EllipticCurvePrivateKey:
    """A P-256 private key from ``rng``: the same generator state makes the same key."""
    from cryptography.hazmat.primitives.asymmetric import ec

    return ec.derive_private_key(1 + rng.randrange(_P256_ORDER - 1), ec.SECP256R1())


@functools.cache
def _jws() -> Any:
    """A PyJWS whose ES256 signs deterministically (RFC 6979), so the same key and claims give the same token."""
    from cryptography.hazmat.primitives.asymmetric import ec
    from jwt import PyJWS
    from jwt.algorithms import ECAlgorithm
    from jwt.utils import der_to_raw_signature

    class DeterministicES256(ECAlgorithm):
        def sign(self, msg: bytes, key: Any) -> bytes:
            der = key.sign(msg, ec.ECDSA(self.hash_alg(), deterministic_signing=True))
            return der_to_raw_signature(der, key.curve)

    jws = PyJWS(algorithms=[])
    jws.register_algorithm("ES256", DeterministicES256(ECAlgorithm.SHA256))
    return jws


def _key_id(key: ec.EllipticCurvePrivateKey) -> str:
    """``jwt.go`` ``keyIDFromPublicKey``: base64url (unpadded) SHA-256 of the PKIX DER public key."""
    from cryptography.hazmat.primitives import serialization

    der = key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return base64.urlsafe_b64encode(hashlib.sha256(der).digest()).rstrip(b"=").decode()


class TokenIssuer:
    """The apiserver's service-account token signer and authenticator (see the module docstring)."""

    def __init__(self, *, rng: random.Random, now: Callable[[], float], read: Reader,
                 api_audiences: Sequence[str] = (ISSUER,), issuer: str = ISSUER) -> None:
        self._rng = rng
        self._now = now
        self._read = read
        self.api_audiences = tuple(api_audiences)
        self.issuer = issuer
        self._key: ec.EllipticCurvePrivateKey | None = None
        self._kid = ""
        #: token -> its verified claims (read-only once stored), at most 4,096 tokens
        self._verified: BoundedCache[str, dict[str, Any]] = BoundedCache(None, maxsize=4096)

    def _signing_key(self) -> ec.EllipticCurvePrivateKey:
        if self._key is None:
            # one draw from the cluster RNG seeds the key's own generator: the key's many draws stay off the
            # cluster's stream
            self._key = ec_key_from_rng(random.Random(self._rng.getrandbits(64)))
            self._kid = _key_id(self._key)
        return self._key

    def issue(self, *, service_account: dict[str, Any], audiences: Sequence[str], expiration_seconds: int,
              now: float, bound: tuple[str, dict[str, Any]] | None = None,
              node: dict[str, Any] | None = None, warn_after: int | None = None) -> str:
        """``token.Claims`` then ``GenerateToken``: a signed JWT for ``service_account``, valid from ``now`` for
        ``expiration_seconds``; ``bound`` is ``("pod" | "secret" | "node", object)``, ``node`` the bound pod's
        node (recorded as upstream does, not validated)."""
        key = self._signing_key()
        meta = service_account["metadata"]
        k8s: dict[str, Any] = {"namespace": meta["namespace"],
                               "serviceaccount": {"name": meta["name"], "uid": meta.get("uid", "")}}
        if bound is not None:
            kind, obj = bound
            k8s[kind] = {"name": obj["metadata"]["name"], "uid": obj["metadata"].get("uid", "")}
        if node is not None:
            k8s["node"] = {"name": node["metadata"]["name"], "uid": node["metadata"].get("uid", "")}
        if warn_after is not None:
            k8s["warnafter"] = int(now) + warn_after
        iat = int(now)
        claims = {
            "aud": list(audiences), "exp": iat + expiration_seconds, "iat": iat, "iss": self.issuer,
            "jti": new_uid(self._rng), "kubernetes.io": k8s, "nbf": iat,
            "sub": f"system:serviceaccount:{meta['namespace']}:{meta['name']}",
        }
        # go-jose writes no "typ" header; PyJWT drops it when it is empty
        payload = json.dumps(claims, separators=(",", ":")).encode()
        token: str = _jws().encode(payload, key, algorithm="ES256", headers={"kid": self._kid, "typ": None})
        return token

    def claims(self, token: str) -> dict[str, Any] | None:
        """The claims of a token this issuer signed (signature and issuer checked, nothing else), else None.
        Verified tokens are remembered (``_verified``, bounded), as kube-apiserver's token cache spares a client
        the signature check on each request; what can change (time, the named objects) is checked every time."""
        if self._key is None or not looks_like_jwt(token):
            return None  # no token was ever issued: none can be ours
        known = self._verified.get(token)
        if known is not None:
            return known
        import jwt

        try:
            claims: dict[str, Any] = jwt.decode(
                token, self._key.public_key(), algorithms=["ES256"],
                options={"verify_exp": False, "verify_nbf": False, "verify_iat": False, "verify_aud": False,
                         "verify_iss": False},
            )
        except jwt.PyJWTError:
            return None
        if claims.get("iss") != self.issuer:
            return None
        self._verified.put(token, claims)
        return claims

    def authenticate(self, token: str, audiences: Sequence[str] | None = None) -> tuple[UserInfo, list[str]] | None:
        """The identity a bearer token stands for and the audiences it was accepted for, or None (see the
        module docstring). ``audiences`` defaults to the apiserver's own (TokenReview may ask for others)."""
        claims = self.claims(token)
        if claims is None:
            return None
        aud = claims.get("aud")
        token_auds = [aud] if isinstance(aud, str) else list(aud or ())
        wanted = self.api_audiences if not audiences else tuple(audiences)
        accepted = [a for a in wanted if a in token_auds]
        if not accepted:
            return None  # authenticator.Audiences.Intersect: "token audiences ... is invalid for the target audiences"
        now = self._now()
        exp, nbf = claims.get("exp"), claims.get("nbf")
        if not isinstance(exp, int) or now > exp + LEEWAY:
            return None  # "service account token has expired"
        if isinstance(nbf, int) and now < nbf - LEEWAY:
            return None  # "service account token is not valid yet"
        user = self._validate(claims, now)
        return (user, accepted) if user is not None else None

    def _validate(self, claims: dict[str, Any], now: float) -> UserInfo | None:
        """claims.go ``validator.Validate``: the objects the token names must still be there."""
        k8s = claims.get("kubernetes.io")
        if not isinstance(k8s, dict):
            return None
        namespace = k8s.get("namespace") or ""
        saref = k8s.get("serviceaccount") or {}
        sa = self._live("", "serviceaccounts", namespace, saref.get("name") or "", saref.get("uid"), now)
        if sa is None:
            return None
        extra: dict[str, tuple[str, ...]] = {}
        if claims.get("jti"):
            extra[_EXTRA_CREDENTIAL_ID] = (f"JTI={claims['jti']}",)
        secref, podref, noderef = k8s.get("secret"), k8s.get("pod"), k8s.get("node")
        if secref is not None and self._live("", "secrets", namespace, secref.get("name") or "", secref.get("uid"),
                                             now) is None:
            return None
        if podref is not None:
            if self._live("", "pods", namespace, podref.get("name") or "", podref.get("uid"), now) is None:
                return None
            extra[_EXTRA_POD_NAME] = (podref.get("name") or "",)
            extra[_EXTRA_POD_UID] = (podref.get("uid") or "",)
        if noderef is not None:
            if podref is None and self._live("", "nodes", "", noderef.get("name") or "", noderef.get("uid"),
                                             now) is None:
                return None  # a node-bound token dies with its node; a pod's node is only recorded
            extra[_EXTRA_NODE_NAME] = (noderef.get("name") or "",)
            extra[_EXTRA_NODE_UID] = (noderef.get("uid") or "",)
        base = service_account_user(namespace, sa["metadata"]["name"], sa["metadata"].get("uid", ""))
        assert ALL_AUTHENTICATED in base.groups
        return UserInfo(name=base.name, uid=base.uid, groups=base.groups, extra=tuple(sorted(extra.items())))

    def _live(self, group: str, plural: str, namespace: str, name: str, uid: Any, now: float) -> dict[str, Any] | None:
        obj = self._read(group, plural, namespace, name) if name else None
        if obj is None:
            return None
        meta = obj["metadata"]
        if uid is not None and meta.get("uid", "") != uid:
            return None  # "... UID (%s) does not match claim (%s)": deleted and recreated
        deleted = meta.get("deletionTimestamp")
        if deleted:
            from kubelite.clock import parse_time

            if parse_time(deleted) < now - _DELETION_GRACE:
                return None  # "... has been deleted"
        return obj
