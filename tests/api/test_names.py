"""Name rules with upstream's exact messages (validation_test.go, content tests, objectmeta_test.go)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from kubelite.api import names
from kubelite.errors import FieldError

SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
    "and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
DNS1035_MSG = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
    "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
    "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)
NAME_PART_MSG = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used "
    "for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)

Check = Callable[[str], list[str]]

CASES: list[tuple[str, Check, str, list[str]]] = [
    ("subdomain-ok", names.is_dns1123_subdomain, "example.com", []),
    ("subdomain-digits", names.is_dns1123_subdomain, "1.2.3", []),
    ("subdomain-upper", names.is_dns1123_subdomain, "Example.com", [SUBDOMAIN_MSG]),
    ("subdomain-empty", names.is_dns1123_subdomain, "", [SUBDOMAIN_MSG]),
    ("subdomain-dash-end", names.is_dns1123_subdomain, "a-", [SUBDOMAIN_MSG]),
    ("subdomain-too-long", names.is_dns1123_subdomain, "a" * 254, ["must be no more than 253 characters"]),
    ("subdomain-253", names.is_dns1123_subdomain, "a" * 253, []),
    ("label-ok", names.is_dns1123_label, "my-name", []),
    ("label-dots", names.is_dns1123_label, "a.b", ["must not contain dots"]),
    ("label-underscore", names.is_dns1123_label, "a_b", [LABEL_MSG]),
    ("label-too-long", names.is_dns1123_label, "a" * 64, ["must be no more than 63 characters"]),
    ("label-too-long-and-bad", names.is_dns1123_label, "-" * 64, ["must be no more than 63 characters", LABEL_MSG]),
    ("1035-ok", names.is_dns1035_label, "abc-123", []),
    ("1035-digit-start", names.is_dns1035_label, "1abc", [DNS1035_MSG]),
    ("qualified-ok", names.is_qualified_name, "example.com/My_Name.1", []),
    ("qualified-plain", names.is_qualified_name, "app", []),
    ("qualified-bad-name", names.is_qualified_name, "a b", [NAME_PART_MSG]),
    ("qualified-empty", names.is_qualified_name, "", ["name part must be non-empty", NAME_PART_MSG]),
    ("qualified-empty-prefix", names.is_qualified_name, "/a", ["prefix part must be non-empty"]),
    ("qualified-bad-prefix", names.is_qualified_name, "Ex.com/a", ["prefix part " + SUBDOMAIN_MSG]),
    ("qualified-long-prefix", names.is_qualified_name, "a" * 254 + "/a", ["prefix part must be no more than 253 bytes"]),
    ("qualified-long-name", names.is_qualified_name, "a" * 64, ["name part must be no more than 63 bytes"]),
    (
        "qualified-two-slashes", names.is_qualified_name, "a/b/c",
        ["a valid label key " + NAME_PART_MSG.removeprefix("name part ")
         + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"],
    ),
    ("label-value-ok", names.is_valid_label_value, "my_value-1.x", []),
    ("label-value-empty", names.is_valid_label_value, "", []),
    ("label-value-bad", names.is_valid_label_value, "-x", [LABEL_VALUE_MSG]),
    ("label-value-long", names.is_valid_label_value, "a" * 64, ["must be no more than 63 bytes"]),
    ("label-value-utf8-bytes", names.is_valid_label_value, "é" * 32, ["must be no more than 63 bytes", LABEL_VALUE_MSG]),
    ("c-identifier-ok", names.is_c_identifier, "_my_Name1", []),
    (
        "c-identifier-bad", names.is_c_identifier, "1abc",
        ["a valid C identifier must start with alphabetic character or '_', followed by a string of "
         "alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for "
         "validation is '[A-Za-z_][A-Za-z0-9_]*')"],
    ),
    ("percent-ok", names.is_valid_percent, "25%", []),
    (
        "percent-bad", names.is_valid_percent, "25",
        ["a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', "
         "regex used for validation is '[0-9]+%')"],
    ),
    ("port-name-ok", names.is_valid_port_name, "http-2", []),
    ("port-name-digits", names.is_valid_port_name, "80", ["must contain at least one letter (a-z)"]),
    ("port-name-dashes", names.is_valid_port_name, "-a--b", ["must not contain consecutive hyphens", "must not begin or end with a hyphen"]),
    ("config-key-ok", names.is_config_map_key, "key.name", []),
    ("config-key-dotdot", names.is_config_map_key, "..a", ["must not start with '..'"]),
]


@pytest.mark.parametrize(("check", "value", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_string_rules(check: Check, value: str, expected: list[str]) -> None:
    assert check(value) == expected


@pytest.mark.parametrize(
    ("port", "ok"), [(1, True), (65535, True), (0, False), (65536, False), (-1, False)],
    ids=["1", "65535", "0", "65536", "negative"],
)
def test_port_numbers(port: int, ok: bool) -> None:
    assert names.is_valid_port_num(port) == ([] if ok else ["must be between 1 and 65535, inclusive"])


INVALID_IP = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("10.9.8.7", []),
        ("2001:db8::ffff", []),
        ("::1", []),
        ("", [INVALID_IP]),
        ("1.2.3", [INVALID_IP]),
        ("256.1.1.1", [INVALID_IP]),
        ("fe80::1%eth0", [INVALID_IP]),
        ("010.002.003.004", ["must not have leading 0s"]),
        ("::ffff:1.2.3.4", ["must not be an IPv4-mapped IPv6 address"]),
        ("2001:DB8::1", ['must be in canonical form ("2001:db8::1")']),
        ("2001:db8:0:0:0:0:0:1", ['must be in canonical form ("2001:db8::1")']),
    ],
    ids=["v4", "v6", "loopback6", "empty", "short", "octet-range", "zone", "leading-zeros", "v4-mapped",
         "uppercase", "uncompressed"],
)
def test_ips(value: str, expected: list[str]) -> None:
    assert names.is_valid_ip(value) == expected


@pytest.mark.parametrize(
    ("fn", "name", "prefix", "expected"),
    [
        (names.name_is_dns_subdomain, "foo-", True, []),
        (names.name_is_dns_subdomain, "foo-", False, [SUBDOMAIN_MSG]),
        (names.name_is_dns_subdomain, "-", True, [SUBDOMAIN_MSG]),
        (names.name_is_dns_subdomain, "a.b-", True, []),
        (names.name_is_dns_label, "web-", True, []),
        (names.name_is_dns_label, "a.b-", True, ["must not contain dots"]),
        (names.name_is_dns1035_label, "svc-", True, []),
    ],
    ids=["subdomain-prefix", "subdomain-name", "lone-dash", "dotted-prefix", "label-prefix", "label-dots",
         "1035-prefix"],
)
def test_generate_name_prefixes(fn: Callable[[str, bool], list[str]], name: str, prefix: bool,
                                expected: list[str]) -> None:
    assert fn(name, prefix) == expected


def test_validate_labels_reports_key_and_value_at_path() -> None:
    errs = names.validate_labels({"good": "ok", "bad key": "-bad"}, "metadata.labels")
    assert [str(e) for e in errs] == [
        f'metadata.labels: Invalid value: "bad key": {NAME_PART_MSG}',
        f'metadata.labels: Invalid value: "-bad": {LABEL_VALUE_MSG}',
    ]
    assert names.validate_labels(None, "metadata.labels") == []
    assert names.validate_labels({"app": "web"}, "metadata.labels") == []


def test_validate_annotations_keys_are_case_insensitive() -> None:
    assert names.validate_annotations({"Example.COM/Key": "anything at all: ~!@"}, "metadata.annotations") == []
    errs = names.validate_annotations({"a/b/c": ""}, "metadata.annotations")
    assert len(errs) == 1
    assert errs[0].kind == "Invalid"
    assert errs[0].value == "a/b/c"


@pytest.mark.parametrize(
    ("annotations", "too_long"),
    [
        ({"k": "x" * (262144 - 1)}, False),
        ({"k": "x" * 262144}, True),
        ({"k": "é" * 131072}, True),  # 262145 bytes in UTF-8
        ({"k": "é" * 131071}, False),
    ],
    ids=["at-limit", "over-limit", "over-in-bytes", "under-in-bytes"],
)
def test_annotation_size_limit(annotations: dict[str, str], too_long: bool) -> None:
    errs = names.validate_annotations(annotations, "metadata.annotations")
    expected = [FieldError.too_long("metadata.annotations", "", 262144)] if too_long else []
    assert errs == expected
    if too_long:
        assert str(errs[0]) == "metadata.annotations: Too long: may not be more than 262144 bytes"


def test_validate_label_name() -> None:
    assert names.validate_label_name("ok", "spec.key") == []
    assert [e.field for e in names.validate_label_name("", "spec.key")] == ["spec.key", "spec.key"]
