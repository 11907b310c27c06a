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

import math
import re
from pathlib import Path
from typing import Any

import msgspec
import yaml

from kubelite.api.codec import load_yaml
from kubelite.errors import ApiError
from kubelite.scenario.expressions import Expression, ExpressionError, Origin, compile_expression
from kubelite.workload import ImageProfile

__all__ = [
    "ClusterSpec", "Expectation", "NodePoolSpec", "Scenario", "ScenarioError", "Step", "Taint",
    "load_scenario", "origins_of", "parse_duration", "parse_scenario", "read_bounded",
]

Duration = str | int | float

#: bounds on what a scenario may ask for (a typo must not ask for a million nodes or a year of virtual time)
MAX_FILE_BYTES = 4 * 1024 * 1024
MAX_YAML_DEPTH = 100
MAX_YAML_ALIASES = 100
MAX_YAML_NODES = 200_000
MAX_DURATION = 30 * 86400.0
MAX_NODES = 1000
MAX_REPLICAS = 100_000
MAX_RATE = 10_000.0
MAX_TIMES = 1_000_000
MAX_SEED = 2**63 - 1


class ScenarioError(ValueError):
    """An invalid scenario: ``file``, 1-based ``line`` (0 when unknown) and ``column`` (0 when not
    meaningful), ``field`` path and message. ``errors`` holds every problem found (this one first);
    ``str()`` shows them all, one ``FILE:LINE[:COLUMN]: FIELD: problem`` each."""

    def __init__(self, file: str, line: int, field: str, message: str, column: int = 0) -> None:
        self.file, self.line, self.field, self.message, self.column = file, line, field, message, column
        self.errors: list[ScenarioError] = [self]
        super().__init__(self._one())

    def _one(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        if self.line and self.column:
            where += f":{self.column}"
        return f"{where}: {self.field}: {self.message}" if self.field else f"{where}: {self.message}"

    @classmethod
    def of(cls, errors: list[ScenarioError]) -> ScenarioError:
        """One error carrying all of ``errors`` (sorted by line, duplicates dropped)."""
        seen: dict[str, ScenarioError] = {}
        for e in sorted(errors, key=lambda e: (e.file != errors[0].file, e.line, e.column)):
            seen.setdefault(e._one(), e)
        unique = list(seen.values())
        head = unique[0]
        out = cls(head.file, head.line, head.field, head.message, head.column)
        out.errors = unique
        out.args = ("\n".join(e._one() for e in unique),)
        return out

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else self._one()


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
    #: act as this user (API steps; RBAC applies), with these groups
    as_user: str | None = msgspec.field(default=None, name="as")
    as_groups: list[str] = []
    #: the step is expected to be rejected with an error containing this text (it fails if it succeeds)
    expect_error: str | None = None


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


class CrashNode(_Step, frozen=True, kw_only=True, tag="crashNode"):
    """The whole node dies (power loss): its kubelet stops and its containers stop answering."""

    node: str


class AddNode(_Step, frozen=True, kw_only=True, tag="addNode"):
    """A pool of ``count`` new nodes ``<pool>-0``, ``<pool>-1``, ... joins the cluster."""

    pool: str
    count: int = 1
    capacity: dict[str, str | int] | None = None
    labels: dict[str, str] = {}
    taints: list[Taint] = []
    zones: list[str] | None = None
    instance_type: str | None = None


class CrashControllerManager(_Step, frozen=True, kw_only=True, tag="crashControllerManager"):
    pass


class RestartControllerManager(_Step, frozen=True, kw_only=True, tag="restartControllerManager"):
    pass


class DropWatches(_Step, frozen=True, kw_only=True, tag="dropWatches"):
    """Every open watch is closed (as an apiserver restart or a load balancer does); clients resume."""


class RegisterAdmissionHook(_Step, frozen=True, kw_only=True, tag="registerAdmissionHook"):
    """A validating admission webhook: a request it matches is denied when ``denyIf`` holds; the
    expression sees ``request`` (operation, namespace, name, object, oldObject, user)."""

    hook: str
    resources: list[str] = msgspec.field(default_factory=lambda: ["*"])
    operations: list[str] = msgspec.field(default_factory=lambda: ["CREATE", "UPDATE"])
    deny_if: str
    message: str = "denied by policy"


class FailReadiness(_Step, frozen=True, kw_only=True, tag="failReadiness"):
    """From now on the readiness probe of the pod's container fails (the app stops answering /ready)."""

    pod: str
    namespace: str = "default"
    container: str | None = None


class CrashContainer(_Step, frozen=True, kw_only=True, tag="crashContainer"):
    #: "NAME", "NS/NAME", or "deployment/NAME" (the oldest of the Deployment's pods)
    pod: str
    namespace: str = "default"
    container: str | None = None


class MakeUnpullable(_Step, frozen=True, kw_only=True, tag="makeUnpullable"):
    image: str
    node: str | None = None
    unpullable: bool = True


class BreakCni(_Step, frozen=True, kw_only=True, tag="breakCni"):
    node: str | None = None
    broken: bool = True


class DevicePlugin(_Step, frozen=True, kw_only=True, tag="devicePlugin"):
    """A node's device plugin changes what it reports (docs/scenarios.md)."""

    node: str
    resource: str = "nvidia.com/gpu"
    #: the plugin now lists this many devices (``<GPU>-<node>-0`` ...)
    devices: int | None = None
    #: device IDs reporting Unhealthy from now on (the others Healthy)
    unhealthy: list[str] | None = None
    stopped: bool = False


class StartTraffic(_Step, frozen=True, kw_only=True, tag="startTraffic"):
    service: str
    namespace: str = "default"
    rate: float = 100.0
    from_node: str | None = None
    duration: Duration | None = None
    port: int | None = None
    #: the client pod, "namespace/name" (NetworkPolicies see it); default: a host process on ``fromNode``
    from_pod: str | None = None


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
        | RecoverNode | CrashContainer | MakeUnpullable | BreakCni | DevicePlugin | StartTraffic | StopTraffic
        | InjectFault
        | Wait | CrashNode | AddNode | CrashControllerManager | RestartControllerManager | DropWatches
        | RegisterAdmissionHook | FailReadiness)


