"""kubelite's structlog setup: quiet by default, stamped with cluster time, never wall time.

Components log with ``structlog.get_logger(...)`` and snake_case event names with bound context
(``controller=``, ``key=``, ``reconcile_id=``, ``node=``). If the application has not configured
structlog itself, importing kubelite installs this configuration: WARNING and above (override with
``KUBELITE_LOG_LEVEL=info`` or :func:`configure`), rendered to stderr, each line carrying ``t=`` — the
virtual time of the cluster whose task logged it — so logs replay byte for byte with the run.
"""

from __future__ import annotations

import contextvars
import logging
import os
import sys
from collections.abc import MutableMapping
from typing import Any

import structlog

__all__ = ["cluster_time", "configure", "reconcile_context"]

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


def configure(level: str | int | None = None) -> None:
    """(Re)configure structlog for kubelite: level, cluster-time stamps, stderr console output."""
    lvl = level if level is not None else os.environ.get("KUBELITE_LOG_LEVEL", "warning")
    if isinstance(lvl, str):
        lvl = logging.getLevelName(lvl.upper())
        if not isinstance(lvl, int):
            lvl = logging.WARNING
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            _add_reconcile_context,
            _add_cluster_time,
            # plain tracebacks: no locals (no memory addresses) in what a run logs
            structlog.dev.ConsoleRenderer(colors=False, exception_formatter=structlog.dev.plain_traceback),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(lvl),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )


if not structlog.is_configured():
    configure()
