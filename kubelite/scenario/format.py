"""The scenario document: msgspec Structs, and a YAML loader whose errors name file, line and field.

Contract:
- :func:`load_scenario` (a path) and :func:`parse_scenario` (text) return a fully validated
  :class:`Scenario` or raise :class:`ScenarioError` whose message reads
  ``FILE:LINE: FIELD: what is wrong`` (``FIELD`` as a path, ``steps[2].replicas``). Every check that
  can be done without a cluster is done here: the shape (unknown fields, types, the step ``action``
  tag), durations, expressions (compiled, so a typo in a function name is a load error), image
  profiles, manifest files (read and split as kubectl reads multi-document YAML), and the
  ``at``/``when`` and ``eventually``/``always``/``atEnd`` choices.
- Line numbers come from PyYAML's composed node tree (``start_mark``): the loader builds plain Python
  data and a map from field path to line at the same time, and msgspec's error path is mapped back.
- A validated scenario is immutable (frozen Structs); the runner never changes it.

The format is documented in ``docs/scenarios.md``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import msgspec
import yaml

from kubelite.api.codec import load_yaml
from kubelite.errors import ApiError
from kubelite.scenario.expressions import Expression, ExpressionError, compile_expression
from kubelite.workload import ImageProfile

__all__ = [
    "ClusterSpec", "Expectation", "NodePoolSpec", "Scenario", "ScenarioError", "Step", "Taint",
    "load_scenario", "parse_duration", "parse_scenario",
]

Duration = str | int | float


class ScenarioError(ValueError):
    """An invalid scenario: ``file``, 1-based ``line`` (0 when unknown), ``field`` path and message."""

    def __init__(self, file: str, line: int, field: str, message: str) -> None:
        self.file, self.line, self.field, self.message = file, line, field, message
        where = f"{file}:{line}" if line else file
        super().__init__(f"{where}: {field}: {message}" if field else f"{where}: {message}")


class _S(msgspec.Struct, frozen=True, kw_only=True, rename="camel", forbid_unknown_fields=True):
    pass


class Taint(_S, frozen=True, kw_only=True):
    key: str
    value: str = ""
    effect: str


class NodePoolSpec(_S, frozen=True, kw_only=True):
    """A pool of identical nodes named ``<name>-0``, ``<name>-1``, ..."""

    name: str | None = None
    count: int = 1
    capacity: dict[str, str | int] | None = None
    labels: dict[str, str] = {}
    taints: list[Taint] = []
    zones: list[str] | None = None
    instance_type: str | None = None


class ClusterSpec(_S, frozen=True, kw_only=True):
    node_pools: list[NodePoolSpec] = []
    scheduler: bool = True
    controllers: bool | list[str] = True
    controller_options: dict[str, Any] | None = None


class Expectation(_S, frozen=True, kw_only=True):
    """Exactly one of ``eventually`` (with ``within``), ``always`` (from ``after``) or ``at_end``."""

    name: str | None = None
    eventually: str | None = None
    within: Duration | None = None
    always: str | None = None
    after: Duration | None = None
    at_end: str | None = None
    #: "pod/NS/NAME" (or "pod/NAME") to diagnose even when the expectation passes
    diagnose: str | None = None


# --- steps (a tagged union on `action`) ------------------------------------------------------------

class _Step(_S, frozen=True, kw_only=True, tag_field="action"):
    name: str | None = None
    at: Duration | None = None
    when: str | None = None
    timeout: Duration | None = None


class Apply(_Step, frozen=True, kw_only=True, tag="apply"):
    manifest: dict[str, Any] | None = None
    file: str | None = None
    yaml: str | None = None


class Patch(_Step, frozen=True, kw_only=True, tag="patch"):
    target: str
    namespace: str = "default"
    patch: dict[str, Any] | list[Any]
    type: str = "strategic"


class Delete(_Step, frozen=True, kw_only=True, tag="delete"):
    target: str
    namespace: str = "default"
    grace_period: int | None = None


class Scale(_Step, frozen=True, kw_only=True, tag="scale"):
    target: str
    namespace: str = "default"
    replicas: int


class RolloutRestart(_Step, frozen=True, kw_only=True, tag="rolloutRestart"):
    target: str
    namespace: str = "default"


class RolloutUndo(_Step, frozen=True, kw_only=True, tag="rolloutUndo"):
    target: str
    namespace: str = "default"
    to_revision: int = 0


class Cordon(_Step, frozen=True, kw_only=True, tag="cordon"):
    node: str


class Uncordon(_Step, frozen=True, kw_only=True, tag="uncordon"):
    node: str


class Drain(_Step, frozen=True, kw_only=True, tag="drain"):
    node: str
    ignore_daemon_sets: bool = True
    grace_period: int | None = None


class FailNode(_Step, frozen=True, kw_only=True, tag="failNode"):
    node: str


class RecoverNode(_Step, frozen=True, kw_only=True, tag="recoverNode"):
    node: str


class CrashContainer(_Step, frozen=True, kw_only=True, tag="crashContainer"):
    pod: str
    container: str | None = None


class MakeUnpullable(_Step, frozen=True, kw_only=True, tag="makeUnpullable"):
    image: str
    node: str | None = None
    unpullable: bool = True


class BreakCni(_Step, frozen=True, kw_only=True, tag="breakCni"):
    node: str | None = None
    broken: bool = True


class StartTraffic(_Step, frozen=True, kw_only=True, tag="startTraffic"):
    service: str
    namespace: str = "default"
    rate: float = 100.0
    from_node: str | None = None
    duration: Duration | None = None
    port: int | None = None


class StopTraffic(_Step, frozen=True, kw_only=True, tag="stopTraffic"):
    service: str
    namespace: str = "default"


class InjectFault(_Step, frozen=True, kw_only=True, tag="injectFault"):
    error: int | str
    verb: str | None = None
    resource: str | None = None
    namespace: str | None = None
    object_name: str | None = None
    times: int = 1
    probability: float = 1.0


class Wait(_Step, frozen=True, kw_only=True, tag="wait"):
    duration: Duration


Step = (Apply | Patch | Delete | Scale | RolloutRestart | RolloutUndo | Cordon | Uncordon | Drain | FailNode
        | RecoverNode | CrashContainer | MakeUnpullable | BreakCni | StartTraffic | StopTraffic | InjectFault
        | Wait)


class Scenario(_S, frozen=True, kw_only=True):
    name: str
    description: str = ""
    seed: int = 1
    until: Duration = "10m"
    cluster: ClusterSpec = ClusterSpec()
    #: image reference -> profile fields (docs/workload-profiles.md)
    images: dict[str, dict[str, Any]] = {}
    allow_any_image: bool = False
    #: inline manifests, {file: PATH} or {yaml: TEXT}; expanded by the loader to objects
    manifests: list[dict[str, Any]] = []
    steps: list[Step] = []
    expect: list[Expectation] = []
    #: filled by the loader
    path: str = ""
    objects: list[dict[str, Any]] = []


# --- durations -------------------------------------------------------------------------------------

_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h|d)")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_UNIT = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def parse_duration(value: Duration) -> float:
    """Seconds from ``90``, ``90s``, ``1m30s``, ``2h``, ``500ms``; ValueError otherwise."""
    if isinstance(value, bool):
        raise ValueError(f"invalid duration {value!r}")
    if isinstance(value, int | float):
        if value < 0:
            raise ValueError(f"invalid duration {value!r}: must not be negative")
        return float(value)
    s = value.strip()
    if _NUMBER.fullmatch(s):
        return float(s)
    pos, total = 0, 0.0
    for m in _DURATION.finditer(s):
        if m.start() != pos:
            break
        total += float(m.group(1)) * _UNIT[m.group(2)]
        pos = m.end()
    if pos != len(s) or not s:
        raise ValueError(f"invalid duration {value!r} (use e.g. 90s, 5m, 1h30m)")
    return total


# --- YAML with line numbers ------------------------------------------------------------------------

Path_ = tuple[str | int, ...]


def _build(loader: Any, node: yaml.Node, path: Path_, lines: dict[Path_, int]) -> Any:
    lines[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        loader.flatten_mapping(node)
        out: dict[str, Any] = {}
        for k, v in node.value:
            key = loader.construct_object(k) if isinstance(k, yaml.ScalarNode) else None
            if not isinstance(key, str | int | float | bool) or isinstance(key, bool):
                key = str(key) if key is not None else ""
            key = str(key)
            out[key] = _build(loader, v, (*path, key), lines)
            lines[(*path, key, "")] = k.start_mark.line + 1  # the key's own line
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_build(loader, v, (*path, i), lines) for i, v in enumerate(node.value)]
    if node.tag == "tag:yaml.org,2002:timestamp":
        return str(node.value)
    return loader.construct_object(node, deep=True)


def _compose(text: str, file: str) -> tuple[Any, dict[Path_, int]]:
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            raise ScenarioError(file, 1, "", "the scenario is empty")
        lines: dict[Path_, int] = {}
        return _build(loader, node, (), lines), lines
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        raise ScenarioError(file, mark.line + 1 if mark else 0, "", f"invalid YAML: {e.problem or e}") from None
    except yaml.YAMLError as e:
        raise ScenarioError(file, 0, "", f"invalid YAML: {e}") from None
    finally:
        loader.dispose()


_MSGSPEC_PATH = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\[\.\.\.\]")


def _parse_path(text: str) -> Path_:
    out: list[str | int] = []
    for m in _MSGSPEC_PATH.finditer(text):
        if m.group(1) is not None:
            out.append(m.group(1))
        elif m.group(2) is not None:
            out.append(int(m.group(2)))
    return tuple(out)


def _fmt(path: Path_) -> str:
    s = ""
    for p in path:
        s += f"[{p}]" if isinstance(p, int) else (f".{p}" if s else p)
    return s


class _Ctx:
    def __init__(self, file: str, lines: dict[Path_, int], base: Path) -> None:
        self.file, self.lines, self.base = file, lines, base

    def line(self, path: Path_) -> int:
        key_line = self.lines.get((*path, ""))
        if key_line:
            return key_line
        p = path
        while p:
            if p in self.lines:
                return self.lines[p]
            p = p[:-1]
        return self.lines.get((), 0)

    def error(self, path: Path_, message: str) -> ScenarioError:
        return ScenarioError(self.file, self.line(path), _fmt(path), message)


def _shape_error(ctx: _Ctx, e: msgspec.ValidationError) -> ScenarioError:
    msg = str(e)
    head, sep, where = msg.rpartition(" - at `")
    path = _parse_path(where.rstrip("`")[1:]) if sep else ()
    if not sep:
        head = msg
    m = re.match(r"Object contains unknown field `([^`]+)`", head)
    if m:
        return ctx.error((*path, m.group(1)), "unknown field")
    m = re.match(r"Object missing required field `([^`]+)`", head)
    if m:
        return ctx.error((*path, m.group(1)), "required field is missing")
    if path and path[-1] == "action" and head.startswith("Invalid value"):
        tags = sorted(t.__struct_config__.tag for t in Step.__args__)
        return ctx.error(path, f"{head.replace('Invalid value', 'unknown action')} (one of: {', '.join(tags)})")
    if head.startswith("Expected `object`, got") and path and path[-1] == "action":
        return ctx.error(path, head)
    return ctx.error(path, head.replace("`", ""))


# --- semantic checks -------------------------------------------------------------------------------

def _duration(ctx: _Ctx, path: Path_, value: Duration | None) -> None:
    if value is None:
        return
    try:
        parse_duration(value)
    except ValueError as e:
        raise ctx.error(path, str(e)) from None


def _expression(ctx: _Ctx, path: Path_, text: str | None) -> Expression | None:
    if text is None:
        return None
    try:
        return compile_expression(text)
    except ExpressionError as e:
        raise ctx.error(path, f"{e.message} at column {e.column} of the expression:\n  {e.pointer()}".replace(
            "\n", "\n  ", 1)) from None


_TARGET = re.compile(r"^[a-z][a-z0-9.]*/[a-z0-9]([-a-z0-9.]*[a-z0-9])?$")


def _manifests(ctx: _Ctx, path: Path_, item: dict[str, Any]) -> list[dict[str, Any]]:
    keys = set(item)
    if keys == {"file"}:
        f = ctx.base / str(item["file"])
        try:
            text = f.read_text()
        except OSError as e:
            raise ctx.error((*path, "file"), f"cannot read {f}: {e.strerror}") from None
        return _split(ctx, (*path, "file"), text)
    if keys == {"yaml"}:
        return _split(ctx, (*path, "yaml"), str(item["yaml"]))
    for field in ("apiVersion", "kind"):
        if not isinstance(item.get(field), str):
            raise ctx.error((*path, field), "required field is missing (a manifest, {file: PATH} or {yaml: TEXT})")
    return [item]


def _split(ctx: _Ctx, path: Path_, text: str) -> list[dict[str, Any]]:
    try:
        docs = load_yaml(text)
    except ApiError as e:
        raise ctx.error(path, e.message) from None
    for i, d in enumerate(docs):
        if not isinstance(d.get("kind"), str) or not isinstance(d.get("apiVersion"), str):
            raise ctx.error(path, f"document {i + 1}: apiVersion and kind are required")
    return docs


def _check(ctx: _Ctx, sc: Scenario) -> list[dict[str, Any]]:
    _duration(ctx, ("until",), sc.until)
    for i, pool in enumerate(sc.cluster.node_pools):
        if pool.count < 0:
            raise ctx.error(("cluster", "nodePools", i, "count"), "must not be negative")
    for ref, prof in sc.images.items():
        try:
            msgspec.convert(prof, ImageProfile)
        except msgspec.ValidationError as e:
            raise ctx.error(("images", ref), f"invalid image profile: {str(e).replace('`', '')}") from None
    objects: list[dict[str, Any]] = []
    for i, item in enumerate(sc.manifests):
        objects.extend(_manifests(ctx, ("manifests", i), item))
    for i, st in enumerate(sc.steps):
        p: Path_ = ("steps", i)
        if st.at is not None and st.when is not None:
            raise ctx.error((*p, "when"), "give either 'at' or 'when', not both")
        _duration(ctx, (*p, "at"), st.at)
        _duration(ctx, (*p, "timeout"), st.timeout)
        _expression(ctx, (*p, "when"), st.when)
        for f in ("duration",):
            if hasattr(st, f):
                _duration(ctx, (*p, f), getattr(st, f))
        if hasattr(st, "target") and not _TARGET.match(st.target):
            raise ctx.error((*p, "target"), f"invalid target {st.target!r} (want KIND/NAME, e.g. deployment/web)")
        if isinstance(st, Apply):
            given = [k for k in ("manifest", "file", "yaml") if getattr(st, k) is not None]
            if len(given) != 1:
                raise ctx.error(p, "apply needs exactly one of 'manifest', 'file' or 'yaml'")
            _manifests(ctx, p, {given[0]: getattr(st, given[0])} if given[0] != "manifest" else st.manifest or {})
        if isinstance(st, Patch) and st.type not in ("strategic", "merge", "json"):
            raise ctx.error((*p, "type"), f"unsupported patch type {st.type!r} (strategic, merge or json)")
        if isinstance(st, InjectFault) and st.error not in (409, 429, 500, 503, "timeout"):
            raise ctx.error((*p, "error"), f"unsupported error {st.error!r} (409, 429, 500, 503 or timeout)")
    for i, ex in enumerate(sc.expect):
        p = ("expect", i)
        kinds = [k for k, v in (("eventually", ex.eventually), ("always", ex.always), ("atEnd", ex.at_end))
                 if v is not None]
        if len(kinds) != 1:
            raise ctx.error(p, "an expectation needs exactly one of 'eventually', 'always' or 'atEnd'")
        _expression(ctx, (*p, kinds[0]), ex.eventually or ex.always or ex.at_end)
        _duration(ctx, (*p, "within"), ex.within)
        _duration(ctx, (*p, "after"), ex.after)
        if ex.within is not None and ex.eventually is None:
            raise ctx.error((*p, "within"), "'within' goes with 'eventually'")
    return objects


def parse_scenario(text: str, *, file: str = "<scenario>", base: Path | None = None) -> Scenario:
    """Validate ``text``; ``base`` is the directory manifest files are relative to."""
    data, lines = _compose(text, file)
    ctx = _Ctx(file, lines, base or Path("."))
    if not isinstance(data, dict):
        raise ScenarioError(file, 1, "", "a scenario is a mapping (name, cluster, manifests, steps, expect)")
    for k in ("path", "objects"):
        if k in data:
            raise ctx.error((k,), "unknown field")
    try:
        sc = msgspec.convert(data, Scenario, strict=True)
    except msgspec.ValidationError as e:
        raise _shape_error(ctx, e) from None
    objects = _check(ctx, sc)
    return msgspec.structs.replace(sc, path=file, objects=objects)


def load_scenario(path: str | Path) -> Scenario:
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as e:
        raise ScenarioError(str(path), 0, "", f"cannot read the scenario: {e.strerror}") from None
    return parse_scenario(text, file=str(path), base=p.parent)
