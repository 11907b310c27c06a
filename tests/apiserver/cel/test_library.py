"""Kubernetes' CEL library, as table tests ported from upstream's ``k8s.io/apiserver/pkg/cel/library/*_test.go``
(quantity_test.go, format_test.go, lists_test.go, ip_test.go, cidr_test.go, urls, regex) and cel-go's
``ext/strings_test.go`` cases that Kubernetes enables. Each row: expression → value, or → runtime error text."""

from __future__ import annotations

from typing import Any

import pytest
from celpy import celtypes

from kubelite.apiserver.cel import (
    PER_CALL_LIMIT,
    CompileError,
    EvalError,
    OutOfBudget,
    compile_expression,
    to_cel,
)
from kubelite.apiserver.cel.optional import NONE, Optional


def run(expr: str, **variables: Any) -> Any:
    value, _ = compile_expression(expr, variables).evaluate({k: to_cel(v) for k, v in variables.items()})
    return value


_DNS1123_LABEL = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
                  "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
                  "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
_DNS1035 = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
            "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
            "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')")
_QUALIFIED = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
              "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
              "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")

VALUES: list[tuple[str, str, Any]] = [
    # quantity_test.go
    ("quantity-equal", 'quantity("200M") == quantity("200M")', True),
    ("quantity-equal-other-spelling", 'quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")',
     True),
    ("quantity-equal-chain", 'quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M")', True),
    ("quantity-not-equal", 'quantity("200M") == quantity("0.3G")', False),
    ("is-quantity", 'isQuantity("20")', True),
    ("is-quantity-M", 'isQuantity("20M")', True),
    ("is-quantity-Mi", 'isQuantity("20Mi")', True),
    ("is-quantity-bad", 'isQuantity("20Mo")', False),
    ("is-quantity-bad-suffix", 'isQuantity("10Mm")', False),
    ("less-than", 'quantity("50M").isLessThan(quantity("50Mi"))', True),
    ("less-than-2", 'quantity("50M").isLessThan(quantity("100M"))', True),
    ("not-less-than", 'quantity("100M").isLessThan(quantity("50M"))', False),
    ("greater-than", 'quantity("50Mi").isGreaterThan(quantity("50M"))', True),
    ("greater-than-2", 'quantity("150Mi").isGreaterThan(quantity("100Mi"))', True),
    ("not-greater-than", 'quantity("50M").isGreaterThan(quantity("100M"))', False),
    ("compare-equal", 'quantity("200M").compareTo(quantity("0.2G"))', 0),
    ("compare-less", 'quantity("50M").compareTo(quantity("50Mi"))', -1),
    ("compare-greater", 'quantity("50Mi").compareTo(quantity("50M"))', 1),
    ("add-quantity", 'quantity("50k").add(quantity("20")) == quantity("50.02k")', True),
    ("add-int", 'quantity("50k").add(20).isLessThan(quantity("50020"))', False),
    ("sub-quantity", 'quantity("50k").sub(quantity("20")) == quantity("49.98k")', True),
    ("sub-int", 'quantity("50k").sub(20) == quantity("49980")', True),
    ("arith-as-integer", 'quantity("50k").add(20).sub(quantity("100k")).asInteger()', -49980),
    ("arith-negative", 'quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger()', 20),
    ("as-integer", 'quantity("50k").asInteger()', 50000),
    ("huge-is-not-integer", 'quantity("9999999999999999999999999999999999999G").isInteger()', False),
    ("is-integer", 'quantity("50").isInteger()', True),
    ("approximate-float", 'quantity("50.703k").asApproximateFloat()', 50703.0),
    ("huge-arith", '[quantity("9999999999999999999999999999999999999")].all(x, '
                   'x.add(quantity("1")).compareTo(x.add(quantity("2"))) == -1)', True),
    ("sign", 'quantity("-3m").sign()', -1),
    ("memory-limit", 'quantity("1Gi").isGreaterThan(quantity("512Mi"))', True),
    # format_test.go
    ("dns1123Label-valid", 'format.dns1123Label().validate("my-label-name")', NONE),
    ("dns1123Subdomain-valid", 'format.dns1123Subdomain().validate("apiextensions.k8s.io")', NONE),
    ("qualifiedName-valid", 'format.qualifiedName().validate("apiextensions.k8s.io/v1beta1")', NONE),
    ("dns1123LabelPrefix-valid", 'format.dns1123LabelPrefix().validate("my-label-prefix-")', NONE),
    ("dns1123SubdomainPrefix-valid", 'format.dns1123SubdomainPrefix().validate("mysubdomain.prefix.-")', NONE),
    ("dns1035LabelPrefix-valid", 'format.dns1035LabelPrefix().validate("my-label-prefix-")', NONE),
    ("uri-valid", 'format.uri().validate("http://example.com")', NONE),
    ("uuid-valid", 'format.uuid().validate("123e4567-e89b-12d3-a456-426614174000")', NONE),
    ("byte-valid", 'format.byte().validate("aGVsbG8=")', NONE),
    ("date-valid", 'format.date().validate("2021-01-01")', NONE),
    ("datetime-valid", 'format.datetime().validate("2021-01-01T00:00:00Z")', NONE),
    ("dns1123Label-invalid", 'format.dns1123Label().validate("contains a space")', Optional([_DNS1123_LABEL])),
    ("dns1035Label-invalid", 'format.dns1035Label().validate("contains a space")', Optional([_DNS1035])),
    ("qualifiedName-invalid", 'format.qualifiedName().validate("contains a space")', Optional([_QUALIFIED])),
    ("dns1123LabelPrefix-invalid", 'format.dns1123LabelPrefix().validate("contains a space-")',
     Optional([_DNS1123_LABEL])),
    ("byte-invalid", 'format.byte().validate("aGVsbG8")', Optional(["invalid base64"])),
    ("date-invalid", 'format.date().validate("2020-01-32")', Optional(["invalid date"])),
    ("datetime-invalid", 'format.datetime().validate("2020-01-32T00:00:00Z")', Optional(["invalid datetime"])),
    ("named-unknown", 'format.named("unknown").hasValue()', False),
    ("named-known", 'format.named("dns1123Label").hasValue()', True),
    ("named-value-equal", 'format.named("uuid").value() == format.uuid()', True),
    ("formats-differ", "format.uuid() == format.byte()", False),
    ("labelValue-valid", 'format.labelValue().validate("my-cool-label-Value")', NONE),
    ("validate-in-rule", '!format.dns1123Label().validate("web-1").hasValue()', True),
    # lists_test.go
    ("isSorted-ints", "[1, 2, 3].isSorted()", True),
    ("isSorted-unsorted", "[3, 1, 2].isSorted()", False),
    ("isSorted-strings", '["a", "b", "b"].isSorted()', True),
    ("isSorted-empty", "[].isSorted()", True),
    ("isSorted-quantities", '[quantity("1"), quantity("2Ki")].isSorted()', True),
    ("sum-ints", "[1, 2, 3].sum()", 6),
    ("sum-doubles", "[1.5, 2.5].sum()", 4.0),
    ("sum-empty", "[].sum()", 0),
    ("min-ints", "[3, 1, 2].min()", 1),
    ("max-ints", "[3, 1, 2].max()", 3),
    ("max-strings", '["a", "c", "b"].max()', "c"),
    ("list-indexOf", "[1, 2, 3, 2].indexOf(2)", 1),
    ("list-indexOf-missing", "[1, 2].indexOf(5)", -1),
    ("list-lastIndexOf", "[1, 2, 3, 2].lastIndexOf(2)", 3),
    # cel-go ext strings (as Kubernetes enables them)
    ("charAt", '"tacocat".charAt(3)', "o"),
    ("charAt-end", '"tacocat".charAt(7)', ""),
    ("indexOf", '"tacocat".indexOf("co")', 2),
    ("indexOf-empty", '"tacocat".indexOf("")', 0),
    ("indexOf-offset", '"tacocat".indexOf("a", 3)', 5),
    ("indexOf-missing", '"tacocat".indexOf("none")', -1),
    ("lastIndexOf", '"tacocat".lastIndexOf("at")', 5),
    ("lastIndexOf-empty", '"tacocat".lastIndexOf("")', 7),
    ("lastIndexOf-offset", '"tacocat".lastIndexOf("a", 3)', 1),
    ("lowerAscii", '"TacoCat".lowerAscii()', "tacocat"),
    ("lowerAscii-unicode", '"TacoCÆt".lowerAscii()', "tacocÆt"),
    ("upperAscii", '"tacoCat".upperAscii()', "TACOCAT"),
    ("replace", '"12 days 12 hours".replace("{0}", "2")', "12 days 12 hours"),
    ("replace-all", '"{0} days {0} hours".replace("{0}", "2")', "2 days 2 hours"),
    ("replace-n", '"{0} days {0} hours".replace("{0}", "2", 1)', "2 days {0} hours"),
    ("split", '"hello world".split(" ")', ["hello", "world"]),
    ("split-n", '"hello world events!".split(" ", 2)', ["hello", "world events!"]),
    ("split-zero", '"hello world".split(" ", 0)', []),
    ("substring", '"tacocat".substring(4)', "cat"),
    ("substring-range", '"tacocat".substring(0, 4)', "taco"),
    ("trim", '"  \\ttrim\\n    ".trim()', "trim"),
    ("join", '["x", "y"].join()', "xy"),
    ("join-sep", '["x", "y"].join("-")', "x-y"),
    ("quote", 'strings.quote("first\\nsecond")', '"first\\nsecond"'),
    ("reverse", '"gums".reverse()', "smug"),
    # regex_test.go
    ("find", '"abc 123".find("[0-9]+")', "123"),
    ("find-none", '"abc".find("[0-9]+")', ""),
    ("findAll", '"123 abc 456".findAll("[0-9]+")', ["123", "456"]),
    ("findAll-n", '"123 abc 456".findAll("[0-9]+", 1)', ["123"]),
    # urls_test.go
    ("isURL", 'isURL("https://user:pass@example.com:80/path?query=val#fragment")', True),
    ("isURL-relative", 'isURL("../relative-path")', False),
    ("getScheme", 'url("https://example.com/").getScheme()', "https"),
    ("getHost", 'url("https://example.com:80/").getHost()', "example.com:80"),
    ("getHostname", 'url("https://example.com:80/").getHostname()', "example.com"),
    ("getPort", 'url("https://example.com:80/").getPort()', "80"),
    ("getPort-none", 'url("https://example.com/").getPort()', ""),
    ("getEscapedPath", 'url("https://example.com/path with spaces/").getEscapedPath()', "/path%20with%20spaces/"),
    ("getQuery", 'url("https://example.com/path?k1=a&k2=b&k2=c").getQuery()', {"k1": ["a"], "k2": ["b", "c"]}),
    # ip_test.go, cidr_test.go
    ("isIP", 'isIP("192.168.0.1")', True),
    ("isIP-bad", 'isIP("192.168.0.1.0")', False),
    ("isIP-zone", 'isIP("fe80::1%eth0")', False),
    ("ip-family-4", 'ip("192.168.0.1").family()', 4),
    ("ip-family-6", 'ip("2001:db8::68").family()', 6),
    ("ip-isCanonical", 'ip.isCanonical("2001:db8::68")', True),
    ("ip-not-canonical", 'ip.isCanonical("2001:DB8::68")', False),
    ("ip-loopback", 'ip("127.0.0.1").isLoopback()', True),
    ("ip-unspecified", 'ip("0.0.0.0").isUnspecified()', True),
    ("ip-global", 'ip("192.168.0.1").isGlobalUnicast()', True),
    ("ip-link-local", 'ip("169.254.169.254").isLinkLocalUnicast()', True),
    ("ip-link-local-multicast", 'ip("224.0.0.1").isLinkLocalMulticast()', True),
    ("ip-equal", 'ip("127.0.0.1") == ip("127.0.0.1")', True),
    ("isCIDR", 'isCIDR("192.168.0.0/24")', True),
    ("isCIDR-bad", 'isCIDR("192.168.0.0/33")', False),
    ("cidr-containsIP", 'cidr("192.168.0.0/24").containsIP(ip("192.168.0.1"))', True),
    ("cidr-containsIP-string", 'cidr("192.168.0.0/24").containsIP("192.168.1.1")', False),
    ("cidr-containsCIDR", 'cidr("192.168.0.0/16").containsCIDR("192.168.10.0/24")', True),
    ("cidr-containsCIDR-wider", 'cidr("192.168.0.0/24").containsCIDR("192.168.0.0/16")', False),
    ("cidr-prefixLength", 'cidr("192.168.0.0/24").prefixLength()', 24),
    ("cidr-masked", 'cidr("192.168.0.1/24").masked() == cidr("192.168.0.0/24")', True),
    ("cidr-ip", 'cidr("192.168.0.1/24").ip() == ip("192.168.0.1")', True),
    # optional
    ("optional-of", "optional.of(1).value()", 1),
    ("optional-none-orValue", "optional.none().orValue(5)", 5),
    ("optional-hasValue", "optional.of(1).hasValue()", True),
]


