"""RBAC authorization: upstream's ``plugin/pkg/auth/authorizer/rbac`` over an in-memory view of the
four RBAC kinds, plus the privilege-escalation checks of ``pkg/registry/rbac``.

Contract:
- :class:`RBACAuthorizer` is a *view* of the Role, ClusterRole, RoleBinding and ClusterRoleBinding
  objects in the store. Only the apiserver mutates it, by calling :meth:`~RBACAuthorizer.upsert` /
  :meth:`~RBACAuthorizer.remove` after every successful write of one of those kinds. Objects are
  plain JSON dicts; the view copies what it needs and never keeps or mutates the caller's dict.
- :meth:`~RBACAuthorizer.authorize` decides like upstream ``RBACAuthorizer.Authorize``: deny by
  default, allow when any rule reachable from a binding that names the user (User / ServiceAccount
  subject) or one of its groups (Group subject) matches. ClusterRoleBindings apply everywhere;
  RoleBindings only inside their namespace (also when they reference a ClusterRole). Members of
  ``system:masters`` are always allowed (upstream's privileged-group authorizer, which runs before
  RBAC in kube-apiserver's union).
- Aggregated ClusterRoles (``aggregationRule``): upstream's clusterrole-aggregation controller
  rewrites the role's ``rules`` with the union of the rules of every ClusterRole its selectors
  match. Here the view resolves that union itself whenever the role is used, so the result is what
  the controller would converge to, without the controller or its delay; the stored ``rules`` of
  an aggregated role are ignored (the controller overwrites them too).
- Speed: bindings are indexed by subject (user name, group) and namespace; the resolved rule list
  of each (user, groups, namespace) is cached together with a memo of recent decisions. Every
  ``upsert``/``remove`` drops all caches (RBAC writes are rare; reads happen on every request).

Rule matching follows ``pkg/apis/rbac/v1/evaluation_helpers.go`` (VerbMatches, APIGroupMatches,
ResourceMatches incl. ``*/subresource``, ResourceNameMatches, NonResourceURLMatches); escalation
follows ``pkg/registry/rbac/validation/rule.go`` (ConfirmNoEscalation), ``component-helpers
/auth/rbac/validation/policy_comparator.go`` (Covers), ``policy_compact.go`` (CompactRules) and
``pkg/registry/rbac/escalation_check.go`` (EscalationAllowed, RoleEscalationAuthorized,
BindingAuthorized) with the policy-based storages of ``pkg/registry/rbac/*/policybased``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

import msgspec

from kubelite.apiserver.auth.user import SYSTEM_PRIVILEGED_GROUP, UserInfo, service_account_username
from kubelite.errors import ApiError, Forbidden
from kubelite.memo import BoundedCache

__all__ = ["RBAC_GROUP", "Attributes", "RBACAuthorizer", "forbidden"]

RBAC_GROUP = "rbac.authorization.k8s.io"
_KINDS = ("Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding")
# Bounds keep memory flat under many identities/namespaces; hitting one just clears that cache.
_RULESET_CACHE_LIMIT = 16384
_MEMO_LIMIT = 1024
_ALLOW_PRIVILEGED = (True, "")
_FULL_AUTHORITY = [
    {"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]},
    {"verbs": ["*"], "nonResourceURLs": ["*"]},
]


class Attributes(NamedTuple):
    """``authorizer.Attributes`` of one request."""

    user: UserInfo
    verb: str
    namespace: str
    api_group: str
    resource: str
    subresource: str
    name: str
    resource_request: bool = True
    path: str = ""


def forbidden(attrs: Attributes, reason: str = "") -> ApiError:
    """The 403 kube-apiserver returns for a denied request (``responsewriters.Forbidden``)."""
    if attrs.resource_request:
        return Forbidden.for_request(
            user=attrs.user.name, verb=attrs.verb, group=attrs.api_group, resource=attrs.resource,
            subresource=attrs.subresource, name=attrs.name, namespace=attrs.namespace, reason=reason,
        )
    msg = f"User {_q(attrs.user.name)} cannot {attrs.verb} path {_q(attrs.path)}"
    # NewForbidden with an empty GroupResource: "forbidden: <msg>".
    return Forbidden.make(f"forbidden: {msg}: {reason}" if reason else f"forbidden: {msg}")


def _q(s: str) -> str:
    """Go's ``%q`` for plain strings."""
    return msgspec.json.encode(s).decode()


