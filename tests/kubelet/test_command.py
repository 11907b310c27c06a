"""The workload model read from a container's command (kubelite.kubelet.command): a table of argv forms
and what the process does on a real node (when it exits and with what code)."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from kubelite.api.types.core_v1 import Container
from kubelite.kubelet.command import FOREVER, Behaviour, behaviour

CASES: list[tuple[str, dict[str, Any], Behaviour | None]] = [
    ("echo", {"command": ["echo", "hi"]}, Behaviour(0.0, 0)),
    ("true", {"command": ["true"]}, Behaviour(0.0, 0)),
    ("false", {"command": ["false"]}, Behaviour(0.0, 1)),
    ("bin-false", {"command": ["/bin/false"]}, Behaviour(0.0, 1)),
    ("sleep-n", {"command": ["sleep", "30"]}, Behaviour(30.0, 0)),
    ("sleep-units", {"command": ["sleep", "1m"]}, Behaviour(60.0, 0)),
    ("sleep-infinity", {"command": ["sleep", "infinity"]}, FOREVER),
    ("args-only-sleep", {"args": ["sleep", "3600"]}, Behaviour(3600.0, 0)),
    ("sh-c-echo", {"command": ["sh", "-c", "echo done"]}, Behaviour(0.0, 0)),
    ("bin-sh-c", {"command": ["/bin/sh", "-c", "echo hello; sleep 5"]}, Behaviour(5.0, 0)),
    ("and-chain", {"command": ["sh", "-c", "echo a && sleep 2 && exit 3"]}, Behaviour(2.0, 3)),
    ("and-short-circuit", {"command": ["sh", "-c", "false && sleep 100"]}, Behaviour(0.0, 1)),
    ("or-recovers", {"command": ["sh", "-c", "false || echo ok"]}, Behaviour(0.0, 0)),
    ("semicolon-last-code", {"command": ["sh", "-c", "false; true"]}, Behaviour(0.0, 0)),
    ("exit-code", {"command": ["sh", "-c", "exit 7"]}, Behaviour(0.0, 7)),
    ("exit-stops-script", {"command": ["sh", "-c", "exit 2; sleep 100"]}, Behaviour(0.0, 2)),
    ("newlines", {"command": ["sh", "-c", "echo one\nsleep 3\necho two"]}, Behaviour(3.0, 0)),
    ("while-true", {"command": ["sh", "-c", "while true; do echo hi; sleep 1; done"]}, FOREVER),
    ("while-colon", {"command": ["/bin/sh", "-c", "while :; do sleep 10; done"]}, FOREVER),
    ("exit-before-loop", {"command": ["sh", "-c", "exit 4; while true; do sleep 1; done"]}, Behaviour(0.0, 4)),
    ("tail-f", {"command": ["sh", "-c", "touch /tmp/log; tail -f /tmp/log"]}, FOREVER),
    ("for-loop", {"command": ["sh", "-c", "for i in 1 2 3; do echo $i; sleep 2; done"]}, Behaviour(6.0, 0)),
    ("bash-c", {"command": ["bash", "-c", "sleep 4 && echo done"]}, Behaviour(4.0, 0)),
    ("sh-ec", {"command": ["sh", "-ec", "sleep 1; exit 5"]}, Behaviour(1.0, 5)),
    ("perl-pi", {"command": ["perl", "-Mbignum=bpi", "-wle", "print bpi(2000)"]}, Behaviour(10.0, 0)),
    ("perl-e-exit", {"command": ["perl", "-e", "exit 3"]}, Behaviour(1.0, 3)),
    ("python-c-sleep", {"command": ["python", "-c", "import time; time.sleep(5)"]}, Behaviour(6.0, 0)),
    ("python-c-exit", {"command": ["python3", "-c", "import sys; sys.exit(2)"]}, Behaviour(1.0, 2)),
    ("python-http-server", {"command": ["python", "-m", "http.server", "8080"]}, FOREVER),
    ("nginx-foreground", {"command": ["nginx", "-g", "daemon off;"]}, FOREVER),
    ("redis-server", {"command": ["redis-server", "--appendonly", "yes"]}, FOREVER),
    ("java-jar", {"command": ["java", "-jar", "/app.jar"]}, FOREVER),
    ("unknown-last-serves", {"command": ["sh", "-c", "echo start; /app/server --port 80"]}, FOREVER),
    ("exit-as-binary", {"command": ["exit", "1"]}, Behaviour(0.0, 128, start_error="x")),
    ("busybox-default", {"image": "busybox"}, Behaviour(0.0, 0)),
    ("busybox-stdin", {"image": "busybox", "stdin": True}, None),
    ("ubuntu-default", {"image": "docker.io/library/ubuntu:24.04"}, Behaviour(0.0, 0)),
    ("nginx-default", {"image": "nginx:1.25"}, None),
    ("postgres-no-password", {"image": "postgres:16"}, Behaviour(0.5, 1)),
    ("postgres-password", {"image": "postgres:16", "env": [{"name": "POSTGRES_PASSWORD", "value": "x"}]}, None),
    ("mysql-no-password", {"image": "mysql:8"}, Behaviour(0.5, 1)),
    ("args-unknown", {"image": "myapp:1", "args": ["--port", "8080"]}, None),
    # the docs' init-container example: wait for a Service to resolve, polling every 2 s
    ("until-nslookup", {"command": ["sh", "-c", "until nslookup myservice.$(cat /var/run/secrets/kubernetes.io/"
                                    "serviceaccount/namespace).svc.cluster.local; do echo waiting for myservice; "
                                    "sleep 2; done"]},
     Behaviour(0.0, 0, wait_for="myservice.{namespace}.svc.cluster.local", wait_poll=2.0)),
    ("until-nslookup-then", {"command": ["sh", "-c", "sleep 1; until nslookup mydb >/dev/null 2>&1; do sleep 5; "
                                         "done; echo up; sleep 3; exit 4"]},
     Behaviour(3.0, 4, wait_for="mydb", wait_start=1.0, wait_poll=5.0)),
    ("while-not-getent", {"command": ["sh", "-c", "while ! getent hosts db; do sleep 1; done"]},
     Behaviour(0.0, 0, wait_for="db", wait_poll=1.0)),
    ("until-host-then-serve", {"command": ["sh", "-c", "until host cache; do sleep 2; done; exec redis-server"]},
     Behaviour(None, wait_for="cache", wait_poll=2.0)),
]


@pytest.mark.parametrize(("spec", "want"), [(s, w) for _, s, w in CASES], ids=[i for i, _, _ in CASES])
def test_command_behaviour(spec: dict[str, Any], want: Behaviour | None) -> None:
    got = behaviour(msgspec.convert({"name": "c", "image": "busybox:1.36", **spec}, Container))
    if want is not None and want.start_error:
        assert got is not None and got.exit_code == 128 and "executable file not found" in got.start_error
        return
    if want is None or got is None:
        assert got == want
    else:
        assert (got.exit_after, got.exit_code) == (want.exit_after, want.exit_code)
        assert (got.wait_for, got.wait_start, got.wait_poll) == (want.wait_for, want.wait_start, want.wait_poll)


def test_script_file_timeline() -> None:
    got = behaviour(msgspec.convert({"name": "c", "image": "busybox", "args": [
        "/bin/sh", "-c", "touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600"]}, Container))
    assert got is not None and got.exit_after == 630
    assert got.files == ((0.0, "/tmp/healthy", True), (30.0, "/tmp/healthy", False))
