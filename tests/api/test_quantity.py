"""Quantities against upstream's quantity_test.go tables (TestQuantityParse, TestQuantityString, ...)."""

from __future__ import annotations

import pickle
from fractions import Fraction

import pytest

from kubelite.api.quantity import (
    BINARY_SI,
    DECIMAL_EXPONENT,
    DECIMAL_SI,
    ERR_FORMAT_WRONG,
    ERR_SUFFIX,
    ZERO,
    Quantity,
    is_valid,
    parse_quantity,
)

# input, exact value, format, canonical string
PARSE_CASES = [
    ("500m", Fraction(1, 2), DECIMAL_SI, "500m"),
    ("1.5Gi", Fraction(3 * 2**29), BINARY_SI, "1536Mi"),
    ("1e3", Fraction(1000), DECIMAL_EXPONENT, "1e3"),
    ("2", Fraction(2), DECIMAL_SI, "2"),
    ("0.1", Fraction(1, 10), DECIMAL_SI, "100m"),
    ("100Mi", Fraction(100 * 2**20), BINARY_SI, "100Mi"),
    ("1Ki", Fraction(1024), BINARY_SI, "1Ki"),
    ("12E", Fraction(12 * 10**18), DECIMAL_SI, "12E"),
    ("1.5", Fraction(3, 2), DECIMAL_SI, "1500m"),
    ("-1", Fraction(-1), DECIMAL_SI, "-1"),
    (".5", Fraction(1, 2), DECIMAL_SI, "500m"),
    ("5.", Fraction(5), DECIMAL_SI, "5."),  # upstream keeps an already-canonical input verbatim
    ("1e-3", Fraction(1, 1000), DECIMAL_EXPONENT, "1e-3"),
    ("0", Fraction(0), DECIMAL_SI, "0"),
    ("0Ki", Fraction(0), BINARY_SI, "0"),
    ("1000m", Fraction(1), DECIMAL_SI, "1"),
    ("1024Mi", Fraction(2**30), BINARY_SI, "1Gi"),
    ("1000M", Fraction(10**9), DECIMAL_SI, "1G"),
    ("50k", Fraction(50000), DECIMAL_SI, "50k"),
    ("100.035k", Fraction(100035), DECIMAL_SI, "100.035k"),  # canonical-shaped input kept verbatim
    ("1.2e3", Fraction(1200), DECIMAL_EXPONENT, "1200"),
    ("1.3E+6", Fraction(1300000), DECIMAL_EXPONENT, "1300e3"),
    ("7.123456M", Fraction(7123456), DECIMAL_SI, "7.123456M"),
    ("7.1234560M", Fraction(7123456), DECIMAL_SI, "7123456"),
    ("1.01E", Fraction(101 * 10**16), DECIMAL_SI, "1010P"),
    ("3.001n", Fraction(4, 10**9), DECIMAL_SI, "4n"),  # rounded up to the nano
    ("1.1E-9", Fraction(2, 10**9), DECIMAL_EXPONENT, "2e-9"),
    ("0.0000000005", Fraction(1, 10**9), DECIMAL_SI, "1n"),
    ("0.00000012345", Fraction(124, 10**9), DECIMAL_SI, "124n"),
    ("9Ei", Fraction(2**63 - 1), BINARY_SI, "9223372036854775807"),  # capped at max int64
    ("100.035Ki", Fraction(10243584, 100), BINARY_SI, "102435840m"),
    ("0.5Mi", Fraction(2**19), BINARY_SI, "512Ki"),
    (".001Ki", Fraction(1024, 1000), BINARY_SI, "1024m"),
    (".000000000001Ki", Fraction(2, 10**9), DECIMAL_SI, "2n"),  # rounds up, changes format
    ("1.G", Fraction(10**9), DECIMAL_SI, "1.G"),
    ("1.0G", Fraction(10**9), DECIMAL_SI, "1G"),
    ("1E3", Fraction(1000), DECIMAL_EXPONENT, "1E3"),
    ("+1", Fraction(1), DECIMAL_SI, "+1"),
    ("-1.5Gi", Fraction(-3 * 2**29), BINARY_SI, "-1536Mi"),
]


@pytest.mark.parametrize(("text", "value", "fmt", "canonical"), PARSE_CASES, ids=[c[0] for c in PARSE_CASES])
def test_parse(text: str, value: Fraction, fmt: str, canonical: str) -> None:
    q = Quantity.parse(text)
    assert q.as_fraction() == value
    assert q.format == fmt
    assert str(q) == canonical


INVALID = [
    ("1.2.3", ERR_FORMAT_WRONG),
    ("1GiB", ERR_FORMAT_WRONG),
    ("abc", ERR_FORMAT_WRONG),
    ("", ERR_FORMAT_WRONG),
    ("1 Gi", ERR_FORMAT_WRONG),
    (" 1", ERR_FORMAT_WRONG),
    ("1 ", ERR_FORMAT_WRONG),
    ("1.1.M", ERR_FORMAT_WRONG),
    ("1+1.0M", ERR_FORMAT_WRONG),
    ("0.1mi", ERR_SUFFIX),
    ("0.1am", ERR_FORMAT_WRONG),
    (".5i", ERR_SUFFIX),
    ("1i", ERR_SUFFIX),
    ("-3.01e-", ERR_SUFFIX),
    ("1e", ERR_SUFFIX),
    ("1Gi2", ERR_SUFFIX),
]


@pytest.mark.parametrize(("text", "message"), INVALID, ids=[repr(c[0]) for c in INVALID])
def test_invalid(text: str, message: str) -> None:
    with pytest.raises(ValueError) as info:
        Quantity.parse(text)
    assert str(info.value) == message
    assert not is_valid(text)


