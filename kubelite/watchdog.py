"""Livelock and stall detection for runs on virtual time.

Contract:
- A cluster on virtual time must never hang a caller. When components keep writing at one virtual
  instant without bound (a reject → recreate → bind loop, say), or a run stops making virtual progress,
  the cluster stops the run by raising :class:`LivelockError` from the call that was driving time
  (``advance``, ``settle``, ``wait_for``, a scenario run).
- The error carries a human-readable diagnosis naming the objects and components involved, so
  ``kubelite run`` can print it and exit 3.
"""

from __future__ import annotations

__all__ = ["LivelockError"]


class LivelockError(RuntimeError):
    """The cluster made no virtual progress within its bound; ``diagnosis`` says who was busy with what."""

    def __init__(self, message: str, *, diagnosis: str = "", at: float | None = None) -> None:
        super().__init__(message)
        self.diagnosis = diagnosis
        self.at = at

    def __str__(self) -> str:
        base = super().__str__()
        return f"{base}\n{self.diagnosis}" if self.diagnosis else base
