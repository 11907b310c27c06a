"""Defaults for the core (``""``) group: pods and pod templates, services, volumes and friends.

Contract:
- Every function mutates the JSON object it is given *in place* and returns nothing; the apiserver
  hands over its private copy, so nothing here copies. A field the caller set is never overwritten.
- Functions are idempotent: defaulting an already defaulted object changes nothing (the apiserver
  defaults again after mutating admission hooks).
- Shapes follow the v1 JSON form (camelCase keys). Missing containers (``spec`` absent, a list that
  is not a list) are tolerated and left for validation to report.

Mirrors ``pkg/apis/core/v1/defaults.go`` (the ``SetDefaults_*`` functions) plus the walk that
``zz_generated.defaults.go`` performs over nested structs. Deliberately not done: ``SetDefaults_ResourceList``
(rounding quantities up to milli precision; the canonical spelling belongs to the codec), pod-level
resources defaulting (``PodLevelResources`` feature), and the volume sources of in-tree cloud plugins
(ISCSI, RBD, AzureDisk, ScaleIO, ...), which kubelite never mounts.
"""

from __future__ import annotations

from typing import Any

import msgspec

from kubelite.memo import ENCODED_KEYS, BoundedCache

__all__ = [
    "default_config_map",
    "default_container",
    "default_endpoints",
    "default_namespace",
    "default_node",
    "default_persistent_volume",
    "default_persistent_volume_claim",
    "default_pod",
    "default_pod_spec",
    "default_pod_template_spec",
    "default_pvc_spec",
    "default_secret",
    "default_service",
]

Obj = dict[str, Any]

_DEFAULT_MODE = 0o644  # SecretVolumeSourceDefaultMode and friends (420)


def _dict(parent: Obj, key: str) -> Obj | None:
    v = parent.get(key)
    return v if isinstance(v, dict) else None


def _list(parent: Obj, key: str) -> list[Any]:
    v = parent.get(key)
    return v if isinstance(v, list) else []


def image_tag(image: str) -> str:
    """The tag of an image reference, ``"latest"`` when it has none (``parsers.ParseImageName``).

    A digest reference (``name@sha256:...``) has no implied tag.
    """
    if "@" in image:
        name = image.split("@", 1)[0]
        slash = name.rfind("/")
        colon = name.rfind(":")
        return name[colon + 1:] if colon > slash else ""
    slash = image.rfind("/")
    colon = image.rfind(":")
    return image[colon + 1:] if colon > slash else "latest"


def _default_probe(probe: Obj) -> None:
    """``SetDefaults_Probe`` plus the handler defaults (``SetDefaults_HTTPGetAction``)."""
    if not probe.get("timeoutSeconds"):
        probe["timeoutSeconds"] = 1
    if not probe.get("periodSeconds"):
        probe["periodSeconds"] = 10
    if not probe.get("successThreshold"):
        probe["successThreshold"] = 1
    if not probe.get("failureThreshold"):
        probe["failureThreshold"] = 3
    _default_handler(probe)


def _default_handler(handler: Obj) -> None:
    http = _dict(handler, "httpGet")
    if http is not None:
        if not http.get("path"):
            http["path"] = "/"
        if not http.get("scheme"):
            http["scheme"] = "HTTP"


def _default_env(container: Obj) -> None:
    for env in _list(container, "env"):
        if not isinstance(env, dict):
            continue
        value_from = _dict(env, "valueFrom")
        if value_from is None:
            continue
        field_ref = _dict(value_from, "fieldRef")
        if field_ref is not None and not field_ref.get("apiVersion"):
            field_ref["apiVersion"] = "v1"  # SetDefaults_ObjectFieldSelector


