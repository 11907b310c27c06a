"""The node's image manager: pull policy, a per-node image cache, serialized pulls and pull backoff.

Follows ``pkg/kubelet/images/image_manager.go`` (``EnsureImageExists``) and ``puller.go``
(``serialImagePuller``, the default ``serializeImagePulls: true``): one pull at a time per node, in
request order. Guarantees:
- ``IfNotPresent`` uses the cache; ``Always`` re-pulls (fast when present: only the manifest is
  checked); ``Never`` fails with ErrImageNeverPull when the image is absent. The default policy is
  ``Always`` for ``:latest`` or untagged images, else ``IfNotPresent`` (the apiserver's defaulting).
- A failed pull records a backoff entry for the pod and image (upstream's key is ``<pod uid>_<image>``;
  10 s doubling to 300 s, measured from the failure: ``IsInBackOffSinceUpdate``); while in backoff,
  :meth:`ImageManager.ensure` answers ``backoff`` (with ``until``, when the next pull may start) without
  pulling (ImagePullBackOff). So a missing image is tried at 0, then 10, 20, 40, ... 300 s after each
  failure.
- The cache is per node: once an image is present, a second container using it does not pull
  (``IfNotPresent``) or only checks the manifest (``Always``); a pull of an image another pull is already
  fetching waits for it (serialized) and then only resolves the manifest, as containerd does with layers
  already in its content store.
- A private registry (``ImageRegistry.require_pull_secret``) answers 401 unless the caller says it holds
  credentials for it (``authorized=False`` fails the pull: "pull access denied").
- Whether an image exists is decided by the :class:`~kubelite.workload.ImageRegistry` when the
  pull starts; ``unpullable`` is a fault switch that makes chosen images fail even though they exist.
Pure: the caller passes the time and schedules its own wake-up at the returned completion time.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Hashable, Mapping
from typing import Any, Final

from kubelite.kubelet.backoff import INITIAL_BACKOFF, MAX_BACKOFF, Backoff
from kubelite.workload import ImageProfile, ImageRegistry, normalize_image

__all__ = ["BACKOFF", "FAILED", "NEVER_PULL", "PRESENT", "PULLED", "PULLING", "ImageManager", "PullResult",
           "default_pull_policy", "docker_config_hosts"]

PRESENT: Final = "present"
PULLING: Final = "pulling"
PULLED: Final = "pulled"
FAILED: Final = "failed"
BACKOFF: Final = "backoff"
NEVER_PULL: Final = "never"

#: How long a failed resolve takes, and a re-pull of a present image (manifest check only).
RESOLVE_SECONDS = 0.5
REPULL_SECONDS = 0.2


def default_pull_policy(image: str) -> str:
    _, tag = normalize_image(image)
    return "Always" if tag == "latest" else "IfNotPresent"


_DOCKER_HUB = ("index.docker.io", "registry-1.docker.io", "docker.io")


def docker_config_hosts(secret: Mapping[str, Any] | None) -> list[str]:
    """The registry hosts a pull secret holds credentials for (credentialprovider's ``DockerConfig``):
    ``.dockerconfigjson`` ``auths`` or the legacy ``.dockercfg``; keys may be URLs
    (``https://index.docker.io/v1/``), which count for their host; Docker Hub's aliases count as
    ``docker.io``."""
    if not secret:
        return []
    data = secret.get("data") or {}
    raw = data.get(".dockerconfigjson") or data.get(".dockercfg")
    if not raw:
        return []
    try:
        doc = json.loads(base64.b64decode(raw))
    except (binascii.Error, ValueError):
        return []
    if not isinstance(doc, dict):
        return []
    auths = doc.get("auths") if ".dockerconfigjson" in data else doc
    hosts: list[str] = []
    for key in (auths or {}) if isinstance(auths, dict) else ():
        host = str(key).split("://", 1)[-1].split("/", 1)[0]
        hosts.append("docker.io" if host in _DOCKER_HUB else host)
    return hosts


class PullResult:
    """``kind`` is one of the module constants; ``until`` is the completion time while pulling;
    ``message`` the error for FAILED/BACKOFF/NEVER_PULL; ``duration``/``waited`` for PULLED."""

    __slots__ = ("duration", "kind", "message", "size", "until", "waited")

    def __init__(self, kind: str, *, until: float = 0.0, message: str = "", duration: float = 0.0,
                 waited: float = 0.0, size: int = 0) -> None:
        self.kind = kind
        self.until = until
        self.message = message
        self.duration = duration
        self.waited = waited
        self.size = size


class _Pull:
    __slots__ = ("done_at", "error", "requested_at", "size", "started_at")

    def __init__(self, requested_at: float, started_at: float, done_at: float, error: str, size: int) -> None:
        self.requested_at = requested_at
        self.started_at = started_at
        self.done_at = done_at
        self.error = error
        self.size = size


class ImageManager:
    def __init__(self, registry: ImageRegistry, *, bandwidth: float = 100 * 2**20, serialize: bool = True) -> None:
        self.registry = registry
        self.bandwidth = bandwidth
        self.serialize = serialize
        self.present: dict[str, int] = {}  # "repo:tag" -> size in bytes
        self.unpullable: set[str] = set()  # "repo:tag" or "repo": fault switch
        self.backoff = Backoff(INITIAL_BACKOFF, MAX_BACKOFF)
        self._busy_until = 0.0
        self._pulls: dict[Hashable, _Pull] = {}
        self._fetching: dict[str, float] = {}  # "repo:tag" -> when the pull fetching its layers is done

    @staticmethod
    def ref(image: str) -> str:
        repo, tag = normalize_image(image)
        return f"{repo}{tag}" if tag.startswith("@") else f"{repo}:{tag}"

    def preload(self, *images: str) -> None:
        """Put images in the cache as if pulled before the node joined (no events)."""
        for image in images:
            prof = self.registry.lookup(image)
            self.present[self.ref(image)] = prof.size_bytes() if prof is not None else 0

    def has(self, image: str) -> bool:
        return self.ref(image) in self.present

    def ensure(self, key: Hashable, image: str, policy: str | None, now: float, *,
               authorized: bool = True) -> PullResult:
        """Make sure ``image`` is present for the container ``key`` (``(pod uid, container)``); see the
        module docstring. ``authorized`` says whether the pod has credentials for a private registry."""
        ref = self.ref(image)
        policy = policy or default_pull_policy(image)
        bkey = (key[0] if isinstance(key, tuple) and key else key, ref)
        pull = self._pulls.get(key)
        if pull is not None:
            if now < pull.done_at:
                return PullResult(PULLING, until=pull.done_at)
            del self._pulls[key]
            if self._fetching.get(ref) == pull.done_at:
                del self._fetching[ref]
            if pull.error:
                self.backoff.next(bkey, now)
                return PullResult(FAILED, message=pull.error, until=self.backoff.expires(bkey))
            self.backoff.forget(bkey)
            self.present[ref] = pull.size
            return PullResult(PULLED, duration=pull.done_at - pull.started_at,
                              waited=pull.done_at - pull.requested_at, size=pull.size)
        present = ref in self.present
        if policy == "Never":
            if present:
                return PullResult(PRESENT)
            return PullResult(NEVER_PULL,
                              message=f'Container image "{image}" is not present with pull policy of Never')
        if present and policy != "Always":
            return PullResult(PRESENT)
        if self.backoff.in_backoff_since_update(bkey, now):
            return PullResult(BACKOFF, message=f'Back-off pulling image "{image}"', until=self.backoff.expires(bkey))
        profile = None if self._blocked(ref) else self.registry.lookup(image)
        start = max(now, self._busy_until) if self.serialize else now
        if profile is not None and not authorized:
            error = (f'rpc error: code = Unknown desc = failed to pull and unpack image "{ref}": failed to resolve '
                     f'reference "{ref}": pull access denied, repository does not exist or may require '
                     'authorization: server message: insufficient_scope: authorization failed')
            done, size = start + RESOLVE_SECONDS, 0
        elif profile is None:
            error = (f'rpc error: code = NotFound desc = failed to pull and unpack image "{ref}": failed to '
                     f'resolve reference "{ref}": {ref}: not found')
            done, size = start + RESOLVE_SECONDS, 0
        else:
            error, size = "", profile.size_bytes()
            fetching = self._fetching.get(ref)
            if present or fetching is not None:
                # layers present (or being fetched by the pull ahead of us): only the manifest is resolved
                done = max(start, fetching or 0.0) + REPULL_SECONDS
            else:
                done = start + self._pull_time(profile)
                self._fetching[ref] = done
        if self.serialize:
            self._busy_until = done
        self._pulls[key] = _Pull(now, start, done, error, size)
        return PullResult(PULLING, until=done)

    def _pull_time(self, profile: ImageProfile) -> float:
        return profile.pull_time(self.bandwidth)

    def _blocked(self, ref: str) -> bool:
        if not self.unpullable:
            return False
        return ref in self.unpullable or ref.rsplit(":", 1)[0] in self.unpullable

    def cancel(self, key: Hashable) -> None:
        pull = self._pulls.pop(key, None)
        if pull is not None:
            for ref, done in list(self._fetching.items()):
                if done == pull.done_at:
                    del self._fetching[ref]

    def forget(self, pod_uid: str) -> None:
        """The pod is gone: drop its pull backoff entries."""
        for k in [k for k in self.backoff.entries if isinstance(k, tuple) and k[0] == pod_uid]:
            del self.backoff.entries[k]
