"""Resource quantities (``"500m"``, ``"1.5Gi"``, ``"1e3"``), exact and immutable.

Follows ``k8s.io/apimachinery/pkg/api/resource`` (``quantity.go`` ParseQuantity / CanonicalizeBytes /
ScaledValue, ``suffix.go``, ``amount.go`` AsCanonicalBytes).

Contract:
- A :class:`Quantity` is immutable and hashable; equality, hashing and ordering are by numeric value, so
  ``Quantity.parse("1Gi") == Quantity.parse("1073741824")`` whatever the spelling or format.
- Values are exact. Internally a quantity is an integer count of nano-units: upstream rounds every parsed
  value *up in magnitude* to a multiple of 10^-9 (``0.1n`` becomes ``1n``), so nothing finer can exist.
  BinarySI inputs are capped at 2^63-1 like upstream; DecimalSI and DecimalExponent inputs are not.
- ``format`` (``"BinarySI"``, ``"DecimalSI"``, ``"DecimalExponent"``) is remembered from the suffix and
  decides the canonical spelling :meth:`Quantity.__str__` emits (upstream ``String()``): ``"1.5Gi"`` ->
  ``"1536Mi"``, ``"0.5"`` -> ``"500m"``, ``"1000m"`` -> ``"1"``. Like upstream, an input that is already
  in canonical form keeps its original spelling (so ``"1E3"`` stays ``"1E3"`` and ``"+1"`` stays ``"+1"``).
- :func:`parse_quantity` caches results; sharing is safe because quantities are immutable.

Known, deliberate deviations (all on inputs upstream mishandles): a DecimalSI value above ``E`` is emitted as
a multiple of ``E`` and a BinarySI value above ``Ei`` as a multiple of ``Ei`` (upstream drops the suffix and
so prints a wrong number); decimal exponents beyond +-10000 are rejected to bound memory; ``value()`` and
``milli_value()`` round negative values away from zero as documented (upstream's big-number path rounds
some toward zero) and never overflow.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Any, Final

from kubelite.memo import memoize

__all__ = [
    "BINARY_SI",
    "DECIMAL_EXPONENT",
    "DECIMAL_SI",
    "ZERO",
    "Quantity",
    "is_valid",
    "parse_quantity",
]

BINARY_SI: Final = "BinarySI"
DECIMAL_SI: Final = "DecimalSI"
DECIMAL_EXPONENT: Final = "DecimalExponent"

_SPLIT_RE = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
ERR_FORMAT_WRONG: Final = f"quantities must match the regular expression '{_SPLIT_RE}'"
ERR_NUMERIC: Final = "unable to parse numeric part of quantity"
ERR_SUFFIX: Final = "unable to parse quantity's suffix"

_NANO: Final = 10**9
_MAX_INT64: Final = 2**63 - 1
_MAX_EXPONENT: Final = 10_000

# The shape of upstream's hand-written scanner (parseQuantityString): sign, leading zeros, integer
# digits, optional "." fraction, suffix letters, optional signed exponent digits.
_SCAN = re.compile(r"([+-]?)0*([0-9]*)(?:\.([0-9]*))?([eEinumkKMGTP]*[-+]?[0-9]*)")
_INT64_TEXT = re.compile(r"[+-]?[0-9]+")

# suffix -> (base, exponent, format), upstream suffix.go.
_SUFFIXES: Final[dict[str, tuple[int, int, str]]] = {
    "": (10, 0, DECIMAL_SI),
    "n": (10, -9, DECIMAL_SI),
    "u": (10, -6, DECIMAL_SI),
    "m": (10, -3, DECIMAL_SI),
    "k": (10, 3, DECIMAL_SI),
    "M": (10, 6, DECIMAL_SI),
    "G": (10, 9, DECIMAL_SI),
    "T": (10, 12, DECIMAL_SI),
    "P": (10, 15, DECIMAL_SI),
    "E": (10, 18, DECIMAL_SI),
    "Ki": (2, 10, BINARY_SI),
    "Mi": (2, 20, BINARY_SI),
    "Gi": (2, 30, BINARY_SI),
    "Ti": (2, 40, BINARY_SI),
    "Pi": (2, 50, BINARY_SI),
    "Ei": (2, 60, BINARY_SI),
}
_DECIMAL_SUFFIX: Final = {-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}
_BINARY_SUFFIX: Final = ("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")


def _interpret_suffix(suffix: str) -> tuple[int, int, str]:
    known = _SUFFIXES.get(suffix)
    if known is not None:
        return known
    if len(suffix) > 1 and suffix[0] in "eE" and _INT64_TEXT.fullmatch(suffix, 1):
        exponent = int(suffix[1:])
        if -_MAX_EXPONENT <= exponent <= _MAX_EXPONENT:
            return 10, exponent, DECIMAL_EXPONENT
    raise ValueError(ERR_SUFFIX)


def _ceil_div(a: int, b: int) -> int:
    """ceil(a / b) for a >= 0, b > 0."""
    return -(-a // b)


def _to_nanos(digits: int, n_frac: int, base: int, exponent: int) -> int:
    """|value| in nano-units, rounded up like upstream's ``amount.Round(..., Nano, inf.RoundUp)``."""
    if base == 2:
        return _ceil_div(digits * (_NANO << exponent), 10**n_frac)
    shift = exponent - n_frac + 9
    if shift >= 0:
        return digits * int(10**shift)
    if -shift > len(str(digits)):  # smaller than one nano-unit: 0 stays 0, anything else becomes 1n
        return 1 if digits else 0
    return _ceil_div(digits, 10**-shift)