def default_container(container: Obj) -> None:
    """``SetDefaults_Container`` plus its nested structs: ports, probes, lifecycle handlers, env."""
    if not container.get("imagePullPolicy"):
        image = container.get("image")
        tag = image_tag(image) if isinstance(image, str) else ""
        container["imagePullPolicy"] = "Always" if tag == "latest" else "IfNotPresent"
    if not container.get("terminationMessagePath"):
        container["terminationMessagePath"] = "/dev/termination-log"
    if not container.get("terminationMessagePolicy"):
        container["terminationMessagePolicy"] = "File"
    for port in _list(container, "ports"):
        if isinstance(port, dict) and not port.get("protocol"):
            port["protocol"] = "TCP"  # ContainerPort.Protocol +default="TCP"
    for key in ("livenessProbe", "readinessProbe", "startupProbe"):
        probe = _dict(container, key)
        if probe is not None:
            _default_probe(probe)
    lifecycle = _dict(container, "lifecycle")
    if lifecycle is not None:
        for key in ("postStart", "preStop"):
            handler = _dict(lifecycle, key)
            if handler is not None:
                _default_handler(handler)
    _default_env(container)


def _default_projection_mode(source: Obj) -> None:
    if source.get("defaultMode") is None:
        source["defaultMode"] = _DEFAULT_MODE


def default_volume(volume: Obj) -> None:
    """``SetDefaults_Volume`` and the volume-source defaults (secret, configMap, downwardAPI, projected,
    hostPath, ephemeral claim templates)."""
    if not any(k != "name" for k in volume):
        volume["emptyDir"] = {}  # a volume without a source is an emptyDir
        return
    for key in ("secret", "configMap", "downwardAPI"):
        source = _dict(volume, key)
        if source is not None:
            _default_projection_mode(source)
            _default_field_refs(source)
    projected = _dict(volume, "projected")
    if projected is not None:
        _default_projection_mode(projected)
        for src in _list(projected, "sources"):
            if not isinstance(src, dict):
                continue
            token = _dict(src, "serviceAccountToken")
            if token is not None and token.get("expirationSeconds") is None:
                token["expirationSeconds"] = 3600  # SetDefaults_ServiceAccountTokenProjection
            downward = _dict(src, "downwardAPI")
            if downward is not None:
                _default_field_refs(downward)
    host_path = _dict(volume, "hostPath")
    if host_path is not None and host_path.get("type") is None:
        host_path["type"] = ""  # SetDefaults_HostPathVolumeSource: HostPathUnset
    ephemeral = _dict(volume, "ephemeral")
    if ephemeral is not None:
        template = _dict(ephemeral, "volumeClaimTemplate")
        spec = _dict(template, "spec") if template is not None else None
        if spec is not None:
            default_pvc_spec(spec)
    image = _dict(volume, "image")
    if image is not None and not image.get("pullPolicy"):
        ref = image.get("reference")
        tag = image_tag(ref) if isinstance(ref, str) else ""
        image["pullPolicy"] = "Always" if tag == "latest" else "IfNotPresent"


def _default_field_refs(source: Obj) -> None:
    for item in _list(source, "items"):
        if isinstance(item, dict):
            field_ref = _dict(item, "fieldRef")
            if field_ref is not None and not field_ref.get("apiVersion"):
                field_ref["apiVersion"] = "v1"


def default_pod_spec(spec: Obj) -> None:
    """``SetDefaults_PodSpec`` and everything generated defaulting reaches inside a PodSpec."""
    if not spec.get("dnsPolicy"):
        spec["dnsPolicy"] = "ClusterFirst"
    if not spec.get("restartPolicy"):
        spec["restartPolicy"] = "Always"
    if spec.get("securityContext") is None:
        spec["securityContext"] = {}
    if spec.get("terminationGracePeriodSeconds") is None:
        spec["terminationGracePeriodSeconds"] = 30
    if not spec.get("schedulerName"):
        spec["schedulerName"] = "default-scheduler"
    for volume in _list(spec, "volumes"):
        if isinstance(volume, dict):
            default_volume(volume)
    for key in ("initContainers", "containers", "ephemeralContainers"):
        for container in _list(spec, key):
            if isinstance(container, dict):
                default_container(container)


