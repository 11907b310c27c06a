"""Write ``kubelite/bootstrap.json``: every object a cluster seeds at start (the system namespaces, RBAC's
bootstrap policy, the add-ons' roles and bindings, the default StorageClass, the system PriorityClasses), as
``kubelite.cluster.build_bootstrap_payload`` builds them, so a process's first cluster reads one file instead
of building them (issue #17, cold start).

    python tools/gen_bootstrap.py            # rewrite the committed file
    python tools/gen_bootstrap.py --check    # exit 1 if the committed file is not what regenerating writes

Run it after changing the bootstrap policy (``apiserver/auth/bootstrap.py``, ``apiserver/auth/addons.py``), the
system namespaces, StorageClass or PriorityClasses; ``tests/test_bootstrap_file.py`` fails until then.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

from kubelite.cluster import BOOTSTRAP_FILE, bootstrap_payload_json


def is_current(path: pathlib.Path = BOOTSTRAP_FILE) -> bool:
    """Whether ``path`` holds exactly what regenerating writes (bytes, not parsed JSON)."""
    return path.read_bytes() == bootstrap_payload_json()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="only compare with the committed file")
    args = ap.parse_args()
    if args.check:
        current = is_current()
        print(f"{BOOTSTRAP_FILE}: {'current' if current else 'stale: run python tools/gen_bootstrap.py'}")
        return 0 if current else 1
    data = bootstrap_payload_json()
    BOOTSTRAP_FILE.write_bytes(data)
    print(f"wrote {BOOTSTRAP_FILE} ({len(data)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
