"""Table tests per default plugin, on NodeInfos built in memory (no cluster)."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.scheduler.framework.cycle_state import CycleState
from kubelite.scheduler.framework.status import SKIP, UNSCHEDULABLE, UNSCHEDULABLE_AND_UNRESOLVABLE, Status
from kubelite.scheduler.framework.types import NodeInfo, PodInfo, QueuedPodInfo
from kubelite.scheduler.plugins import (
    image_locality,
    inter_pod_affinity,
    node_affinity,
    node_name,
    node_ports,
    node_resources_balanced_allocation,
    node_resources_fit,
    node_unschedulable,
    pod_topology_spread,
    priority_sort,
    scheduling_gates,
    taint_toleration,
)
from tests.scheduler.helpers import make_pod, node_info


class FakeHandle:
    informers = None

    def __init__(self, nodes: list[NodeInfo]) -> None:
        self.nodes = nodes

    def node_infos(self) -> list[NodeInfo]:
        return self.nodes

    def cluster_pods_with_affinity(self) -> tuple[int, int]:
        pods = [p for n in self.nodes for p in n.pods]
        return sum(1 for p in pods if p.has_affinity), sum(1 for p in pods if p.required_anti_affinity_terms)

    def image_num_nodes(self, image: str) -> int:
        return sum(1 for n in self.nodes if image in n.image_sizes)


def run_filter(plugin: Any, pod: PodInfo, node: NodeInfo, nodes: list[NodeInfo] | None = None) -> Status | None:
    state = CycleState()
    pre = getattr(plugin, "pre_filter", None)
    if pre is not None:
        _, st = pre(state, pod, nodes or [node])
        if st is not None and st.code == SKIP:
            return None
        if st is not None:
            return st
    return plugin.filter(state, pod, node)  # type: ignore[no-any-return]


def run_scores(plugin: Any, pod: PodInfo, nodes: list[NodeInfo]) -> list[int] | None:
    state = CycleState()
    st = plugin.pre_score(state, pod, nodes) if hasattr(plugin, "pre_score") else None
    if st is not None and st.code == SKIP:
        return None
    scores = [plugin.score(state, pod, n) for n in nodes]
    if hasattr(plugin, "normalize_score"):
        plugin.normalize_score(state, pod, scores)
    return scores


def reasons(st: Status | None) -> tuple[int, tuple[str, ...]] | None:
    return None if st is None else (st.code, st.reasons)


TAINT = {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}


@pytest.mark.parametrize(("tolerations", "taints", "want"), [
    (None, [], None),
    (None, [TAINT], (UNSCHEDULABLE_AND_UNRESOLVABLE, ("node(s) had untolerated taint {dedicated: gpu}",))),
    ([{"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}], [TAINT], None),
    ([{"key": "dedicated", "operator": "Exists"}], [TAINT], None),
    ([{"operator": "Exists"}], [TAINT], None),
    ([{"key": "dedicated", "value": "cpu"}], [TAINT], (UNSCHEDULABLE_AND_UNRESOLVABLE,
                                                        ("node(s) had untolerated taint {dedicated: gpu}",))),
    (None, [{"key": "soft", "effect": "PreferNoSchedule"}], None),
], ids=["no-taints", "untolerated", "equal", "exists-key", "exists-all", "wrong-value", "prefer-ignored"])
def test_taint_toleration_filter(tolerations: Any, taints: Any, want: Any) -> None:
    pod = PodInfo(make_pod("p", **({"tolerations": tolerations} if tolerations else {})))
    assert reasons(run_filter(taint_toleration.new({}, None), pod, node_info("n", taints=taints))) == want


def test_taint_toleration_score_prefers_fewer_prefer_no_schedule_taints() -> None:
    soft = {"key": "soft", "effect": "PreferNoSchedule"}
    nodes = [node_info("a"), node_info("b", taints=[soft]), node_info("c", taints=[soft, {**soft, "key": "x"}])]
    assert run_scores(taint_toleration.new({}, None), PodInfo(make_pod("p")), nodes) == [100, 50, 0]


@pytest.mark.parametrize(("tolerate", "unschedulable", "want"), [
    (False, False, None),
    (False, True, (UNSCHEDULABLE_AND_UNRESOLVABLE, ("node(s) were unschedulable",))),
    (True, True, None),
], ids=["schedulable", "cordoned", "tolerates-cordon"])
def test_node_unschedulable(tolerate: bool, unschedulable: bool, want: Any) -> None:
    tol = [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}]
    pod = PodInfo(make_pod("p", **({"tolerations": tol} if tolerate else {})))
    st = run_filter(node_unschedulable.new({}, None), pod, node_info("n", unschedulable=unschedulable))
    assert reasons(st) == want


@pytest.mark.parametrize(("want_node", "node", "want"), [
    (None, "n1", None),
    ("n1", "n1", None),
    ("n2", "n1", (UNSCHEDULABLE_AND_UNRESOLVABLE, ("node(s) didn't match the requested node name",))),
], ids=["unset", "match", "mismatch"])
def test_node_name(want_node: str | None, node: str, want: Any) -> None:
    pod = PodInfo(make_pod("p", node_name=want_node))
    assert reasons(node_name.new({}, None).filter(CycleState(), pod, node_info(node))) == want


def _req(key: str, op: str, *values: str) -> dict[str, Any]:
    return {"key": key, "operator": op, "values": list(values)} if values else {"key": key, "operator": op}


MISMATCH = (UNSCHEDULABLE_AND_UNRESOLVABLE, ("node(s) didn't match Pod's node affinity/selector",))


@pytest.mark.parametrize(("spec", "labels", "want"), [
    ({"nodeSelector": {"disk": "ssd"}}, {"disk": "ssd"}, None),
    ({"nodeSelector": {"disk": "ssd"}}, {"disk": "hdd"}, MISMATCH),
    ({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [_req("zone", "In", "a", "b")]}]}}}}, {"zone": "b"}, None),
    ({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [_req("zone", "NotIn", "a")]}]}}}}, {"zone": "a"}, MISMATCH),
    ({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [_req("cores", "Gt", "8")]}]}}}}, {"cores": "16"}, None),
    ({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [_req("gpu", "Exists")]}, {"matchExpressions": [_req("zone", "In", "x")]}]}}}},
     {"zone": "x"}, None),
    ({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [_req("gpu", "DoesNotExist")]}]}}}}, {"gpu": "1"}, MISMATCH),
], ids=["selector-match", "selector-mismatch", "in", "notin", "gt", "terms-are-ored", "does-not-exist"])
def test_node_affinity_filter(spec: dict[str, Any], labels: dict[str, str], want: Any) -> None:
    pod = PodInfo(make_pod("p", **spec))
    assert reasons(run_filter(node_affinity.new({}, None), pod, node_info("n", labels=labels))) == want


def test_node_affinity_preferred_score() -> None:
    pref = [{"weight": 80, "preference": {"matchExpressions": [_req("zone", "In", "a")]}},
            {"weight": 20, "preference": {"matchExpressions": [_req("disk", "In", "ssd")]}}]
    pod = PodInfo(make_pod("p", affinity={"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": pref}}))
    nodes = [node_info("a", labels={"zone": "a", "disk": "ssd"}), node_info("b", labels={"zone": "a"}),
             node_info("c", labels={"disk": "ssd"}), node_info("d")]
    assert run_scores(node_affinity.new({}, None), pod, nodes) == [100, 80, 20, 0]
    assert run_scores(node_affinity.new({}, None), PodInfo(make_pod("q")), nodes) is None


PORT_CONFLICT = (UNSCHEDULABLE, ("node(s) didn't have free ports for the requested pod ports",))


@pytest.mark.parametrize(("existing", "wanted", "want"), [
    ([{"containerPort": 80, "hostPort": 8080}], [{"containerPort": 80, "hostPort": 8080}], PORT_CONFLICT),
    ([{"containerPort": 80, "hostPort": 8080}], [{"containerPort": 80, "hostPort": 8081}], None),
    ([{"containerPort": 80, "hostPort": 8080, "protocol": "UDP"}], [{"containerPort": 80, "hostPort": 8080}], None),
    ([{"containerPort": 80, "hostPort": 8080, "hostIP": "10.0.0.1"}],
     [{"containerPort": 80, "hostPort": 8080, "hostIP": "10.0.0.2"}], None),
    ([{"containerPort": 80, "hostPort": 8080, "hostIP": "10.0.0.1"}], [{"containerPort": 80, "hostPort": 8080}],
     PORT_CONFLICT),
], ids=["same-port", "other-port", "other-protocol", "other-ip", "wildcard-ip"])
def test_node_ports(existing: Any, wanted: Any, want: Any) -> None:
    node = node_info("n", bound=[make_pod("old", node_name="n", ports=existing)])
    pod = PodInfo(make_pod("p", ports=wanted))
    assert reasons(run_filter(node_ports.new({}, None), pod, node)) == want


@pytest.mark.parametrize(("pod_kw", "node_kw", "existing", "want"), [
    ({"cpu": "1", "memory": "1Gi"}, {"cpu": "2"}, [], None),
    ({"cpu": "1500m"}, {"cpu": "2"}, [{"cpu": "1"}], (UNSCHEDULABLE, ("Insufficient cpu",))),
    ({"cpu": "3"}, {"cpu": "2"}, [], (UNSCHEDULABLE_AND_UNRESOLVABLE, ("Insufficient cpu",))),
    ({"gpu": 1}, {"gpu": 2}, [{"gpu": 2}], (UNSCHEDULABLE, ("Insufficient nvidia.com/gpu",))),
    ({"gpu": 1}, {}, [], (UNSCHEDULABLE_AND_UNRESOLVABLE, ("Insufficient nvidia.com/gpu",))),
    ({"cpu": "1", "memory": "32Gi"}, {"cpu": "1", "pods": 1}, [{}],
     (UNSCHEDULABLE_AND_UNRESOLVABLE, ("Too many pods", "Insufficient memory"))),
    ({}, {"pods": 1}, [{}], (UNSCHEDULABLE, ("Too many pods",))),
], ids=["fits", "insufficient-cpu", "cpu-exceeds-allocatable", "gpu-used", "no-gpu", "many", "too-many-pods"])
def test_node_resources_fit_filter(pod_kw: Any, node_kw: Any, existing: Any, want: Any) -> None:
    pods = [make_pod(f"e{i}", node_name="n", **kw) for i, kw in enumerate(existing)]
    node = node_info("n", bound=pods, **node_kw)
    assert reasons(run_filter(node_resources_fit.new({}, None), PodInfo(make_pod("p", **pod_kw)), node)) == want


def test_node_resources_fit_ignored_resources() -> None:
    plugin = node_resources_fit.new({"ignoredResourceGroups": ["nvidia.com"]}, None)
    assert run_filter(plugin, PodInfo(make_pod("p", gpu=1)), node_info("n")) is None


@pytest.mark.parametrize(("strategy", "want"), [
    ({"type": "LeastAllocated"}, [75, 50]),
    ({"type": "MostAllocated"}, [25, 50]),
    ({"type": "RequestedToCapacityRatio", "requestedToCapacityRatio": {
        "shape": [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]}}, [25, 50]),
], ids=["least", "most", "ratio"])
def test_node_resources_fit_scoring(strategy: dict[str, Any], want: list[int]) -> None:
    plugin = node_resources_fit.new({"scoringStrategy": strategy}, None)
    empty = node_info("a", cpu="4", memory="4Gi")
    half = node_info("b", cpu="4", memory="4Gi", bound=[make_pod("x", node_name="b", cpu="1", memory="1Gi")])
    pod = PodInfo(make_pod("p", cpu="1", memory="1Gi"))
    assert run_scores(plugin, pod, [empty, half]) == want


def test_balanced_allocation() -> None:
    plugin = node_resources_balanced_allocation.new({}, None)
    balanced = node_info("a", cpu="4", memory="4Gi")
    skewed = node_info("b", cpu="4", memory="4Gi", bound=[make_pod("x", node_name="b", cpu="2")])
    assert run_scores(plugin, PodInfo(make_pod("p", cpu="1", memory="1Gi")), [balanced, skewed]) == [100, 75]
    assert run_scores(plugin, PodInfo(make_pod("q")), [balanced]) is None  # best effort: skipped


def test_image_locality_prefers_node_with_large_image() -> None:
    nodes = [node_info("a", images=[("nginx:latest", 500 * 1024 * 1024)]), node_info("b")]
    plugin = image_locality.new({}, FakeHandle(nodes))
    scores = run_scores(plugin, PodInfo(make_pod("p", image="nginx")), nodes)
    assert scores is not None and scores[0] > scores[1] == 0


def _term(labels: dict[str, str], key: str = "kubernetes.io/hostname") -> dict[str, Any]:
    return {"labelSelector": {"matchLabels": labels}, "topologyKey": key}


@pytest.mark.parametrize(("affinity", "existing_labels", "want"), [
    ({"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [_term({"app": "db"})]}},
     {"app": "db"}, [None, (UNSCHEDULABLE_AND_UNRESOLVABLE, ("node(s) didn't match pod affinity rules",))]),
    ({"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [_term({"app": "db"})]}},
     {"app": "db"}, [(UNSCHEDULABLE, ("node(s) didn't match pod anti-affinity rules",)), None]),
    ({"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [_term({"app": "db"}, "zone")]}},
     {"app": "db"}, [(UNSCHEDULABLE, ("node(s) didn't match pod anti-affinity rules",)), None]),
], ids=["affinity", "anti-affinity", "anti-affinity-zone"])
def test_inter_pod_affinity_filter(affinity: Any, existing_labels: Any, want: Any) -> None:
    a = node_info("a", labels={"zone": "z1"}, bound=[make_pod("db", node_name="a", labels=existing_labels)])
    b = node_info("b", labels={"zone": "z2"})
    nodes = [a, b]
    plugin = inter_pod_affinity.new({}, FakeHandle(nodes))
    pod = PodInfo(make_pod("p", affinity=affinity, labels={"app": "web"}))
    assert [reasons(run_filter(plugin, pod, n, nodes)) for n in nodes] == want


def test_inter_pod_affinity_existing_anti_affinity_and_first_pod() -> None:
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [_term({"app": "web"})]}}
    a = node_info("a", bound=[make_pod("guard", node_name="a", affinity=anti)])
    b = node_info("b")
    nodes = [a, b]
    plugin = inter_pod_affinity.new({}, FakeHandle(nodes))
    web = PodInfo(make_pod("p", labels={"app": "web"}))
    assert [reasons(run_filter(plugin, web, n, nodes)) for n in nodes] == [
        (UNSCHEDULABLE, ("node(s) didn't satisfy existing pods anti-affinity rules",)), None]
    # The first pod of a self-affine group may land anywhere.
    self_affine = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [_term({"app": "cache"})]}}
    first = PodInfo(make_pod("c0", labels={"app": "cache"}, affinity=self_affine))
    assert run_filter(inter_pod_affinity.new({}, FakeHandle([b])), first, b, [b]) is None


def test_inter_pod_affinity_preferred_score() -> None:
    a = node_info("a", bound=[make_pod("db", node_name="a", labels={"app": "db"})])
    b = node_info("b")
    pref = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 10, "podAffinityTerm": _term({"app": "db"})}]}}
    plugin = inter_pod_affinity.new({}, FakeHandle([a, b]))
    assert run_scores(plugin, PodInfo(make_pod("p", affinity=pref)), [a, b]) == [100, 0]


def _spread(max_skew: int, when: str = "DoNotSchedule", key: str = "zone", **extra: Any) -> dict[str, Any]:
    return {"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": when,
            "labelSelector": {"matchLabels": {"app": "web"}}, **extra}


SKEW = (UNSCHEDULABLE, ("node(s) didn't match pod topology spread constraints",))


MISSING = (UNSCHEDULABLE_AND_UNRESOLVABLE, ("node(s) didn't match pod topology spread constraints (missing "
                                          "required label)",))


@pytest.mark.parametrize(("constraint", "existing", "want"), [
    (_spread(1), (1, 0), [SKEW, None, MISSING]),
    (_spread(2), (1, 0), [None, None, MISSING]),
    (_spread(1), (1, 1), [None, None, MISSING]),
    (_spread(1, minDomains=3), (1, 1), [SKEW, SKEW, MISSING]),
], ids=["max-skew-1", "max-skew-2", "balanced", "min-domains"])
def test_pod_topology_spread_filter(constraint: dict[str, Any], existing: tuple[int, int], want: Any) -> None:
    def web(node: str, n: int) -> list[Any]:
        return [make_pod(f"{node}{i}", node_name=node, labels={"app": "web"}) for i in range(n)]

    nodes = [node_info("a", labels={"zone": "z1"}, bound=web("a", existing[0])),
             node_info("b", labels={"zone": "z2"}, bound=web("b", existing[1])), node_info("c")]
    plugin = pod_topology_spread.new({}, FakeHandle(nodes))
    pod = PodInfo(make_pod("p", labels={"app": "web"}, topologySpreadConstraints=[constraint]))
    assert [reasons(run_filter(plugin, pod, n, nodes)) for n in nodes] == want


def test_pod_topology_spread_score_prefers_emptier_domain() -> None:
    web = [make_pod(f"w{i}", node_name="a", labels={"app": "web"}) for i in range(2)]
    nodes = [node_info("a", labels={"zone": "z1"}, bound=web), node_info("b", labels={"zone": "z2"})]
    plugin = pod_topology_spread.new({}, FakeHandle(nodes))
    pod = PodInfo(make_pod("p", labels={"app": "web"},
                           topologySpreadConstraints=[_spread(1, "ScheduleAnyway")]))
    scores = run_scores(plugin, pod, nodes)
    assert scores is not None and scores[1] == 100 and scores[0] < scores[1]


@pytest.mark.parametrize(("a", "b", "want"), [
    ((10, 5.0), (1, 1.0), True),
    ((1, 1.0), (10, 5.0), False),
    ((5, 1.0), (5, 2.0), True),
    ((5, 2.0), (5, 1.0), False),
], ids=["higher-priority", "lower-priority", "earlier", "later"])
def test_priority_sort(a: tuple[int, float], b: tuple[int, float], want: bool) -> None:
    qa = QueuedPodInfo(PodInfo(make_pod("a", priority=a[0])), a[1])
    qb = QueuedPodInfo(PodInfo(make_pod("b", priority=b[0])), b[1])
    assert priority_sort.new({}, None).less(qa, qb) is want


@pytest.mark.parametrize(("gates", "want"), [
    (None, None),
    ([{"name": "a"}, {"name": "b"}], (UNSCHEDULABLE_AND_UNRESOLVABLE, ("waiting for scheduling gates: [a b]",))),
], ids=["ungated", "gated"])
def test_scheduling_gates(gates: Any, want: Any) -> None:
    pod = PodInfo(make_pod("p", **({"schedulingGates": gates} if gates else {})))
    assert reasons(scheduling_gates.new({}, None).pre_enqueue(pod)) == want