def _q_list(items: Iterable[str]) -> str:
    """Go's ``%q`` for a ``[]string``: ``["a" "b"]``."""
    return "[" + " ".join(_q(s) for s in items) + "]"


def _strs(v: Any) -> tuple[str, ...]:
    return tuple(x for x in v if isinstance(x, str)) if isinstance(v, list | tuple) else ()


#: compiled PolicyRules by their encoding: a cluster has a few hundred distinct rules (bootstrap roles plus the
#: users'); 20,000 covers many tenants, beyond that the least recently used are recompiled.
_RULE_CACHE: BoundedCache[bytes, _Rule] = BoundedCache("apiserver.rbac.rules", maxsize=20_000)


def _compile(key: bytes) -> _Rule:
    """The compiled rule of a PolicyRule's JSON encoding, shared by every identical rule (rules are immutable
    once compiled; every cluster bootstraps the same ~300 rules, so this keeps cluster start cheap)."""
    rule = _RULE_CACHE.get(key)
    if rule is None:
        rule = _Rule(msgspec.json.decode(key))
        _RULE_CACHE.put(key, rule)
    return rule


class _Rules:
    """A role's rules, kept as their JSON encodings (a copy: nothing the caller mutates later reaches them) and
    compiled with the first authorization or check that reads them. A cluster's start records ~300 bootstrap
    rules and reads few of them (issue #17, cold start: compiling every one cost ~6,000 Python calls)."""

    __slots__ = ("_compiled", "_encoded")

    def __init__(self, raw: Any) -> None:
        self._encoded = tuple(msgspec.json.encode(r) for r in raw or () if isinstance(r, Mapping))
        self._compiled: tuple[_Rule, ...] | None = None

    def get(self) -> tuple[_Rule, ...]:
        rules = self._compiled
        if rules is None:
            rules = self._compiled = tuple(_compile(k) for k in self._encoded)
        return rules


class _Rule:
    """One PolicyRule compiled for matching. ``None`` in a set field means the ``*`` wildcard."""

    __slots__ = ("groups", "key", "names", "raw", "resources", "sub_wild", "url_all", "url_exact",
                 "url_prefixes", "verbs")

    def __init__(self, raw: Mapping[str, Any]) -> None:
        verbs, groups = _strs(raw.get("verbs")), _strs(raw.get("apiGroups"))
        resources, names = _strs(raw.get("resources")), _strs(raw.get("resourceNames"))
        urls = _strs(raw.get("nonResourceURLs"))
        self.key = (verbs, groups, resources, names, urls)
        norm: dict[str, list[str]] = {"verbs": list(verbs)}
        for field, vals in (("apiGroups", groups), ("resources", resources), ("resourceNames", names),
                            ("nonResourceURLs", urls)):
            if vals:
                norm[field] = list(vals)
        self.raw = norm
        self.verbs = None if "*" in verbs else frozenset(verbs)
        self.groups = None if "*" in groups else frozenset(groups)
        self.resources = None if "*" in resources else frozenset(resources)
        self.sub_wild = frozenset(r[2:] for r in resources if r.startswith("*/"))
        self.names = frozenset(names) if names else None
        self.url_all = "*" in urls
        self.url_exact = frozenset(urls)
        self.url_prefixes = tuple(u.rstrip("*") for u in urls if u.endswith("*"))

    def allows(self, a: Attributes) -> bool:
        """``RuleAllows``."""
        if self.verbs is not None and a.verb not in self.verbs:
            return False
        if not a.resource_request:
            return self._url_matches(a.path)
        if self.groups is not None and a.api_group not in self.groups:
            return False
        if self.resources is not None:
            sub = a.subresource
            combined = f"{a.resource}/{sub}" if sub else a.resource
            if combined not in self.resources and not (sub and sub in self.sub_wild):
                return False
        return self.names is None or a.name in self.names

    def _url_matches(self, path: str) -> bool:
        return self.url_all or path in self.url_exact or any(path.startswith(p) for p in self.url_prefixes)

    def covers(self, group: str | None, resource: str | None, verb: str, name: str | None,
               url: str | None) -> bool:
        """``ruleCovers`` for one broken-down servant rule (one group/resource/verb/name or url/verb)."""
        if self.verbs is not None and verb not in self.verbs:
            return False
        if url is not None:
            return self._url_matches(url)
        if self.groups is not None and group not in self.groups:
            return False
        if self.resources is not None and resource not in self.resources:
            _, slash, sub = (resource or "").partition("/")
            if not slash or sub not in self.sub_wild:
                return False
        # an unrestricted servant rule needs an unrestricted owner; a named one may also be listed
        return self.names is None or (name is not None and name in self.names)


