"""kubelite's structlog setup: quiet by default, stamped with cluster time, never wall time.

Components log through :func:`get_logger` with snake_case event names and bound context
(``controller=``, ``key=``, ``reconcile_id=``, ``node=``). Lines are rendered by structlog: with the
application's configuration if it has configured structlog, else with this one: WARNING and above
(override with ``KUBELITE_LOG_LEVEL=info`` or :func:`configure`), rendered to stderr, each line carrying
``t=`` — the virtual time of the cluster whose task logged it — so logs replay byte for byte with the run.

structlog is imported when it is first needed, not with kubelite (issue #17, cold start: ``import
structlog`` loads ``structlog.dev``, and with it rich and pygments when they are installed, ~150 ms):

- a line below kubelite's level is dropped without importing structlog, unless structlog is already
  imported (then it decides, as it always did: the application's configuration, ``capture_logs`` and
  friends see every line);
- the first line that must be rendered imports structlog and, unless the application configured it,
  installs the configuration above; if structlog is already imported when kubelite is, that happens at
  import, as it did before.

kubelite's level is the first processor of its configuration (not a filtering wrapper class), so
``structlog.testing.capture_logs()``, which swaps the processors and keeps the wrapper class, captures every
line, debug and info included, as it does under structlog's default configuration.
"""

from __future__ import annotations

import contextvars
import logging
import os
import sys
from collections.abc import MutableMapping
from typing import Any

__all__ = ["Logger", "cluster_time", "configure", "get_logger", "reconcile_context"]

#: Set by the running cluster: a callable returning its clock's current time (seconds since its epoch).
cluster_time: contextvars.ContextVar[Any] = contextvars.ContextVar("kubelite_cluster_time", default=None)


#: Set by a controller around each reconcile: (controller name, request, reconcile sequence number). One
#: ContextVar set per reconcile is far cheaper than binding three structlog contextvars, and the fields
#: are only rendered when a line is actually logged.
reconcile_context: contextvars.ContextVar[tuple[str, Any, int] | None] = contextvars.ContextVar(
    "kubelite_reconcile", default=None
)


