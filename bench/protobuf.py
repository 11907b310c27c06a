"""Protobuf codec benchmark (issue #11, kubectl's protobuf bodies): decode and encode per object, with floors.

    python bench/protobuf.py [--rounds 2000]

- Objects: what ``kubectl create deployment`` sends (captured body), a Deployment with a full pod template
  (tests/api/manifests/deployment-full.yaml) and a Node with status (tests/api/manifests/node.yaml).
- Per object: µs per ``decode`` (bytes -> the JSON object) and per ``encode``, CPU time (process_time), and,
  measured in the same run, interleaved, the floors: msgspec's JSON decode and encode of the same object (what a
  JSON body costs the HTTP layer). The ratio protobuf/JSON is the figure to compare between runs.

Figures only, no assertions (the latest are in bench/RESULTS.md under "#11 protobuf").
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import yaml

from kubelite.api.protobuf import decode, encode

ROOT = Path(__file__).resolve().parent.parent
KUBECTL_DEPLOYMENT = bytes.fromhex(
    "6b3873000a150a07617070732f7631120a4465706c6f796d656e7412ab010a1f0a0377656212001a0022002a00320038004200"
    "5a0a0a036170701203776562127a0800120c0a0a0a0361707012037765621a600a1c0a0012001a0022002a003200380042005a0a0a"
    "036170701203776562124012220a056e67696e7812056e67696e782a0042006a007200800100880100900100a201001a0032004200"
    "4a0052005800600068008201008a01009a0100c2010022020a00280038001a0c0800100018002000280038001a002200")


def _cpu_us(fn: Callable[[], Any], rounds: int) -> float:
    start = time.process_time()
    for _ in range(rounds):
        fn()
    return (time.process_time() - start) / rounds * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=2000)
    args = parser.parse_args()
    objects: dict[str, dict[str, Any]] = {"kubectl-create-deployment": decode(KUBECTL_DEPLOYMENT)}
    for name in ("deployment-full", "node"):
        doc = next(d for d in yaml.safe_load_all((ROOT / "tests/api/manifests" / f"{name}.yaml").read_text()) if d)
        objects[name] = doc
    json_enc, json_dec = msgspec.json.Encoder(), msgspec.json.Decoder()
    print(f"load average {os.getloadavg()[0]:.1f}, {args.rounds} rounds, CPU µs per object")
    print(f"{'object':28} {'pb bytes':>8} {'pb dec':>8} {'json dec':>8} {'ratio':>6} {'pb enc':>8} "
          f"{'json enc':>8} {'ratio':>6}")
    for name, obj in objects.items():
        pb, js = encode(obj), json_enc.encode(obj)
        # interleaved: each pair measured back to back, three times, best of each kept
        runs = [(_cpu_us(lambda pb=pb: decode(pb), args.rounds),
                 _cpu_us(lambda js=js: json_dec.decode(js), args.rounds),
                 _cpu_us(lambda obj=obj: encode(obj), args.rounds),
                 _cpu_us(lambda obj=obj: json_enc.encode(obj), args.rounds))
                for _ in range(3)]
        pd, jd, pe, je = (min(r[i] for r in runs) for i in range(4))
        print(f"{name:28} {len(pb):8} {pd:8.1f} {jd:8.1f} {pd / jd:6.0f} {pe:8.1f} {je:8.1f} {pe / je:6.0f}")


if __name__ == "__main__":
    main()