class _Selector:
    """A metav1.LabelSelector for aggregation rules (matchLabels + matchExpressions)."""

    __slots__ = ("exprs", "labels")

    def __init__(self, raw: Mapping[str, Any]) -> None:
        self.labels = dict(raw.get("matchLabels") or {})
        self.exprs = tuple(
            (e.get("key", ""), e.get("operator", ""), frozenset(_strs(e.get("values"))))
            for e in raw.get("matchExpressions") or () if isinstance(e, Mapping)
        )

    def matches(self, labels: Mapping[str, str]) -> bool:
        if any(labels.get(k) != v for k, v in self.labels.items()):
            return False
        for key, op, values in self.exprs:
            value = labels.get(key)
            if op == "In":
                ok = value is not None and value in values
            elif op == "NotIn":
                ok = value is None or value not in values
            elif op == "Exists":
                ok = value is not None
            elif op == "DoesNotExist":
                ok = value is None
            else:  # validation rejects other operators; match nothing rather than everything
                ok = False
            if not ok:
                return False
        return True


class _ClusterRole(NamedTuple):
    labels: dict[str, str]
    selectors: tuple[_Selector, ...] | None  # None: not aggregated
    rules: _Rules


class _Binding(NamedTuple):
    kind: str
    namespace: str
    name: str
    role_kind: str
    role_name: str
    # (kind, name, namespace as written, user name it matches or None for groups/unmatchable)
    subjects: tuple[tuple[str, str, str, str | None], ...]

    def index_keys(self) -> set[tuple[str, str]]:
        keys: set[tuple[str, str]] = set()
        for kind, name, _, user in self.subjects:
            if kind == "Group":
                keys.add(("Group", name))
            elif user is not None:
                keys.add(("User", user))
        return keys

    def describe(self, user: UserInfo) -> str:
        """The upstream ``*BindingDescriber`` text for the first subject that applies to ``user``."""
        subject = ""
        for kind, name, ns, matched in self.subjects:
            if (kind == "Group" and name in user.groups) or (matched is not None and matched == user.name):
                ns = ns or self.namespace
                subject = f"{kind} {_q(f'{name}/{ns}')}" if kind == "ServiceAccount" else f"{kind} {_q(name)}"
                break
        ident = self.name if self.kind == "ClusterRoleBinding" else f"{self.name}/{self.namespace}"
        return f"{self.kind} {_q(ident)} of {self.role_kind} {_q(self.role_name)} to {subject}"


class _RuleSet:
    """Every rule that applies to one (user, groups, namespace), with where it came from."""

    __slots__ = ("entries", "errors", "has_names", "memo")

    def __init__(self, entries: list[tuple[_Rule, str]], errors: list[str]) -> None:
        self.entries = entries
        self.errors = errors
        self.has_names = any(r.names is not None for r, _ in entries)
        self.memo: dict[tuple[Any, ...], tuple[bool, str]] = {}

    def check(self, a: Attributes) -> tuple[bool, str]:
        if a.resource_request:
            key: tuple[Any, ...] = (a.verb, a.api_group, a.resource, a.subresource,
                                    a.name if self.has_names else "")
        else:
            key = (a.verb, a.path)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        result = (False, f"RBAC: {_aggregate(self.errors)}" if self.errors else "")
        for rule, source in self.entries:
            if rule.allows(a):
                result = (True, f"RBAC: allowed by {source}")
                break
        if len(self.memo) >= _MEMO_LIMIT:
            self.memo.clear()
        self.memo[key] = result
        return result


def _aggregate(errors: list[str]) -> str:
    """``utilerrors.NewAggregate(...).Error()``: one message bare, several de-duplicated in brackets."""
    unique = list(dict.fromkeys(errors))
    return unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"


def _mapping(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, Mapping) else {}


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return _mapping(obj.get("metadata"))


