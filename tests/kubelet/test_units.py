"""Pure cores: backoff, probes, devices, IPAM, admission, workload model."""

from __future__ import annotations

import random

import msgspec
import pytest

from kubelite.api.types.core_v1 import Pod, PodSpec, Probe
from kubelite.kubelet.admission import admit
from kubelite.kubelet.backoff import Backoff
from kubelite.kubelet.devices import DeviceManager, UnexpectedAdmissionError
from kubelite.kubelet.ipam import CIDRNotAvailable, ClusterCIDRAllocator, HostLocalIPAM
from kubelite.kubelet.lifecycle import IllegalTransition, Step, check
from kubelite.kubelet.probes import LIVENESS, READINESS, ProbeSpec, ProbeWorker
from kubelite.workload import (
    ImageProfile,
    ImageRegistry,
    first_time_above,
    memory_at,
    normalize_image,
    plan_run,
    profile_for,
)


def test_backoff_doubles_to_cap_and_resets_after_twice_max() -> None:
    b = Backoff(10, 300)
    delays = [b.next("k", t) for t in range(0, 9 * 10, 10)]
    assert delays == [10, 20, 40, 80, 160, 300, 300, 300, 300]
    assert b.in_backoff_since("k", 100, 399)
    assert not b.in_backoff_since("k", 100, 400)
    assert not b.in_backoff_since("k", 100, 80 + 601)  # stale entry
    # a container that ran for more than 10 minutes starts over
    assert b.next("k", 2000, event_time=80 + 601) == 10


def test_backoff_staleness_is_judged_at_the_event_time() -> None:
    # flowcontrol.IsInBackOffSince(id, eventTime): hasExpired(eventTime, lastUpdate), not the current time; a
    # container restarted at 600 (delay 10) that crashes again at 1200 waits its delay out until 1210, although
    # the entry is more than 2 x 300 s old by 1201
    b = Backoff(10, 300)
    b.next("k", 600)
    assert b.in_backoff_since("k", 1200, 1201)
    assert b.in_backoff_since("k", 1200, 1209.5)
    assert not b.in_backoff_since("k", 1200, 1210)
    assert b.next("k", 1210, event_time=1200) == 20
    assert not b.in_backoff_since("k", 1900, 1901)  # finished more than 2 x 300 s after the last update


@pytest.mark.parametrize(("image", "want"), [
    ("nginx", ("docker.io/library/nginx", "latest")),
    ("nginx:1.25", ("docker.io/library/nginx", "1.25")),
    ("vllm/vllm-openai:v0.6", ("docker.io/vllm/vllm-openai", "v0.6")),
    ("registry.k8s.io/pause:3.9", ("registry.k8s.io/pause", "3.9")),
    ("localhost:5000/app", ("localhost:5000/app", "latest")),
], ids=["bare", "tag", "user", "registry", "port"])
def test_normalize_image(image: str, want: tuple[str, str]) -> None:
    assert normalize_image(image) == want


def test_registry_tags_and_unknown() -> None:
    r = ImageRegistry(well_known=False, allow_any=False)
    r.add("app:1", ImageProfile(ready_after=5))
    assert r.lookup("docker.io/library/app:1") is not None
    assert r.lookup("app:2") is None
    r.add("lib", {"exitAfter": 3})
    assert r.lookup("lib:anything") == ImageProfile(exit_after=3)
    r.remove("lib")
    assert r.lookup("lib:x") is None


def test_profile_override_annotations() -> None:
    base = ImageProfile(ready_after=5)
    ann = {"kubelite.io/profile": '{"memory": "1Gi"}', "kubelite.io/profile.app": "readyAfter: 60"}
    p = profile_for(base, ann, "app")
    assert (p.ready_after, p.memory) == (60, "1Gi")
    with pytest.raises(ValueError, match=r"invalid kubelite\.io/profile\.app"):
        profile_for(base, {"kubelite.io/profile.app": '{"nope": 1}'}, "app")


