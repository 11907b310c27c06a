"""Label selectors against upstream's selector_test.go and LabelSelectorAsSelector behaviour."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.api.labels import (
    EVERYTHING,
    NOTHING,
    Requirement,
    Selector,
    label_selector_matches,
    new_requirement,
    parse_selector,
    selector_from_label_selector,
    selector_from_set,
)

# Upstream TestSelectorParse: these print back as themselves without spaces.
ROUND_TRIP = [
    "", "x=a", "x=a,y=b,z=c", "x=a,y==b", "x!=a,y=b", "x=", "x= ", "x=,z= ", "x= ,z= ", "!x", "x>1",
    "x>1,z<5", "x in (a,b)", "x notin (a)", "x,y", "a.b/c=d",
]


@pytest.mark.parametrize("text", ROUND_TRIP, ids=[repr(t) for t in ROUND_TRIP])
def test_round_trip(text: str) -> None:
    set_based = " in " in text or " notin " in text
    assert str(parse_selector(text)) == (text if set_based else text.replace(" ", ""))


CANONICAL = [
    ("x=a,a=x", "a=x,x=a"),
    ("tier in (b,a),app=web", "app=web,tier in (a,b)"),
    ("  a  =  b  ,\tc\n", "a=b,c"),
    ("x in (,a)", "x in (,a)"),
    ("x in ()", "x in ()"),
    ("x notin (a,,b)", "x notin (,a,b)"),
    ("x in (a,a)", "x in (a)"),
    ("in in (in)", "in in (in)"),
    ("notin=in", "notin=in"),
    ("x==a", "x==a"),
    ("!b,a", "a,!b"),
]


@pytest.mark.parametrize(("text", "expected"), CANONICAL, ids=[c[0] for c in CANONICAL])
def test_canonical_string_sorts_by_key(text: str, expected: str) -> None:
    assert str(parse_selector(text)) == expected


NAME_PART = (
    "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
    "an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' "
    "(e.g. 'example.com/MyName')"
)
PARSE_ERRORS = [
    ("x=a||y=b", "unable to parse requirement: values[0][x]: Invalid value: \"a||y\": a valid label must be an "
                 "empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end "
                 "with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
                 "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"),
    ("x==a==b", "found '==', expected: ',' or 'end of string'"),
    ("!x=a", "found '=', expected: ',' or 'end of string'"),
    ("x<a", "unable to parse requirement: values[0]: Invalid value: \"a\": for 'Gt', 'Lt' operators, the value "
            "must be an integer"),
    ("a b", "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"),
    ("x exists", "unable to parse requirement: found 'exists', expected: in, notin, =, ==, !=, gt, lt"),
    ("a=b,", "found '', expected: identifier after ','"),
    ("a,,b", "found ',', expected: identifier after ','"),
    ("a in b", "unable to parse requirement: found 'b' expected: '('"),
    ("x in (a", "unable to parse requirement: found '', expected: ',' or ')'"),
    ("x in (a b)", "unable to parse requirement: found 'b', expected: ',' or ')'"),
    ("x in (=)", "unable to parse requirement: found '=', expected: ',', ')' or identifier"),
    ("x in", "unable to parse requirement: found '' expected: '('"),
    ("=a", "found '=', expected: !, identifier, or 'end of string'"),
    ("!", "unable to parse requirement: found '', expected: identifier"),
    ("a/b/c", f'unable to parse requirement: <nil>: Invalid value: "a/b/c": {NAME_PART}'),
    ("k=-bad", "unable to parse requirement: values[0][k]: Invalid value: \"-bad\": a valid label must be an "
               "empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end "
               "with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
               "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"),
]


@pytest.mark.parametrize(("text", "message"), PARSE_ERRORS, ids=[e[0] for e in PARSE_ERRORS])
def test_parse_errors(text: str, message: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_selector(text)
    assert str(info.value) == message


# Upstream TestSelectorMatches and friends.
MATCHES = [
    ("", {"x": "y"}, True),
    ("x=y", {"x": "y"}, True),
    ("x=y,z=w", {"x": "y", "z": "w"}, True),
    ("x!=y,z!=w", {"x": "z", "z": "a"}, True),
    ("notin=in", {"notin": "in"}, True),
    ("x", {"x": "z"}, True),
    ("!x", {"y": "z"}, True),
    ("x>1", {"x": "2"}, True),
    ("x<1", {"x": "0"}, True),
    ("x=z", {}, False),
    ("x=y", {"x": "z"}, False),
    ("x=y,z=w", {"x": "w", "z": "w"}, False),
    ("x!=y,z!=w", {"x": "z", "z": "w"}, False),
    ("x", {"y": "z"}, False),
    ("!x", {"x": "z"}, False),
    ("x>1", {"x": "0"}, False),
    ("x<1", {"x": "2"}, False),
    ("x>1", {}, False),
    ("x>1", {"x": "abc"}, False),
    ("x>-", {"x": "5"}, None),  # parse error (value not a label value)
    ("x in (a,b)", {"x": "b"}, True),
    ("x in (a,b)", {"x": "c"}, False),
    ("x in (a,b)", {}, False),
    ("x notin (a,b)", {}, True),
    ("x notin (a,b)", {"x": "a"}, False),
    ("x!=a", {}, True),
    ("x=", {"x": ""}, True),
    ("x=", {}, False),
    ("x in (,a)", {"x": ""}, True),
    ("a=b,c in (d),!e,f", {"a": "b", "c": "d", "f": ""}, True),
    ("a=b,c in (d),!e,f", {"a": "b", "c": "d", "f": "", "e": "1"}, False),
]


@pytest.mark.parametrize(
    ("text", "labels", "expected"), [m for m in MATCHES if m[2] is not None],
    ids=[f"{m[0]!r}-{sorted(m[1].items())}" for m in MATCHES if m[2] is not None],
)
def test_matches(text: str, labels: dict[str, str], expected: bool) -> None:
    selector = parse_selector(text)
    assert selector.matches(labels) is expected
    for r in selector.requirements:  # each requirement agrees with the compiled fast path
        if expected:
            assert r.matches(labels)


def test_matches_none_labels() -> None:
    assert parse_selector("!x").matches(None)
    assert not parse_selector("x").matches(None)
    assert EVERYTHING.matches(None)
    assert not NOTHING.matches(None)


def test_everything_and_nothing() -> None:
    assert EVERYTHING.empty()
    assert not NOTHING.empty()
    assert str(EVERYTHING) == str(NOTHING) == ""
    assert EVERYTHING != NOTHING
    assert NOTHING.matches_nothing()
    assert not EVERYTHING.matches_nothing()
    assert parse_selector("") == EVERYTHING
    assert NOTHING.add(Requirement("a", "exists")) is NOTHING
    assert not NOTHING.matches({"a": "b"})


def test_requirement_validation() -> None:
    assert new_requirement("a", "in", ["x"]) == Requirement("a", "in", ("x",))
    with pytest.raises(ValueError) as info:
        new_requirement("a", "=", ["x", "y"])
    assert str(info.value) == 'values: Invalid value: ["x","y"]: exact-match compatibility requires one single value'
    with pytest.raises(ValueError) as info:
        new_requirement("a", "foo")
    assert str(info.value) == (
        'operator: Unsupported value: "foo": supported values: "in", "notin", "=", "==", "!=", "gt", "lt", '
        '"exists", "!"'
    )
    with pytest.raises(ValueError) as info:
        new_requirement("a b", "gt", [])
    assert str(info.value).startswith('[key: Invalid value: "a b": name part must consist')
    assert str(info.value).endswith(
        "values: Invalid value: null: for 'Gt', 'Lt' operators, exactly one value is required]")


def test_requires_exact_match_and_add() -> None:
    s = parse_selector("a=1,b in (2),c in (3,4),d!=5")
    assert s.requires_exact_match("a") == "1"
    assert s.requires_exact_match("b") == "2"
    assert s.requires_exact_match("c") is None
    assert s.requires_exact_match("d") is None
    assert s.requires_exact_match("z") is None
    added = s.add(Requirement("0", "exists"))
    assert str(added) == "0,a=1,b in (2),c in (3,4),d!=5"
    assert str(s) == "a=1,b in (2),c in (3,4),d!=5"  # unchanged


def test_selector_is_immutable_and_hashable() -> None:
    s = parse_selector("a=b")
    with pytest.raises(AttributeError):
        s.requirements = ()
    assert {s, parse_selector("a = b")} == {s}
    assert parse_selector("a=b") is parse_selector("a=b")  # cached
    assert repr(NOTHING) == "Selector(NOTHING)"
    assert repr(s) == "Selector('a=b')"


def test_selector_from_set() -> None:
    assert selector_from_set(None) == EVERYTHING
    assert selector_from_set({}) == EVERYTHING
    s = selector_from_set({"b": "2", "a": "1"})
    assert str(s) == "a=1,b=2"
    assert s.matches({"a": "1", "b": "2", "c": "3"})
    assert not s.matches({"a": "1"})


LABEL_SELECTORS: list[tuple[str, Any, str | None]] = [
    ("nil", None, None),
    ("empty", {}, ""),
    ("empty-fields", {"matchLabels": {}, "matchExpressions": []}, ""),
    ("match-labels", {"matchLabels": {"b": "2", "a": "1"}}, "a=1,b=2"),
    (
        "combined",
        {"matchLabels": {"app": "web"}, "matchExpressions": [
            {"key": "tier", "operator": "In", "values": ["b", "a"]},
            {"key": "env", "operator": "NotIn", "values": ["prod"]},
            {"key": "canary", "operator": "DoesNotExist"},
            {"key": "owner", "operator": "Exists"},
        ]},
        "app=web,!canary,env notin (prod),owner,tier in (a,b)",
    ),
]


@pytest.mark.parametrize(("ls", "expected"), [c[1:] for c in LABEL_SELECTORS], ids=[c[0] for c in LABEL_SELECTORS])
def test_selector_from_label_selector(ls: Any, expected: str | None) -> None:
    s = selector_from_label_selector(ls)
    if expected is None:
        assert s is NOTHING
    else:
        assert str(s) == expected
        assert s != NOTHING


def test_label_selector_semantics() -> None:
    ls = {"matchLabels": {"app": "web"}, "matchExpressions": [
        {"key": "tier", "operator": "In", "values": ["a", "b"]},
        {"key": "canary", "operator": "DoesNotExist"},
    ]}
    assert label_selector_matches(ls, {"app": "web", "tier": "a"})
    assert not label_selector_matches(ls, {"app": "web", "tier": "c"})
    assert not label_selector_matches(ls, {"app": "web", "tier": "a", "canary": "1"})
    assert not label_selector_matches(None, {"app": "web"})
    assert label_selector_matches({}, {"app": "web"})
    assert label_selector_matches({}, None)


LABEL_SELECTOR_ERRORS = [
    ("in-no-values", {"matchExpressions": [{"key": "k", "operator": "In"}]},
     "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty"),
    ("notin-empty-values", {"matchExpressions": [{"key": "k", "operator": "NotIn", "values": []}]},
     "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty"),
    ("exists-with-values", {"matchExpressions": [{"key": "k", "operator": "Exists", "values": ["a"]}]},
     'values: Invalid value: ["a"]: values set must be empty for exists and does not exist'),
    ("bad-operator", {"matchExpressions": [{"key": "k", "operator": "Gt", "values": ["1"]}]},
     '"Gt" is not a valid label selector operator'),
    ("bad-value", {"matchLabels": {"k": "a b"}},
     "values[0][k]: Invalid value: \"a b\": a valid label must be an empty string or consist of alphanumeric "
     "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
     "'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"),
]


@pytest.mark.parametrize(("ls", "message"), [c[1:] for c in LABEL_SELECTOR_ERRORS],
                         ids=[c[0] for c in LABEL_SELECTOR_ERRORS])
def test_label_selector_errors(ls: Any, message: str) -> None:
    with pytest.raises(ValueError) as info:
        selector_from_label_selector(ls)
    assert str(info.value) == message
    with pytest.raises(ValueError):
        label_selector_matches(ls, {})


def test_selector_equality_ignores_construction_order() -> None:
    a = Selector([Requirement("b", "exists"), Requirement("a", "exists")])
    b = parse_selector("a,b")
    assert a == b
    assert hash(a) == hash(b)