def default_pod_template_spec(template: Obj | None) -> None:
    """A PodTemplateSpec inside a workload: the PodSpec defaults only (never ``SetDefaults_Pod``)."""
    if template is None:
        return
    spec = _dict(template, "spec")
    if spec is not None:
        default_pod_spec(spec)


def _requests_from_limits(container: Obj) -> None:
    resources = _dict(container, "resources")
    if resources is None:
        return
    limits = _dict(resources, "limits")
    if limits is None:
        return
    requests = _dict(resources, "requests")
    if requests is None:
        requests = resources["requests"] = {}
    for name, value in limits.items():
        if name not in requests:
            requests[name] = value


def _host_network_ports(containers: list[Any]) -> None:
    for container in containers:
        if not isinstance(container, dict):
            continue
        for port in _list(container, "ports"):
            if isinstance(port, dict) and not port.get("hostPort") and port.get("containerPort"):
                port["hostPort"] = port["containerPort"]


# Pod defaulting only reads and writes ``spec``, and a cluster creates many pods from few templates (and
# re-defaults every stored, already defaulted spec on update): remember encoded spec -> defaulted spec.
# An already defaulted spec maps to b"" and needs no decode at all.
#: two entries per distinct pod spec (the spec and its defaulted form); pods come from a few templates
_DEFAULTED_SPECS: BoundedCache[bytes, bytes] = BoundedCache("apiserver.defaults.pod_specs", maxsize=1024)
_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder().decode


def default_pod(pod: Obj) -> None:
    """``SetDefaults_Pod`` (requests default to limits, enableServiceLinks, host-network ports) and
    ``SetDefaults_PodSpec``. Requests-from-limits runs first, as upstream's generated order does.

    Memoised on the encoded spec (see ``_DEFAULTED_SPECS``); the spec dict is updated in place either way.
    """
    spec = _dict(pod, "spec")
    if spec is None:
        return
    try:
        key: bytes | None = _encode(spec) if ENCODED_KEYS.on else None
    except (TypeError, ValueError):  # not JSON data: default it the slow way
        key = None
    if key is not None:
        done = _DEFAULTED_SPECS.get(key)
        if done is not None:
            if done:
                spec.clear()
                spec.update(_decode(done))
            return
    _default_pod(spec)
    if key is not None:
        out = _encode(spec)
        _DEFAULTED_SPECS.put(key, b"" if out == key else out)
        _DEFAULTED_SPECS.put(out, b"")  # defaulting is idempotent


def _default_pod(spec: Obj) -> None:
    for key in ("containers", "initContainers"):
        for container in _list(spec, key):
            if isinstance(container, dict):
                _requests_from_limits(container)
    if spec.get("enableServiceLinks") is None:
        spec["enableServiceLinks"] = True
    if spec.get("hostNetwork"):
        _host_network_ports(_list(spec, "containers"))
        _host_network_ports(_list(spec, "initContainers"))
    default_pod_spec(spec)


def _externally_accessible(spec: Obj) -> bool:
    """``service.ExternallyAccessible``."""
    svc_type = spec.get("type")
    return svc_type in ("LoadBalancer", "NodePort") or (svc_type == "ClusterIP" and bool(spec.get("externalIPs")))