def test_memory_model_and_oom_time() -> None:
    p = ImageProfile(memory="100Mi", memory_steps=((30, "300Mi"),), memory_growth_per_second="1Mi")
    assert memory_at(p, 10) == 110 * 2**20
    assert memory_at(p, 30) == 330 * 2**20
    assert first_time_above(p, 200 * 2**20) == 30  # the step crosses it
    t = first_time_above(p, 500 * 2**20)
    assert t is not None and 200 < t < 200.01
    assert first_time_above(ImageProfile(memory="10Mi"), 20 * 2**20) is None


def test_crash_probability_is_seeded() -> None:
    p = ImageProfile(crash_after=5, crash_probability=0.5)
    a = [plan_run(p, memory_limit=None, rng=random.Random(7)).exit_at for _ in range(1)]
    rng1, rng2 = random.Random(3), random.Random(3)
    s1 = [plan_run(p, memory_limit=None, rng=rng1).exit_at for _ in range(20)]
    s2 = [plan_run(p, memory_limit=None, rng=rng2).exit_at for _ in range(20)]
    assert s1 == s2 and 5 in s1 and None in s1 and a


def _run(worker: ProbeWorker, profile: ImageProfile, until: float) -> list[tuple[float, bool | None, bool]]:
    out = []
    while worker.next_at is not None and worker.next_at <= until:
        t = worker.next_at
        o = worker.run(t, profile, "10.0.0.2", {})
        out.append((t, o.result, o.flipped))
    return out


def test_readiness_flips_after_model_load_then_goes_quiet() -> None:
    spec = ProbeSpec(READINESS, msgspec.convert({"httpGet": {"path": "/ready", "port": 8000}, "periodSeconds": 5,
                                                 "successThreshold": 2}, Probe))
    w = ProbeWorker(spec, 100.0, gated=False)
    runs = _run(w, ImageProfile(ready_after=12), 1000)
    assert [t for t, _, _ in runs] == [100, 105, 110, 115, 120]
    assert runs[-1] == (120, True, True)
    assert w.next_at is None  # settled: no more timers


def test_liveness_kills_after_failure_threshold_once_hung() -> None:
    spec = ProbeSpec(LIVENESS, msgspec.convert({"tcpSocket": {"port": 80}, "periodSeconds": 10, "failureThreshold": 3},
                                               Probe))
    w = ProbeWorker(spec, 0.0, gated=False)
    runs = _run(w, ImageProfile(hang_after=35), 1000)
    assert runs[0] == (10, True, False)  # not at the start instant (see the phase table below)
    assert [t for t, _, _ in runs[1:]] == [40, 50, 60]
    assert runs[-1] == (60, False, True) and w.on_hold


# prober/worker.go: a worker is made when the kubelet adds the pod and ticks every periodSeconds from then on,
# across container restarts (``origin``: the pod's admission); its first doProbe, at ``origin``, finds no
# container, and neither does a tick at the container's start instant; ticks within initialDelaySeconds of the
# start are skipped; prober_manager.UpdatePodStatus triggers a readiness run at once for a running container
# with no readiness result (manualTriggerCh), which probes unless the initial delay holds it back
@pytest.mark.parametrize(("kind", "origin", "started", "delay", "ready_after", "want"), [
    (LIVENESS, 0.0, 0.0, 0, 5, [10.0]),
    (READINESS, 0.0, 0.0, 0, 5, [0.0, 10.0]),
    (LIVENESS, 0.0, 30.0, 0, 5, [40.0]),
    (LIVENESS, 0.0, 33.0, 0, 5, [40.0]),
    (LIVENESS, 0.0, 33.0, 15, 5, [50.0]),
    (READINESS, 0.0, 33.0, 15, 5, [50.0]),
    (READINESS, 0.0, 33.0, 0, 12, [33.0, 40.0, 50.0]),
    (LIVENESS, 0.0, 67.0, 0, 5, [70.0, 80.0]),
], ids=["liveness-not-at-start", "readiness-triggered-at-start", "tick-at-start-instant-skipped",
        "pod-phase-not-start-phase", "initial-delay-on-pod-phase", "readiness-delayed-no-trigger",
        "readiness-trigger-then-pod-phase", "restart-keeps-pod-phase"])
