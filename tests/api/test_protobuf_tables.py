"""tools/gen_protobuf.py: its parsers on upstream-shaped input, and the committed table against a regeneration.

Regenerating needs the pinned upstream sources (git directories of k8s.io/api, apimachinery,
apiextensions-apiserver and kube-aggregator); where they are not on the machine that check is skipped, and the
parser cases below still run.
"""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location("_gen_protobuf", ROOT / "tools/gen_protobuf.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PROTO = """
syntax = "proto2";

package k8s.io.api.example.v1;

// AttestationValue masks the value so protobuf can generate
// +protobuf.nullable=true
message ExtraValue {
  // items, if empty, will result in an empty slice

  repeated string items = 1;
}

// Thing is an example.
message Thing {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;

  optional int32 replicas = 2;

  repeated string names = 3;

  map<string, k8s.io.apimachinery.pkg.api.resource.Quantity> limits = 4;

  optional ThingSource thingSource = 5;

  optional string uID = 6;
}
"""

GO = """
type Thing struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// comment with a tag: Old *int32 `json:"old,omitempty" protobuf:"varint,9,opt,name=old"`
	Replicas *int32 `json:"replicas,omitempty" protobuf:"varint,2,opt,name=replicas"`
	Names []string `json:"names" protobuf:"bytes,3,rep,name=names"`
	Limits ResourceList `json:"limits,omitempty" protobuf:"bytes,4,rep,name=limits,casttype=ResourceList,castkey=ResourceName"`
	ThingSource `json:"" protobuf:"bytes,5,opt,name=thingSource"`
	UID types.UID `json:"uid,omitempty" protobuf:"bytes,6,opt,name=uID,casttype=k8s.io/apimachinery/pkg/types.UID"`
}
"""


def test_parse_proto_reads_messages_fields_and_list_wrappers() -> None:
    package, messages, nullable = _generator().parse_proto(PROTO)
    assert package == "k8s.io.api.example.v1"
    assert nullable == {"ExtraValue"}
    assert messages["Thing"] == [
        ("optional", "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta", "metadata", 1),
        ("optional", "int32", "replicas", 2),
        ("repeated", "string", "names", 3),
        ("map", "string,k8s.io.apimachinery.pkg.api.resource.Quantity", "limits", 4),
        ("optional", "ThingSource", "thingSource", 5),
        ("optional", "string", "uID", 6),
    ]


def test_parse_go_reads_json_names_pointers_omitempty_and_inlining() -> None:
    fields = _generator().parse_go(GO)["Thing"]
    assert fields == {
        1: ("metadata", False, False),  # an embedded struct with a JSON name is a plain field
        2: ("replicas", True, False),  # a pointer: its zero is kept
        3: ("names", True, False),  # no omitempty
        4: ("limits", False, False),
        5: ("", True, True),  # json:"": inlined into the parent (no omitempty: kept, as any present message)
        6: ("uid", False, False),  # the JSON name, not go-to-protobuf's uID
    }


def test_short_names() -> None:
    short = _generator().short
    assert short(".k8s.io.api.core.v1.Pod") == "core.v1.Pod"
    assert short("k8s.io.apimachinery.pkg.apis.meta.v1.Time") == "meta.v1.Time"
    assert short("k8s.io.apimachinery.pkg.api.resource.Quantity") == "resource.Quantity"
    assert short("k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSON") == "apiextensions.v1.JSON"


def _sources_present(gen: Any) -> bool:
    for gitdir, commit in gen.SOURCES.values():
        probe = subprocess.run(["git", "--git-dir", gitdir, "cat-file", "-e", f"{commit}^{{commit}}"],
                               capture_output=True, check=False)
        if probe.returncode != 0:
            return False
    return True


def test_regenerating_reproduces_the_committed_table() -> None:
    gen = _generator()
    if not _sources_present(gen):
        pytest.skip("the pinned upstream sources (git directories named in tools/gen_protobuf.py) are not here")
    srcs = [gen.Source(k, gitdir, commit) for k, (gitdir, commit) in gen.SOURCES.items()]
    messages, lists = gen.load(srcs)
    text = gen.render(messages, lists, gen.served_kinds(messages), srcs)
    assert text == (ROOT / "kubelite/api/protobuf_tables.py").read_text(encoding="utf-8")