def test_format_error_names_upstream_regex() -> None:
    assert ERR_FORMAT_WRONG == (
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
    )


# Upstream TestQuantityString / TestQuantityParseEmit: (alternate spelling, canonical form).
CANONICAL = [
    ("1024Mi", "1Gi"),
    ("307200Ki", "300Mi"),
    ("1025024Mi", "1001Gi"),
    ("1024Gi", "1Ti"),
    ("5000m", "5"),
    ("0.5", "500m"),
    ("1000M", "1G"),
    ("0.001T", "1G"),
    ("1000u", "1m"),
    ("1.08", "1080m"),
    ("1080000000n", "1080m"),
    (".001e12", "1e9"),
    ("0.001e0", "1e-3"),
    ("1000e-12", "1e-9"),
    ("00", "0"),
    (".000001Ki", "1024u"),
    (".000000001Ki", "1024n"),
    ("1000E", "1000E"),  # upstream prints "1" here (its suffix table stops at E); kubelite stays exact
]


@pytest.mark.parametrize(("alternate", "canonical"), CANONICAL, ids=[c[0] for c in CANONICAL])
def test_canonical_string(alternate: str, canonical: str) -> None:
    q = Quantity.parse(alternate)
    assert str(q) == canonical
    assert Quantity.parse(canonical) == q
    assert str(-q) == "-" + canonical if not q.is_zero() else str(-q) == "0"


@pytest.mark.parametrize(
    ("text", "value", "milli"),
    [
        ("1.5m", 1, 2),
        ("0.1", 1, 100),
        ("1", 1, 1000),
        ("1.5", 2, 1500),
        ("1n", 1, 1),
        ("-1.5", -2, -1500),
        ("0", 0, 0),
        ("1Ki", 1024, 1024000),
        ("12E", 12 * 10**18, 12 * 10**21),
    ],
    ids=["1.5m", "0.1", "1", "1.5", "1n", "-1.5", "0", "1Ki", "12E"],
)
def test_value_rounds_up(text: str, value: int, milli: int) -> None:
    q = Quantity.parse(text)
    assert q.value() == value
    assert q.milli_value() == milli


@pytest.mark.parametrize(
    ("smaller", "larger"),
    [("500m", "1"), ("1G", "1Gi"), ("1023Mi", "1Gi"), ("999M", "1G"), ("-1", "0"), ("1k", "1Ki"), ("1e3", "1001")],
    ids=["milli<unit", "G<Gi", "Mi<Gi", "M<G", "negative", "k<Ki", "exponent"],
)
def test_ordering_across_suffixes(smaller: str, larger: str) -> None:
    a, b = Quantity.parse(smaller), Quantity.parse(larger)
    assert a < b
    assert a <= b
    assert b > a
    assert b >= a
    assert a != b


@pytest.mark.parametrize(
    ("a", "b"),
    [("1Gi", "1073741824"), ("1", "1000m"), ("1e3", "1k"), ("0.5", "500m"), ("1Ki", "1024")],
    ids=["Gi", "milli", "exponent", "fraction", "Ki"],
)
def test_equal_values_hash_alike(a: str, b: str) -> None:
    qa, qb = Quantity.parse(a), Quantity.parse(b)
    assert qa == qb
    assert hash(qa) == hash(qb)
    assert len({qa, qb}) == 1


def test_arithmetic_keeps_left_format_unless_zero() -> None:
    total = Quantity.parse("1Gi") + Quantity.parse("512Mi")
    assert str(total) == "1536Mi"
    assert total.format == BINARY_SI
    assert (ZERO + Quantity.parse("1Ki")).format == BINARY_SI  # upstream Add: zero takes y's format
    assert str(Quantity.parse("1") - Quantity.parse("250m")) == "750m"
    assert str(ZERO - Quantity.parse("2Ki")) == "-2Ki"
    assert str(Quantity.parse("100m") * 3) == "300m"
    assert str(3 * Quantity.parse("1Mi")) == "3Mi"
    assert str(-Quantity.parse("1.5")) == "-1500m"


def test_numbers_parse_as_their_json_text() -> None:
    assert Quantity.parse(2) == Quantity.parse("2")
    assert str(Quantity.parse(0.5)) == "500m"
    assert str(Quantity.parse(1e-05)) == "10e-6"  # "1e-05" is DecimalExponent
    assert Quantity.parse(1e20).value() == 10**20
    with pytest.raises(ValueError, match="regular expression"):
        Quantity.parse(True)
    with pytest.raises(ValueError, match="regular expression"):
        Quantity.parse(float("inf"))


def test_constructors() -> None:
    assert str(Quantity.from_int(5, BINARY_SI)) == "5"
    assert str(Quantity.from_int(2048, BINARY_SI)) == "2Ki"
    assert str(Quantity.from_milli(1500)) == "1500m"
    assert Quantity.from_milli(500, BINARY_SI).format == BINARY_SI
    assert str(ZERO) == "0"


def test_immutable_and_picklable() -> None:
    q = Quantity.parse("1.5Gi")
    with pytest.raises(AttributeError):
        q.format = DECIMAL_SI
    copy = pickle.loads(pickle.dumps(q))
    assert copy == q
    assert str(copy) == "1536Mi"
    assert repr(q) == "Quantity('1536Mi')"


def test_parse_quantity_is_cached() -> None:
    assert parse_quantity("250m") is parse_quantity("250m")
    assert parse_quantity(1) is not parse_quantity("1")
    assert parse_quantity(1) == parse_quantity("1")


def test_comparison_with_other_types_is_refused() -> None:
    q = Quantity.parse("1")
    assert q != 1
    with pytest.raises(TypeError):
        _ = q < 1  # type: ignore[operator]
    with pytest.raises(TypeError):
        Quantity.parse([1])  # type: ignore[arg-type]