def test_probe_ticks_on_the_pods_phase(kind: str, origin: float, started: float, delay: int, ready_after: float,
                                       want: list[float]) -> None:
    spec = ProbeSpec(kind, msgspec.convert({"httpGet": {"port": 80}, "periodSeconds": 10,
                                            "initialDelaySeconds": delay}, Probe))
    w = ProbeWorker(spec, started, origin=origin, gated=False)
    runs = _run(w, ImageProfile(ready_after=ready_after), 1000)
    assert [t for t, _, _ in runs] == want


def test_lifecycle_table_rejects_illegal_steps() -> None:
    check(Step.RUNNING, Step.STOPPING)
    with pytest.raises(IllegalTransition):
        check(Step.DONE, Step.RUNNING)


def test_devices_distinct_idempotent_and_freed() -> None:
    d = DeviceManager("n1", {"nvidia.com/gpu": 4})
    a = d.allocate("p1", "a", {"nvidia.com/gpu": 2})["nvidia.com/gpu"]
    b = d.allocate("p1", "b", {"nvidia.com/gpu": 2})["nvidia.com/gpu"]
    assert not set(a) & set(b)
    assert d.allocate("p1", "a", {"nvidia.com/gpu": 2})["nvidia.com/gpu"] == a
    assert d.env("p1", "a") == {"NVIDIA_VISIBLE_DEVICES": ",".join(a)}
    with pytest.raises(UnexpectedAdmissionError, match="Requested: 1, Available: 0"):
        d.allocate("p2", "c", {"nvidia.com/gpu": 1})
    d.free_pod("p1")
    assert d.free_count("nvidia.com/gpu") == 4
    d.set_health(a[0], False)
    assert d.allocatable() == {"nvidia.com/gpu": 3} and d.capacity() == {"nvidia.com/gpu": 4}


def test_ipam() -> None:
    c = ClusterCIDRAllocator("10.244.0.0/23", 24)
    assert [c.allocate("a"), c.allocate("b")] == ["10.244.0.0/24", "10.244.1.0/24"]
    with pytest.raises(CIDRNotAvailable):
        c.allocate("c")
    c.release("a")
    assert c.allocate("c") == "10.244.0.0/24"
    h = HostLocalIPAM("10.244.1.0/24")
    assert h.allocate("x") == "10.244.1.2"
    assert h.allocate("y") == "10.244.1.3"
    h.release("x")
    assert h.allocate("z") == "10.244.1.4"  # round robin: a released IP is not reused at once


@pytest.mark.parametrize(("requests", "want"), [
    ({"cpu": 2000}, ("OutOfcpu", "Node didn't have enough resource: cpu, requested: 2000, used: 500, capacity: 2000")),
    ({"memory": 2**31}, ("OutOfmemory", None)),
    ({"nvidia.com/gpu": 1}, ("OutOfnvidia.com/gpu", None)),
    ({"cpu": 1000}, None),
], ids=["cpu", "memory", "gpu", "fits"])
def test_admission(requests: dict[str, int], want: tuple[str, str | None] | None) -> None:
    got = admit(Pod(spec=PodSpec()), requests, node_name="n", node_labels={}, used={"cpu": 500},
                allocatable={"cpu": 2000, "memory": 2**30, "pods": 110}, admitted_pods=1)
    if want is None:
        assert got is None
    else:
        assert got is not None and got[0] == want[0]
        if want[1]:
            assert got[1] == want[1]


def test_admission_node_affinity() -> None:
    pod = msgspec.convert({"spec": {"nodeSelector": {"gpu": "a100"}}}, Pod)
    assert admit(pod, {}, node_name="n", node_labels={}, used={}, allocatable={}, admitted_pods=0) == (
        "NodeAffinity", "Predicate NodeAffinity failed")