def _add_reconcile_context(_: Any, __: str, event: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    ctx = reconcile_context.get()
    if ctx is not None:
        event.setdefault("controller", ctx[0])
        event.setdefault("key", str(ctx[1]))
        event.setdefault("reconcile_id", f"{ctx[0]}-{ctx[2]}")
    return event


def _add_cluster_time(_: Any, __: str, event: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    now = cluster_time.get()
    if now is not None:
        event["t"] = f"{now():.3f}"
    return event


def _parse_level(level: str | int | None) -> int:
    lvl = level if level is not None else os.environ.get("KUBELITE_LOG_LEVEL", "warning")
    if isinstance(lvl, str):
        lvl = logging.getLevelName(lvl.upper())
        if not isinstance(lvl, int):
            lvl = logging.WARNING
    return lvl


#: kubelite's level: lines below it are dropped before structlog is loaded (see the module docstring)
_level = _parse_level(None)
#: whether kubelite has looked at structlog's configuration yet (it configures structlog at most once unasked)
_checked = False


#: a structlog method name -> its level (structlog's own table is private)
_METHOD_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING, "warn": logging.WARNING,
                  "error": logging.ERROR, "exception": logging.ERROR, "critical": logging.CRITICAL,
                  "fatal": logging.CRITICAL}


def _drop_below_level(_: Any, method: str, event: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """kubelite's level, as the first processor of its own configuration (see the module docstring)."""
    if _METHOD_LEVELS.get(method, logging.CRITICAL) < _level:
        import structlog

        raise structlog.DropEvent
    return event


#: the processor list kubelite configured structlog with (None until it does); capture_logs edits it in place
_own_processors: list[Any] | None = None


def _drops_below_level() -> bool:
    """Whether a line below kubelite's level can be dropped here, before structlog sees it: structlog is not
    loaded, or kubelite's own configuration is in force with its level filter first (not while capture_logs,
    or an application's own configuration, has replaced the processors)."""
    if "structlog" not in sys.modules:
        return True
    own = _own_processors
    if not own or own[0] is not _drop_below_level:
        return False
    import structlog

    return structlog.get_config()["processors"] is own


def configure(level: str | int | None = None) -> None:
    """(Re)configure structlog for kubelite: level, cluster-time stamps, stderr console output."""
    global _level, _checked, _own_processors
    import structlog

    _level = _parse_level(level)
    _checked = True
    _own_processors = [
        _drop_below_level,
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        _add_reconcile_context,
        _add_cluster_time,
        # plain tracebacks: no locals (no memory addresses) in what a run logs
        structlog.dev.ConsoleRenderer(colors=False, exception_formatter=structlog.dev.plain_traceback),
    ]
    structlog.configure(
        processors=_own_processors,
        # every level passes the wrapper: the level is _drop_below_level's, which capture_logs lifts
        wrapper_class=structlog.make_filtering_bound_logger(logging.NOTSET),
        logger_factory=_stderr_logger,
        cache_logger_on_first_use=False,
    )


def _stderr_logger(*_: Any) -> Any:
    """structlog's logger factory: a PrintLogger to the stream that is ``sys.stderr`` when the line is logged
    (``cache_logger_on_first_use=False`` asks for one per line). ``PrintLoggerFactory(file=sys.stderr)`` bound
    the stream current at the first rendered line for the whole process: when that was a test's captured
    stream (pytest's ``capsys``, a pytester run), every later line raised "I/O operation on closed file",
    and ``report_error`` lost the error it was recording."""
    import structlog

    return structlog.PrintLogger(file=sys.stderr)


def _structlog() -> Any:
    """structlog, configured: by the application if it did, else (once) by :func:`configure`."""
    global _checked
    import structlog

    if not _checked:
        _checked = True
        if not structlog.is_configured():
            configure(_level)
    return structlog


class Logger:
    """A component's logger: structlog's ``get_logger(*args, **initial_values)``, made when the first line
    that must be rendered is logged (see the module docstring). ``bind`` returns a new Logger."""

    __slots__ = ("_args", "_context", "_proxy")

    def __init__(self, *args: Any, **initial_values: Any) -> None:
        self._args = args
        self._context = initial_values
        self._proxy: Any = None

    def bind(self, **values: Any) -> Logger:
        return Logger(*self._args, **{**self._context, **values})

    def _delegate(self, level: int) -> Any:
        """structlog's logger, or None when the line is dropped without loading structlog."""
        if level < _level and _drops_below_level():
            return None
        proxy = self._proxy
        if proxy is None:
            proxy = self._proxy = _structlog().get_logger(*self._args, **self._context)
        return proxy

    def debug(self, event: str, *args: Any, **kw: Any) -> Any:
        log = self._delegate(logging.DEBUG)
        return None if log is None else log.debug(event, *args, **kw)

    def info(self, event: str, *args: Any, **kw: Any) -> Any:
        log = self._delegate(logging.INFO)
        return None if log is None else log.info(event, *args, **kw)

    def warning(self, event: str, *args: Any, **kw: Any) -> Any:
        log = self._delegate(logging.WARNING)
        return None if log is None else log.warning(event, *args, **kw)

    def error(self, event: str, *args: Any, **kw: Any) -> Any:
        log = self._delegate(logging.ERROR)
        return None if log is None else log.error(event, *args, **kw)

    def exception(self, event: str, *args: Any, **kw: Any) -> Any:
        log = self._delegate(logging.ERROR)
        return None if log is None else log.exception(event, *args, **kw)

    def critical(self, event: str, *args: Any, **kw: Any) -> Any:
        log = self._delegate(logging.CRITICAL)
        return None if log is None else log.critical(event, *args, **kw)


def get_logger(*args: Any, **initial_values: Any) -> Logger:
    """A component's logger (``structlog.get_logger``'s arguments), loading structlog only when needed."""
    return Logger(*args, **initial_values)


if "structlog" in sys.modules:  # the application has structlog: configure it now, as kubelite always did
    _structlog()
