"""Response media-type negotiation for resource requests: JSON, or Kubernetes protobuf when only that is accepted.

Contract:
- :func:`response_media` reads an ``Accept`` header as kube-apiserver's negotiation does (media ranges with
  ``q``; ``q=0`` excludes): ``"json"`` when the client accepts JSON in any form (``application/json`` with or
  without ``as=Table``-style parameters, ``application/*``, ``*/*``, no header at all, and YAML, which kubelite
  answers with JSON), ``"protobuf"`` when it accepts ``application/vnd.kubernetes.protobuf`` and no JSON, and
  ``None`` when it accepts neither (the HTTP layer answers 406 NotAcceptable, as upstream; also for protobuf
  and a custom resource, which upstream serves as JSON and YAML only).
- JSON is kubelite's answer whenever the client allows it, even when it lists protobuf first (client-go's
  typed clients send ``application/vnd.kubernetes.protobuf,application/json``; upstream would pick protobuf):
  one encoder serves every client, and every client that lists protobuf also lists JSON.
- :func:`to_protobuf` re-encodes a JSON response body (an object, a list or a ``v1 Status``) with the same
  tables the request decoder uses (:mod:`kubelite.api.protobuf`); :func:`watch_frame` re-encodes one JSON watch
  line as a frame of upstream's protobuf watch stream (``application/vnd.kubernetes.protobuf;stream=watch``).
"""

from __future__ import annotations

import msgspec

from kubelite.api import protobuf
from kubelite.memo import memoize

__all__ = ["PROTOBUF", "PROTOBUF_WATCH", "SERVED", "response_media", "to_protobuf", "watch_frame"]

PROTOBUF = "application/vnd.kubernetes.protobuf"
PROTOBUF_WATCH = PROTOBUF + ";stream=watch"
#: what upstream's 406 lists for built-in resources
SERVED = ("application/json", "application/yaml", PROTOBUF)
_JSON_LIKE = frozenset({"application/json", "application/*", "*/*", "application/yaml", "application/x-yaml",
                        "text/yaml"})
_decode = msgspec.json.Decoder().decode


# bound: one entry per distinct Accept header (a client sends the same one every time: kubectl's, client-go's)
@memoize("http.media.response_media", maxsize=256)
def response_media(accept: str) -> str | None:
    """``"json"``, ``"protobuf"`` or ``None`` (nothing kubelite serves is acceptable); see the module docstring.
    Memoized: a GET's negotiation is one lookup of its header."""
    if not accept.strip():
        return "json"
    protobuf_ok = False
    for clause in accept.split(","):
        media, *params = (p.strip() for p in clause.split(";"))
        media = media.lower()
        q = 1.0
        for param in params:
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if q <= 0:
            continue
        if media in _JSON_LIKE:
            return "json"
        protobuf_ok = protobuf_ok or media == PROTOBUF
    return "protobuf" if protobuf_ok else None


def to_protobuf(body: bytes) -> bytes:
    """The protobuf encoding of a JSON response body; raises :class:`kubelite.api.protobuf.ProtobufError`."""
    obj = _decode(body)
    if not isinstance(obj, dict):
        raise protobuf.ProtobufError("the response is not an object")
    return protobuf.encode(obj)


def watch_frame(line: bytes) -> bytes:
    """The protobuf watch frame of one JSON watch line (``{"type": .., "object": ..}``)."""
    event = _decode(line)
    return protobuf.encode_watch_frame(event["type"], event["object"])