class RBACAuthorizer:
    """The RBAC view and authorizer (see the module docstring for the contract)."""

    def __init__(self) -> None:
        self._roles: dict[tuple[str, str], _Rules] = {}
        self._cluster_roles: dict[str, _ClusterRole] = {}
        self._role_bindings: dict[tuple[str, str], _Binding] = {}
        self._cluster_role_bindings: dict[str, _Binding] = {}
        # subject key -> binding names; a key is present iff its set is non-empty.
        self._crb_index: dict[tuple[str, str], set[str]] = {}
        # (namespace, *subject key) -> RoleBinding names in that namespace.
        self._rb_index: dict[tuple[str, str, str], set[str]] = {}
        # caches, dropped on every mutation
        self._effective: dict[str, tuple[_Rule, ...]] = {}
        self._rulesets: dict[tuple[str, tuple[str, ...], str], _RuleSet] = {}
        #: moves on every mutation of the view: what decisions cached outside it are valid for
        self.generation = 0

    # --- keeping the view current -------------------------------------------------------------------

    def upsert(self, kind: str, obj: Mapping[str, Any]) -> None:
        """Record the current state of one RBAC object (after a create or update)."""
        meta = _meta(obj)
        name, ns = str(meta.get("name") or ""), str(meta.get("namespace") or "")
        if kind == "Role":
            self._roles[(ns, name)] = _Rules(obj.get("rules"))
        elif kind == "ClusterRole":
            agg = obj.get("aggregationRule")
            selectors = None
            if isinstance(agg, Mapping):
                selectors = tuple(_Selector(s) for s in agg.get("clusterRoleSelectors") or ()
                                  if isinstance(s, Mapping))
            self._cluster_roles[name] = _ClusterRole(
                labels={str(k): str(v) for k, v in (meta.get("labels") or {}).items()},
                selectors=selectors,
                rules=_Rules(obj.get("rules")),
            )
        elif kind in ("RoleBinding", "ClusterRoleBinding"):
            self._remove_binding(kind, ns, name)
            self._add_binding(_make_binding(kind, ns if kind == "RoleBinding" else "", name, obj))
        else:
            raise ValueError(f"not an RBAC kind: {kind!r}")
        self._invalidate()

    def remove(self, kind: str, namespace: str, name: str) -> None:
        """Forget one RBAC object (after a delete). Unknown objects are ignored."""
        if kind == "Role":
            self._roles.pop((namespace, name), None)
        elif kind == "ClusterRole":
            self._cluster_roles.pop(name, None)
        elif kind in ("RoleBinding", "ClusterRoleBinding"):
            self._remove_binding(kind, namespace if kind == "RoleBinding" else "", name)
        else:
            raise ValueError(f"not an RBAC kind: {kind!r}")
        self._invalidate()

    def _invalidate(self) -> None:
        self.generation += 1
        self._effective.clear()
        self._rulesets.clear()

    def _add_binding(self, b: _Binding) -> None:
        if b.kind == "ClusterRoleBinding":
            self._cluster_role_bindings[b.name] = b
            for key in b.index_keys():
                self._crb_index.setdefault(key, set()).add(b.name)
        else:
            self._role_bindings[(b.namespace, b.name)] = b
            for kind, subj in b.index_keys():
                self._rb_index.setdefault((b.namespace, kind, subj), set()).add(b.name)

    def _remove_binding(self, kind: str, ns: str, name: str) -> None:
        if kind == "ClusterRoleBinding":
            old = self._cluster_role_bindings.pop(name, None)
            for key in old.index_keys() if old else ():
                _discard(self._crb_index, key, name)
        else:
            old = self._role_bindings.pop((ns, name), None)
            for subj_kind, subj in old.index_keys() if old else ():
                _discard(self._rb_index, (ns, subj_kind, subj), name)

    # --- resolution ---------------------------------------------------------------------------------

    def cluster_role_rules(self, name: str) -> list[dict[str, Any]] | None:
        """The effective rules of a ClusterRole (aggregation resolved), or None if it is unknown."""
        rules = self._cluster_role_effective(name, frozenset())
        return None if rules is None else [_copy_rule(r) for r in rules]

    def _cluster_role_effective(self, name: str, visiting: frozenset[str]) -> tuple[_Rule, ...] | None:
        cached = self._effective.get(name)
        if cached is not None:
            return cached
        cr = self._cluster_roles.get(name)
        if cr is None:
            return None
        if cr.selectors is None:
            return cr.rules.get()
        # The aggregation controller (pkg/controller/clusterroleaggregation) unions the rules of the
        # matching roles in name order, skipping itself and exact duplicates. Matched roles that are
        # themselves aggregated contribute their aggregated rules (the controller's fixed point).
        visiting = visiting | {name}
        rules: list[_Rule] = []
        seen: set[tuple[tuple[str, ...], ...]] = set()
        for selector in cr.selectors:
            for other in sorted(n for n, c in self._cluster_roles.items() if selector.matches(c.labels)):
                if other in visiting:
                    continue
                for rule in self._cluster_role_effective(other, visiting) or ():
                    if rule.key not in seen:
                        seen.add(rule.key)
                        rules.append(rule)
        result = tuple(rules)
        if len(visiting) == 1:  # only cache results not truncated by a cycle guard
            self._effective[name] = result
        return result

    def _role_ref_rules(self, kind: str, name: str, namespace: str, *, plural: bool = False
                        ) -> tuple[_Rule, ...] | str:
        """``GetRoleReferenceRules``: the rules, or the error text. Listers (the authorizer) name the
        resource in the singular, the registry (escalation checks) in the plural."""
        if kind == "Role":
            role = self._roles.get((namespace, name)) if namespace else None
            rules = None if role is None else role.get()
            resource = "roles" if plural else "role"
        elif kind == "ClusterRole":
            rules = self._cluster_role_effective(name, frozenset())
            resource = "clusterroles" if plural else "clusterrole"
        else:
            return f"unsupported role reference kind: {_q(kind)}"
        return rules if rules is not None else f"{resource}.{RBAC_GROUP} {_q(name)} not found"

    def _ruleset(self, user: UserInfo, namespace: str) -> _RuleSet:
        key = (user.name, user.groups, namespace)
        rs = self._rulesets.get(key)
        if rs is not None:
            return rs
        entries: list[tuple[_Rule, str]] = []
        errors: list[str] = []
        # VisitRulesFor: cluster-wide bindings first, then the namespace's RoleBindings. Sorted
        # names keep "allowed by" reasons deterministic (upstream's order is the lister's).
        names: set[str] = set(self._crb_index.get(("User", user.name), ()))
        for g in user.groups:
            names.update(self._crb_index.get(("Group", g), ()))
        bindings = [self._cluster_role_bindings[n] for n in sorted(names)]
        if namespace:
            names = set(self._rb_index.get((namespace, "User", user.name), ()))
            for g in user.groups:
                names.update(self._rb_index.get((namespace, "Group", g), ()))
            bindings += [self._role_bindings[(namespace, n)] for n in sorted(names)]
        for b in bindings:
            rules = self._role_ref_rules(b.role_kind, b.role_name, b.namespace)
            if isinstance(rules, str):
                errors.append(rules)
                continue
            source = b.describe(user)
            entries.extend((r, source) for r in rules)
        rs = _RuleSet(entries, errors)
        if len(self._rulesets) >= _RULESET_CACHE_LIMIT:
            self._rulesets.clear()
        self._rulesets[key] = rs
        return rs

    # --- authorization ------------------------------------------------------------------------------

    def authorize(self, attrs: Attributes) -> tuple[bool, str]:
        """(allowed, reason). The reason names the allowing binding, or on denial lists the role
        references that could not be resolved (upstream's ``RBAC: ...`` text), else is empty."""
        if SYSTEM_PRIVILEGED_GROUP in attrs.user.groups:
            return _ALLOW_PRIVILEGED
        return self._ruleset(attrs.user, attrs.namespace).check(attrs)

    def rules_for(self, user: UserInfo, namespace: str) -> list[dict[str, Any]]:
        """``RulesFor``: every PolicyRule that applies to ``user`` in ``namespace`` (cluster-wide
        rules included), as fresh JSON dicts."""
        return [_copy_rule(r) for r, _ in self._ruleset(user, namespace).entries]

    def rules_review(self, user: UserInfo, namespace: str) -> tuple[list[dict[str, Any]], str]:
        """RBAC's ``RulesFor`` as a SelfSubjectRulesReview reports it: the rules (fresh JSON dicts) and the
        aggregated error of the role references that could not be resolved ("" if none: the list is
        complete)."""
        rs = self._ruleset(user, namespace)
        return [_copy_rule(r) for r, _ in rs.entries], _aggregate(rs.errors) if rs.errors else ""

    # --- escalation prevention ----------------------------------------------------------------------

    def confirm_no_escalation(self, user: UserInfo, namespace: str, rules: list[dict[str, Any]], *,
                              resource: str = "roles", name: str = "") -> None:
        """``ConfirmNoEscalation``: raise 403 unless ``user`` already holds every permission in
        ``rules`` within ``namespace``. ``resource``/``name`` name the object being written in the
        message, as ``errors.NewForbidden`` does. ``system:masters`` passes (``EscalationAllowed``)."""
        if SYSTEM_PRIVILEGED_GROUP in user.groups:
            return
        rs = self._ruleset(user, namespace)
        owner = [r for r, _ in rs.entries]
        missing = _uncovered(owner, [_Rule(r) for r in rules if isinstance(r, Mapping)])
        if not missing:
            return
        msg = (f"user {_q(user.name)} (groups={_q_list(user.groups)}) is attempting to grant RBAC "
               f"permissions not currently held:\n" + "\n".join(sorted(set(_compact(missing)))))
        if rs.errors:
            msg += f"; resolution errors: [{' '.join(rs.errors)}]"
        raise _forbidden_write(resource, name, msg)

    def check_role_write(self, user: UserInfo, kind: str, obj: Mapping[str, Any],
                         old_obj: Mapping[str, Any] | None = None) -> None:
        """The policy-based Role/ClusterRole storage's create (``old_obj`` None) or update check:
        allowed with the ``escalate`` verb on the role, else only with rules the user holds;
        setting an ``aggregationRule`` needs full (cluster-admin) authority."""
        if SYSTEM_PRIVILEGED_GROUP in user.groups or (old_obj is not None and _only_gc_fields_changed(obj, old_obj)):
            return
        meta = _meta(obj)
        name = str(meta.get("name") or "")
        ns = str(meta.get("namespace") or "") if kind == "Role" else ""
        resource = "roles" if kind == "Role" else "clusterroles"
        if self.authorize(Attributes(user, "escalate", ns, RBAC_GROUP, resource, "", name))[0]:
            return
        self.confirm_no_escalation(user, ns, list(obj.get("rules") or ()), resource=resource, name=name)
        agg = obj.get("aggregationRule")
        if kind == "ClusterRole" and agg and (old_obj is None or old_obj.get("aggregationRule") != agg):
            try:
                self.confirm_no_escalation(user, "", _FULL_AUTHORITY, resource=resource, name=name)
            except ApiError:
                raise _forbidden_write(resource, name, "must have cluster-admin privileges to use the aggregationRule") from None

    def check_binding_write(self, user: UserInfo, kind: str, obj: Mapping[str, Any],
                            old_obj: Mapping[str, Any] | None = None) -> None:
        """The policy-based RoleBinding/ClusterRoleBinding storage's create or update check: allowed
        with the ``bind`` verb on the referenced role, else only if the user holds its rules."""
        if SYSTEM_PRIVILEGED_GROUP in user.groups or (old_obj is not None and _only_gc_fields_changed(obj, old_obj)):
            return
        meta = _meta(obj)
        name = str(meta.get("name") or "")
        ns = str(meta.get("namespace") or "") if kind == "RoleBinding" else ""
        resource = "rolebindings" if kind == "RoleBinding" else "clusterrolebindings"
        ref = _mapping(obj.get("roleRef"))
        ref_kind, ref_name = str(ref.get("kind") or ""), str(ref.get("name") or "")
        if ref_kind in ("Role", "ClusterRole"):
            ref_resource = "roles" if ref_kind == "Role" else "clusterroles"
            bind = Attributes(user, "bind", ns, str(ref.get("apiGroup") or ""), ref_resource, "", ref_name)
            if self.authorize(bind)[0]:
                return
        rules = self._role_ref_rules(ref_kind, ref_name, ns, plural=True)
        if isinstance(rules, str):
            raise _forbidden_write(resource, name, rules)
        self.confirm_no_escalation(user, ns, [r.raw for r in rules], resource=resource, name=name)