def _plain(v: Any) -> Any:
    if isinstance(v, Optional):
        return Optional(_plain(v.value)) if v.has_value else NONE
    if isinstance(v, list):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    for cel_type, py in ((celtypes.BoolType, bool), (celtypes.IntType, int), (celtypes.DoubleType, float),
                         (celtypes.StringType, str)):
        if isinstance(v, cel_type):
            return py(v)
    return v


@pytest.mark.parametrize(("expr", "want"), [(e, w) for _, e, w in VALUES], ids=[i for i, _, _ in VALUES])
def test_library_value(expr: str, want: Any) -> None:
    got = _plain(run(expr))
    assert got == want
    assert type(got) is type(want) or isinstance(want, Optional)


ERRORS: list[tuple[str, str, str]] = [
    ("quantity-bad-format", 'quantity("10Mo")', "quantities must match the regular expression"),
    ("quantity-bad-suffix", 'quantity("10Mm")', "unable to parse quantity's suffix"),
    ("as-integer-overflow", 'quantity("9999999999999999999999999999999999999G").asInteger()',
     "cannot convert value to integer"),
    ("as-integer-fraction", 'quantity("1.5").asInteger()', "cannot convert value to integer"),
    ("min-empty", "[].min()", "min called on empty list"),
    ("max-empty", "[].max()", "max called on empty list"),
    ("charAt-out-of-range", '"tacocat".charAt(30)', "index out of range: 30"),
    ("substring-bad-range", '"tacocat".substring(4, 3)', "invalid substring range. start: 4, end: 3"),
    ("regex-bad", '"abc".find("[")', "error parsing regexp"),
    ("ip-bad", 'ip("1.2.3")', "parse error during conversion from string"),
    ("url-relative", 'url("../relative")', "invalid URI for request"),
    ("optional-none-value", "optional.none().value()", "optional.none() dereference"),
    ("no-such-key", "self.missing", "no such key: missing"),
    ("overload", '"x" + 1', "no such overload"),
    ("division", "1 / 0", "division by zero"),
]


