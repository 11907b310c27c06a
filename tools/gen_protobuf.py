"""Generate kubelite's protobuf field table from upstream's ``generated.proto`` files and Go types.

Contract:
- Inputs, at pinned commits (:data:`SOURCES`): k8s.io/api, k8s.io/apimachinery, k8s.io/apiextensions-apiserver
  and k8s.io/kube-aggregator, read from git directories (a bare clone or ``.git`` of each; pass
  ``--src NAME=GITDIR``; the defaults are the mirrors this repository was generated from). From each package's
  ``generated.proto`` come the messages, field numbers and wire types; from the same package's Go types (the
  struct tags ``json:"..." protobuf:"..."``) come each field's JSON name (go-to-protobuf names some fields
  differently: ``uID`` is JSON ``uid``), whether the Go field is a pointer or has no ``omitempty`` (a zero
  value on the wire is then kept, as Go's JSON encoder would print it), and whether an embedded struct is
  inlined into its parent's JSON (``json:""``: ``Volume`` carries ``VolumeSource``'s fields).
- Output (committed): ``kubelite/api/protobuf_tables.py``: :data:`MESSAGES` for every message reachable from a
  kind kubelite serves (the built-in registry, its other served versions and subresource kinds), :data:`KINDS`
  (apiVersion, kind) -> message, and :data:`LISTS` (the ``+protobuf.nullable=true`` wrappers whose JSON is a
  bare list). Deterministic: re-running it on the same commits gives byte-identical output.

Run it with ``python tools/gen_protobuf.py`` from the repository root.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "kubelite" / "api" / "protobuf_tables.py"
sys.path.insert(0, str(ROOT))

# k8s.io/<name> -> (default git directory, pinned commit)
SOURCES: dict[str, tuple[str, str]] = {
    "api": ("/work/.mirror/kubernetes+api/repo", "10b39a39bcee995dfe7cd5e8e7b922be5e46f1e2"),
    "apimachinery": ("/work/.mirror/kubernetes+apimachinery/repo", "eed236ceee2c19c2753a3d93ac0631dc20750454"),
    "apiextensions-apiserver": ("/work/.mirror/kubernetes+apiextensions-apiserver/repo",
                                "1aa2717a552ee6ca1e2a18f1f8ffccde981db923"),
    "kube-aggregator": ("/work/.mirror/kubernetes+kube-aggregator/repo", "232ca687ab24bc9f9a378cba74716b5f7d6b82eb"),
}
# Messages the codec handles by name (their JSON is not an object of their fields): never expanded.
SPECIAL = frozenset({
    "meta.v1.Time", "meta.v1.MicroTime", "meta.v1.Duration", "meta.v1.FieldsV1", "resource.Quantity",
    "intstr.IntOrString", "runtime.RawExtension", "apiextensions.v1.JSON",
})
# Messages whose JSON is an object of their fields but that are not reached through a served kind's fields.
EXTRA_ROOTS = ("meta.v1.DeleteOptions", "meta.v1.WatchEvent")

_FIELD = re.compile(r"^\s*(optional|repeated|required)?\s*(map<\s*([\w.]+)\s*,\s*([\w.]+)\s*>|[\w.]+)\s+(\w+)\s*=\s*(\d+)")


class Source:
    def __init__(self, name: str, gitdir: str, commit: str) -> None:
        self.name, self.gitdir, self.commit = name, gitdir, commit

    def git(self, *args: str) -> str:
        return subprocess.run(["git", "--git-dir", self.gitdir, *args], check=True, capture_output=True,
                              text=True).stdout

    def protos(self) -> list[str]:
        return sorted(p for p in self.git("ls-tree", "-r", "--name-only", self.commit).splitlines()
                      if p.endswith("/generated.proto") and "testapigroup" not in p and "/examples/" not in p
                      and "/test/" not in p)

    def go_files(self, directory: str) -> list[str]:
        names = self.git("ls-tree", "--name-only", self.commit, directory + "/").splitlines()
        return sorted(n for n in names if n.endswith(".go") and not n.endswith(("_test.go", ".pb.go"))
                      and "zz_generated" not in n)

    def show(self, path: str) -> str:
        return self.git("show", f"{self.commit}:{path}")


def parse_proto(text: str) -> tuple[str, dict[str, list[tuple[str, str, str, int]]], set[str]]:
    """(package, {message: [(label, type, proto name, number)]}, the nullable list wrappers)."""
    package = re.search(r"^package ([\w.]+);", text, re.M)
    assert package, "no package"
    messages: dict[str, list[tuple[str, str, str, int]]] = {}
    nullable: set[str] = set()
    current: str | None = None
    comments: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("//"):
            comments.append(stripped)
            continue
        m = re.match(r"message (\w+) \{", stripped)
        if m:
            current = m.group(1)
            messages[current] = []
            if "// +protobuf.nullable=true" in comments:
                nullable.add(current)
        elif stripped == "}":
            current = None
        elif current and (f := _FIELD.match(line)):
            label = "map" if f.group(3) else (f.group(1) or "optional")
            ftype = f"{f.group(3)},{f.group(4)}" if f.group(3) else f.group(2)
            messages[current].append((label, ftype, f.group(5), int(f.group(6))))
        comments = [] if stripped else comments
    return package.group(1), messages, nullable


_GO_FIELD = re.compile(r"^\s*(?:(\w+)\s+)?([*\[\]\w.]+(?:\[[\w.]*\][*\w.]+)?)\s+`([^`]*)`")


def parse_go(text: str) -> dict[str, dict[int, tuple[str, bool, bool]]]:
    """{struct: {proto number: (JSON name, keep zero values, inlined)}} from the struct tags."""
    out: dict[str, dict[int, tuple[str, bool, bool]]] = {}
    current: str | None = None
    for line in text.splitlines():
        m = re.match(r"^type (\w+) struct \{", line)
        if m:
            current = m.group(1)
            out[current] = {}
            continue
        if line.startswith("}"):
            current = None
            continue
        if current is None or 'protobuf:"' not in line or line.lstrip().startswith("//"):
            continue
        f = _GO_FIELD.match(line)
        if not f:
            raise SystemExit(f"cannot parse Go field in {current}: {line!r}")
        name, gotype, tag = f.groups()
        pb = re.search(r'protobuf:"([^"]*)"', tag)
        js = re.search(r'json:"([^"]*)"', tag)
        assert pb
        if pb.group(1) == "-":
            continue  # not marshalled (Time's embedded time.Time: Time has its own codec)
        number = int(pb.group(1).split(",")[1])
        jname, *opts = (js.group(1) if js else "").split(",")
        embedded = name is None
        inline = embedded and (jname == "" or "inline" in opts)
        keep = gotype.startswith("*") or "omitempty" not in opts
        out[current][number] = (jname, keep, inline)
    return out


_SHORT = (("apimachinery.pkg.apis.", ""), ("apimachinery.pkg.api.", ""), ("apimachinery.pkg.util.", ""),
          ("apimachinery.pkg.", ""), ("apiextensions_apiserver.pkg.apis.", ""), ("kube_aggregator.pkg.apis.", ""),
          ("api.", ""))


def short(name: str) -> str:
    """``.k8s.io.api.core.v1.Pod`` -> ``core.v1.Pod``; ``...apimachinery.pkg.apis.meta.v1.Time`` -> ``meta.v1.Time``."""
    name = name.lstrip(".").removeprefix("k8s.io.")
    for prefix, repl in _SHORT:
        if name.startswith(prefix):
            return repl + name[len(prefix):]
    return name


def load(srcs: list[Source]) -> tuple[dict[str, list[tuple[int, str, str, str]]], set[str]]:
    messages: dict[str, list[tuple[int, str, str, str]]] = {}
    lists: set[str] = set()
    untagged.clear()
    for src in srcs:
        for path in src.protos():
            package, msgs, nullable = parse_proto(src.show(path))
            directory = path.rsplit("/", 1)[0]
            go: dict[str, dict[int, tuple[str, bool, bool]]] = {}
            for gofile in src.go_files(directory):
                go.update(parse_go(src.show(gofile)))
            pkg = short(package)
            for msg, fields in msgs.items():
                full = f"{pkg}.{msg}"
                if full in messages:
                    raise SystemExit(f"two messages shorten to {full}")
                if msg in nullable:
                    lists.add(full)
                tags = go.get(msg, {})
                rows = []
                for label, ftype, pname, number in fields:
                    if label == "map":
                        key, value = ftype.split(",")
                        if key != "string":
                            raise SystemExit(f"{full}.{pname}: map key {key} is not a string")
                        ftype = value
                    ftype = ftype if ftype in _SCALARS else short(ftype if "." in ftype else f"{package}.{ftype}")
                    jname, keep, inline = tags.get(number, (pname, False, False))
                    if number not in tags and full not in SPECIAL and msg not in nullable and pkg != "runtime":
                        untagged.add(full)  # an error only if a served kind reaches it (see render)
                    flags = {"optional": "", "required": "", "repeated": "r", "map": "m"}[label]
                    flags += "z" if keep else ""  # a slice or map without omitempty keeps [] / {} (api/omitempty.py)
                    flags += "i" if inline else ""
                    rows.append((number, jname, ftype, flags))
                messages[full] = rows
    return messages, lists


untagged: set[str] = set()  # messages with a field no Go struct tag names
_SCALARS = frozenset({"string", "bytes", "bool", "int32", "int64", "uint32", "uint64", "double", "float",
                      "fixed32", "fixed64", "sint32", "sint64"})


def served_kinds(messages: dict[str, Any]) -> dict[tuple[str, str], str]:
    """(apiVersion, kind) -> message of every kind kubelite serves, their lists (where the API has one) and the
    ``v1 Status`` of errors."""
    from kubelite.api.resources import BUILTIN

    kinds: dict[tuple[str, str], str] = {}

    def package(group: str, version: str) -> str:
        label = group.split(".")[0] if group else "core"
        if label == "apiextensions":
            return f"apiextensions.{version}"
        if label == "apiregistration":
            return f"apiregistration.{version}"
        return f"{label}.{version}"

    for info in BUILTIN:
        for version in (info.version, *(v for v, _ in info.version_structs)):
            api_version = f"{info.group}/{version}" if info.group else version
            kinds[(api_version, info.kind)] = f"{package(info.group, version)}.{info.kind}"
            if f"{package(info.group, version)}.{info.kind}List" in messages:
                kinds[(api_version, info.kind + "List")] = f"{package(info.group, version)}.{info.kind}List"
    # subresource kinds: pods/binding, pods/eviction, */scale, serviceaccounts/token
    kinds[("v1", "Binding")] = "core.v1.Binding"
    kinds[("authentication.k8s.io/v1", "TokenRequest")] = "authentication.v1.TokenRequest"
    kinds[("policy/v1", "Eviction")] = "policy.v1.Eviction"
    kinds[("autoscaling/v1", "Scale")] = "autoscaling.v1.Scale"
    kinds[("v1", "Status")] = "meta.v1.Status"
    return dict(sorted(kinds.items()))


def reachable(messages: dict[str, list[tuple[int, str, str, str]]], roots: list[str]) -> list[str]:
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        if name not in messages:
            raise SystemExit(f"message {name} is not in the sources")
        seen.add(name)
        if name in SPECIAL:
            continue
        todo.extend(t for _, _, t, _ in messages[name] if t not in _SCALARS)
    return sorted(seen)


def render(messages: dict[str, list[tuple[int, str, str, str]]], lists: set[str],
           kinds: dict[tuple[str, str], str], srcs: list[Source]) -> str:
    names = reachable(messages, [*kinds.values(), *EXTRA_ROOTS])
    if missing := sorted(untagged.intersection(names)):
        raise SystemExit(f"no Go struct tags for fields of {missing}")
    lines = [
        '"""Protobuf field table of every kind kubelite serves. GENERATED by tools/gen_protobuf.py: do not edit.',
        "",
        "Sources (generated.proto for messages, numbers and wire types; Go struct tags for JSON names and flags):",
        *(f"- k8s.io/{s.name} @ {s.commit}" for s in srcs),
        "",
        "MESSAGES: message -> ((number, JSON name, type, flags), ...); a type is a scalar (string, bytes, bool,",
        "int32, int64, ...) or a message name; flags: r repeated, m map<string, type>, z keep a zero value (the",
        "Go field is a pointer or has no omitempty; on a slice or map: no omitempty, so [] and {} are kept), i",
        "inlined into the parent's JSON (an embedded Go struct).",
        "KINDS: (apiVersion, kind) -> message. LISTS: wrapper messages whose JSON is the bare list of ``items``.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        '__all__ = ["KINDS", "LISTS", "MESSAGES"]',
        "",
        "MESSAGES: dict[str, tuple[tuple[int, str, str, str], ...]] = {",
    ]
    for name in names:
        rows = [] if name in SPECIAL else messages[name]
        body = ", ".join(f"({n}, {j!r}, {t!r}, {f!r})" for n, j, t, f in rows)
        lines.append(f"    {name!r}: ({body}{',' if len(rows) == 1 else ''}),")
    lines.append("}")
    lines.append("")
    lines.append("KINDS: dict[tuple[str, str], str] = {")
    lines.extend(f"    {k!r}: {v!r}," for k, v in kinds.items())
    lines.append("}")
    lines.append("")
    lines.append(f"LISTS: frozenset[str] = frozenset({sorted(n for n in lists if n in names)!r})")
    return "\n".join(_wrap(line) for line in lines) + "\n"


