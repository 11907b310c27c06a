"""CEL and ValidatingAdmissionPolicy costs: what a rule costs to evaluate, and what a policy adds to a write.

    python bench/cel.py [--number 2000] [--repeat 5] [--creates 400]

Figures are CPU time (process time, so other processes on a shared machine do not count), best of
``--repeat``:
- µs per evaluation of three rules (a field comparison, a quantity comparison, a 10-item ``all``), beside
  a floor taken in the same run: the conversion of the same object to CEL values (``to_cel``), which every
  evaluation needs;
- ConfigMap creates per second through the client with no policy, with one binding whose policy does not
  match (``handles`` and matching only), and with one matching policy of two validations; the ratios to
  the no-policy figure are what to compare across machines.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Callable
from typing import Any

from kubelite.apiserver.cel import compile_expression, to_cel
from kubelite.cluster import Cluster

OBJECT: dict[str, Any] = {
    "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web", "tier": "front"}},
    "spec": {"replicas": 3, "resources": {"limits": {"memory": "512Mi"}},
             "ports": [{"name": f"p{i}", "port": 8000 + i} for i in range(10)]},
}
RULES = {
    "field comparison": "object.spec.replicas <= 5",
    "quantity comparison": "quantity(object.spec.resources.limits.memory).isLessThan(quantity('1Gi'))",
    "all over 10 items": "object.spec.ports.all(p, p.port > 1024)",
}


def best(fn: Callable[[], Any], number: int, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        for _ in range(number):
            fn()
        times.append((time.process_time() - t0) / number)
    return min(times) * 1e6


async def creates_per_second(n: int, setup: list[dict[str, Any]]) -> float:
    async with Cluster(seed=1, nodes=0, controllers=False, scheduler=False) as c:
        for obj in setup:
            await c.client.create(obj)
        t0 = time.process_time()
        for i in range(n):
            await c.client.create({"apiVersion": "v1", "kind": "ConfigMap",
                                   "metadata": {"name": f"cm-{i}", "namespace": "default"}, "data": {"k": "v"}})
        return n / (time.process_time() - t0)


def policy(resources: list[str]) -> list[dict[str, Any]]:
    return [
        {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
         "metadata": {"name": "p"},
         "spec": {"matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
                                                          "operations": ["CREATE"], "resources": resources}]},
                  "validations": [{"expression": "object.metadata.name.startsWith('cm-')"},
                                  {"expression": "!has(object.data) || size(object.data) < 10"}]}},
        {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
         "metadata": {"name": "b"}, "spec": {"policyName": "p", "validationActions": ["Deny"]}},
    ]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--number", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--creates", type=int, default=400)
    args = ap.parse_args()
    floor = best(lambda: to_cel(OBJECT), args.number, args.repeat)
    print(f"to_cel of the object (floor): {floor:8.1f} us")
    variables = {"object": to_cel(OBJECT)}
    for name, text in RULES.items():
        program = compile_expression(text, ["object"])
        us = best(lambda p=program: p.evaluate(variables), args.number, args.repeat)
        _, cost = program.evaluate(variables)
        print(f"{name:24s}: {us:8.1f} us  ({us / floor:5.1f}x floor, cost {cost} units)")
    base = max(asyncio.run(creates_per_second(args.creates, [])) for _ in range(args.repeat))
    other = max(asyncio.run(creates_per_second(args.creates, policy(["secrets"]))) for _ in range(args.repeat))
    matching = max(asyncio.run(creates_per_second(args.creates, policy(["configmaps"]))) for _ in range(args.repeat))
    print(f"ConfigMap creates/s, no policy           : {base:8.0f}")
    print(f"ConfigMap creates/s, non-matching policy : {other:8.0f}  ({other / base:.2f}x)")
    print(f"ConfigMap creates/s, matching policy     : {matching:8.0f}  ({matching / base:.2f}x)")


if __name__ == "__main__":
    main()