@pytest.mark.parametrize(("expr", "want"), [(e, w) for _, e, w in ERRORS], ids=[i for i, _, _ in ERRORS])
def test_library_runtime_error(expr: str, want: str) -> None:
    with pytest.raises(EvalError) as info:
        run(expr, self={"a": 1})
    assert want in str(info.value)


COMPILE: list[tuple[str, str, str]] = [
    ("unknown-function", "foo(1)", "ERROR: <input>:1:1: undeclared reference to 'foo' (in container '')"),
    ("unknown-method", "self.fooBar()", "ERROR: <input>:1:6: undeclared reference to 'fooBar' (in container '')"),
    ("undeclared-variable", "object.x", "ERROR: <input>:1:1: undeclared reference to 'object' (in container '')"),
    ("syntax", "self.a >", "ERROR: <input>:1:"),
]


@pytest.mark.parametrize(("expr", "want"), [(e, w) for _, e, w in COMPILE], ids=[i for i, _, _ in COMPILE])
def test_compile_error(expr: str, want: str) -> None:
    with pytest.raises(CompileError) as info:
        compile_expression(expr, ["self"])
    assert str(info.value).startswith(want)


def test_comprehension_variables_are_declared() -> None:
    assert run("self.all(k, self[k] > 0) && [1, 2].exists_one(x, x == 2)", self={"a": 1}) is not False


