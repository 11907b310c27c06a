"""Generate the field descriptions ``kubectl explain`` prints, for the OpenAPI v3 documents kubelite serves.

Contract:
- Input: the same upstream schemas as ``tools/gen_api.py`` (``kubernetes-validate``'s ``_definitions.json`` for
  Kubernetes 1.37, the ``gen`` extra); only definitions ``kubelite/api/openapi.json`` holds are read.
- Output (committed): ``kubelite/api/openapi_descriptions.json.gz``: ``{definition: [description,
  {property: description}]}``, gzip-compressed with a fixed mtime, keys sorted, so re-running it is a no-op.
  The runtime reads it only when an OpenAPI v3 group document is first requested (``kubelite/http/openapi.py``):
  the structural ``openapi.json`` every cluster loads stays free of prose.

Run it with ``python tools/gen_descriptions.py`` from the repository root.
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

from gen_api import OPENAPI_PATH, load_source  # noqa: E402

OUT = ROOT / "kubelite" / "api" / "openapi_descriptions.json.gz"


def build(source: dict[str, Any], names: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in names:
        node = source.get(name)
        if not isinstance(node, dict):
            continue
        props = {p: v["description"] for p, v in sorted((node.get("properties") or {}).items())
                 if isinstance(v, dict) and v.get("description")}
        if node.get("description") or props:
            out[name] = [node.get("description") or "", props]
    return out


def main() -> int:
    names = sorted(json.loads(OPENAPI_PATH.read_text())["definitions"])
    table = build(load_source(), names)
    data = json.dumps(table, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    OUT.write_bytes(gzip.compress(data, compresslevel=9, mtime=0))
    print(f"{len(table)} definitions; {OUT.name} {OUT.stat().st_size} bytes ({len(data)} uncompressed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
