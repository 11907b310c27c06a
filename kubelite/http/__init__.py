"""The Kubernetes REST API over HTTP, for real clients (kubectl, kopf, kubernetes, kubernetes_asyncio, lightkube).

- :class:`ApiApp`: the ASGI app in front of a cluster's apiserver (use it in-process with
  ``httpx.ASGITransport``);
- :func:`serve`: run it on a loopback port in the running event loop (``async with cluster.serve() as url``);
- :func:`kubeconfig_yaml`: a token kubeconfig for the URL.
"""

from kubelite.http.app import ApiApp
from kubelite.http.server import Endpoint, kubeconfig_yaml, serve

__all__ = ["ApiApp", "Endpoint", "kubeconfig_yaml", "serve"]