def test_runtime_cost_limit() -> None:
    """upstream PerCallLimit: an evaluation that passes 1,000,000 units is cancelled, whether the units are
    spent by comprehension iterations or by size-proportional string functions."""
    nested = "[1,2,3,4,5,6,7,8,9,10].map(a, [1,2,3,4,5,6,7,8,9,10].map(b, a + b)).size() == 10"
    program = compile_expression(nested, [])
    _, cost = program.evaluate({})
    assert 100 < cost < PER_CALL_LIMIT  # pays per iteration: 100 inner evaluations
    with pytest.raises(OutOfBudget) as info:
        program.evaluate({}, limit=cost - 1)
    assert str(info.value) == "operation cancelled: actual cost limit exceeded"
    with pytest.raises(OutOfBudget):
        compile_expression('self.indexOf("z") > 0', ["self"]).evaluate({"self": to_cel("a" * 10_000_020)})
    cheap, cost = compile_expression("[1, 2, 3].all(x, x > 0)", []).evaluate({})
    assert cheap and 0 < cost < 100


def test_cost_grows_with_string_size() -> None:
    program = compile_expression('self.indexOf("z")', ["self"])
    _, small = program.evaluate({"self": to_cel("a" * 10)})
    _, large = program.evaluate({"self": to_cel("a" * 10_000)})
    assert large - small >= 999
