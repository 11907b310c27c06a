"""A create's body, sent as JSON bytes (the in-process client's copy), is parsed straight into its kind's
typed Struct (``Decoder.decode_json``) instead of into a dict that is then converted. Every case runs one
request sequence twice with the same seed, with that path and without it (the body parsed to a dict and
decoded as always), and requires the same outcome for every request (the created object's bytes, or the
rejection's Status, and the warnings) and the same stored bytes: valid bodies of several kinds, and bodies
the straight path must hand back (unknown fields in each ``fieldValidation`` mode, wrong or missing kind
and apiVersion, null metadata, wrong types, duplicate keys, a bad escape, a list, an unknown mode)."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from kubelite.apiserver.auth.user import ADMIN
from kubelite.apiserver.pipeline import Decoder
from kubelite.cluster import Cluster
from kubelite.errors import ApiError

_EVENT = (b'{"apiVersion":"v1","kind":"Event","metadata":{"name":"p.1","namespace":"default"},'
          b'"involvedObject":{"kind":"Pod","namespace":"default","name":"p","uid":"u-1","apiVersion":"v1"},'
          b'"reason":"Pulled","message":"pulled","source":{"component":"kubelet","host":"n"},"count":1,'
          b'"type":"Normal","firstTimestamp":"2025-01-01T00:00:00Z","lastTimestamp":"2025-01-01T00:00:00Z",'
          b'"eventTime":null,"reportingComponent":"kubelet","reportingInstance":"n"}')


def _ev(name: str, **changes: Any) -> bytes:
    body = msgspec.json.decode(_EVENT)
    body["metadata"]["name"] = name
    for k, v in changes.items():
        if v is _DROP:
            body.pop(k, None)
        else:
            body[k] = v
    return msgspec.json.encode(body)


_DROP: Any = object()

# (resource as (group, plural), body bytes, fieldValidation)
REQUESTS: list[tuple[tuple[str, str], bytes, str | None]] = [
    (("", "events"), _EVENT, None),
    (("", "events"), _EVENT, None),  # (AlreadyExists)
    (("", "events"), _ev("e.2", kind=_DROP, apiVersion=_DROP), None),
    (("", "events"), _ev("e.3", apiVersion=_DROP), None),
    (("", "events"), _ev("e.4", kind="Pod", apiVersion=_DROP), None),  # (kind filled in, as decode does)
    (("", "events"), _ev("e.5", kind="Pod"), None),
    (("", "events"), _ev("e.6", apiVersion="v2"), None),
    (("", "events"), _ev("e.7", apiVersion=""), None),
    (("", "events"), _ev("e.8", metadata=None), None),
    (("", "events"), _ev("e.9", count="1"), None),
    (("", "events"), _ev("e.10", count=1.5), None),
    (("", "events"), _ev("e.11", bogus={"x": 1}), None),
    (("", "events"), _ev("e.12", bogus=1), "Strict"),
    (("", "events"), _ev("e.13", bogus=1), "Ignore"),
    (("", "events"), _ev("e.14"), "Sloppy"),
    (("", "events"), _ev("e.15", reason=""), None),  # (Invalid: an Event needs its reason)
    (("", "events"), b'{"apiVersion":"v1","kind":"Event","metadata":{"name":"e.16","name":"e.17"},'
                     b'"involvedObject":{"name":"p","namespace":"default"},"reason":"R","reason":"S"}', None),
    (("", "events"), b'[1, 2]', None),
    (("", "configmaps"), b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1"},'
                         b'"binaryData":{}, "immutable":false}', None),
    (("", "configmaps"), b'{"metadata":{"name":"c2","labels":{}},"data":{"a":1}}', None),
    (("", "services"), b'{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"},"spec":{"selector":'
                       b'{"app":"a"},"ports":[{"port":80,"targetPort":"http"}]}}', None),
    (("", "nodes"), b'{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},"status":{"capacity":'
                    b'{"cpu":"4000m","memory":"1Gi"}}}', None),
    (("", "nodes"), b'{"apiVersion":"v1","kind":"Node","metadata":{"name":"n2"},"status":{"capacity":'
                    b'{"cpu":"four"}}}', None),
    (("apps", "deployments"), b'{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":'
                              b'{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},'
                              b'"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}', None),
    (("", "pods"), b'{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":'
                   b'[{"name":"c","image":"nginx"}]},"status":{"phase":"Running"}}', None),
]


_DECODE_JSON = Decoder.decode_json


async def _run(straight: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[list[Any], int]:
    calls = 0
    original = _DECODE_JSON

    def decode_json(self: Decoder, *a: Any) -> dict[str, Any] | None:
        nonlocal calls
        out = original(self, *a) if straight else None
        calls += out is not None
        return out

    monkeypatch.setattr(Decoder, "decode_json", decode_json)
    out: list[Any] = []
    async with Cluster(seed=11, scheduler=False, controllers=False, network=False) as cluster:
        for (group, plural), body, mode in REQUESTS:
            try:
                resp = await cluster.apiserver.create(ADMIN, group, plural, "" if plural == "nodes" else "default",
                                                      body, field_validation=mode)
                out.append(("ok", resp.data, resp.warnings))
            except ApiError as e:
                out.append(("rejected", msgspec.json.encode(e.status), []))
        out.append(sorted((k, s.data) for t in cluster.store.tables.values() for k, s in t.objects.items()))
    return out, calls


async def test_a_create_parsed_straight_into_its_struct_equals_the_dict_path(monkeypatch: pytest.MonkeyPatch) -> None:
    plain, none = await _run(False, monkeypatch)
    straight, served = await _run(True, monkeypatch)
    assert none == 0
    for i, (a, b) in enumerate(zip(plain, straight, strict=True)):
        assert a == b, f"request {i} differs"
    # the straight path served the clean bodies (and handed every other one back)
    assert served == 11  # (the two Events, e.2, e.3, e.15, e.16, c, s, n1, d, p)
    assert sum(r[0] == "ok" for r in plain[:-1]) >= 10 and sum(r[0] != "ok" for r in plain[:-1]) >= 10
