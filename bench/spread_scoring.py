"""PodTopologySpread's default spreading in isolation (issue #17 item 4): PreScore, Score and NormalizeScore
per pod on 1,000 nodes (10 zones) with 5,000 bound pods, 420 feasible nodes per pod (percentageOfNodesToScore
at 1,000 nodes: 50 - 1000/125 = 42%), each pod then bound where it scored best.

    python bench/spread_scoring.py

Prints microseconds of CPU per pod for the four combinations of: domain totals kept from the cache's change
log (``log=True``, what the scheduler's handle offers) or by walking every node's generation (``log=False``,
a handle without a log), and the batch ``score_nodes`` or one ``score`` call per node.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kubelite.scheduler.cache import Cache
from kubelite.scheduler.framework import CycleState, PodInfo
from kubelite.scheduler.plugins import pod_topology_spread as pts
from tests.scheduler.helpers import make_node, make_pod


class Handle:
    def __init__(self, cache: Cache) -> None:
        self.cache = cache

    def node_infos(self) -> list[Any]:
        return self.cache.node_list()


class Logged(Handle):
    def node_info(self, name: str) -> Any:
        return self.cache.nodes.get(name)

    def node_changes_since(self, seq: int) -> tuple[list[str] | None, int]:
        return self.cache.changes_since(seq)


def run(logged: bool, batch: bool, n: int = 400) -> tuple[float, float]:
    cache = Cache()
    rnd = random.Random(1)
    for i in range(1000):
        cache.add_node(make_node(f"n{i:04d}", labels={"topology.kubernetes.io/zone": f"z{i % 10}", "kubernetes.io/hostname": f"n{i:04d}"}))
    for i in range(5000):
        cache.add_pod(PodInfo(make_pod(f"q{i}", node_name=f"n{rnd.randrange(1000):04d}", labels={"app": "a"})))
    cons = [{"maxSkew": s, "topologyKey": k, "whenUnsatisfiable": "ScheduleAnyway", "labelSelector": {"matchLabels": {"app": "a"}}}
            for k, s in (("topology.kubernetes.io/zone", 5), ("kubernetes.io/hostname", 3))]
    plugin = pts.new({}, (Logged if logged else Handle)(cache))
    nodes = cache.node_list()
    pods = [PodInfo(make_pod(f"p{i}", labels={"app": "a"}, topologySpreadConstraints=cons)) for i in range(n)]
    bound = [PodInfo(make_pod(f"p{i}", node_name=nodes[(i * 37) % 1000].name, labels={"app": "a"})) for i in range(n)]
    tp = ts = 0.0
    for i in range(n):
        start = (i * 420) % 1000
        feasible = (nodes[start:] + nodes[:start])[:420]
        st = CycleState()
        t0 = time.process_time()
        plugin.pre_score(st, pods[i], feasible)
        t1 = time.process_time()
        sc = plugin.score_nodes(st, pods[i], feasible) if batch else [plugin.score(st, pods[i], x) for x in feasible]
        plugin.normalize_score(st, pods[i], sc)
        t2 = time.process_time()
        tp += t1 - t0
        ts += t2 - t1
        cache.add_pod(bound[i])
    return tp / n * 1e6, ts / n * 1e6


def main() -> None:
    for logged, batch in [(False, False), (True, False), (False, True), (True, True)] * 2:
        p, s = run(logged, batch)
        print(f"log={logged!s:5} batch={batch!s:5} pre_score {p:6.0f} us  score+normalize {s:6.0f} us")


if __name__ == "__main__":
    main()