def _keeps_spelling(num: str, frac: str, base: int, exponent: int, fmt: str) -> bool:
    """Whether upstream's int64 fast path would keep the input string as the canonical one."""
    if base == 2:
        if frac:
            return False
        precision = 15 - len(num) - (exponent * 3 // 10) - 1
        scale = 0
    else:
        precision = 18 - (len(num) + len(frac))
        scale = exponent - len(frac)
    if precision < 0 or scale < -9:
        return False
    shifted = num + frac
    value = int(shifted)
    if base == 2:
        return value << exponent <= _MAX_INT64 and value & 7 != 0
    return scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"


class Quantity:
    """An exact, immutable resource quantity. Build one with :meth:`parse` or :func:`parse_quantity`."""

    __slots__ = ("_n", "_s", "format")

    _n: int  # value in nano-units (10^-9)
    _s: str | None  # canonical string, computed lazily
    format: str

    def __init__(self, nanos: int, format: str = DECIMAL_SI, _spelling: str | None = None) -> None:
        object.__setattr__(self, "_n", nanos)
        object.__setattr__(self, "format", format)
        object.__setattr__(self, "_s", _spelling)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Quantity is immutable")

    # --- construction -----------------------------------------------------------------------------------

    @classmethod
    def parse(cls, v: str | int | float) -> Quantity:
        """Parse like upstream ``ParseQuantity``; JSON numbers parse as their decimal text."""
        if isinstance(v, bool):
            raise ValueError(ERR_FORMAT_WRONG)
        if isinstance(v, int):
            v = str(v)
        elif isinstance(v, float):
            if not math.isfinite(v):
                raise ValueError(ERR_FORMAT_WRONG)
            v = repr(v)
        elif not isinstance(v, str):
            raise TypeError(f"cannot parse a quantity from {type(v).__name__}")
        if not v:
            raise ValueError(ERR_FORMAT_WRONG)
        if v == "0":
            return cls(0, DECIMAL_SI, "0")
        m = _SCAN.fullmatch(v)
        if m is None:
            raise ValueError(ERR_FORMAT_WRONG)
        sign, num, frac, suffix = m.group(1), m.group(2) or "0", m.group(3) or "", m.group(4)
        base, exponent, fmt = _interpret_suffix(suffix)
        nanos = _to_nanos(int(num + frac), len(frac), base, exponent)
        if fmt == BINARY_SI:
            if nanos > _MAX_INT64 * _NANO:
                nanos = _MAX_INT64 * _NANO
            if 0 < nanos < _NANO:  # upstream switches sub-unit binary values to DecimalSI
                fmt = DECIMAL_SI
        spelling = v if _keeps_spelling(num, frac, base, exponent, fmt) else None
        return cls(-nanos if sign == "-" else nanos, fmt, spelling)

    @classmethod
    def from_int(cls, value: int, format: str = DECIMAL_SI) -> Quantity:
        """``resource.NewQuantity(value, format)``."""
        return cls(value * _NANO, format)

    @classmethod
    def from_milli(cls, milli: int, format: str = DECIMAL_SI) -> Quantity:
        """``resource.NewMilliQuantity(milli, format)``."""
        return cls(milli * 1_000_000, format)

    # --- accessors --------------------------------------------------------------------------------------

    def value(self) -> int:
        """The value rounded up (away from zero) to an integer, like ``Quantity.Value()``."""
        n = self._n
        return _ceil_div(n, _NANO) if n >= 0 else -_ceil_div(-n, _NANO)

    def milli_value(self) -> int:
        """The value in thousandths rounded up (away from zero), like ``Quantity.MilliValue()``."""
        n = self._n
        return _ceil_div(n, 1_000_000) if n >= 0 else -_ceil_div(-n, 1_000_000)

    def as_fraction(self) -> Fraction:
        return Fraction(self._n, _NANO)

    def is_zero(self) -> bool:
        return self._n == 0

    def sign(self) -> int:
        return (self._n > 0) - (self._n < 0)

    # --- arithmetic (upstream Add/Sub: a zero left operand takes the right operand's format) -------------

    def __add__(self, other: Quantity) -> Quantity:
        if not isinstance(other, Quantity):
            return NotImplemented
        return Quantity(self._n + other._n, other.format if self._n == 0 else self.format)

    def __sub__(self, other: Quantity) -> Quantity:
        if not isinstance(other, Quantity):
            return NotImplemented
        return Quantity(self._n - other._n, other.format if self._n == 0 else self.format)

    def __mul__(self, factor: int) -> Quantity:
        if not isinstance(factor, int) or isinstance(factor, bool):
            return NotImplemented
        return Quantity(self._n * factor, self.format)

    __rmul__ = __mul__

    def __neg__(self) -> Quantity:
        return Quantity(-self._n, self.format)

    # --- comparison and hashing by value ----------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self._n == other._n

    def __hash__(self) -> int:
        return hash(self._n)

    def __lt__(self, other: Quantity) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self._n < other._n

    def __le__(self, other: Quantity) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self._n <= other._n

    def __gt__(self, other: Quantity) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self._n > other._n

    def __ge__(self, other: Quantity) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self._n >= other._n

    # --- canonical form ---------------------------------------------------------------------------------

    def __str__(self) -> str:
        s = self._s
        if s is None:
            s = _canonical(self._n, self.format)
            object.__setattr__(self, "_s", s)
        return s

    def __repr__(self) -> str:
        return f"Quantity({str(self)!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Quantity, (self._n, self.format, self._s))


def _canonical(n: int, fmt: str) -> str:
    """Upstream ``CanonicalizeBytes``: no fractional digits, the largest exponent that loses nothing."""
    if n == 0:
        return "0"
    if fmt == BINARY_SI and (-1024 * _NANO < n < 1024 * _NANO or n % _NANO):
        fmt = DECIMAL_SI  # small or fractional binary values are shown in decimal, never rounded
    sign = "-" if n < 0 else ""
    mag = -n if n < 0 else n
    if fmt == BINARY_SI:
        mag //= _NANO
        power = 0
        while mag % 1024 == 0 and power < len(_BINARY_SUFFIX) - 1:
            mag //= 1024
            power += 1
        return f"{sign}{mag}{_BINARY_SUFFIX[power]}"
    exponent = -9
    while mag % 10 == 0:
        mag //= 10
        exponent += 1
    down = exponent % 3  # lower the exponent to a multiple of three
    mag *= 10**down
    exponent -= down
    if fmt == DECIMAL_EXPONENT:
        return f"{sign}{mag}e{exponent}" if exponent else f"{sign}{mag}"
    if exponent > 18:
        mag *= 10 ** (exponent - 18)
        exponent = 18
    return f"{sign}{mag}{_DECIMAL_SUFFIX[exponent]}"


# bound: distinct quantity strings/numbers: resources of a few templates, node capacities
@memoize("api.quantity.parse_quantity", maxsize=8192, typed=True)
def parse_quantity(v: str | int | float) -> Quantity:
    """:meth:`Quantity.parse`, cached: the same few spellings recur across every pod."""
    return Quantity.parse(v)


def is_valid(v: Any) -> bool:
    try:
        Quantity.parse(v)
    except (ValueError, TypeError):
        return False
    return True


ZERO: Final = Quantity(0, DECIMAL_SI)
