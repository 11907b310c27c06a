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
import random
from collections.abc import Iterable, Mapping
from typing import Any

import msgspec
import yaml

from kubelite.api.quantity import parse_quantity
from kubelite.memo import memoize

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
    "memory_change_points",
    "normalize_image",
    "plan_run",
    "profile_for",
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
}


# bound: one entry per distinct image reference in the cluster
@memoize("workload.normalize_image", maxsize=4096)
def normalize_image(image: str) -> tuple[str, str]:
    """``(repository, tag-or-digest)`` as containerd's reference normalisation writes them:
    ``nginx`` -> ``("docker.io/library/nginx", "latest")``."""
    name, sep, digest = image.partition("@")
    tag = ""
    slash = name.rfind("/")
    colon = name.rfind(":")
    if colon > slash:
        name, tag = name[:colon], name[colon + 1:]
    first = name.split("/", 1)[0]
    if "/" not in name:
        name = "docker.io/library/" + name
    elif not ("." in first or ":" in first or first == "localhost"):
        name = "docker.io/" + name
    if sep:
        return name, "@" + digest
    return name, tag or "latest"


class ImageRegistry:
    """Which images exist and what they do. Mutable on purpose: tests and scenarios add images, or make
    one unpullable (``remove``), while the cluster runs. Lookups try ``repo:tag`` then ``repo``."""

    def __init__(self, images: Mapping[str, ImageProfile] | None = None, *, well_known: bool = True,
                 allow_any: bool = False, default: ImageProfile = _DEFAULT_PROFILE) -> None:
        self._images: dict[str, ImageProfile] = {}
        if well_known:
            self._images.update(WELL_KNOWN)
        self.allow_any = allow_any
        self.default = default
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
        self._images[f"{repo}:{tag}" if explicit_tag else repo] = profile

    def remove(self, image: str) -> None:
        """Unpublish ``image`` (both its tagged and untagged entries)."""
        for key in (self._key(image, True), self._key(image, False)):
            self._images.pop(key, None)

    def lookup(self, image: str) -> ImageProfile | None:
        """The profile of ``image``, or None when the registry has no such image."""
        images = self._images
        repo, tag = normalize_image(image)
        prof = images.get(f"{repo}:{tag}")
        if prof is None:
            prof = images.get(repo)
        if prof is None and self.allow_any:
            return self.default
        return prof

    def images(self) -> Iterable[str]:
        return sorted(self._images)


def _parse_override(text: str) -> dict[str, Any]:
    text = text.strip()
    data = json.loads(text) if text.startswith("{") else yaml.safe_load(text)
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
            except (msgspec.ValidationError, yaml.YAMLError, json.JSONDecodeError) as e:
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

