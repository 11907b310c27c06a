"""Volumes and container config the kubelet must resolve before containers can run.

Follows ``pkg/kubelet/volumemanager`` (``WaitForAttachAndMount``; the desired-state populator's "PVC is
not bound" / "not found") and the configMap / secret volume plugins (``MountVolume.SetUp failed for
volume "x" : configmap "y" not found``), plus ``kubelet_pods.go`` ``makeEnvironmentVariables`` for env
references (``CreateContainerConfigError``: ``configmap "y" not found``, ``couldn't find key k in
ConfigMap ns/y``).

Reads go through a :class:`VolumeLookup` (the kubelet backs it with informer listers); everything
here is pure. ``optional: true`` references never fail.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["VolumeLookup", "check_env", "check_volumes"]

Getter = Callable[[str, str], Mapping[str, Any] | None]


class VolumeLookup:
    """``get(namespace, name)`` for ConfigMaps, Secrets and PersistentVolumeClaims (None if absent)."""

    def __init__(self, configmap: Getter | None = None, secret: Getter | None = None,
                 pvc: Getter | None = None) -> None:
        none: Getter = lambda _ns, _n: None  # noqa: E731
        self.configmap = configmap or none
        self.secret = secret or none
        self.pvc = pvc or none


def _setup_failed(volume: str, kind: str, name: str) -> str:
    return f'MountVolume.SetUp failed for volume "{volume}" : {kind} "{name}" not found'


def check_volumes(pod: Mapping[str, Any], lookup: VolumeLookup) -> tuple[list[str], bool]:
    """``(failure messages, needs attach)``: one FailedMount message per volume that cannot be set up
    yet; ``needs attach`` when a PVC-backed volume must be attached and mounted (that takes time)."""
    ns = (pod.get("metadata") or {}).get("namespace", "")
    failures: list[str] = []
    attach = False
    for v in (pod.get("spec") or {}).get("volumes") or ():
        vname = v.get("name", "")
        if "configMap" in v:
            src = v["configMap"]
            if not src.get("optional") and lookup.configmap(ns, src.get("name", "")) is None:
                failures.append(_setup_failed(vname, "configmap", src.get("name", "")))
        elif "secret" in v:
            src = v["secret"]
            if not src.get("optional") and lookup.secret(ns, src.get("secretName", "")) is None:
                failures.append(_setup_failed(vname, "secret", src.get("secretName", "")))
        elif "persistentVolumeClaim" in v:
            claim = v["persistentVolumeClaim"].get("claimName", "")
            pvc = lookup.pvc(ns, claim)
            if pvc is None:
                failures.append(f'Unable to attach or mount volumes: unmounted volumes=[{vname}], unattached '
                                f'volumes=[{vname}]: error processing PVC {ns}/{claim}: persistentvolumeclaim '
                                f'"{claim}" not found')
            elif (pvc.get("status") or {}).get("phase") != "Bound":
                failures.append(f"Unable to attach or mount volumes: unmounted volumes=[{vname}], unattached "
                                f"volumes=[{vname}]: error processing PVC {ns}/{claim}: PVC is not bound")
            else:
                attach = True
        elif "projected" in v:
            for s in v["projected"].get("sources") or ():
                if "configMap" in s and not s["configMap"].get("optional") and \
                        lookup.configmap(ns, s["configMap"].get("name", "")) is None:
                    failures.append(_setup_failed(vname, "configmap", s["configMap"].get("name", "")))
                if "secret" in s and not s["secret"].get("optional") and \
                        lookup.secret(ns, s["secret"].get("name", "")) is None:
                    failures.append(_setup_failed(vname, "secret", s["secret"].get("name", "")))
    return failures, attach


def check_env(pod: Mapping[str, Any], container: Mapping[str, Any], lookup: VolumeLookup) -> str | None:
    """The CreateContainerConfigError message for ``container``'s env references, or None."""
    ns = (pod.get("metadata") or {}).get("namespace", "")
    for src in container.get("envFrom") or ():
        if "configMapRef" in src:
            ref = src["configMapRef"]
            if not ref.get("optional") and lookup.configmap(ns, ref.get("name", "")) is None:
                return f'configmap "{ref.get("name", "")}" not found'
        if "secretRef" in src:
            ref = src["secretRef"]
            if not ref.get("optional") and lookup.secret(ns, ref.get("name", "")) is None:
                return f'secret "{ref.get("name", "")}" not found'
    for env in container.get("env") or ():
        vf = env.get("valueFrom") or {}
        for field, kind, title, get in (("configMapKeyRef", "configmap", "ConfigMap", lookup.configmap),
                                        ("secretKeyRef", "secret", "Secret", lookup.secret)):
            ref = vf.get(field)
            if not ref or ref.get("optional"):
                continue
            name, key = ref.get("name", ""), ref.get("key", "")
            obj = get(ns, name)
            if obj is None:
                return f'{kind} "{name}" not found'
            if key not in (obj.get("data") or {}) and key not in (obj.get("binaryData") or {}) and \
                    key not in (obj.get("stringData") or {}):
                return f"couldn't find key {key} in {title} {ns}/{name}"
    return None
