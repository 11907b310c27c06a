"""A fuzz run's trace: what was committed, what was decided, what was checked, in order.

Each line is plain text built only from values that replay exactly: revisions, resource names, object keys,
a hash of the stored bytes (which hold only virtual timestamps and uids drawn from the cluster's seeded
RNG), virtual time in milliseconds, decisions and invariant outcomes. No memory address, wall-clock value or
``hash()`` of a string (salted per process) ever enters a line, so the SHA-256 :meth:`Trace.digest` of two
runs with the same seed and schedule is the same in any process, with any ``PYTHONHASHSEED``.
"""

from __future__ import annotations

import hashlib

from kubelite.clock import Clock
from kubelite.fuzz.schedule import Decision

__all__ = ["Trace"]


class Trace:
    """Append-only lines plus their digest."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._origin = clock.now()
        self.lines: list[str] = []

    def _t(self) -> str:
        return f"{(self._clock.now() - self._origin) * 1000:.0f}"

    def commit(self, rv: int, typ: str, resource: str, key: str, data: bytes) -> None:
        self.lines.append(f"{self._t()} {rv} {typ} {resource} {key} {hashlib.blake2b(data, digest_size=8).hexdigest()}")

    def decision(self, d: Decision, context: str = "") -> None:
        self.lines.append(f"{self._t()} decide {d.point}#{d.n} {d.action} {d.value} | {context}")

    def note(self, text: str) -> None:
        self.lines.append(f"{self._t()} {text}")

    def digest(self) -> str:
        h = hashlib.sha256()
        for line in self.lines:
            h.update(line.encode())
            h.update(b"\n")
        return h.hexdigest()
