"""TokenRequest and service-account token authentication, against a static token in the same run.

    python bench/tokens.py [--n 2000]

Prints CPU time (the machine is shared: CPU is steadier than wall time): the first TokenRequest (it imports
PyJWT and cryptography and derives the signing key), each further TokenRequest through the pipeline, and
authenticating a bound JWT (verified claims remembered, the account read on every request) next to the floor
of a static token (one dict lookup), with their ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time

import kubelite
from kubelite.apiserver.auth.user import ADMIN


async def run(n: int) -> None:
    async with kubelite.Cluster(seed=1, nodes=0, controllers=False, scheduler=False, network=False) as c:
        await c.client.create({"apiVersion": "v1", "kind": "ServiceAccount",
                               "metadata": {"name": "robot", "namespace": "default"}})
        body = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {}}
        t = time.process_time()
        tr = await c.client.create_subresource("serviceaccounts", "robot", "token", body, namespace="default")
        first = time.process_time() - t
        t = time.process_time()
        for _ in range(n // 10):
            await c.client.create_subresource("serviceaccounts", "robot", "token", body, namespace="default")
        issue = (time.process_time() - t) / (n // 10)
        auth = c.apiserver.authenticator
        auth.add_token("static-bench-token", ADMIN)
        token = tr["status"]["token"]
        jwt_t = static_t = 0.0
        for _ in range(5):  # interleaved rounds: both see the same machine
            t = time.process_time()
            for _ in range(n):
                auth.authenticate(token)
            jwt_t += time.process_time() - t
            t = time.process_time()
            for _ in range(n):
                auth.authenticate("static-bench-token")
            static_t += time.process_time() - t
        per_jwt, per_static = jwt_t / (5 * n), static_t / (5 * n)
        print(f"load average {os.getloadavg()[0]:.1f}")
        print(f"first TokenRequest     {first * 1e3:8.1f} ms CPU (imports + key)")
        print(f"TokenRequest           {issue * 1e3:8.2f} ms CPU each")
        print(f"JWT authentication     {per_jwt * 1e6:8.2f} us CPU each")
        print(f"static token (floor)   {per_static * 1e6:8.2f} us CPU each   ratio {per_jwt / per_static:.1f}x")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=2000)
    asyncio.run(run(ap.parse_args().n))


if __name__ == "__main__":
    main()
