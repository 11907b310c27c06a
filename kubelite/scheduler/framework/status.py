"""Status: what a plugin tells the framework, with upstream's codes and their requeue meaning.

Follows ``pkg/scheduler/framework/interface.go`` (``Code``, ``Status``). Contract:

- ``None`` returned by a plugin means Success (the hot path allocates nothing); a :class:`Status`
  carries any other outcome. :func:`is_success` accepts both.
- The codes keep upstream's meaning for the queue:
  ``UNSCHEDULABLE`` - this node does not fit now; preemption may help; the pod waits in the
  unschedulable pool for a relevant cluster event. ``UNSCHEDULABLE_AND_UNRESOLVABLE`` - preemption
  cannot help on this node (PostFilter skips it), otherwise like UNSCHEDULABLE. ``ERROR`` - internal
  failure: the pod goes to the backoff queue, not the unschedulable pool. ``WAIT`` - a Permit plugin
  holds the pod. ``SKIP`` - from PreFilter/PreScore: the plugin's Filter/Score is skipped for this
  pod; from Bind: try the next binder. ``PENDING`` - the pod waits for something outside the
  scheduler (not an event it can observe); it is requeued only by the named plugin's events.
- A Status is immutable once returned; ``plugin`` records who failed (upstream ``WithPlugin``).
"""

from __future__ import annotations

__all__ = [
    "ERROR",
    "PENDING",
    "SKIP",
    "SUCCESS",
    "UNSCHEDULABLE",
    "UNSCHEDULABLE_AND_UNRESOLVABLE",
    "WAIT",
    "Status",
    "code_name",
    "is_rejected",
    "is_success",
]

SUCCESS = 0
ERROR = 1
UNSCHEDULABLE = 2
UNSCHEDULABLE_AND_UNRESOLVABLE = 3
WAIT = 4
SKIP = 5
PENDING = 6

_NAMES = ("Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable", "Wait", "Skip", "Pending")


def code_name(code: int) -> str:
    return _NAMES[code]


class Status:
    """A non-success outcome: a code, human reasons (each counted separately in FitError messages)
    and the plugin that produced it."""

    __slots__ = ("code", "plugin", "reasons")

    def __init__(self, code: int, *reasons: str, plugin: str = "") -> None:
        self.code = code
        self.reasons: tuple[str, ...] = reasons
        self.plugin = plugin

    @classmethod
    def error(cls, err: BaseException | str, *, plugin: str = "") -> Status:
        """An ERROR status carrying ``err``'s message (``framework.AsStatus``)."""
        return cls(ERROR, str(err), plugin=plugin)

    @property
    def message(self) -> str:
        """The reasons joined with ", " (``Status.Message``)."""
        return ", ".join(self.reasons)

    def with_plugin(self, plugin: str) -> Status:
        """This status attributed to ``plugin`` (``Status.WithPlugin``); itself if it already is."""
        if self.plugin == plugin:
            return self
        return Status(self.code, *self.reasons, plugin=plugin)

    def is_success(self) -> bool:
        """Whether the code is SUCCESS (``Status.IsSuccess``)."""
        return self.code == SUCCESS

    def is_rejected(self) -> bool:
        """Unschedulable, UnschedulableAndUnresolvable or Pending (upstream ``IsRejected``)."""
        return self.code in (UNSCHEDULABLE, UNSCHEDULABLE_AND_UNRESOLVABLE, PENDING)

    def is_skip(self) -> bool:
        """Whether the code is SKIP (``Status.IsSkip``)."""
        return self.code == SKIP

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Status):
            return NotImplemented
        return (self.code, self.reasons) == (other.code, other.reasons)

    def __hash__(self) -> int:
        return hash((self.code, self.reasons))

    def __repr__(self) -> str:
        p = f", plugin={self.plugin!r}" if self.plugin else ""
        return f"Status({code_name(self.code)}, {self.message!r}{p})"


def is_success(status: Status | None) -> bool:
    return status is None or status.code == SUCCESS


def is_rejected(status: Status | None) -> bool:
    return status is not None and status.is_rejected()