class Scenario(_S, frozen=True, kw_only=True):
    name: str
    description: str = ""
    seed: int = 1
    until: Duration = "10m"
    cluster: ClusterSpec = ClusterSpec()
    #: image reference -> profile fields (docs/workload-profiles.md)
    images: dict[str, dict[str, Any]] = {}
    #: every well-formed image reference exists (as on a cluster pulling from real registries); false: only
    #: ``images`` and the well-known images exist, so an unlisted reference fails as a typo would
    allow_any_image: bool = True
    #: references that do not exist in their registry (with a tag: that tag; without: every tag)
    missing_images: list[str] = []
    #: inline manifests, {file: PATH} or {yaml: TEXT}; expanded by the loader to objects
    manifests: list[dict[str, Any]] = []
    steps: list[Step] = []
    expect: list[Expectation] = []
    #: filled by the loader
    path: str = ""
    objects: list[dict[str, Any]] = []
    #: (file, line) of each of ``objects``
    object_origins: list[tuple[str, int]] = []
    #: every manifest the run applies (``objects``, then those of ``apply`` steps) with its file and line
    all_manifests: list[tuple[dict[str, Any], str, int]] = []
    #: field path ("expect[0].always") -> (offset in the text, line, column) pieces of the expression's source
    expression_origins: dict[str, list[tuple[int, int, int]]] = {}


# --- durations -------------------------------------------------------------------------------------

