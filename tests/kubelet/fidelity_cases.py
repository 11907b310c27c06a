"""The fidelity table: manifests of the kinds public examples use, each with what a real cluster shows
after a given time (phase, kubectl STATUS/READY/RESTARTS, container states, conditions, events by
reason, workload status). Times assume a quiet node of its own (pulls at 100 MiB/s, no queueing).

Timings behind the expectations are upstream's: a container that must restart restarts at once after
its first exit, then after 10, 20, 40, 80, 160, 300 s (from finishedAt); a failed pull is retried after
10, 20, 40, ... s; the Job controller re-creates failed pods after 10 s doubling; CronJobs fire on the
minute (the cluster starts at 00:00:00) and keep 3 successful / 1 failed Jobs.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from typing import Any

Obj = dict[str, Any]


@dataclass
class Expect:
    """Checks on one pod (or on every pod of a workload). Container states are ``running``,
    ``waiting:<Reason>`` or ``terminated:<Reason>:<exitCode>``; ``restarts`` is exact or ``(min, max)``."""

    phase: str | None = None
    status: str | None = None
    ready: str | None = None
    restarts: int | tuple[int, int] | None = None
    containers: dict[str, str] = field(default_factory=dict)
    init: dict[str, str] = field(default_factory=dict)
    conditions: dict[str, str] = field(default_factory=dict)
    last: dict[str, str] = field(default_factory=dict)  # lastState.terminated as "<Reason>:<code>"
    reason: str | None = None  # status.reason


@dataclass
class Case:
    id: str
    manifests: list[Obj]
    at: float
    pod: Expect | None = None  # the pod named "p", or every pod in the namespace with ``pods``
    pods: int | None = None  # how many pods the namespace has (workloads)
    events: tuple[str, ...] = ()  # reasons that must appear on the namespace's pods
    no_events: tuple[str, ...] = ()
    job: dict[str, Any] | None = None  # {"name", "succeeded", "failed", "active", "condition", "reason"}
    jobs: dict[str, int] | None = None  # CronJob: {"total", "succeeded", "active", "failed"}
    workload: dict[str, Any] | None = None  # {"kind", "name", field: value} on .status
    absent: tuple[str, ...] = ()  # "jobs/name": objects that must be gone
    nodes: int = 1  # how many dedicated nodes the case gets


def c(command: Any = None, image: str = "busybox:1.36", name: str = "c", **kw: Any) -> Obj:
    out: Obj = {"name": name, "image": image}
    if isinstance(command, str):
        out["command"] = ["sh", "-c", command]
    elif command is not None:
        out["command"] = list(command)
    out.update(kw)
    return out


def pod(*containers: Obj, restart: str | None = None, init: list[Obj] | None = None,
        annotations: dict[str, str] | None = None, **spec: Any) -> Obj:
    s: Obj = {"containers": list(containers), **spec}
    if restart:
        s["restartPolicy"] = restart
    if init:
        s["initContainers"] = init
    meta: Obj = {"name": "p"}
    if annotations:
        meta["annotations"] = annotations
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": s}


def job(*containers: Obj, name: str = "j", restart: str = "Never", init: list[Obj] | None = None,
        **spec: Any) -> Obj:
    tpl: Obj = {"restartPolicy": restart, "containers": list(containers)}
    if init:
        tpl["initContainers"] = init
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name},
            "spec": {"template": {"spec": tpl}, **spec}}


def cron(*containers: Obj, schedule: str = "* * * * *", restart: str = "OnFailure", job_spec: Obj | None = None,
         **spec: Any) -> Obj:
    return {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "cj"},
            "spec": {"schedule": schedule, **spec, "jobTemplate": {"spec": {
                **(job_spec or {}), "template": {"spec": {"restartPolicy": restart, "containers": list(containers)}}}}}}


def _labels(app: str) -> Obj:
    return {"matchLabels": {"app": app}}


def sts(*containers: Obj, replicas: int = 3, init: list[Obj] | None = None, **spec: Any) -> Obj:
    tpl: Obj = {"containers": list(containers)}
    if init:
        tpl["initContainers"] = init
    return {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "web"},
            "spec": {"serviceName": "web", "replicas": replicas, "selector": _labels("web"),
                     "template": {"metadata": {"labels": {"app": "web"}}, "spec": tpl}, **spec}}


def ds(*containers: Obj, init: list[Obj] | None = None, **tpl_spec: Any) -> Obj:
    tpl: Obj = {"containers": list(containers), **tpl_spec}
    if init:
        tpl["initContainers"] = init
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent"},
            "spec": {"selector": _labels("agent"), "template": {"metadata": {"labels": {"app": "agent"}}, "spec": tpl}}}


def deploy(*containers: Obj, replicas: int = 3) -> Obj:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
            "spec": {"replicas": replicas, "selector": _labels("d"),
                     "template": {"metadata": {"labels": {"app": "d"}}, "spec": {"containers": list(containers)}}}}


def secret_pull(name: str, host: str) -> Obj:
    cfg = base64.b64encode(json.dumps({"auths": {host: {"auth": "dXNlcjpwYXNz"}}}).encode()).decode()
    return {"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/dockerconfigjson",
            "metadata": {"name": name}, "data": {".dockerconfigjson": cfg}}


DONE = Expect(phase="Succeeded", status="Completed", ready="0/1", restarts=0, containers={"c": "terminated:Completed:0"},
              conditions={"Ready": "False", "Initialized": "True"})
RUNNING = Expect(phase="Running", status="Running", ready="1/1", restarts=0, containers={"c": "running"},
                 conditions={"Ready": "True", "ContainersReady": "True", "PodScheduled": "True"})
START_EVENTS = ("Scheduled", "Pulling", "Pulled", "Created", "Started")


def failed(code: int, status: str = "Error") -> Expect:
    return Expect(phase="Failed", status=status, restarts=0, containers={"c": f"terminated:{status}:{code}"},
                  conditions={"Ready": "False"})


def looping(restarts: int | tuple[int, int], last: str = "Error:1", status: str = "CrashLoopBackOff") -> Expect:
    return Expect(phase="Running", status=status, ready="0/1", restarts=restarts,
                  containers={"c": f"waiting:{status}"} if status == "CrashLoopBackOff" else {},
                  last={"c": last}, conditions={"Ready": "False"})


BB = "busybox:1.36"
CASES: list[Case] = [
    # --- pods, restartPolicy Never ---
    Case("never-echo", [pod(c(["echo", "hello"]), restart="Never")], 10, DONE, events=START_EVENTS),
    Case("never-true", [pod(c(["true"]), restart="Never")], 10, DONE),
    Case("never-false", [pod(c(["false"]), restart="Never")], 10, failed(1)),
    Case("never-exit-3", [pod(c("exit 3"), restart="Never")], 10, failed(3)),
    Case("never-sleep-running", [pod(c(["sleep", "30"]), restart="Never")], 10, RUNNING),
    Case("never-sleep-done", [pod(c(["sleep", "5"]), restart="Never")], 20, DONE),
    Case("never-and-chain", [pod(c("echo a && sleep 2 && echo b"), restart="Never")], 10, DONE),
    Case("never-and-fails", [pod(c("sleep 1 && false"), restart="Never")], 10, failed(1)),
    Case("never-or-recovers", [pod(c("false || true"), restart="Never")], 10, DONE),
    Case("never-semicolon", [pod(c("false; echo done"), restart="Never")], 10, DONE),
    Case("never-exit-in-chain", [pod(c("echo start; exit 42; echo never"), restart="Never")], 10, failed(42)),
    Case("never-bin-sh", [pod(c(["/bin/sh", "-c", "echo hi; sleep 1"]), restart="Never")], 10, DONE),
    Case("never-bash", [pod(c(["bash", "-c", "sleep 2 && exit 0"], image="bash:5.2"), restart="Never")], 15, DONE),
    Case("never-for-loop", [pod(c("for i in 1 2 3; do echo $i; sleep 3; done"), restart="Never")], 5, RUNNING),
    Case("never-for-loop-done", [pod(c("for i in 1 2 3; do echo $i; sleep 3; done"), restart="Never")], 15, DONE),
    Case("never-perl-running", [pod(c(["perl", "-Mbignum=bpi", "-wle", "print bpi(2000)"], image="perl:5.34.0"),
                                    restart="Never")], 8, RUNNING),
    Case("never-perl-done", [pod(c(["perl", "-Mbignum=bpi", "-wle", "print bpi(2000)"], image="perl:5.34.0"),
                                 restart="Never")], 30, DONE),
    Case("never-python-exit", [pod(c(["python", "-c", "import sys; sys.exit(2)"], image="python:3.12"),
                                   restart="Never")], 15, failed(2)),
    Case("never-python-sleep", [pod(c(["python3", "-c", "import time; time.sleep(10)"], image="python:3.12-slim"),
                                    restart="Never")], 30, DONE),
    Case("never-exit-builtin", [pod(c(["exit", "1"]), restart="Never")], 10,
         Expect(phase="Failed", status="StartError", containers={"c": "terminated:StartError:128"}),
         events=("Created", "Failed"), no_events=("Started",)),
    Case("never-busybox-default", [pod(c(image="busybox"), restart="Never")], 10, DONE),
    Case("never-ubuntu-default", [pod(c(image="ubuntu:24.04"), restart="Never")], 10, DONE),
    Case("never-alpine-default", [pod(c(image="alpine:3.20"), restart="Never")], 10, DONE),
    Case("never-nginx", [pod(c(image="nginx:1.25"), restart="Never")], 10, RUNNING),
    Case("never-postgres-no-password", [pod(c(image="postgres:16"), restart="Never")], 20, failed(1)),
    Case("never-postgres-password", [pod(c(image="postgres:16", env=[{"name": "POSTGRES_PASSWORD", "value": "pw"}]),
                                         restart="Never")], 20, RUNNING),
    Case("never-mysql-no-password", [pod(c(image="mysql:8.0"), restart="Never")], 30, failed(1)),
    Case("never-mysql-password", [pod(c(image="mysql:8.0", env=[{"name": "MYSQL_ROOT_PASSWORD", "value": "pw"}]),
                                      restart="Never")], 30, RUNNING),
    Case("never-two-one-exits", [pod(c(["sleep", "3600"], name="a"), c(["echo", "x"], name="b"), restart="Never")], 10,
         Expect(phase="Running", status="NotReady", ready="1/2",
                containers={"a": "running", "b": "terminated:Completed:0"}, conditions={"Ready": "False"})),
    # kubectl's STATUS takes the first container's reason (it walks them last to first)
    Case("never-two-both-exit", [pod(c(["echo"], name="a"), c(["false"], name="b"), restart="Never")], 10,
         Expect(phase="Failed", status="Completed", containers={"a": "terminated:Completed:0",
                                                                "b": "terminated:Error:1"})),
    Case("never-two-first-fails", [pod(c(["false"], name="a"), c(["echo"], name="b"), restart="Never")], 10,
         Expect(phase="Failed", status="Error")),
    Case("never-two-both-succeed", [pod(c(["echo"], name="a"), c(["sleep", "2"], name="b"), restart="Never")], 10,
         Expect(phase="Succeeded", status="Completed", ready="0/2")),
    Case("never-oom", [pod(c(image="nginx:1.25", resources={"limits": {"memory": "64Mi"}}), restart="Never",
                           annotations={"kubelite.io/profile": '{"memory": "200Mi"}'})], 10,
         Expect(phase="Failed", status="OOMKilled", containers={"c": "terminated:OOMKilled:137"})),
    # --- restartPolicy OnFailure ---
    Case("onfailure-echo", [pod(c(["echo", "ok"]), restart="OnFailure")], 10, DONE),
    Case("onfailure-false-early", [pod(c(["false"]), restart="OnFailure")], 5, looping(1)),
    Case("onfailure-false-later", [pod(c(["false"]), restart="OnFailure")], 45, looping(3)),
    Case("onfailure-sleep-exit0", [pod(c("sleep 3; exit 0"), restart="OnFailure")], 10, DONE),
    Case("onfailure-sleep-exit1", [pod(c("sleep 2; exit 1"), restart="OnFailure")], 30, looping(2)),
    Case("onfailure-exit-7", [pod(c("exit 7"), restart="OnFailure")], 20, looping(2, last="Error:7")),
    # --- restartPolicy Always ---
    Case("always-echo", [pod(c(["echo", "hi"]))], 5, looping(1, last="Completed:0")),
    Case("always-false", [pod(c(["false"]))], 45, looping(3)),
    Case("always-false-long", [pod(c(["false"]))], 200, looping(5)),
    Case("always-sleep-infinity", [pod(c(["sleep", "infinity"]))], 30, RUNNING),
    Case("always-while-loop", [pod(c("while true; do echo hello; sleep 10; done"))], 60, RUNNING),
    Case("always-tail-f", [pod(c(["tail", "-f", "/dev/null"]))], 30, RUNNING),
    Case("always-nginx", [pod(c(image="nginx:1.25"))], 30, RUNNING, events=START_EVENTS),
    Case("always-redis", [pod(c(image="redis:7"))], 30, RUNNING),
    Case("always-redis-server", [pod(c(["redis-server", "--appendonly", "yes"], image="redis:7-alpine"))], 30,
         RUNNING),
    Case("always-sleep-3600", [pod(c(["sleep", "3600"]))], 30, RUNNING),
    Case("always-args-sleep", [pod(c(args=["sleep", "3600"]))], 30, RUNNING),
    Case("always-exit-builtin", [pod(c(["exit", "1"]))], 5, looping(1, last="StartError:128")),
    Case("always-busybox-default", [pod(c(image="busybox"))], 5, looping(1, last="Completed:0")),
    Case("always-busybox-stdin", [pod(c(image="busybox", stdin=True, tty=True))], 30, RUNNING),
    Case("always-sleep-10", [pod(c(["sleep", "10"]))], 15,
         Expect(phase="Running", status="Running", restarts=1, containers={"c": "running"}, last={"c": "Completed:0"})),
    Case("always-sleep2-exit1", [pod(c("sleep 2; exit 1"))], 60, looping(3)),
    Case("always-python-http", [pod(c(["python", "-m", "http.server", "8000"], image="python:3.12"))], 30, RUNNING),
    Case("always-unknown-server", [pod(c(["/app/server", "--port", "8080"], image="example.com/shop/api:2.3"))], 30,
         RUNNING),
    Case("always-perl-pi", [pod(c(["perl", "-Mbignum=bpi", "-wle", "print bpi(2000)"], image="perl:5.34.0"))], 8,
         RUNNING),
    Case("always-java", [pod(c(["java", "-jar", "/app.jar"], image="eclipse-temurin:21"))], 30, RUNNING),
    Case("always-oom", [pod(c(image="nginx:1.25", resources={"limits": {"memory": "64Mi"}}),
                            annotations={"kubelite.io/profile": '{"memory": "200Mi"}'})], 5,
         looping(1, last="OOMKilled:137")),
    Case("always-two-containers", [pod(c(image="nginx:1.25", name="web"), c(["sleep", "3600"], name="side"))], 30,
         Expect(phase="Running", status="Running", ready="2/2", containers={"web": "running", "side": "running"})),
    Case("always-one-of-two-crashes", [pod(c(image="nginx:1.25", name="web"), c(["false"], name="bad"))], 45,
         Expect(phase="Running", status="CrashLoopBackOff", ready="1/2", restarts=3,
                containers={"web": "running", "bad": "waiting:CrashLoopBackOff"})),
    Case("always-args-nginx", [pod(c(image="nginx:1.25", args=["nginx", "-g", "daemon off;"]))], 30, RUNNING),
    # --- images from many registries ---
    *[Case(f"image-{i}", [pod(c(["sleep", "3600"], image=img))], 60, RUNNING, events=("Pulling", "Pulled"))
      for i, img in enumerate([
          "docker.io/library/nginx:1.25", "docker.io/nginx:1.25", "index.docker.io/library/nginx:1.25",
          "registry.k8s.io/nginx-slim:0.8", "quay.io/prometheus/prometheus:v2.53.0",
          "gcr.io/google-samples/hello-app:1.0", "ghcr.io/stefanprodan/podinfo:6.5.0",
          "mcr.microsoft.com/dotnet/samples:aspnetapp", "public.ecr.aws/nginx/nginx:1.25",
          "localhost:5000/myapp:dev", "registry.example.com:5000/team/app:v1",
          "k8s.gcr.io/echoserver:1.4", "bitnami/redis:7.2", "library/httpd:2.4",
          "registry.k8s.io/e2e-test-images/agnhost:2.43", "docker.io/grafana/grafana:11.0.0",
          "nginx@sha256:" + "a" * 64, "mongo:7", "memcached:1.6", "rabbitmq:3-management"])],
    Case("image-pause", [pod(c(image="registry.k8s.io/pause:3.9"))], 30, RUNNING),
    Case("image-bogus-tag", [pod(c(image="nginx:does-not-exist"))], 30,
         Expect(phase="Pending", status="ImagePullBackOff", ready="0/1", containers={"c": "waiting:ImagePullBackOff"}),
         events=("Pulling", "Failed", "BackOff"), no_events=("Pulled", "Started")),
    Case("image-err-image-pull-first", [pod(c(image="nginx:does-not-exist"))], 1,
         Expect(phase="Pending", status="ErrImagePull", containers={"c": "waiting:ErrImagePull"}), events=("Failed",)),
    Case("image-bogus-other", [pod(c(image="myregistry.io/team/app:nonexistent"))], 30,
         Expect(phase="Pending", status="ImagePullBackOff")),
    Case("image-missing-marked", [pod(c(image="example.com/gone:1.0"))], 30,
         Expect(phase="Pending", status="ImagePullBackOff")),
    Case("image-invalid-upper", [pod(c(image="Nginx:1.25"))], 10,
         Expect(phase="Pending", status="InvalidImageName", containers={"c": "waiting:InvalidImageName"}),
         events=("InspectFailed", "Failed"), no_events=("Pulling",)),
    Case("image-invalid-double-colon", [pod(c(image="nginx::1.25"))], 10, Expect(status="InvalidImageName")),
    Case("image-never-absent", [pod(c(image="example.com/never-pulled:1", imagePullPolicy="Never"))], 10,
         Expect(phase="Pending", status="ErrImageNeverPull"), events=("ErrImageNeverPull",), no_events=("Pulling",)),
    Case("image-private-denied", [pod(c(image="private.example.com/shop/cart:1.0"))], 30,
         Expect(phase="Pending", status="ImagePullBackOff")),
    Case("image-private-with-secret", [secret_pull("regcred", "private.example.com"),
                                       pod(c(["sleep", "3600"], image="private.example.com/shop/cart:1.0"),
                                           imagePullSecrets=[{"name": "regcred"}])], 30, RUNNING),
    Case("image-private-wrong-host-secret", [secret_pull("regcred", "other.example.com"),
                                             pod(c(image="private.example.com/shop/cart:1.0"),
                                                 imagePullSecrets=[{"name": "regcred"}])], 30,
         Expect(phase="Pending", status="ImagePullBackOff")),
    Case("image-always-policy", [pod(c(["sleep", "3600"], image="nginx:1.25", imagePullPolicy="Always"))], 30,
         RUNNING, events=("Pulling", "Pulled")),
    # --- init containers ---
    Case("init-echo", [pod(c(image="nginx:1.25"), init=[c("echo done", name="i")])], 10,
         Expect(phase="Running", status="Running", ready="1/1", init={"i": "terminated:Completed:0"},
                conditions={"Initialized": "True", "Ready": "True"})),
    Case("init-two", [pod(c(image="nginx:1.25"), init=[c(["echo", "1"], name="i1"), c(["echo", "2"], name="i2")])],
         10, Expect(phase="Running", status="Running", init={"i1": "terminated:Completed:0",
                                                             "i2": "terminated:Completed:0"})),
    Case("init-sleeping", [pod(c(image="nginx:1.25"), init=[c(["sleep", "20"], name="i")])], 5,
         Expect(phase="Pending", status="Init:0/1", ready="0/1", init={"i": "running"},
                containers={"c": "waiting:PodInitializing"}, conditions={"Initialized": "False"})),
    Case("init-sleeping-done", [pod(c(image="nginx:1.25"), init=[c(["sleep", "20"], name="i")])], 30, RUNNING),
    Case("init-second-running", [pod(c(image="nginx:1.25"), init=[c(["echo"], name="i1"), c(["sleep", "20"], name="i2")])],
         5, Expect(phase="Pending", status="Init:1/2", init={"i1": "terminated:Completed:0", "i2": "running"})),
    Case("init-waiting-second", [pod(c(image="nginx:1.25"), init=[c(["sleep", "20"], name="i1"), c(["echo"], name="i2")])],
         5, Expect(status="Init:0/2", init={"i1": "running", "i2": "waiting:PodInitializing"})),
    Case("init-fails-never", [pod(c(image="nginx:1.25"), init=[c(["false"], name="i")], restart="Never")], 10,
         Expect(phase="Failed", status="Init:Error", init={"i": "terminated:Error:1"})),
    Case("init-exit3-never", [pod(c(image="nginx:1.25"), init=[c("exit 3", name="i")], restart="Never")], 10,
         Expect(phase="Failed", status="Init:Error", init={"i": "terminated:Error:3"})),
    Case("init-fails-always", [pod(c(image="nginx:1.25"), init=[c(["false"], name="i")])], 5,
         Expect(phase="Pending", status="Init:CrashLoopBackOff", init={"i": "waiting:CrashLoopBackOff"},
                containers={"c": "waiting:PodInitializing"})),
    Case("init-fails-onfailure", [pod(c(image="nginx:1.25"), init=[c(["false"], name="i")], restart="OnFailure")], 5,
         Expect(phase="Pending", status="Init:CrashLoopBackOff")),
    Case("init-bogus-image", [pod(c(image="nginx:1.25"), init=[c(["echo"], image="busybox:does-not-exist", name="i")])],
         30, Expect(phase="Pending", status="Init:ImagePullBackOff")),
    Case("init-perl", [pod(c(image="nginx:1.25"), init=[c(["perl", "-e", "print 1"], image="perl:5.34.0", name="i")])],
         20, RUNNING),
    Case("init-busybox-default", [pod(c(image="nginx:1.25"), init=[c(image="busybox", name="i")])], 10, RUNNING),
    Case("init-sidecar", [pod(c(image="nginx:1.25"), init=[c(["sleep", "infinity"], name="log", restartPolicy="Always")])],
         20, Expect(phase="Running", status="Running", ready="2/2", init={"log": "running"})),
    Case("init-then-app-crash", [pod(c(["false"]), init=[c(["echo"], name="i")])], 5, looping(1)),
    Case("init-then-app-done", [pod(c(["echo"]), init=[c(["echo"], name="i")], restart="Never")], 10, DONE),
    # --- probes ---
    Case("probe-readiness-http", [pod(c(image="nginx:1.25", readinessProbe={"httpGet": {"path": "/", "port": 80},
                                                                           "periodSeconds": 5}))], 20, RUNNING),
    Case("probe-readiness-exec-false", [pod(c(["sleep", "3600"], readinessProbe={"exec": {"command": ["false"]},
                                                                                 "periodSeconds": 5}))], 30,
         Expect(phase="Running", status="Running", ready="0/1", restarts=0, conditions={"Ready": "False"}),
         events=("Unhealthy",)),
    Case("probe-readiness-exec-true", [pod(c(["sleep", "3600"], readinessProbe={"exec": {"command": ["true"]}}))], 20,
         RUNNING, no_events=("Unhealthy",)),
    Case("probe-liveness-docs", [pod(c(args=["/bin/sh", "-c", "touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600"],
                                       image="registry.k8s.io/busybox",
                                       livenessProbe={"exec": {"command": ["cat", "/tmp/healthy"]},
                                                      "initialDelaySeconds": 5, "periodSeconds": 5}))], 80,
         Expect(phase="Running", status="Running", restarts=1, containers={"c": "running"}),
         events=("Unhealthy", "Killing")),
    Case("probe-liveness-docs-being-killed", [pod(c(args=["/bin/sh", "-c", "touch /tmp/healthy; sleep 30; "
                                                          "rm -f /tmp/healthy; sleep 600"], image="registry.k8s.io/busybox",
                                                    livenessProbe={"exec": {"command": ["cat", "/tmp/healthy"]},
                                                                   "initialDelaySeconds": 5, "periodSeconds": 5}))], 50,
         Expect(phase="Running", restarts=0, containers={"c": "running"}), events=("Unhealthy", "Killing")),
    Case("probe-liveness-docs-healthy", [pod(c(args=["/bin/sh", "-c", "touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; "
                                                     "sleep 600"], image="registry.k8s.io/busybox",
                                               livenessProbe={"exec": {"command": ["cat", "/tmp/healthy"]},
                                                              "initialDelaySeconds": 5, "periodSeconds": 5}))], 25,
         RUNNING, no_events=("Unhealthy",)),
    # the third failure at ~30 s (ticks on the pod's phase, none at the start instant), then the grace period
    # (sleep ignores SIGTERM): the restart comes ~60 s after the start, as on a real node
    Case("probe-liveness-false", [pod(c(["sleep", "3600"], livenessProbe={"exec": {"command": ["false"]},
                                                                        "periodSeconds": 10}))], 90,
         Expect(phase="Running", restarts=(1, 3)), events=("Unhealthy", "Killing")),
    Case("probe-liveness-missing-file", [pod(c("touch /tmp/x; rm /tmp/x; sleep 3600",
                                               livenessProbe={"exec": {"command": ["cat", "/tmp/x"]},
                                                              "periodSeconds": 5}))], 60,
         Expect(phase="Running", restarts=1), events=("Unhealthy", "Killing")),
    Case("probe-liveness-http-ok", [pod(c(image="nginx:1.25", livenessProbe={"httpGet": {"path": "/", "port": 80}}))], 60,
         RUNNING, no_events=("Unhealthy", "Killing")),
    Case("probe-startup-ok", [pod(c(image="nginx:1.25", startupProbe={"httpGet": {"path": "/", "port": 80},
                                                                      "failureThreshold": 30, "periodSeconds": 10}))],
         30, RUNNING),
    Case("probe-startup-fails", [pod(c(["sleep", "3600"], startupProbe={"exec": {"command": ["false"]},
                                                                       "failureThreshold": 3, "periodSeconds": 5}))],
         60, Expect(phase="Running", restarts=1), events=("Unhealthy", "Killing")),
    Case("probe-readiness-file-later", [pod(c("sleep 10; touch /tmp/ready; sleep 3600",
                                              readinessProbe={"exec": {"command": ["cat", "/tmp/ready"]},
                                                              "periodSeconds": 5}))], 5,
         Expect(phase="Running", ready="0/1", conditions={"Ready": "False"})),
    Case("probe-readiness-file-ready", [pod(c("sleep 10; touch /tmp/ready; sleep 3600",
                                              readinessProbe={"exec": {"command": ["cat", "/tmp/ready"]},
                                                              "periodSeconds": 5}))], 25, RUNNING),
    Case("probe-readiness-delay-early", [pod(c(image="nginx:1.25", readinessProbe={
        "httpGet": {"port": 80}, "initialDelaySeconds": 15, "periodSeconds": 5}))], 5,
         Expect(phase="Running", ready="0/1", conditions={"Ready": "False"})),
    Case("probe-readiness-delay-late", [pod(c(image="nginx:1.25", readinessProbe={
        "httpGet": {"port": 80}, "initialDelaySeconds": 15, "periodSeconds": 5}))], 30, RUNNING),
    Case("probe-tcp-redis", [pod(c(image="redis:7", readinessProbe={"tcpSocket": {"port": 6379}},
                                   livenessProbe={"tcpSocket": {"port": 6379}}))], 30, RUNNING),
    Case("probe-postgres", [pod(c(image="postgres:16", env=[{"name": "POSTGRES_PASSWORD", "value": "pw"}],
                                  readinessProbe={"exec": {"command": ["pg_isready"]}, "periodSeconds": 5}))], 30,
         RUNNING),
    # --- Jobs ---
    Case("job-pi", [job(c(["perl", "-Mbignum=bpi", "-wle", "print bpi(2000)"], image="perl:5.34.0"), backoffLimit=4)],
         60, Expect(phase="Succeeded", status="Completed"), pods=1,
         job={"succeeded": 1, "condition": "Complete"}),
    Case("job-echo", [job(c(["echo", "hi"]))], 20, Expect(phase="Succeeded"), pods=1,
         job={"succeeded": 1, "condition": "Complete"}),
    Case("job-completions-3", [job(c("echo work; sleep 2"), completions=3)], 60, Expect(phase="Succeeded"), pods=3,
         job={"succeeded": 3, "condition": "Complete"}),
    Case("job-parallel-5", [job(c(["sleep", "5"]), completions=5, parallelism=5)], 30, pods=5,
         job={"succeeded": 5, "condition": "Complete"}),
    Case("job-running", [job(c(["sleep", "60"]))], 10, RUNNING, pods=1, job={"active": 1, "condition": None}),
    Case("job-backoff-limit", [job(c(["false"]), backoffLimit=2)], 120, Expect(phase="Failed", status="Error"),
         pods=3, job={"failed": 3, "condition": "Failed", "reason": "BackoffLimitExceeded"}),
    Case("job-backoff-zero", [job(c("exit 5"), backoffLimit=0)], 30, Expect(phase="Failed"), pods=1,
         job={"failed": 1, "condition": "Failed", "reason": "BackoffLimitExceeded"}),
    Case("job-onfailure-limit", [job(c(["false"]), restart="OnFailure", backoffLimit=1)], 120, pods=None,
         job={"condition": "Failed", "reason": "BackoffLimitExceeded"}),
    Case("job-deadline", [job(c(["sleep", "3600"]), activeDeadlineSeconds=10)], 60,
         job={"condition": "Failed", "reason": "DeadlineExceeded"}),
    Case("job-ttl", [job(c(["echo"]), ttlSecondsAfterFinished=5)], 60, absent=("jobs/j",)),
    Case("job-indexed", [job(c(["echo"]), completions=3, parallelism=3, completionMode="Indexed")], 30, pods=3,
         job={"succeeded": 3, "condition": "Complete"}),
    Case("job-python", [job(c(["python", "-c", "print(sum(range(10)))"], image="python:3.12"))], 30,
         job={"succeeded": 1, "condition": "Complete"}),
    Case("job-init", [job(c(["echo", "main"]), init=[c(["echo", "prep"], name="prep")])], 30,
         Expect(phase="Succeeded", init={"prep": "terminated:Completed:0"}), job={"succeeded": 1, "condition": "Complete"}),
    Case("job-bogus-image", [job(c(["echo"], image="busybox:nonexistent"))], 60,
         Expect(phase="Pending", status="ImagePullBackOff"), pods=1, job={"active": 1, "condition": None}),
    Case("job-busybox-default", [job(c(image="busybox:1.36"))], 20, job={"succeeded": 1, "condition": "Complete"}),
    Case("job-succeeds-after-retry-never", [job(c("sleep 1; exit 0"), completions=2)], 30,
         job={"succeeded": 2, "condition": "Complete"}),
    # --- CronJobs ---
    Case("cron-hello", [cron(c(["/bin/sh", "-c", "date; echo Hello from the Kubernetes cluster"], image="busybox:1.28"))],
         190, jobs={"total": 3, "succeeded": 3, "active": 0}),
    Case("cron-history", [cron(c(["echo", "tick"]))], 310, jobs={"total": 3, "succeeded": 3, "active": 0}),
    Case("cron-forbid", [cron(c(["sleep", "3600"]), concurrencyPolicy="Forbid")], 190,
         jobs={"total": 1, "active": 1}),
    Case("cron-allow", [cron(c(["sleep", "100"]))], 190, jobs={"total": 3, "active": 2, "succeeded": 1}),
    Case("cron-replace", [cron(c(["sleep", "3600"]), concurrencyPolicy="Replace")], 190, jobs={"active": 1}),
    Case("cron-suspended", [cron(c(["echo"]), suspend=True)], 190, jobs={"total": 0}),
    Case("cron-failing", [cron(c(["false"]), restart="Never", job_spec={"backoffLimit": 0})], 250,
         jobs={"failed": 1, "active": 0}),
    Case("cron-every-2-min", [cron(c(["echo"]), schedule="*/2 * * * *")], 250, jobs={"total": 2, "succeeded": 2}),
    # --- StatefulSets ---
    Case("sts-nginx", [sts(c(image="registry.k8s.io/nginx-slim:0.8", ports=[{"containerPort": 80}]))], 30,
         RUNNING, pods=3, workload={"kind": "statefulsets", "name": "web", "readyReplicas": 3}),
    Case("sts-readiness", [sts(c(image="nginx:1.25", readinessProbe={"httpGet": {"port": 80}, "periodSeconds": 5}))], 60,
         RUNNING, pods=3, workload={"kind": "statefulsets", "name": "web", "readyReplicas": 3}),
    Case("sts-crash-ordered", [sts(c(["false"]))], 30, looping((2, 3)), pods=1),
    Case("sts-crash-parallel", [sts(c(["false"]), podManagementPolicy="Parallel")], 30, pods=3),
    Case("sts-init", [sts(c(image="nginx:1.25"), init=[c(["echo", "init"], name="i")])], 40, RUNNING, pods=3),
    Case("sts-pvc", [sts(c(image="nginx:1.25"), replicas=2,
                         volumeClaimTemplates=[{"metadata": {"name": "data"}, "spec": {
                             "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}])],
         60, RUNNING, pods=2, workload={"kind": "statefulsets", "name": "web", "readyReplicas": 2}),
    Case("sts-bogus-image", [sts(c(image="nginx:does-not-exist"))], 30, Expect(status="ImagePullBackOff"), pods=1),
    Case("sts-zero", [sts(c(image="nginx:1.25"), replicas=0)], 20, pods=0),
    # --- DaemonSets (two nodes each) ---
    Case("ds-nginx", [ds(c(image="nginx:1.25"))], 30, RUNNING, pods=2, nodes=2,
         workload={"kind": "daemonsets", "name": "agent", "numberReady": 2}),
    Case("ds-loop", [ds(c("while true; do sleep 60; done"))], 30, RUNNING, pods=2, nodes=2),
    Case("ds-crash", [ds(c(["false"]))], 30, looping((2, 3)), pods=2, nodes=2),
    Case("ds-init", [ds(c(image="fluent/fluentd:v1.16"), init=[c(["echo"], name="i")])], 30, RUNNING, pods=2, nodes=2),
    Case("ds-no-match", [ds(c(image="nginx:1.25"), nodeSelector={"gpu": "true"})], 30, pods=0, nodes=2),
    Case("ds-busybox-default", [ds(c(image="busybox"))], 30, Expect(status="CrashLoopBackOff"), pods=2, nodes=2),
    # --- Deployments ---
    Case("deploy-nginx", [deploy(c(image="nginx:1.25"))], 30, RUNNING, pods=3,
         workload={"kind": "deployments", "name": "d", "availableReplicas": 3}),
    Case("deploy-crash", [deploy(c(["false"]))], 30, looping((2, 3)), pods=3),
    Case("deploy-bogus-image", [deploy(c(image="nginx:does-not-exist"), replicas=2)], 30,
         Expect(phase="Pending", status="ImagePullBackOff"), pods=2),
    Case("deploy-busybox-default", [deploy(c(image="busybox"), replicas=1)], 5, looping(1, last="Completed:0"), pods=1),
    Case("deploy-readiness", [deploy(c(image="nginx:1.25", readinessProbe={"httpGet": {"port": 80}}), replicas=2)], 30,
         RUNNING, pods=2, workload={"kind": "deployments", "name": "d", "readyReplicas": 2}),
    # --- config, scheduling, deadlines ---
    Case("config-missing-configmap-env", [pod(c(["sleep", "3600"], env=[{"name": "X", "valueFrom": {
        "configMapKeyRef": {"name": "absent", "key": "x"}}}]))], 20,
         Expect(phase="Pending", status="CreateContainerConfigError", containers={"c": "waiting:CreateContainerConfigError"})),
    Case("config-missing-configmap-volume", [pod(c(["sleep", "3600"], volumeMounts=[{"name": "cfg", "mountPath": "/cfg"}]),
                                                 volumes=[{"name": "cfg", "configMap": {"name": "absent"}}])], 20,
         Expect(phase="Pending", status="ContainerCreating"), events=("FailedMount",)),
    Case("config-present-configmap", [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"},
                                       "data": {"x": "1"}},
                                      pod(c(["sleep", "3600"], env=[{"name": "X", "valueFrom": {
                                          "configMapKeyRef": {"name": "cfg", "key": "x"}}}]))], 20, RUNNING),
    Case("config-secret-volume", [{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "data": {"k": "dg=="}},
                                  pod(c(["sleep", "3600"], volumeMounts=[{"name": "s", "mountPath": "/s"}]),
                                      volumes=[{"name": "s", "secret": {"secretName": "s"}}])], 20, RUNNING),
    Case("config-emptydir", [pod(c(["sleep", "3600"], volumeMounts=[{"name": "tmp", "mountPath": "/tmp"}]),
                                 volumes=[{"name": "tmp", "emptyDir": {}}])], 20, RUNNING),
    Case("config-downward-env", [pod(c(["sleep", "3600"], env=[{"name": "NODE", "valueFrom": {
        "fieldRef": {"fieldPath": "spec.nodeName"}}}]))], 20, RUNNING),
    Case("sched-too-much-cpu", [pod(c(["sleep", "3600"], resources={"requests": {"cpu": "100"}}))], 20,
         Expect(phase="Pending", status="Pending", conditions={"PodScheduled": "False"}), events=("FailedScheduling",)),
    Case("sched-selector-mismatch", [pod(c(["sleep", "3600"]), nodeSelector={"disktype": "ssd"})], 20,
         Expect(phase="Pending", status="Pending"), events=("FailedScheduling",)),
    # sleep as PID 1 ignores SIGTERM: killed 30 s (the grace period) after the deadline, exit code 137
    Case("deadline-pod-terminating", [pod(c(["sleep", "3600"]), activeDeadlineSeconds=10)], 30,
         Expect(containers={"c": "running"}), events=("DeadlineExceeded", "Killing")),
    Case("deadline-pod", [pod(c(["sleep", "3600"]), activeDeadlineSeconds=10)], 50,
         Expect(phase="Failed", status="Error", reason="DeadlineExceeded", containers={"c": "terminated:Error:137"}),
         events=("DeadlineExceeded",)),
    Case("deadline-pod-nginx", [pod(c(image="nginx:1.25"), activeDeadlineSeconds=10)], 20,
         Expect(phase="Failed", reason="DeadlineExceeded", containers={"c": "terminated:Completed:0"})),
    Case("deadline-pod-not-yet", [pod(c(["sleep", "3600"]), activeDeadlineSeconds=60)], 30, RUNNING),
]
