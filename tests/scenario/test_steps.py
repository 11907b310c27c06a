"""The timeline steps and the cluster functions, each through a small scenario of its own."""

from __future__ import annotations

from kubelite.scenario import RunResult, parse_scenario, run_scenario_async


async def run(text: str) -> RunResult:
    return await run_scenario_async(parse_scenario(text), stall_seconds=None)


def verdicts(r: RunResult) -> dict[str, bool]:
    return {e.name: e.passed for e in r.expectations}


WEB = """\
  - apiVersion: apps/v1
    kind: Deployment
    metadata: {name: web}
    spec:
      replicas: %(replicas)d
      selector: {matchLabels: {app: web}}
      template:
        metadata: {labels: {app: web}}
        spec:
          topologySpreadConstraints:
            - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule,
               labelSelector: {matchLabels: {app: web}}}
          containers:
            - name: web
              image: nginx:1.25
              ports: [{containerPort: 80}]
              readinessProbe: {httpGet: {path: /, port: 80}, periodSeconds: 1}
  - apiVersion: v1
    kind: Service
    metadata: {name: web}
    spec: {selector: {app: web}, ports: [{port: 80}]}
"""


def web(replicas: int = 2) -> str:
    return WEB % {"replicas": replicas}


def deployment(name: str, replicas: int, container: str) -> str:
    """A ``manifests`` entry: Deployment ``name`` of ``replicas`` pods labelled ``app: <name>``, each running
    the one ``container`` (a YAML flow mapping)."""
    return f"""\
  - apiVersion: apps/v1
    kind: Deployment
    metadata: {{name: {name}}}
    spec:
      replicas: {replicas}
      selector: {{matchLabels: {{app: {name}}}}}
      template:
        metadata: {{labels: {{app: {name}}}}}
        spec:
          containers:
            - {container}
"""


async def test_add_node() -> None:
    r = await run("""\
name: add-node
until: 40s
cluster: {nodePools: [{count: 1}]}
manifests:
  - apiVersion: v1
    kind: Pod
    metadata: {name: big}
    spec:
      nodeSelector: {pool: big}
      containers: [{name: c, image: nginx}]
steps:
  - {at: 10s, action: addNode, pool: big, count: 2, labels: {pool: big}, capacity: {cpu: "64", memory: 256Gi, pods: "110"}}
expect:
  - name: pending until the pool exists
    always: now >= 10s or status(pod("big")) == "Pending"
  - name: runs on the new pool
    eventually: pod("big").spec.nodeName in ["big-0", "big-1"] and pod("big").status.phase == "Running"
    within: 30s
  - name: three nodes
    atEnd: count(nodes()) == 3 and node("big-1").status.capacity.cpu == "64"
""")
    assert r.passed, r.expectations
    assert any("node/big-0, node/big-1 joined" in s for _, s in r.steps)


CRASH = """\
name: crash
until: 50s
cluster: {nodePools: [{count: 2}]}
manifests:
%s
steps:
  - {when: 'count(endpoints("web")) == 2', action: startTraffic, service: web, rate: 20}
  - {at: 20s, action: %s, node: node-1}
expect:
  - name: failures after the crash
    atEnd: metrics.traffic.errors["node down"] > 0
  - name: no pod stopped answering
    atEnd: metrics.traffic.sent > 500 and default(metrics.traffic.errors["node down"], 0) == 0
"""


async def test_crash_node_stops_its_pods_serving() -> None:
    r = await run(CRASH % (web(), "crashNode"))
    assert verdicts(r) == {"failures after the crash": True, "no pod stopped answering": False}


async def test_fail_node_only_stops_the_kubelet() -> None:
    # a kubelet crash leaves the containers running: they keep answering until the pods are evicted
    r = await run(CRASH % (web(), "failNode"))
    assert verdicts(r) == {"failures after the crash": False, "no pod stopped answering": True}


