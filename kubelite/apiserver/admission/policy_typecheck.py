"""Type checking of a ValidatingAdmissionPolicy's expressions against the kinds it matches (upstream
``k8s.io/apiserver/pkg/admission/plugin/policy/validating/typechecking.go``, run by kube-controller-manager's
ValidatingAdmissionPolicy status controller).

Contract:
- The kinds checked are those ``spec.matchConstraints.resourceRules`` name without wildcards (a rule with a
  ``*`` group, version or resource, or a subresource, is skipped, as upstream), resolved through the served
  resources; at most 10.
- What is checked is the part of cel-go's checker that a schema decides and celpy cannot: every field
  selection chain on ``object`` / ``oldObject`` (``object.spec.replicas``) must name fields the kind's
  schema declares. A miss is a warning ``<group/version>, Kind=<Kind>: ERROR: <input>:L:C: undefined field
  '<name>'`` followed by the expression and a caret, as cel-go prints issues; chains stop being checked
  where the schema stops being structural (maps, int-or-string, preserve-unknown-fields) or after an index
  or call. Operand types (``found no matching overload``) are not checked.
- Warnings are ``{"fieldRef": "spec.validations[i].expression" | "...messageExpression", "warning": ...}``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from kubelite.api.schema import Schema, builtin_schemas
from kubelite.apiserver.validation.admissionregistration import POLICY_VARIABLES

if TYPE_CHECKING:
    import lark

__all__ = ["SchemaLookup", "type_check"]

#: (group, version, plural) -> (kind, schema), None when no such resource is served
SchemaLookup = Callable[[str, str, str], tuple[str, Schema] | None]
_MAX_TYPES = 10
_ROOTS = ("object", "oldObject")
_META_REF = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"


def _types(policy: Mapping[str, Any], lookup: SchemaLookup) -> list[tuple[str, str, str, Schema]]:
    """``typesToCheck``: (group, version, kind, schema) sorted, wildcard rules skipped."""
    out: dict[tuple[str, str, str], Schema] = {}
    rules = ((policy.get("spec") or {}).get("matchConstraints") or {}).get("resourceRules") or ()
    for rule in rules:
        groups, versions = list(rule.get("apiGroups") or ()), list(rule.get("apiVersions") or ())
        resources = [r for r in rule.get("resources") or () if "/" not in r]
        if not groups or not versions or not resources or any("*" in x for x in (*groups, *versions, *resources)):
            continue
        for g in sorted(groups):
            for v in sorted(versions):
                for r in sorted(resources):
                    hit = lookup(g, v, r)
                    if hit is not None and len(out) < _MAX_TYPES:
                        out[(g, v, hit[0])] = hit[1]
    return [(g, v, k, s) for (g, v, k), s in sorted(out.items())]


def _chains(ast: lark.Tree[Any]) -> list[tuple[str, list[Any]]]:
    """Every maximal ``root.a.b.c`` selection: (root, [IDENT tokens])."""
    import lark  # with CEL, on first use

    out: list[tuple[str, list[Any]]] = []
    for node in ast.iter_subtrees():
        if node.data != "member_dot":
            continue
        tokens: list[Any] = []
        cur: Any = node
        while isinstance(cur, lark.Tree) and cur.data in ("member_dot", "member", "primary"):
            if cur.data == "member_dot":
                tokens.append(cur.children[1])
                cur = cur.children[0]
            elif len(cur.children) == 1:
                cur = cur.children[0]
            else:
                break
        if isinstance(cur, lark.Tree) and cur.data == "ident" and str(cur.children[0]) in _ROOTS:
            out.append((str(cur.children[0]), list(reversed(tokens))))
    return out


def _undefined(schema: Schema, tokens: list[Any]) -> Any | None:
    """The first token the schema does not declare, None if all are declared (or unknowable)."""
    node: Schema | None = schema
    for depth, tok in enumerate(tokens):
        if node is None or node.preserve_unknown_fields or node.int_or_string:
            return None
        name = str(tok)
        if depth == 0 and name == "metadata" and node.property("metadata") is None:
            node = builtin_schemas().get(_META_REF)
            continue
        props = node.properties
        if not props:
            return None  # a map (additionalProperties) or an untyped node: dynamic
        child = node.property(name)
        if child is None:
            if depth == 0 and name in ("apiVersion", "kind"):
                return None
            return tok
        node = child
    return None


def _issue(text: str, tok: Any) -> str:
    line, column = getattr(tok, "line", 1), max(getattr(tok, "column", 2) - 1, 1)
    source = text.splitlines()[line - 1] if text.splitlines() else text
    return (f"ERROR: <input>:{line}:{column}: undefined field '{tok}'\n | {source}\n | "
            f"{'.' * (column - 1)}^")


def _check(text: str, types: list[tuple[str, str, str, Schema]]) -> str:
    from kubelite.apiserver.cel import CompileError, compile_expression  # CEL loads with the first policy

    try:
        program = compile_expression(text, POLICY_VARIABLES)
    except CompileError:
        return ""  # compile errors are validation's (the policy would not have been stored)
    results = []
    chains = _chains(program.ast)
    for group, version, kind, schema in types:
        issues = []
        for _root, tokens in chains:
            tok = _undefined(schema, tokens)
            if tok is not None:
                issues.append(_issue(text, tok))
        if issues:
            gv = f"{group}/{version}" if group else version
            results.append(f"{gv}, Kind={kind}: " + "\n".join(dict.fromkeys(issues)) + "\n")
    return "\n".join(results)


def type_check(policy: Mapping[str, Any], lookup: SchemaLookup) -> list[dict[str, str]]:
    """``TypeChecker.Check``: the ``status.typeChecking.expressionWarnings`` of ``policy``."""
    types = _types(policy, lookup)
    if not types:
        return []
    warnings: list[dict[str, str]] = []
    for i, v in enumerate((policy.get("spec") or {}).get("validations") or ()):
        if not isinstance(v, Mapping):
            continue
        for key in ("expression", "messageExpression"):
            text = v.get(key)
            if isinstance(text, str) and text:
                found = _check(text, types)
                if found:
                    warnings.append({"fieldRef": f"spec.validations[{i}].{key}", "warning": found})
    return warnings
