"""What the store's field and label sets cost per write and per selector match (issue #17, memory per pod).

    python bench/field_sets.py

Interleaved rounds (best of each, CPU time) of stop 22's plain dicts (the fields without their empty values,
the labels one interned dict per version) against this tree's :func:`kubelite.store.compact.selectable`
(a ``FieldSet``) and :func:`~kubelite.store.compact.interned` (one shared dict per label set), on the field
and label sets of bench/scale.py's pods; then a field selector (the scheduler's ``status.phase!=Succeeded,
status.phase!=Failed``) matched against each. Prints the bytes each keeps per version too.
"""

from __future__ import annotations

import sys
import time
from typing import Any

from scale import deployment

from kubelite.api.fields import object_fields, parse_field_selector
from kubelite.store.compact import interned, selectable

ROUNDS, N = 7, 3000


def old_selectable(m: dict[str, str]) -> dict[str, str]:
    intern = sys.intern
    return {intern(k): intern(v) for k, v in m.items() if v != ""}


def old_interned(m: dict[str, str]) -> dict[str, str]:
    intern = sys.intern
    return {intern(k): intern(v) if type(v) is str else v for k, v in m.items()}


def pods() -> list[dict[str, Any]]:
    out = []
    for i in range(N):
        d = deployment(i // 30, 30)
        t = d["spec"]["template"]
        out.append({"metadata": {"name": f"{d['metadata']['name']}-{i}", "namespace": d["metadata"]["namespace"],
                                 "labels": {**t["metadata"]["labels"], "pod-template-hash": f"h{i // 30}"}},
                    "spec": {**t["spec"], "nodeName": f"node-{i % 100}"}, "status": {"phase": "Running"}})
    return out


def main() -> None:
    objs = pods()
    raw = [(object_fields("", "pods", o), o["metadata"]["labels"]) for o in objs]
    sel = parse_field_selector("status.phase!=Succeeded,status.phase!=Failed")
    best: dict[str, float] = {}
    for _ in range(ROUNDS):
        for name, fs, ls in (("dicts (stop 22)", old_selectable, old_interned), ("shared sets", selectable, interned)):
            t0 = time.process_time()
            kept = [(fs(f), ls(labels)) for f, labels in raw]
            t1 = time.process_time()
            for f, _ in kept:
                sel.matches(f)
            t2 = time.process_time()
            b = best.setdefault(name + " build", 1e9)
            best[name + " build"] = min(b, (t1 - t0) / N)
            b = best.setdefault(name + " match", 1e9)
            best[name + " match"] = min(b, (t2 - t1) / N)
    for name in ("dicts (stop 22)", "shared sets"):
        print(f"  {name:<16} build {best[name + ' build'] * 1e6:6.2f} µs per version   "
              f"selector match {best[name + ' match'] * 1e6:6.2f} µs")
    f_old, f_new = old_selectable(raw[0][0]), selectable(raw[0][0])
    print(f"  bytes per version: fields {sys.getsizeof(f_old)} -> {sys.getsizeof(f_new) + sys.getsizeof(f_new._values)}"
          f"; labels {sys.getsizeof(old_interned(raw[0][1]))} -> 0 for each replica after the first")


if __name__ == "__main__":
    main()
