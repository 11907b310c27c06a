"""Volumes and container config the kubelet must resolve before containers can run.

Follows ``pkg/kubelet/volumemanager`` (``WaitForAttachAndMount``; the desired-state populator's "PVC is
not bound" / "not found") and the configMap / secret volume plugins (``MountVolume.SetUp failed for
volume "x" : configmap "y" not found``), plus ``kubelet_pods.go`` ``makeEnvironmentVariables`` for env
references (``CreateContainerConfigError``: ``configmap "y" not found``, ``couldn't find key k in
ConfigMap ns/y``).

The pod and its containers are the typed, shared read-only views of the kubelet's pod informer; reads
of other objects go through a :class:`VolumeLookup` (the kubelet backs it with informer listers);
everything here is pure. ``optional: true`` references never fail.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kubelite.api.types.core_v1 import Container, Pod

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


def check_volumes(pod: Pod, lookup: VolumeLookup) -> tuple[list[str], bool]:
    """``(failure messages, needs attach)`` for the typed ``pod``: one FailedMount message per volume that
    cannot be set up yet; ``needs attach`` when a PVC-backed volume must be attached and mounted (that
    takes time)."""
    ns = pod.metadata.namespace or ""
    failures: list[str] = []
    attach = False
    for v in (pod.spec.volumes if pod.spec is not None else None) or ():
        vname = v.name or ""
        if v.config_map is not None:
            cm = v.config_map
            if not cm.optional and lookup.configmap(ns, cm.name or "") is None:
                failures.append(_setup_failed(vname, "configmap", cm.name or ""))
        elif v.secret is not None:
            sec = v.secret
            if not sec.optional and lookup.secret(ns, sec.secret_name or "") is None:
                failures.append(_setup_failed(vname, "secret", sec.secret_name or ""))
        elif v.persistent_volume_claim is not None:
            claim = v.persistent_volume_claim.claim_name or ""
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
        elif v.projected is not None:
            for src in v.projected.sources or ():
                pcm, psec = src.config_map, src.secret
                if pcm is not None and not pcm.optional and lookup.configmap(ns, pcm.name or "") is None:
                    failures.append(_setup_failed(vname, "configmap", pcm.name or ""))
                if psec is not None and not psec.optional and lookup.secret(ns, psec.name or "") is None:
                    failures.append(_setup_failed(vname, "secret", psec.name or ""))
    return failures, attach


def check_env(pod: Pod, container: Container, lookup: VolumeLookup) -> str | None:
    """The CreateContainerConfigError message for the typed ``container``'s env references, or None."""
    ns = pod.metadata.namespace or ""
    for src in container.env_from or ():
        cref, sref = src.config_map_ref, src.secret_ref
        if cref is not None and not cref.optional and lookup.configmap(ns, cref.name or "") is None:
            return f'configmap "{cref.name or ""}" not found'
        if sref is not None and not sref.optional and lookup.secret(ns, sref.name or "") is None:
            return f'secret "{sref.name or ""}" not found'
    for env in container.env or ():
        vf = env.value_from
        if vf is None:
            continue
        for ref, kind, title, get in ((vf.config_map_key_ref, "configmap", "ConfigMap", lookup.configmap),
                                      (vf.secret_key_ref, "secret", "Secret", lookup.secret)):
            if ref is None or ref.optional:
                continue
            name, key = ref.name or "", ref.key or ""
            obj = get(ns, name)
            if obj is None:
                return f'{kind} "{name}" not found'
            if key not in (obj.get("data") or {}) and key not in (obj.get("binaryData") or {}) and \
                    key not in (obj.get("stringData") or {}):
                return f"couldn't find key {key} in {title} {ns}/{name}"
    return None
