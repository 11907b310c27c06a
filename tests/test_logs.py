"""kubelite.logs: structlog loads with the first line to render, and the application's configuration wins."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys

import pytest
import structlog

from kubelite.logs import get_logger

_SCRIPT = """
import json, sys
from kubelite.logs import get_logger
if sys.argv[1] == "app-configured":
    import structlog
    structlog.configure(processors=[structlog.processors.JSONRenderer()],
                        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr))
log = get_logger("kubelite.test").bind(node="n1")
log.info("below_the_level", n=1)
after_info = "structlog" in sys.modules
log.warning("rendered", n=2)
print(json.dumps({"after_info": after_info, "after_warning": "structlog" in sys.modules}))
"""


def _run(mode: str) -> tuple[dict[str, bool], str]:
    env = {k: v for k, v in os.environ.items() if k != "KUBELITE_LOG_LEVEL"}
    out = subprocess.run([sys.executable, "-c", _SCRIPT, mode], capture_output=True, text=True, check=True, env=env)
    return json.loads(out.stdout), out.stderr


def test_a_line_below_the_level_does_not_load_structlog_and_a_warning_renders_with_kubelites_setup() -> None:
    flags, stderr = _run("plain")
    assert flags == {"after_info": False, "after_warning": True}
    assert "below_the_level" not in stderr
    assert "[warning  ] rendered" in stderr and "n=2" in stderr and "node=n1" in stderr


def test_the_applications_structlog_configuration_is_kept() -> None:
    flags, stderr = _run("app-configured")
    assert flags == {"after_info": True, "after_warning": True}
    lines = [json.loads(line) for line in stderr.splitlines()]
    # the application's configuration renders every line, the info one included; kubelite did not replace it
    assert lines == [{"node": "n1", "n": 1, "event": "below_the_level"}, {"node": "n1", "n": 2, "event": "rendered"}]


@pytest.mark.parametrize("method", ["debug", "info", "warning", "error", "critical"])
def test_every_line_reaches_structlog_once_it_is_loaded(method: str) -> None:
    """With structlog imported (as here), structlog decides: under an application configuration that keeps
    debug lines, kubelite's debug lines reach it (kubelite's own level only filters before structlog loads)."""
    old = structlog.get_config()
    cap = structlog.testing.LogCapture()
    structlog.configure(processors=[cap], wrapper_class=structlog.make_filtering_bound_logger(logging.DEBUG))
    try:
        getattr(get_logger("kubelite.test").bind(key="a"), method)("some_event", n=1)
    finally:
        structlog.configure(**old)
    assert cap.entries == [{"key": "a", "n": 1, "event": "some_event", "log_level": method}]


@pytest.mark.parametrize("method", ["debug", "info", "warning", "error"])
def test_capture_logs_sees_every_level_under_kubelites_own_configuration(
    method: str, capsys: pytest.CaptureFixture[str],
) -> None:
    """``structlog.testing.capture_logs`` swaps the processors and keeps the wrapper class, so kubelite's level
    lives in a processor, not a filtering wrapper: a test captures a component's debug and info lines as it
    would under structlog's defaults. Outside the capture, kubelite's WARNING level still drops them."""
    import kubelite.logs

    old = structlog.get_config()
    kubelite.logs.configure("warning")
    try:
        log = get_logger("kubelite.test").bind(node="n1")
        with structlog.testing.capture_logs() as logs:
            getattr(log, method)("captured_event", n=1)
        getattr(log, method)("after_the_capture", n=2)
    finally:
        structlog.configure(**old)
    assert logs == [{"node": "n1", "n": 1, "event": "captured_event", "log_level": method}]
    rendered = capsys.readouterr().err
    assert ("after_the_capture" in rendered) == (method in ("warning", "error"))


def test_lines_go_to_the_stderr_of_the_moment_they_are_logged(monkeypatch: pytest.MonkeyPatch) -> None:
    """kubelite's configuration looks ``sys.stderr`` up per line. It used to bind the stream current at its
    first rendered line: when that was a test's captured stream (``capsys``, a pytester run), every later
    line in the process raised "I/O operation on closed file", and ``report_error`` lost the error it was
    recording (tests/testing/test_plugin.py's error test, run after another pytester test)."""
    import io

    import kubelite.logs

    first, second = io.StringIO(), io.StringIO()
    old = structlog.get_config()
    try:
        monkeypatch.setattr(sys, "stderr", first)
        kubelite.logs.configure("warning")
        log = get_logger("kubelite.test")
        log.warning("into_the_first")
        first.close()
        monkeypatch.setattr(sys, "stderr", second)
        log.warning("into_the_second")
        get_logger("kubelite.other").error("also_the_second")
    finally:
        structlog.configure(**old)
    assert "into_the_second" in second.getvalue() and "also_the_second" in second.getvalue()
    assert "into_the_first" not in second.getvalue()
