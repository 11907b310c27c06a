"""The workload model: what a (fake) container does, described by its image's profile. Shared by the kubelets
(which play it out) and the data plane (whose traffic is served only by containers the model says serve), so it
sits below both, with the API types.

There is no real container runtime; each container's behaviour is a pure function of time since it
started, drawn from an :class:`ImageProfile`:

- **pull**: ``pullSeconds`` (or ``size`` over the kubelet's pull bandwidth);
- **start**: ``startSeconds`` from StartContainer until the process runs; ``postStartSeconds`` and
  ``preStopSeconds`` are the durations of lifecycle hooks;
- **probes**: liveness and startup probes succeed from ``healthyAfter`` (defaults to ``readyAfter``),
  readiness probes from ``readyAfter`` (a model load, say); from ``hangAfter`` on every probe times out
  and the process ignores SIGTERM;
- **exit**: ``exitAfter`` with ``exitCode`` (a job), or ``crashAfter`` with ``crashCode``, each run
  crashing with probability ``crashProbability`` (drawn from the cluster's seeded rng); otherwise it
  runs forever;
- **resources**: ``memory`` plus ``memorySteps`` (``[[seconds, quantity], ...]``: usage from that time
  on) plus ``memoryGrowthPerSecond`` (a leak); ``cpu`` is reported only;
- **termination**: after SIGTERM the process exits after ``shutdownSeconds`` with ``sigtermExitCode``;
- **logs**: ``logs`` lines, written when the container starts.

Profiles are immutable. A pod overrides fields for one container with the annotation
``kubelite.io/profile.<container>`` (or for all containers with ``kubelite.io/profile``), a JSON or
YAML mapping of the fields above. :class:`ImageRegistry` knows which images exist; pulling an image it
does not know fails as a real registry's "not found" does. The format is documented in
``docs/workload-profiles.md``.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Iterable, Mapping
from typing import Any

import msgspec

from kubelite.api.quantity import parse_quantity
from kubelite.memo import compiled, memoize

__all__ = [
    "DEFAULT_PROFILE",
    "PROFILE_ANNOTATION",
    "WELL_KNOWN",
    "ImageProfile",
    "ImageRegistry",
    "RunPlan",
    "cpu_millis",
    "first_time_above",
    "memory_at",
    "generated_profile",
    "layer_count",
    "memory_change_points",
    "normalize_image",
    "plan_run",
    "profile_for",
    "valid_reference",
]

PROFILE_ANNOTATION = "kubelite.io/profile"

MiB = 1 << 20


class ImageProfile(msgspec.Struct, frozen=True, kw_only=True, rename="camel", forbid_unknown_fields=True):
    """See the module docstring. Times are seconds (floats), sizes quantities or byte counts."""

    size: str | int = "50Mi"
    pull_seconds: float | None = None
    start_seconds: float = 0.0
    post_start_seconds: float = 0.0
    pre_stop_seconds: float = 0.0
    ready_after: float = 0.0
    healthy_after: float | None = None
    hang_after: float | None = None
    exit_after: float | None = None
    exit_code: int = 0
    crash_after: float | None = None
    crash_probability: float = 1.0
    crash_code: int = 1
    memory: str | int = "16Mi"
    memory_steps: tuple[tuple[float, str | int], ...] = ()
    memory_growth_per_second: str | int = 0
    cpu: str | int = "10m"
    shutdown_seconds: float = 1.0
    sigterm_exit_code: int = 0
    logs: tuple[str, ...] = ()

    def size_bytes(self) -> int:
        return parse_quantity(self.size).value()

    def pull_time(self, bandwidth: float) -> float:
        """Seconds a pull takes at ``bandwidth`` bytes/s unless ``pullSeconds`` says otherwise."""
        if self.pull_seconds is not None:
            return self.pull_seconds
        return self.size_bytes() / bandwidth

    def healthy_from(self) -> float:
        return self.ready_after if self.healthy_after is None else self.healthy_after

    def merged(self, overrides: Mapping[str, Any]) -> ImageProfile:
        """This profile with ``overrides`` (camelCase field names) applied; raises on unknown fields."""
        if not overrides:
            return self
        data = msgspec.to_builtins(self)
        data.update(overrides)
        return msgspec.convert(data, ImageProfile)


_DEFAULT_PROFILE = ImageProfile()
DEFAULT_PROFILE = _DEFAULT_PROFILE
_PAUSE_LIKE = ImageProfile(size="1Mi", memory="1Mi", cpu="1m")

#: Images every default registry knows (tags are ignored for these unless added with a tag).
WELL_KNOWN: dict[str, ImageProfile] = {
    "registry.k8s.io/pause": _PAUSE_LIKE,
    "docker.io/library/busybox": ImageProfile(size="4Mi", memory="1Mi", cpu="1m"),
    "docker.io/library/alpine": ImageProfile(size="8Mi", memory="1Mi", cpu="1m"),
    "docker.io/library/nginx": ImageProfile(size="70Mi", start_seconds=0.3, memory="8Mi"),
    "docker.io/library/httpd": ImageProfile(size="60Mi", start_seconds=0.3, memory="10Mi"),
    "docker.io/library/redis": ImageProfile(size="45Mi", start_seconds=0.2, memory="8Mi"),
    "docker.io/library/postgres": ImageProfile(size="150Mi", start_seconds=2.0, ready_after=3.0, memory="64Mi"),
    "docker.io/library/python": ImageProfile(size="350Mi", memory="20Mi"),
    "registry.k8s.io/e2e-test-images/agnhost": ImageProfile(size="50Mi", memory="10Mi"),
    "docker.io/vllm/vllm-openai": ImageProfile(size="9Gi", start_seconds=2.0, ready_after=180.0,
                                                memory="12Gi", cpu="2"),
    "docker.io/library/debian": ImageProfile(size="48Mi", memory="1Mi", cpu="1m"),
    "docker.io/library/ubuntu": ImageProfile(size="29Mi", memory="1Mi", cpu="1m"),
    "docker.io/library/perl": ImageProfile(size="330Mi", memory="4Mi", cpu="100m"),
    "docker.io/library/mysql": ImageProfile(size="580Mi", start_seconds=1.0, ready_after=10.0, memory="360Mi"),
    "docker.io/library/mariadb": ImageProfile(size="400Mi", start_seconds=1.0, ready_after=8.0, memory="100Mi"),
    "docker.io/library/mongo": ImageProfile(size="700Mi", start_seconds=1.0, ready_after=3.0, memory="150Mi"),
    "docker.io/library/memcached": ImageProfile(size="30Mi", memory="4Mi"),
    "docker.io/library/node": ImageProfile(size="380Mi", memory="40Mi"),
    "docker.io/library/golang": ImageProfile(size="300Mi", memory="8Mi"),
    "registry.k8s.io/nginx-slim": ImageProfile(size="40Mi", start_seconds=0.3, memory="8Mi"),
    "registry.k8s.io/busybox": ImageProfile(size="1Mi", memory="1Mi", cpu="1m"),
}


#: distribution/reference's grammar, compiled with the first image reference checked (``memo.compiled``: a 10 ms
#: compile, the dearest regular expression of a cold start; a cluster without pods checks none: issue #17)
_REFERENCE = (
    r"^(?:(?P<domain>(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*"
    r"(?::[0-9]+)?)/)?"
    r"(?P<path>[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*)"
    r"(?::(?P<tag>[\w][\w.-]{0,127}))?"
    r"(?:@(?P<digest>[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}))?$")


# bound: one entry per distinct image reference in the cluster
@memoize("workload.valid_reference", maxsize=4096)
def valid_reference(image: str) -> bool:
    """Whether ``image`` parses as distribution/reference's grammar (``reference.ParseNormalizedNamed``):
    lowercase path components, an optional registry host (with port), ``:tag`` and ``@digest``."""
    if not image or len(image) > 4096 or image != image.strip():
        return False
    m = compiled(_REFERENCE).match(image)
    if m is None:
        return False
    domain = m.group("domain")
    # "foo/bar": "foo" is a path component unless it looks like a host (a dot, a port, or localhost)
    return domain is None or domain == domain.lower() or "." in domain or ":" in domain


# bound: one entry per distinct image reference in the cluster
@memoize("workload.normalize_image", maxsize=4096)
def normalize_image(image: str) -> tuple[str, str]:
    """``(repository, tag-or-digest)`` as containerd's reference normalisation (docker/distribution
    ``ParseNormalizedNamed`` + ``TagNameOnly``) writes them: ``nginx``, ``library/nginx``,
    ``docker.io/nginx`` and ``index.docker.io/library/nginx:latest`` are all
    ``("docker.io/library/nginx", "latest")``."""
    name, sep, digest = image.partition("@")
    tag = ""
    slash = name.rfind("/")
    colon = name.rfind(":")
    if colon > slash:
        name, tag = name[:colon], name[colon + 1:]
    first, _, rest = name.partition("/")
    if not rest:
        name = "docker.io/library/" + name
    elif first in ("docker.io", "index.docker.io", "registry-1.docker.io"):
        name = ("docker.io/library/" + rest) if "/" not in rest else ("docker.io/" + rest)
    elif not ("." in first or ":" in first or first == "localhost"):
        name = "docker.io/" + name
    if sep:
        return name, "@" + digest
    return name, tag or "latest"


#: tags nobody publishes: ``nginx:does-not-exist`` fails to resolve (manifest unknown) on a real registry
_BOGUS_TAG = (r"(?i)(does-?not-?exist|non-?existent|not-?exist|no-?such|not-?found|missing|bogus|invalid|"
              r"fake|typo|wrong|broken-tag|idontexist|i-do-not-exist)")


def generated_profile(ref: str, seed: int = 0, default: ImageProfile | None = None) -> ImageProfile:
    """A profile for an image nobody described: size and layer count drawn from a distribution seeded by the
    reference (and the registry's seed), so one image always has the same size. Sizes are log-uniform
    between 5 MiB and 1.2 GiB, as public images mostly are."""
    import hashlib  # with the first image pulled, not with every cluster (issue #17, cold start)

    digest = hashlib.sha256(f"{seed}:{ref}".encode()).digest()
    u = int.from_bytes(digest[:8], "big") / 2**64
    size_mib = math.exp(math.log(5) + u * (math.log(1200) - math.log(5)))
    base = default or _DEFAULT_PROFILE
    return msgspec.structs.replace(base, size=f"{max(1, round(size_mib))}Mi")


def layer_count(ref: str, seed: int = 0) -> int:
    """How many layers the generated image has (1-12), from the same seeded draw."""
    import hashlib

    return 1 + hashlib.sha256(f"{seed}:{ref}:layers".encode()).digest()[0] % 12


class ImageRegistry:
    """Which images exist and what they do. Mutable on purpose: tests and scenarios add images, mark tags
    missing, or make registries private while the cluster runs.

    Guarantees:
    - A lookup normalises the reference first (:func:`normalize_image`), then tries ``repo:tag``, then
      ``repo``; a reference that does not parse fails (InvalidImageName, decided by the kubelet).
    - With ``allow_any`` (the default) every well-formed reference exists: an image nobody described gets
      :func:`generated_profile` (its size from a distribution seeded by the reference and ``seed``).
      ``allow_any=False`` makes the registry know only what was added (and the well-known images).
    - A tag that no registry publishes (``nginx:does-not-exist``, ``app:nonexistent``: see ``_BOGUS_TAG``)
      and a reference marked missing (:meth:`mark_missing`, :meth:`remove`) never exist.
    - :meth:`require_pull_secret` makes a registry host (or a repository prefix) private: pulls need a
      ``kubernetes.io/dockerconfigjson`` secret in ``imagePullSecrets`` with credentials for that host.
    """

    def __init__(self, images: Mapping[str, ImageProfile] | None = None, *, well_known: bool = True,
                 allow_any: bool = True, default: ImageProfile = _DEFAULT_PROFILE, seed: int = 0) -> None:
        self._images: dict[str, ImageProfile] = {}
        if well_known:
            self._images.update(WELL_KNOWN)
        self.allow_any = allow_any
        self.default = default
        self.seed = seed
        self._missing: set[str] = set()
        self._private: dict[str, tuple[str, ...]] = {}  # host or repo prefix -> secret names (empty: any)
        self._generated: dict[str, ImageProfile] = {}
        for ref, prof in (images or {}).items():
            self.add(ref, prof)

    @staticmethod
    def _key(image: str, with_tag: bool) -> str:
        repo, tag = normalize_image(image)
        return f"{repo}:{tag}" if with_tag and not tag.startswith("@") else repo

    def add(self, image: str, profile: ImageProfile | Mapping[str, Any] | None = None) -> None:
        """Publish ``image`` (with a tag: only that tag; without: every tag) with its profile."""
        if profile is None:
            profile = self.default
        elif not isinstance(profile, ImageProfile):
            profile = msgspec.convert(dict(profile), ImageProfile)
        repo, tag = normalize_image(image)
        explicit_tag = ":" in image.rsplit("/", 1)[-1] or "@" in image
        key = f"{repo}:{tag}" if explicit_tag else repo
        self._images[key] = profile
        self._missing.discard(key)

    def remove(self, image: str) -> None:
        """Unpublish ``image`` (with a tag: that tag; without: every tag of the repository)."""
        for key in (self._key(image, True), self._key(image, False)):
            self._images.pop(key, None)
        self.mark_missing(image)

    def mark_missing(self, image: str) -> None:
        """Pulls of ``image`` fail with "not found" (with a tag: that tag only; without: every tag)."""
        explicit_tag = ":" in image.rsplit("/", 1)[-1] or "@" in image
        self._missing.add(self._key(image, explicit_tag))

    def require_pull_secret(self, prefix: str, *secrets: str) -> None:
        """Make the registry host (``registry.example.com``) or repository prefix
        (``registry.example.com/team``) private; ``secrets`` limits which secret names carry valid
        credentials (default: any dockerconfigjson secret with an entry for the host)."""
        self._private[prefix.rstrip("/")] = tuple(secrets)

    def private(self, image: str) -> tuple[str, tuple[str, ...]] | None:
        """``(host, accepted secret names)`` when ``image`` needs credentials, else None."""
        if not self._private:
            return None
        repo, _ = normalize_image(image)
        for prefix, secrets in self._private.items():
            if repo == prefix or repo.startswith(prefix + "/"):
                return repo.split("/", 1)[0], secrets
        return None

    def missing(self, image: str) -> bool:
        """True when a pull of ``image`` must fail with "not found"."""
        repo, tag = normalize_image(image)
        if self._missing and (repo in self._missing or f"{repo}:{tag}" in self._missing):
            return True
        return not tag.startswith("@") and compiled(_BOGUS_TAG).search(tag) is not None

    def lookup(self, image: str) -> ImageProfile | None:
        """The profile of ``image``, or None when the registry has no such image."""
        if self.missing(image):
            return None
        images = self._images
        repo, tag = normalize_image(image)
        ref = f"{repo}:{tag}"
        prof = images.get(ref)
        if prof is None:
            prof = images.get(repo)
        if prof is None and self.allow_any:
            prof = self._generated.get(ref)
            if prof is None:
                prof = self._generated[ref] = generated_profile(ref, self.seed, self.default)
        return prof

    def layers(self, image: str) -> int:
        repo, tag = normalize_image(image)
        return layer_count(f"{repo}:{tag}", self.seed)

    def images(self) -> Iterable[str]:
        return sorted(self._images)


class _BadOverride(ValueError):
    pass


def _parse_override(text: str) -> dict[str, Any]:
    text = text.strip()
    if text.startswith("{"):
        data = json.loads(text)
    else:
        import yaml  # with the first YAML override: a cluster without one never loads PyYAML

        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as e:
            raise _BadOverride(str(e)) from None
    if not isinstance(data, dict):
        raise ValueError(f"a profile override must be a mapping, got {type(data).__name__}")
    return data


def profile_for(base: ImageProfile, annotations: Mapping[str, str] | None, container: str) -> ImageProfile:
    """``base`` with the pod's overrides for ``container`` applied (pod-wide first, then per container).

    A malformed override raises ``ValueError``; the kubelet reports it as CreateContainerConfigError.
    """
    if not annotations:
        return base
    out = base
    for key in (PROFILE_ANNOTATION, f"{PROFILE_ANNOTATION}.{container}"):
        text = annotations.get(key)
        if text:
            try:
                out = out.merged(_parse_override(text))
            except (msgspec.ValidationError, _BadOverride, json.JSONDecodeError) as e:
                raise ValueError(f"invalid {key} annotation: {e}") from None
    return out


class RunPlan(msgspec.Struct, frozen=True):
    """What one run of a container will do, decided when it starts (times relative to its start).

    ``exit_at``/``exit_code`` is the process's own exit (None: runs forever); ``oom_at`` is when its
    memory first exceeds ``limit`` (None: never). Both can be set: whichever comes first wins.
    """

    exit_at: float | None
    exit_code: int
    oom_at: float | None


def plan_run(profile: ImageProfile, *, memory_limit: int | None, rng: random.Random) -> RunPlan:
    exit_at: float | None = None
    code = 0
    if profile.exit_after is not None:
        exit_at, code = profile.exit_after, profile.exit_code
    if profile.crash_after is not None and (exit_at is None or profile.crash_after < exit_at):
        p = profile.crash_probability
        if p >= 1.0 or (p > 0.0 and rng.random() < p):
            exit_at, code = profile.crash_after, profile.crash_code
    oom_at = first_time_above(profile, memory_limit) if memory_limit else None
    return RunPlan(exit_at, code, oom_at)


# bound: one entry per distinct (immutable) image profile
@memoize("workload._memory_segments", maxsize=1024)
def _memory_segments(profile: ImageProfile) -> tuple[tuple[float, int], ...]:
    """``(from_seconds, base_bytes)`` steps, sorted, starting at 0."""
    steps = [(0.0, parse_quantity(profile.memory).value())]
    for t, q in sorted(profile.memory_steps, key=lambda s: s[0]):
        steps.append((float(t), parse_quantity(q).value()))
    return tuple(steps)


# bound: one entry per distinct (immutable) image profile
@memoize("workload._growth", maxsize=1024)
def _growth(profile: ImageProfile) -> int:
    return parse_quantity(profile.memory_growth_per_second).value()


def memory_at(profile: ImageProfile, t: float) -> int:
    """Working-set bytes ``t`` seconds after start (the cgroup's ``memory.usage`` in the model)."""
    base = 0
    for start, value in _memory_segments(profile):
        if start > t:
            break
        base = value
    return base + int(_growth(profile) * max(0.0, t))


def first_time_above(profile: ImageProfile, limit: int | None) -> float | None:
    """The first time usage exceeds ``limit`` bytes (the cgroup OOM kill), or None."""
    if not limit:
        return None
    segs = _memory_segments(profile)
    growth = _growth(profile)
    for i, (start, value) in enumerate(segs):
        end = segs[i + 1][0] if i + 1 < len(segs) else None
        if value + growth * start > limit:
            return start
        if growth > 0:
            t = (limit - value) / growth
            # strictly above the limit: the first whole microsecond past the crossing
            t = max(t, start) + 1e-6
            if end is None or t < end:
                return t
    return None


def memory_change_points(profile: ImageProfile) -> tuple[float, ...]:
    """Times (after start) at which usage jumps; a leak changes it continuously (sampled by eviction)."""
    return tuple(t for t, _ in _memory_segments(profile)[1:])


def cpu_millis(profile: ImageProfile) -> int:
    return parse_quantity(profile.cpu).milli_value()