def _wrap(line: str, width: int = 120) -> str:
    """Break a long message row after a field tuple, indented under the first field."""
    if len(line) <= width or not line.startswith("    '"):
        return line
    head, _, rest = line.partition(": (")
    indent = " " * 8
    parts = re.split(r"(?<=\)), (?=\()", rest)
    out, cur = [], head + ": ("
    for part in parts:
        piece = part if cur.endswith("(") else ", " + part
        if len(cur) + len(piece) > width and not cur.endswith("("):
            out.append(cur + ",")
            cur = indent + part
        else:
            cur += piece
    out.append(cur)
    return "\n".join(out)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--src", action="append", default=[], metavar="NAME=GITDIR",
                        help="git directory of one source (api, apimachinery, apiextensions-apiserver, kube-aggregator)")
    parser.add_argument("--check", action="store_true", help="exit 1 if the committed table differs")
    args = parser.parse_args(argv)
    dirs: dict[str, Any] = {k: v[0] for k, v in SOURCES.items()}
    for item in args.src:
        key, _, value = item.partition("=")
        dirs[key] = value
    srcs = [Source(k, dirs[k], SOURCES[k][1]) for k in SOURCES]
    messages, lists = load(srcs)
    text = render(messages, lists, served_kinds(messages), srcs)
    if args.check:
        sys.exit(0 if OUT.read_text(encoding="utf-8") == text else 1)
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)} ({len(text)} bytes)")


if __name__ == "__main__":
    main()