async def test_controller_manager_crash_and_restart() -> None:
    r = await run(f"""\
name: kcm
until: 50s
cluster: {{nodePools: [{{count: 2}}]}}
manifests:
{web()}
steps:
  - {{at: 5s, action: crashControllerManager}}
  - {{at: 10s, action: scale, target: deployment/web, replicas: 4}}
  - {{at: 30s, action: restartControllerManager}}
expect:
  - name: nobody creates pods while it is down
    always: now >= 30s or count(pods(label="app=web")) <= 2
  - name: the restarted manager converges
    eventually: deployment("web").status.readyReplicas == 4 and now >= 30s
    within: 45s
""")
    assert r.passed, r.expectations


async def test_drop_watches_and_the_view_recovers() -> None:
    r = await run(f"""\
name: drop
until: 30s
cluster: {{nodePools: [{{count: 2}}]}}
manifests:
{web()}
steps:
  - {{at: 5s, action: dropWatches}}
  - {{at: 6s, action: scale, target: deployment/web, replicas: 3}}
expect:
  - eventually: deployment("web").status.readyReplicas == 3
    within: 25s
""")
    assert r.passed, r.expectations
    (_, line), = [s for s in r.steps if "dropWatches" in s[1]]
    assert int(line.split(": ")[1].split()[0]) > 5, line


async def test_act_as_a_user_and_expect_an_error() -> None:
    r = await run("""\
name: rbac
until: 10s
cluster: {nodePools: [{count: 1}]}
manifests:
  - {apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {containers: [{name: c, image: nginx}]}}
steps:
  - {at: 2s, action: delete, target: pod/p, as: alice, expectError: 'User "alice" cannot delete resource "pods"'}
  - {at: 3s, action: delete, target: pod/p, as: alice, asGroups: ["system:masters"]}
expect:
  - atEnd: not exists(pod("p"))
""")
    assert r.passed, (r.expectations, r.steps)
    assert "rejected as expected: Error from server (Forbidden)" in r.steps[0][1]


async def test_an_unexpected_success_fails_the_step() -> None:
    r = await run("""\
name: no-error
until: 5s
steps:
  - {at: 1s, action: apply, manifest: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}, expectError: nope}
expect:
  - atEnd: 'true'
""")
    assert not r.passed
    assert "expected an error containing 'nope', but the step succeeded" in (r.expectations[-1].diagnosis or "")


async def test_register_admission_hook() -> None:
    r = await run("""\
name: hook
until: 10s
cluster: {nodePools: [{count: 1}]}
steps:
  - at: 1s
    action: registerAdmissionHook
    hook: no-latest
    resources: [pods]
    denyIf: 'any([i == "nginx:latest" or not ("":" in i) for i in []]) or request.object.spec.containers[0].image == "nginx:latest"'
    message: images must be pinned
  - at: 2s
    action: apply
    manifest: {apiVersion: v1, kind: Pod, metadata: {name: bad}, spec: {containers: [{name: c, image: "nginx:latest"}]}}
    expectError: 'admission webhook "no-latest" denied the request: images must be pinned'
  - at: 3s
    action: apply
    manifest: {apiVersion: v1, kind: Pod, metadata: {name: good}, spec: {containers: [{name: c, image: "nginx:1.25"}]}}
expect:
  - atEnd: exists(pod("good")) and not exists(pod("bad"))
""".replace("""'any([i == "nginx:latest" or not ("":" in i) for i in []]) or request""", "'request"))
    assert r.passed, (r.expectations, r.steps)


async def test_fail_readiness_takes_the_pod_out_of_the_service() -> None:
    r = await run(f"""\
name: readiness
until: 40s
cluster: {{nodePools: [{{count: 2}}]}}
manifests:
{web()}
steps:
  - {{at: 20s, action: failReadiness, pod: deployment/web}}
expect:
  - name: both behind the Service first
    eventually: count(endpoints("web")) == 2
    within: 15s
  - name: one left after its readiness fails
    eventually: now > 20s and count(endpoints("web")) == 1 and count(endpoints("web", ready=false)) == 2
    within: 35s
  - name: the failing pod is the oldest one, and it is not restarted (liveness is fine)
    atEnd: >-
      pods(deployment="web")[0].status.conditions[type="Ready"].status == "False"
      and pods(deployment="web")[0].status.containerStatuses[0].restartCount == 0
""")
    assert r.passed, r.expectations


