"""kubelite: a Kubernetes control plane in one Python process, on virtual time."""
