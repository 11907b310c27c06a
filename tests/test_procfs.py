"""``kubelite.clock.ProcFS``: the one public ``/proc`` reader the clock and the HTTP client holds share.

Every look must tolerate a process that is gone (``None``/``[]``/``False``, never an exception): the clock and
:mod:`kubelite.http.clients` read processes that may exit between two reads.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from kubelite.clock import ProcFS

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="Linux /proc only")


def test_stat_of_this_process_and_of_one_of_its_threads() -> None:
    me = os.getpid()
    fields = ProcFS.stat(me)
    assert fields is not None
    assert fields[0] in "RSD"  # the state comes first, after the command name
    assert int(fields[1]) == os.getppid()
    tids = ProcFS.threads(me)
    assert str(me) in tids  # the main thread's tid is the pid
    thread = ProcFS.stat(me, str(me))
    assert thread is not None and int(thread[1]) == os.getppid()
    assert ProcFS.any_thread_runs(me)  # this thread is running while it reads


def test_a_command_name_with_spaces_and_parentheses_does_not_shift_the_fields() -> None:
    # the command name is "(...)" and may itself hold ") ": the fields start after the LAST ")"
    script = "import sys,time; sys.stdout.write('ok\\n'); sys.stdout.flush(); time.sleep(60)"
    link = f"/tmp/kubelite procfs (a) {os.getpid()}"
    os.symlink(sys.executable, link)
    try:
        child = subprocess.Popen([link, "-c", script], stdout=subprocess.PIPE)
        try:
            assert child.stdout is not None and child.stdout.readline() == b"ok\n"
            fields = ProcFS.stat(child.pid)
            assert fields is not None
            assert int(fields[1]) == os.getpid()
        finally:
            child.kill()
            child.wait()
            child.stdout.close()  # type: ignore[union-attr]
    finally:
        os.unlink(link)


def test_children_and_descendants_of_a_process_tree() -> None:
    # a shell whose child is a sleep: the shell is this process's child, the sleep its grandchild
    child = subprocess.Popen(["sh", "-c", "sleep 60 & echo $!; wait"], stdout=subprocess.PIPE)
    try:
        assert child.stdout is not None
        grandchild = int(child.stdout.readline())
        assert child.pid in ProcFS.children(os.getpid())
        assert ProcFS.children(child.pid) == [grandchild]
        walk = ProcFS.with_descendants([child.pid])
        assert walk[0] == child.pid and grandchild in walk
        # once it has exec'd sleep (however slowly the machine runs it) it is asleep and cannot make progress
        deadline = time.monotonic() + 60
        while ProcFS.any_thread_runs(grandchild) and time.monotonic() < deadline:
            time.sleep(0.01)
        sleeping = ProcFS.stat(grandchild)
        assert sleeping is not None and sleeping[0] == "S"
        assert not ProcFS.any_thread_runs(grandchild)
    finally:
        for pid in ProcFS.children(child.pid):
            os.kill(pid, 9)
        child.kill()
        child.wait()
        child.stdout.close()  # type: ignore[union-attr]


def test_every_look_at_a_process_that_is_gone_is_empty() -> None:
    child = subprocess.Popen(["true"])
    child.wait()  # reaped: its pid names nothing now
    gone = child.pid
    assert ProcFS.stat(gone) is None
    assert ProcFS.stat(gone, str(gone)) is None
    assert ProcFS.threads(gone) == []
    assert ProcFS.children(gone) == []
    assert not ProcFS.thread_runs(gone, str(gone))
    assert not ProcFS.any_thread_runs(gone)
    assert ProcFS.with_descendants([gone]) == [gone]  # the walk names what it was given; stat says it is gone
    assert ProcFS.listdir(f"/proc/{gone}/fd") == []


def test_the_walk_is_bounded() -> None:
    child = subprocess.Popen(["true"])
    child.wait()
    assert ProcFS.with_descendants([child.pid] * (ProcFS.MAX_WALK + 10)) == [child.pid] * ProcFS.MAX_WALK