def _discard(index: dict[Any, set[str]], key: Any, name: str) -> None:
    names = index.get(key)
    if names is not None:
        names.discard(name)
        if not names:
            del index[key]


def _copy_rule(rule: _Rule) -> dict[str, Any]:
    return {k: list(v) for k, v in rule.raw.items()}


def _make_binding(kind: str, ns: str, name: str, obj: Mapping[str, Any]) -> _Binding:
    ref = _mapping(obj.get("roleRef"))
    subjects = []
    for s in obj.get("subjects") or ():
        if not isinstance(s, Mapping):
            continue
        s_kind, s_name, s_ns = str(s.get("kind") or ""), str(s.get("name") or ""), str(s.get("namespace") or "")
        user: str | None = None
        if s_kind == "User":
            user = s_name
        elif s_kind == "ServiceAccount":
            # appliesToUser: an SA subject without a namespace means the binding's namespace
            # (never matches in a ClusterRoleBinding).
            sa_ns = s_ns or ns
            user = service_account_username(sa_ns, s_name) if sa_ns else None
        subjects.append((s_kind, s_name, s_ns, user))
    return _Binding(kind, ns, name, str(ref.get("kind") or ""), str(ref.get("name") or ""), tuple(subjects))


def _uncovered(owner: list[_Rule], servant: list[_Rule]) -> list[dict[str, list[str]]]:
    """``Covers``: the broken-down servant rules no single owner rule covers."""
    missing: list[dict[str, list[str]]] = []
    for rule in servant:
        verbs, groups, resources, names, urls = rule.key
        for group in groups:
            for res in resources:
                for verb in verbs:
                    for rn in names or (None,):
                        if not any(o.covers(group, res, verb, rn, None) for o in owner):
                            sub = {"apiGroups": [group], "resources": [res], "verbs": [verb]}
                            if rn is not None:
                                sub["resourceNames"] = [rn]
                            missing.append(sub)
        for url in urls:
            for verb in verbs:
                if not any(o.covers(None, None, verb, None, url) for o in owner):
                    missing.append({"nonResourceURLs": [url], "verbs": [verb]})
    return missing