def default_service(svc: Obj) -> None:
    """``SetDefaults_Service``."""
    spec = _dict(svc, "spec")
    if spec is None:
        spec = svc["spec"] = {}
    if not spec.get("sessionAffinity"):
        spec["sessionAffinity"] = "None"
    if spec["sessionAffinity"] == "None":
        spec.pop("sessionAffinityConfig", None)
    elif spec["sessionAffinity"] == "ClientIP":
        config = _dict(spec, "sessionAffinityConfig")
        client_ip = _dict(config, "clientIP") if config is not None else None
        if client_ip is None or client_ip.get("timeoutSeconds") is None:
            spec["sessionAffinityConfig"] = {"clientIP": {"timeoutSeconds": 10800}}
    if not spec.get("type"):
        spec["type"] = "ClusterIP"
    for port in _list(spec, "ports"):
        if not isinstance(port, dict):
            continue
        if not port.get("protocol"):
            port["protocol"] = "TCP"
        target = port.get("targetPort")
        if target is None or target == 0 or target == "":
            port["targetPort"] = port.get("port", 0)
    if _externally_accessible(spec) and not spec.get("externalTrafficPolicy"):
        spec["externalTrafficPolicy"] = "Cluster"
    if spec.get("internalTrafficPolicy") is None and spec["type"] in ("NodePort", "LoadBalancer", "ClusterIP"):
        spec["internalTrafficPolicy"] = "Cluster"
    if spec["type"] == "LoadBalancer":
        if spec.get("allocateLoadBalancerNodePorts") is None:
            spec["allocateLoadBalancerNodePorts"] = True
        status = _dict(svc, "status")
        lb = _dict(status, "loadBalancer") if status is not None else None
        for ingress in _list(lb, "ingress") if lb is not None else []:
            if isinstance(ingress, dict) and ingress.get("ip") and ingress.get("ipMode") is None:
                ingress["ipMode"] = "VIP"


def default_secret(secret: Obj) -> None:
    """``SetDefaults_Secret``."""
    if not secret.get("type"):
        secret["type"] = "Opaque"


def default_config_map(cm: Obj) -> None:
    """``SetDefaults_ConfigMap`` makes ``data`` a non-nil map, which ``omitempty`` never serializes: the
    JSON form is unchanged, so there is nothing to do here."""


def default_namespace(ns: Obj) -> None:
    """``SetDefaults_Namespace`` (the ``kubernetes.io/metadata.name`` label) and ``SetDefaults_NamespaceStatus``."""
    meta = _dict(ns, "metadata")
    name = meta.get("name") if meta is not None else None
    if meta is not None and name:
        labels = _dict(meta, "labels")
        if labels is None:
            labels = meta["labels"] = {}
        labels["kubernetes.io/metadata.name"] = name
    status = _dict(ns, "status")
    if status is not None and not status.get("phase"):
        status["phase"] = "Active"


def default_node(node: Obj) -> None:
    """``SetDefaults_NodeStatus``: allocatable defaults to capacity."""
    status = _dict(node, "status")
    if status is None:
        return
    capacity = _dict(status, "capacity")
    if status.get("allocatable") is None and capacity is not None:
        status["allocatable"] = dict(capacity)


def default_persistent_volume(pv: Obj) -> None:
    """``SetDefaults_PersistentVolume``."""
    status = pv.setdefault("status", {})
    if isinstance(status, dict) and not status.get("phase"):
        status["phase"] = "Pending"
    spec = _dict(pv, "spec")
    if spec is None:
        spec = pv["spec"] = {}
    if not spec.get("persistentVolumeReclaimPolicy"):
        spec["persistentVolumeReclaimPolicy"] = "Retain"
    if spec.get("volumeMode") is None:
        spec["volumeMode"] = "Filesystem"
    host_path = _dict(spec, "hostPath")
    if host_path is not None and host_path.get("type") is None:
        host_path["type"] = ""


def default_pvc_spec(spec: Obj) -> None:
    """``SetDefaults_PersistentVolumeClaimSpec``."""
    if spec.get("volumeMode") is None:
        spec["volumeMode"] = "Filesystem"


def default_persistent_volume_claim(pvc: Obj) -> None:
    """``SetDefaults_PersistentVolumeClaim`` (status phase) and its spec."""
    status = pvc.setdefault("status", {})
    if isinstance(status, dict) and not status.get("phase"):
        status["phase"] = "Pending"
    spec = _dict(pvc, "spec")
    if spec is None:
        spec = pvc["spec"] = {}
    default_pvc_spec(spec)


def default_endpoints(ep: Obj) -> None:
    """``SetDefaults_Endpoints``: port protocol TCP."""
    for subset in _list(ep, "subsets"):
        if isinstance(subset, dict):
            for port in _list(subset, "ports"):
                if isinstance(port, dict) and not port.get("protocol"):
                    port["protocol"] = "TCP"