_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h|d)")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_UNIT = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def parse_duration(value: Duration) -> float:
    """Seconds from ``90``, ``90s``, ``1m30s``, ``2h``, ``500ms``; ValueError otherwise, and for anything
    negative, not finite (``.inf``, ``.nan``) or longer than :data:`MAX_DURATION`."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ValueError(f"invalid duration {value!r}")
    if isinstance(value, int | float):
        if not math.isfinite(value):
            raise ValueError(f"invalid duration {value!r}: must be a finite number of seconds")
        if value < 0:
            raise ValueError(f"invalid duration {value!r}: must not be negative")
        total = float(value)
    else:
        s = value.strip()
        if len(s) > 64:
            raise ValueError(f"invalid duration {value[:64]!r}...")
        if _NUMBER.fullmatch(s):
            total = float(s)
        else:
            pos, total = 0, 0.0
            for m in _DURATION.finditer(s):
                if m.start() != pos:
                    break
                total += float(m.group(1)) * _UNIT[m.group(2)]
                pos = m.end()
            if pos != len(s) or not s:
                raise ValueError(f"invalid duration {value!r} (use e.g. 90s, 5m, 1h30m)")
    if total > MAX_DURATION:
        raise ValueError(f"duration {value!r} is longer than the {MAX_DURATION / 86400:g} days a scenario may last")
    return total


# --- YAML with line numbers, bounded ---------------------------------------------------------------

Path_ = tuple[str | int, ...]


def _scan(text: str, file: str, line0: int = 0) -> list[int]:
    """Walk the YAML event stream (PyYAML's parser is iterative) and refuse what would be unbounded to
    compose or construct: nesting deeper than :data:`MAX_YAML_DEPTH`, more than :data:`MAX_YAML_ALIASES`
    aliases (a "billion laughs" expands exponentially), more than :data:`MAX_YAML_NODES` nodes. Returns
    the 1-based line of each non-empty document. ``line0`` offsets the lines (text embedded in a file)."""
    depth = nodes = aliases = 0
    starts: list[int] = []
    doc_line = 0
    doc_has_node = False
    try:
        for ev in yaml.parse(text, Loader=yaml.SafeLoader):
            line = ev.start_mark.line + 1 + line0 if ev.start_mark is not None else 0
            if isinstance(ev, yaml.DocumentStartEvent):
                doc_line, doc_has_node = 0, False
            elif isinstance(ev, yaml.DocumentEndEvent):
                if doc_has_node:
                    starts.append(doc_line)
            elif isinstance(ev, yaml.AliasEvent):
                aliases += 1
                if aliases > MAX_YAML_ALIASES:
                    raise ScenarioError(file, line, "", f"more than {MAX_YAML_ALIASES} YAML aliases")
            elif isinstance(ev, yaml.NodeEvent):
                nodes += 1
                if not doc_has_node and not (isinstance(ev, yaml.ScalarEvent) and ev.value == "" and depth == 0):
                    doc_has_node, doc_line = True, line
                if nodes > MAX_YAML_NODES:
                    raise ScenarioError(file, line, "", f"more than {MAX_YAML_NODES} YAML nodes")
                if isinstance(ev, yaml.CollectionStartEvent):
                    depth += 1
                    if depth > MAX_YAML_DEPTH:
                        raise ScenarioError(file, line, "", f"YAML nested deeper than {MAX_YAML_DEPTH} levels")
            elif isinstance(ev, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        raise ScenarioError(file, mark.line + 1 + line0 if mark else 0, "", f"invalid YAML: {e.problem or e}") from None
    except yaml.YAMLError as e:
        raise ScenarioError(file, 0, "", f"invalid YAML: {e}") from None
    return starts


class _Builder:
    """Plain data from a composed node tree, with a map from field path to line, and the style and marks
    of every string scalar (for expression columns). Expanding an alias re-walks its node, so the walk
    is budgeted (:data:`MAX_YAML_NODES` visits) as well as the scan."""

    def __init__(self, loader: Any, file: str) -> None:
        self.loader = loader
        self.file = file
        self.lines: dict[Path_, int] = {}
        self.scalars: dict[Path_, yaml.ScalarNode] = {}
        self.visits = 0
        self.active: set[int] = set()

    def build(self, node: yaml.Node, path: Path_) -> Any:
        self.visits += 1
        if self.visits > MAX_YAML_NODES:
            raise ScenarioError(self.file, node.start_mark.line + 1, _fmt(path),
                                f"more than {MAX_YAML_NODES} YAML nodes once aliases are expanded")
        if id(node) in self.active:
            raise ScenarioError(self.file, node.start_mark.line + 1, _fmt(path), "recursive YAML alias")
        self.lines[path] = node.start_mark.line + 1
        if isinstance(node, yaml.MappingNode):
            self.active.add(id(node))
            self.loader.flatten_mapping(node)
            out: dict[str, Any] = {}
            for k, v in node.value:
                key = self.loader.construct_object(k) if isinstance(k, yaml.ScalarNode) else None
                key = "" if key is None else str(key)
                out[key] = self.build(v, (*path, key))
                self.lines[(*path, key, "")] = k.start_mark.line + 1  # the key's own line
            self.active.discard(id(node))
            return out
        if isinstance(node, yaml.SequenceNode):
            self.active.add(id(node))
            items = [self.build(v, (*path, i)) for i, v in enumerate(node.value)]
            self.active.discard(id(node))
            return items
        if node.tag == "tag:yaml.org,2002:timestamp":
            return str(node.value)
        value = self.loader.construct_object(node, deep=True)
        if isinstance(value, str) and isinstance(node, yaml.ScalarNode):
            self.scalars[path] = node
        return value


def _compose(text: str, file: str) -> tuple[Any, _Builder]:
    _scan(text, file)
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            raise ScenarioError(file, 1, "", "the scenario is empty")
        b = _Builder(loader, file)
        return b.build(node, ()), b
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        raise ScenarioError(file, mark.line + 1 if mark else 0, "", f"invalid YAML: {e.problem or e}") from None
    except yaml.YAMLError as e:
        raise ScenarioError(file, 0, "", f"invalid YAML: {e}") from None
    except RecursionError:  # the scan bounds depth; kept so no input can end in a traceback
        raise ScenarioError(file, 0, "", "YAML nested too deeply") from None
    finally:
        loader.dispose()


def _segments(node: yaml.ScalarNode, value: str, lines: list[str]) -> list[tuple[int, int, int]]:
    """Where each piece of a string scalar's value sits in the file: (offset, 1-based line, 1-based column).
    Exact for one-line scalars and for the usual folded (``>``) and literal (``|``) blocks; otherwise the
    scalar's first line."""
    sl, sc = node.start_mark.line, node.start_mark.column
    style = node.style
    if style in (None, '"', "'") and node.end_mark.line == sl:
        return [(0, sl + 1, sc + 1 + (1 if style else 0))]
    if style in (">", "|"):
        body = lines[sl + 1:node.end_mark.line + 1]
        content = [ln for ln in body if ln.strip()]
        if not content:
            return [(0, sl + 2, 1)]
        indent = len(content[0]) - len(content[0].lstrip(" "))
        parts, where = [], []
        for i, ln in enumerate(body):
            if not ln.strip():
                break
            parts.append(ln[indent:])
            where.append(sl + 2 + i)
        sep = "\n" if style == "|" else " "
        if sep.join(parts).rstrip("\n") == value.rstrip("\n"):
            out, off = [], 0
            for part, line in zip(parts, where, strict=True):
                out.append((off, line, indent + 1))
                off += len(part) + 1
            return out
        return [(0, sl + 2, indent + 1)]
    # a plain or quoted scalar folded over several lines
    first = lines[sl][sc + (1 if style else 0):] if sl < len(lines) else ""
    parts = [first.rstrip(), *(ln.strip() for ln in lines[sl + 1:node.end_mark.line + 1])]
    if style:
        parts[-1] = parts[-1][:-1] if parts[-1].endswith(style) else parts[-1]
    parts = [p for p in parts if p]
    if " ".join(parts) == value:
        out, off = [], 0
        line = sl + 1
        for i, part in enumerate(parts):
            col = sc + 1 + (1 if style else 0) if i == 0 else len(lines[line - 1]) - len(lines[line - 1].lstrip()) + 1
            out.append((off, line, col))
            off += len(part) + 1
            line += 1
        return out
    return [(0, sl + 1, sc + 1)]


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
    def __init__(self, file: str, b: _Builder, base: Path, text: str) -> None:
        self.file, self.lines, self.base = file, b.lines, base
        self.scalars = b.scalars
        self.text_lines = text.split("\n")
        self.errors: list[ScenarioError] = []
        self.origins: dict[str, list[tuple[int, int, int]]] = {}
        self.step_objects: list[tuple[dict[str, Any], tuple[str, int]]] = []

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

    def add(self, path: Path_, message: str) -> None:
        self.errors.append(self.error(path, message))


def _shape_error(ctx: _Ctx, e: msgspec.ValidationError, prefix: Path_ = ()) -> ScenarioError:
    msg = str(e)
    head, sep, where = msg.rpartition(" - at `")
    path = (*prefix, *_parse_path(where.rstrip("`")[1:])) if sep else prefix
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
    return ctx.error(path, head.replace("`", ""))


# --- semantic checks -------------------------------------------------------------------------------

def _numbers(ctx: _Ctx, v: Any, path: Path_) -> None:
    """No number anywhere may be NaN, infinite or beyond int64 (YAML's ``.inf``, ``.nan``, 1e400)."""
    stack: list[tuple[Any, Path_]] = [(v, path)]
    while stack:
        x, p = stack.pop()
        if isinstance(x, dict):
            stack.extend((x[k], (*p, k)) for k in x)
        elif isinstance(x, list):
            stack.extend((y, (*p, i)) for i, y in enumerate(x))
        elif isinstance(x, float) and not math.isfinite(x):
            ctx.add(p, f"{x!r} is not a finite number")
        elif isinstance(x, int) and not isinstance(x, bool) and abs(x) > MAX_SEED:
            ctx.add(p, "integer out of range (int64)")


def _duration(ctx: _Ctx, path: Path_, value: Duration | None) -> None:
    if value is None:
        return
    try:
        parse_duration(value)
    except ValueError as e:
        ctx.add(path, str(e))


def _range(ctx: _Ctx, path: Path_, value: float | None, lo: float, hi: float) -> None:
    if value is not None and not (lo <= value <= hi):
        ctx.add(path, f"{value!r} is out of range ({lo:g} to {hi:g})")


def _expression(ctx: _Ctx, path: Path_, text: str | None) -> Expression | None:
    if text is None:
        return None
    node = ctx.scalars.get(path)
    segs = _segments(node, text, ctx.text_lines) if node is not None else [(0, ctx.line(path), 1)]
    ctx.origins[_fmt(path)] = segs
    origin = Origin(ctx.file, segs)
    try:
        return compile_expression(text, origin)
    except ExpressionError as e:
        ctx.errors.append(ScenarioError(ctx.file, e.line, _fmt(path), f"{e.message}:\n{e.pointer(indent='    ')}",
                                        e.file_column))
        return None


_TARGET = re.compile(r"^[a-z][a-z0-9.]*/[a-z0-9]([-a-z0-9.]*[a-z0-9])?$")


def read_bounded(path: Path, what: str = "file") -> str:
    """A text file's content, refusing what is not a regular file, larger than :data:`MAX_FILE_BYTES`,
    not UTF-8 or holding NUL bytes (ValueError; OSError from the system)."""
    import os
    import stat

    with open(path, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise ValueError(f"{path} is not a regular file")
        data = fh.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise ValueError(f"the {what} is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB")
    if b"\x00" in data:
        line = data[:data.index(b"\x00")].count(b"\n") + 1
        raise ValueError(f"the {what} holds a NUL byte (line {line})")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"the {what} is not UTF-8 (byte {e.start})") from None


def _manifests(ctx: _Ctx, path: Path_, item: dict[str, Any]) -> list[tuple[dict[str, Any], tuple[str, int]]]:
    keys = set(item)
    if keys == {"file"}:
        f = ctx.base / str(item["file"])
        try:
            text = read_bounded(f, "manifest file")
        except OSError as e:
            ctx.add((*path, "file"), f"cannot read {f}: {e.strerror}")
            return []
        except ValueError as e:
            ctx.add((*path, "file"), str(e))
            return []
        return _split(ctx, (*path, "file"), text, str(f), 0)
    if keys == {"yaml"}:
        text = str(item["yaml"])
        node = ctx.scalars.get((*path, "yaml"))
        line0 = node.start_mark.line + (1 if node.style in ("|", ">") else 0) if node is not None else 0
        return _split(ctx, (*path, "yaml"), text, ctx.file, line0)
    for field in ("apiVersion", "kind"):
        if not isinstance(item.get(field), str):
            ctx.add((*path, field), "required field is missing (a manifest, {file: PATH} or {yaml: TEXT})")
            return []
    return [(item, (ctx.file, ctx.line(path)))]


def _split(ctx: _Ctx, path: Path_, text: str, file: str, line0: int) -> list[tuple[dict[str, Any], tuple[str, int]]]:
    try:
        starts = _scan(text, file, line0)
        docs = load_yaml(text)
    except ScenarioError as e:
        ctx.errors.append(e if file != ctx.file or e.line else ctx.error(path, e.message))
        return []
    except ApiError as e:
        ctx.add(path, e.message)
        return []
    except RecursionError:
        ctx.add(path, "YAML nested too deeply")
        return []
    out = []
    for i, d in enumerate(docs):
        line = starts[i] if len(starts) == len(docs) else (starts[0] if starts else ctx.line(path))
        if not isinstance(d.get("kind"), str) or not isinstance(d.get("apiVersion"), str):
            ctx.errors.append(ScenarioError(file, line, _fmt(path) if file == ctx.file else "",
                                            f"document {i + 1}: apiVersion and kind are required"))
            continue
        out.append((d, (file, line)))
    return out


def _check(ctx: _Ctx, sc: Scenario) -> list[tuple[dict[str, Any], tuple[str, int]]]:
    _duration(ctx, ("until",), sc.until)
    _range(ctx, ("seed",), sc.seed, 0, MAX_SEED)
    for i, pool in enumerate(sc.cluster.node_pools):
        _range(ctx, ("cluster", "nodePools", i, "count"), pool.count, 0, MAX_NODES)
    if sum(max(0, p.count) for p in sc.cluster.node_pools) > MAX_NODES:
        ctx.add(("cluster", "nodePools"), f"more than {MAX_NODES} nodes in all")
    for ref, prof in sc.images.items():
        try:
            msgspec.convert(prof, ImageProfile)
        except msgspec.ValidationError as e:
            ctx.add(("images", ref), f"invalid image profile: {str(e).replace('`', '')}")
    objects: list[tuple[dict[str, Any], tuple[str, int]]] = []
    for i, item in enumerate(sc.manifests):
        objects.extend(_manifests(ctx, ("manifests", i), item))
    for i, st in enumerate(sc.steps):
        p: Path_ = ("steps", i)
        if st.at is not None and st.when is not None:
            ctx.add((*p, "when"), "give either 'at' or 'when', not both")
        _duration(ctx, (*p, "at"), st.at)
        _duration(ctx, (*p, "timeout"), st.timeout)
        _expression(ctx, (*p, "when"), st.when)
        if isinstance(st, RegisterAdmissionHook):
            _expression(ctx, (*p, "denyIf"), st.deny_if)
            for j, op in enumerate(st.operations):
                if op.upper() not in ("CREATE", "UPDATE", "DELETE", "CONNECT", "*"):
                    ctx.add((*p, "operations", j), f"unknown operation {op!r} (CREATE, UPDATE, DELETE, CONNECT)")
        for name in ("duration", "after"):
            if isinstance(getattr(st, name, None), str | int | float):
                _duration(ctx, (*p, name), getattr(st, name))
        if hasattr(st, "target") and not _TARGET.match(st.target):
            ctx.add((*p, "target"), f"invalid target {st.target!r} (want KIND/NAME, e.g. deployment/web)")
        for name, lo, hi in (("replicas", 0, MAX_REPLICAS), ("rate", 0.001, MAX_RATE), ("times", 1, MAX_TIMES),
                             ("probability", 0.0, 1.0), ("grace_period", 0, 86400), ("to_revision", 0, MAX_SEED),
                             ("port", 1, 65535), ("count", 1, MAX_NODES)):
            v = getattr(st, name, None)
            if isinstance(v, int | float) and not isinstance(v, bool):
                _range(ctx, (*p, _camel(name)), v, lo, hi)
        if isinstance(st, Apply):
            given = [k for k in ("manifest", "file", "yaml") if getattr(st, k) is not None]
            if len(given) != 1:
                ctx.add(p, "apply needs exactly one of 'manifest', 'file' or 'yaml'")
            else:
                ctx.step_objects.extend(_manifests(
                    ctx, p, {given[0]: getattr(st, given[0])} if given[0] != "manifest" else st.manifest or {}))
        if isinstance(st, Patch) and st.type not in ("strategic", "merge", "json"):
            ctx.add((*p, "type"), f"unsupported patch type {st.type!r} (strategic, merge or json)")
        if isinstance(st, InjectFault) and st.error not in (409, 429, 500, 503, "timeout"):
            ctx.add((*p, "error"), f"unsupported error {st.error!r} (409, 429, 500, 503 or timeout)")
    for i, ex in enumerate(sc.expect):
        p = ("expect", i)
        kinds = [k for k, v in (("eventually", ex.eventually), ("always", ex.always), ("atEnd", ex.at_end))
                 if v is not None]
        if len(kinds) != 1:
            ctx.add(p, "an expectation needs exactly one of 'eventually', 'always' or 'atEnd'")
        else:
            _expression(ctx, (*p, kinds[0]), ex.eventually or ex.always or ex.at_end)
        _duration(ctx, (*p, "within"), ex.within)
        _duration(ctx, (*p, "after"), ex.after)
        if ex.within is not None and ex.eventually is None:
            ctx.add((*p, "within"), "'within' goes with 'eventually'")
    return objects


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(r.title() for r in rest)


def _convert_parts(ctx: _Ctx, data: dict[str, Any]) -> None:
    """Every shape error, not only the first: each step, expectation and node pool on its own, then the rest."""
    parts: list[tuple[Path_, Any, Any]] = []
    for key, typ in (("steps", Step), ("expect", Expectation)):
        items = data.get(key)
        if isinstance(items, list):
            parts.extend(((key, i), item, typ) for i, item in enumerate(items))
    cluster = data.get("cluster")
    if isinstance(cluster, dict) and isinstance(cluster.get("nodePools"), list):
        parts.extend((("cluster", "nodePools", i), item, NodePoolSpec) for i, item in enumerate(cluster["nodePools"]))
        rest_cluster = {k: v for k, v in cluster.items() if k != "nodePools"}
        parts.append((("cluster",), rest_cluster, ClusterSpec))
    rest = {k: (v if k not in ("steps", "expect", "cluster") or not isinstance(v, list | dict) else
                ([] if isinstance(v, list) else {})) for k, v in data.items()}
    parts.append(((), rest, Scenario))
    for prefix, item, typ in parts:
        try:
            msgspec.convert(item, typ, strict=True)
        except msgspec.ValidationError as e:
            ctx.errors.append(_shape_error(ctx, e, prefix))


def parse_scenario(text: str, *, file: str = "<scenario>", base: Path | None = None) -> Scenario:
    """Validate ``text``; ``base`` is the directory manifest files are relative to. Raises one
    :class:`ScenarioError` listing every problem found."""
    if "\x00" in text:
        raise ScenarioError(file, text[:text.index("\x00")].count("\n") + 1, "", "the scenario holds a NUL byte")
    if len(text) > MAX_FILE_BYTES:
        raise ScenarioError(file, 0, "", f"the scenario is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB")
    data, builder = _compose(text, file)
    ctx = _Ctx(file, builder, base or Path("."), text)
    if not isinstance(data, dict):
        raise ScenarioError(file, 1, "", "a scenario is a mapping (name, cluster, manifests, steps, expect)")
    for k in ("path", "objects", "objectOrigins", "expressionOrigins"):
        if k in data:
            ctx.add((k,), "unknown field")
    _numbers(ctx, data, ())
    if ctx.errors:
        raise ScenarioError.of(ctx.errors)
    try:
        sc = msgspec.convert(data, Scenario, strict=True)
    except msgspec.ValidationError:
        _convert_parts(ctx, data)
        raise ScenarioError.of(ctx.errors or [ScenarioError(file, 0, "", "invalid scenario")]) from None
    objects = _check(ctx, sc)
    if ctx.errors:
        raise ScenarioError.of(ctx.errors)
    return msgspec.structs.replace(sc, path=file, objects=[o for o, _ in objects],
                                   object_origins=[w for _, w in objects], expression_origins=ctx.origins,
                                   all_manifests=[(o, w[0], w[1]) for o, w in [*objects, *ctx.step_objects]])


def load_scenario(path: str | Path) -> Scenario:
    p = Path(path)
    try:
        text = read_bounded(p, "scenario")
    except OSError as e:
        raise ScenarioError(str(path), 0, "", f"cannot read the scenario: {e.strerror}") from None
    except ValueError as e:
        raise ScenarioError(str(path), 0, "", str(e)) from None
    return parse_scenario(text, file=str(path), base=p.parent)


def origins_of(sc: Scenario) -> dict[str, Origin]:
    """The loader's expression origins as :class:`Origin` objects (for errors at evaluation time)."""
    return {k: Origin(sc.path or "<scenario>", [tuple(x) for x in v])  # type: ignore[misc]
            for k, v in sc.expression_origins.items()}