def _compact(rules: list[dict[str, list[str]]]) -> list[str]:
    """``CompactRules`` then ``CompactString`` of each: simple single group/resource rules that
    differ only by verb are merged."""
    out: list[str] = []
    simple: dict[tuple[str, str], list[str]] = {}
    for r in rules:
        if "resourceNames" in r or "nonResourceURLs" in r:
            out.append(_compact_string(r))
        else:
            simple.setdefault((r["apiGroups"][0], r["resources"][0]), []).extend(r["verbs"])
    for (group, res), verbs in simple.items():
        out.append(_compact_string({"apiGroups": [group], "resources": [res], "verbs": verbs}))
    return out


def _compact_string(r: Mapping[str, list[str]]) -> str:
    parts = [f"{label}:{_q_list(r[field])}" for field, label in (
        ("apiGroups", "APIGroups"), ("resources", "Resources"), ("nonResourceURLs", "NonResourceURLs"),
        ("resourceNames", "ResourceNames"), ("verbs", "Verbs")) if r.get(field)]
    return "{" + ", ".join(parts) + "}"


def _forbidden_write(resource: str, name: str, why: str) -> ApiError:
    """``errors.NewForbidden(schema.GroupResource{rbac, resource}, name, err)``."""
    qualified = f"{resource}.{RBAC_GROUP}"
    prefix = f"{qualified} {_q(name)} is forbidden" if name else f"{qualified} is forbidden"
    return Forbidden.make(f"{prefix}: {why}", name=name or None, group=RBAC_GROUP, kind=resource)


_GC_META_FIELDS = ("ownerReferences", "finalizers", "selfLink", "managedFields", "resourceVersion")


def _only_gc_fields_changed(new: Mapping[str, Any], old: Mapping[str, Any]) -> bool:
    """``IsOnlyMutatingGCFields`` (plus resourceVersion, which grants nothing): an update that only
    touches ownerReferences/finalizers is needed by the garbage collector and is never an escalation."""
    def strip(o: Mapping[str, Any]) -> dict[str, Any]:
        out = {k: v for k, v in o.items() if k not in ("metadata", "status")}
        out["metadata"] = {k: v for k, v in _meta(o).items() if k not in _GC_META_FIELDS and v not in (None, [], {})}
        return out
    return strip(new) == strip(old)