async def test_cluster_functions() -> None:
    r = await run(f"""\
name: functions
until: 30s
cluster: {{nodePools: [{{count: 2}}]}}
manifests:
{web()}
  - apiVersion: autoscaling/v2
    kind: HorizontalPodAutoscaler
    metadata: {{name: web}}
    spec:
      scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: web}}
      minReplicas: 2
      maxReplicas: 5
      metrics: [{{type: Resource, resource: {{name: cpu, target: {{type: Utilization, averageUtilization: 80}}}}}}]
steps:
  - {{when: 'count(endpoints("web")) == 2', action: startTraffic, service: web, rate: 10}}
expect:
  - name: replicasets of a deployment
    atEnd: count(replicasets(deployment="web")) == 1 and replicasets(deployment="web")[0].status.readyReplicas == 2
  - name: endpointslices of a service
    atEnd: count(endpointslices(service="web")) == 1 and count(endpointslices(service="web")[0].endpoints) == 2
  - name: one pod of a deployment, without its name
    atEnd: pods(deployment="web")[0].status.phase == "Running" and count(pods(deployment="web")) == 2
  - name: pod IPs in the cluster CIDR
    atEnd: in_cidr(pods(label="app=web").status.podIP, "10.244.0.0/16")
  - name: dns
    atEnd: dns("web.default.svc.cluster.local") == [service("web").spec.clusterIP] and dns("nope.default.svc.cluster.local") == []
  - name: per-pod traffic counts
    atEnd: count(traffic("web").by_pod) == 2 and traffic("web").by_pod["default/" + pods(deployment="web")[0].metadata.name] >= 1
  - name: hpa and object()
    atEnd: hpa("web").spec.maxReplicas == 5 and object("hpa", "web").spec.minReplicas == 2 and count(objects("hpa")) == 1
  - name: multi-key filter
    atEnd: pods(deployment="web")[0].status.conditions[type="Ready", status="True"].type == "Ready"
""")
    assert r.passed, [(e.name, e.diagnosis) for e in r.expectations if not e.passed]


async def test_always_on_a_missing_object_fails_and_says_why() -> None:
    r = await run("""\
name: missing
until: 5s
expect:
  - name: the pod never runs
    always: pod("shop").status.phase != "Running"
""")
    (e,) = r.expectations
    assert not e.passed and e.at == 0.0
    assert "unknown: pod shop does not exist" in (e.diagnosis or "")


async def test_a_rate_over_nothing_is_null_and_fails() -> None:
    r = await run("""\
name: no-traffic
until: 5s
expect:
  - atEnd: metrics.traffic.success_rate == 1
  - name: unless the expectation says otherwise
    atEnd: default(metrics.traffic.success_rate, 1) == 1
""")
    a, b = r.expectations
    assert not a.passed and "metrics.traffic.success_rate == 1: null == 1 is false" in (a.diagnosis or "")
    assert b.passed


async def test_always_sees_a_violation_shorter_than_a_second() -> None:
    r = await run("""\
name: short
until: 20s
cluster: {nodePools: [{count: 1}]}
images:
  example.com/flaky:1: {crashAfter: 0.3}
manifests:
  - {apiVersion: v1, kind: Pod, metadata: {name: f}, spec: {containers: [{name: c, image: example.com/flaky:1}]}}
expect:
  - name: never Ready
    always: not has(pod("f").status.containerStatuses) or pod("f").status.containerStatuses[0].ready == false
""")
    (e,) = r.expectations
    assert not e.passed, e
    assert e.at is not None and e.at < 1.0, e.at


async def test_a_diagnosis_shows_the_compared_values_and_the_objects() -> None:
    r = await run("""\
name: diagnosis
until: 20s
cluster: {nodePools: [{count: 1}]}
manifests:
""" + deployment("web", 2, "{name: web, image: nginx:1.25}") + """\
expect:
  - name: three ready
    eventually: deployment("web").status.readyReplicas == 3
    within: 10s
""")
    (e,) = r.expectations
    assert not e.passed and e.at == 10.0
    d = e.diagnosis or ""
    assert 'deployment("web").status.readyReplicas == 3: 2 == 3 is false' in d, d
    assert "deployment default/web: want 2; replicas 2, readyReplicas 2" in d, d


async def test_device_plugin_reports_a_failed_gpu() -> None:
    # a GPU fails under a running pod: the node's allocatable drops, the pod keeps running on it (its
    # status shows the device Unhealthy), and a new replica no longer fits
    r = await run("""\
name: failed-gpu
until: 2m
cluster:
  nodePools:
    - {name: gpu, count: 1, capacity: {nvidia.com/gpu: "2"}}
manifests:
""" + deployment("train", 2, "{name: cuda, image: nvidia/cuda:12.4.0-base-ubuntu22.04, command: [sleep, infinity], "
                            "resources: {limits: {nvidia.com/gpu: 1}}}") + """\
steps:
  - {at: 30s, action: devicePlugin, node: gpu-0, unhealthy: [GPU-gpu-0-0]}
  - {at: 60s, action: scale, target: deployment/train, replicas: 3}
expect:
  - name: capacity keeps the failed GPU, allocatable drops it
    eventually: >-
      node("gpu-0").status.capacity["nvidia.com/gpu"] == "2"
      and node("gpu-0").status.allocatable["nvidia.com/gpu"] == "1"
    within: 45s
  - name: the pods on the GPUs keep running
    always: now < 20s or count(pods(label="app=train", status="Running")) >= 2
  - name: the failed device reports Unhealthy in its pod's status, the other Healthy
    eventually: >-
      sorted([pods(label="app=train")[0].status.containerStatuses[0].allocatedResourcesStatus[0].resources[0].health,
              pods(label="app=train")[1].status.containerStatuses[0].allocatedResourcesStatus[0].resources[0].health])
      == ["Healthy", "Unhealthy"]
    within: 45s
  - name: and they are never restarted
    atEnd: sum(pods(label="app=train", status="Running").status.containerStatuses[0].restartCount) == 0
  - name: the third replica does not fit
    atEnd: count(pods(label="app=train", status="Pending")) == 1
""")
    assert r.passed, r.expectations
    assert verdicts(r) == dict.fromkeys(verdicts(r), True)


async def test_device_plugin_step_names_an_unknown_device() -> None:
    r = await run("""\
name: unknown-device
until: 20s
cluster:
  nodePools:
    - {name: gpu, count: 1, capacity: {nvidia.com/gpu: "1"}}
steps:
  - {at: 5s, action: devicePlugin, node: gpu-0, unhealthy: [GPU-gpu-0-7]}
expect:
  - name: the step ran
    atEnd: now > 10s
""")
    assert not r.passed


async def test_traffic_from_a_pod_under_network_policy() -> None:
    """``fromPod``: the client is a pod, so NetworkPolicies apply (``denied by network policy``)."""
    r = await run("""\
name: netpol
until: 40s
cluster: {nodePools: [{count: 2}]}
manifests:
""" + web() + """\
  - {apiVersion: v1, kind: Pod, metadata: {name: frontend, labels: {role: frontend}},
     spec: {containers: [{name: c, image: nginx:1.25}]}}
  - {apiVersion: v1, kind: Pod, metadata: {name: other, labels: {role: other}},
     spec: {containers: [{name: c, image: nginx:1.25}]}}
  - apiVersion: networking.k8s.io/v1
    kind: NetworkPolicy
    metadata: {name: web-from-frontend}
    spec:
      podSelector: {matchLabels: {app: web}}
      ingress: [{from: [{podSelector: {matchLabels: {role: frontend}}}], ports: [{port: 80}]}]
steps:
  - {when: 'count(endpoints("web")) == 2 and pod("other").status.phase == "Running"', action: startTraffic,
     service: web, rate: 10, fromPod: default/other}
  - {at: 30s, action: stopTraffic, service: web}
expect:
  - name: no request from the other pod gets through, the policy denies them
    atEnd: metrics.traffic.sent > 50 and metrics.traffic.succeeded == 0 and metrics.traffic.errors["denied by network policy"] >= metrics.traffic.sent - 10
""")
    assert r.passed, [(e.name, e.diagnosis) for e in r.expectations if not e.passed]
