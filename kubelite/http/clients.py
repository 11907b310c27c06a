"""Virtual time for HTTP clients kubelite cannot see: processes on the far end of the served connections.

The clock already sees the clients in this process (the loop's own sockets, worker threads through executor
futures) and the subprocesses the loop started (a kubectl a test runs). A kubectl typed in another shell, or a
shell script of kubectl commands, or an operator run from another terminal, is none of those: between its
requests the loop looks idle and virtual time would jump, possibly for hours, while the client is still working
(starting up, printing, deciding its next request). :class:`ClientActivity` holds time for them.

Guarantees, while ``idle_grace > 0`` and the loop is on virtual time (with real time it does nothing):

- **Recent activity.** For ``idle_grace`` real seconds after any client connection opens or closes, any request
  bytes arrive, or any response is complete, virtual time does not jump.
- **Unread data.** While a response or a watch event the server sent has not been read by its client (still in
  the server's transport buffer, or in the client socket's receive queue, for a loopback client: Linux
  ``/proc/net/tcp``), virtual time does not jump. A watch whose client has read everything does not hold
  time: the cluster keeps compressing while ``kubectl get -w`` or ``kubectl wait`` waits.
- **Client processes** (loopback clients, Linux ``/proc``). While a client's process can make progress
  (a thread running or runnable, or CPU used since the last look) virtual time does not jump. Once a client has
  disconnected, the process that started it (a shell script, a test runner) and any process that one starts
  afterwards (the script's next kubectl, before it connects) are watched the same way, so a script of kubectl
  commands sees no jump between its commands however slowly the machine runs them.
- Instead of jumping, virtual time **flows at real speed** meanwhile (the clock's hold,
  :meth:`kubelite.clock.LoopTime.hold`), so the cluster keeps working; once every watched client is idle
  (asleep, blocked on a watch, a shell waiting for its user) time jumps again as usual.
- Clients in this process are never watched, and with ``idle_grace == 0`` nothing here runs.

What cannot be seen is not held: a new client from a shell that was idle (the first kubectl a user types after
a pause) is unseen until it connects, so time may jump while it starts up; clients in another network namespace
or owned by another user are held by the activity window and the server's own buffers only.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import time
from typing import Any

from kubelite.clock import LoopTime, ProcFS

__all__ = ["DEFAULT_SERVE_IDLE_GRACE", "ClientActivity"]

#: ``kubelite serve --virtual-time``'s default ``--idle-grace`` (real seconds after the last client activity).
DEFAULT_SERVE_IDLE_GRACE = 1.0

#: real seconds between two looks at the watched clients while time is held
POLL = 0.05

#: real seconds an exited, unreaped client holds time (its starter is about to reap it and go on)
_REAP_WAIT = 1.0


def _now() -> float:
    return time.monotonic()  # noqa: TID251 - a client in another process works on real time, not the cluster's


def _proc_address(host: str, port: int) -> str:
    """``host:port`` as ``/proc/net/tcp{,6}`` writes it (each 32-bit word of the address in host byte order)."""
    if ":" in host:
        raw = socket.inet_pton(socket.AF_INET6, host)
        words = "".join(f"{int.from_bytes(raw[i:i + 4], 'little'):08X}" for i in range(0, 16, 4))
        return f"{words}:{port:04X}"
    return f"{int.from_bytes(socket.inet_aton(host), 'little'):08X}:{port:04X}"


class _Peer:
    """One connection's client: its socket in ``/proc/net/tcp`` and the process that owns it (once looked up)."""

    __slots__ = ("in_process", "local", "pid", "ppid", "remote", "start")

    def __init__(self, local: str, remote: str) -> None:
        self.local = local  # the client socket's address (the server's peername)
        self.remote = remote  # the server socket's address
        self.in_process = False
        self.pid: int | None = None  # None: not a process we can see (or this process)
        self.ppid: int | None = None
        self.start = 0  # the process's start time (clock ticks since boot)


class ClientActivity:
    """Holds virtual time for the served connections' clients (see the module docstring).

    The HTTP protocol reports to it: :meth:`connection_made` (which looks the client's process up once, and
    says whether to report the rest), then :meth:`received`, :meth:`response_complete`, :meth:`sent` and
    :meth:`connection_lost`. Those are cheap on the request path (a clock read, a set insert); the other
    ``/proc`` looks run only while time is held, every :data:`POLL` real seconds.
    """

    def __init__(self, *, idle_grace: float) -> None:
        self.idle_grace = idle_grace
        self.enabled = idle_grace > 0
        self._proc = os.path.isdir("/proc/self/fd") and os.path.exists("/proc/net/tcp")
        self._last = -float("inf")
        self._hold: contextlib.ExitStack | None = None
        self._poll: asyncio.TimerHandle | None = None
        self._peers: dict[Any, _Peer] = {}  # open connections (transport -> peer)
        self._unread: set[Any] = set()  # transports the server wrote to since the last look
        # after a client disconnected: the process that started it -> when the client started (the starter's
        # children started since are watched; older ones, the server itself or a test's busy loops, are not)
        self._starters: dict[int, int] = {}
        self._ticks: dict[int, int] = {}
        self._exited: dict[int, float] = {}  # pid -> real time it was first seen exited and unreaped
        #: statistics: how many looks found a reason to keep holding, by reason
        self.held_for: dict[str, int] = {"recent": 0, "unread": 0, "process": 0}

    # --- what the protocol reports ---
    def connection_made(self, transport: Any) -> bool:
        """A client connected: whether to report this connection's traffic (False for a client in this process,
        which the clock sees already, and whenever ``idle_grace`` is 0)."""
        if not self.enabled:
            return False
        peer = self._peer_of(transport)
        if peer is not None:
            self._resolve(peer)
            if peer.in_process:
                return False
            self._peers[transport] = peer
        self._touch()
        return True

    def connection_lost(self, transport: Any) -> None:
        peer = self._peers.pop(transport, None)
        self._unread.discard(transport)
        if peer is not None and peer.ppid is not None:
            since = self._starters.get(peer.ppid)
            self._starters[peer.ppid] = peer.start if since is None else min(since, peer.start)
        self._touch()

    def received(self) -> None:
        """Request bytes arrived, or a response is complete."""
        self._touch()

    response_complete = received

    def sent(self, transport: Any) -> None:
        """The server wrote to ``transport`` (a response, a watch event): hold until its client has read it."""
        self._unread.add(transport)
        if self._hold is None:
            self._take()

    def close(self) -> None:
        """Release the hold (the server is stopping)."""
        self._release()
        self._peers.clear()
        self._unread.clear()

    # --- holding ---
    def _touch(self) -> None:
        self._last = _now()
        if self._hold is None:
            self._take()

    def _take(self) -> None:
        lt = LoopTime.current()
        if lt is None:
            return  # real time: nothing to hold
        stack = contextlib.ExitStack()
        stack.enter_context(lt.hold())
        self._hold = stack
        self._poll = lt.loop.call_later(POLL, self._look)

    def _release(self) -> None:
        if self._poll is not None:
            self._poll.cancel()
            self._poll = None
        if self._hold is not None:
            self._hold.close()
            self._hold = None
        self._starters.clear()
        self._ticks.clear()
        self._exited.clear()

    def _look(self) -> None:
        """Keep holding while any client may still act; else let time jump again."""
        self._poll = None
        reason = self._why_hold()
        if reason is None:
            self._release()
            return
        self.held_for[reason] += 1
        self._poll = asyncio.get_running_loop().call_later(POLL, self._look)

    def _why_hold(self) -> str | None:
        if _now() - self._last < self.idle_grace:
            return "recent"
        if self._unread and self._any_unread():
            return "unread"
        if self._proc and self._processes_busy():
            return "process"
        return None

    # --- unread data ---
    def _any_unread(self) -> bool:
        queues: dict[str, int] | None = None
        for transport in list(self._unread):
            if transport.is_closing():
                self._unread.discard(transport)
                continue
            if transport.get_write_buffer_size() > 0:
                return True
            peer = self._peers.get(transport)
            if peer is None or not self._proc:
                self._unread.discard(transport)
                continue
            if queues is None:
                queues = self._receive_queues()
            if queues.get(f"{peer.local} {peer.remote}", 0) > 0:
                return True
            self._unread.discard(transport)
        return False

    @staticmethod
    def _tcp_table() -> list[list[str]]:
        rows: list[list[str]] = []
        for path in ("/proc/net/tcp", "/proc/net/tcp6"):
            try:
                with open(path) as f:
                    rows.extend(line.split() for line in f.readlines()[1:])
            except OSError:
                continue
        return rows

    def _receive_queues(self) -> dict[str, int]:
        """Unread bytes per socket (``local remote`` -> the rx_queue of ``/proc/net/tcp``)."""
        return {f"{r[1]} {r[2]}": int(r[4].partition(":")[2], 16) for r in self._tcp_table() if len(r) > 9}

    # --- client processes ---
    def _peer_of(self, transport: Any) -> _Peer | None:
        """The client of a loopback connection, when Linux shows it (its process is looked up on first use)."""
        if not self._proc:
            return None
        peername, sockname = transport.get_extra_info("peername"), transport.get_extra_info("sockname")
        if not peername or not sockname:
            return None
        try:
            return _Peer(_proc_address(peername[0], peername[1]), _proc_address(sockname[0], sockname[1]))
        except (OSError, ValueError, TypeError):
            return None

    def _resolve(self, peer: _Peer) -> None:
        inode = next((r[9] for r in self._tcp_table() if len(r) > 9 and r[1] == peer.local and r[2] == peer.remote),
                     None)
        if inode is None:
            return  # not a local socket: another host or network namespace
        target = f"socket:[{inode}]"
        if self._owns("self", target):
            peer.in_process = True  # a client in this process: the clock sees it already
            return
        me = os.getpid()
        for entry in ProcFS.listdir("/proc"):
            if entry.isdigit() and int(entry) != me and self._owns(entry, target):
                peer.pid = int(entry)
                fields = ProcFS.stat(entry)
                ppid = int(fields[1]) if fields is not None else 0
                peer.ppid = ppid if ppid > 1 and ppid != me else None
                peer.start = int(fields[19]) if fields is not None else 0
                return

    @staticmethod
    def _owns(pid: str, target: str) -> bool:
        fd_dir = f"/proc/{pid}/fd"
        for fd in ProcFS.listdir(fd_dir):
            try:
                if os.readlink(f"{fd_dir}/{fd}") == target:
                    return True
            except OSError:
                continue
        return False

    def _watched(self) -> list[int]:
        pids: list[int] = []
        for peer in list(self._peers.values()):
            if peer.pid is not None:
                pids.append(peer.pid)
        for starter, since in list(self._starters.items()):
            if not os.path.exists(f"/proc/{starter}"):
                del self._starters[starter]
                continue
            pids.append(starter)
            pids.extend(ProcFS.with_descendants([c for c in ProcFS.children(starter) if _started(c) >= since]))
        me = os.getpid()
        return [p for p in dict.fromkeys(pids) if p != me]

    def _processes_busy(self) -> bool:
        busy = False
        ticks: dict[int, int] = {}
        exited: dict[int, float] = {}
        for pid in self._watched():
            fields = ProcFS.stat(pid)
            if fields is None or fields[0] in "ZX":
                # a client that exited (reaped, or not yet) while the server has not seen its connection close:
                # its starter is about to go on (for up to a second)
                first = exited[pid] = self._exited.get(pid, _now())
                busy = busy or _now() - first < _REAP_WAIT
                continue
            # utime + stime over the process's threads (10 ms ticks), and its threads' CPU time in ns
            # (schedstat: a short burst between two looks, a shell forking its next command, shows there)
            used = (int(fields[11]) + int(fields[12])) * 1_000_000_000 + _cpu_ns(pid)
            ticks[pid] = used
            if used != self._ticks.get(pid, -1):  # it used CPU since the last look (or is new to us)
                busy = True
            elif not busy:
                busy = ProcFS.any_thread_runs(pid)
        self._ticks, self._exited = ticks, exited
        return busy


def _started(pid: int) -> int:
    """When ``pid`` started (clock ticks since boot), -1 once it is gone."""
    fields = ProcFS.stat(pid)
    return int(fields[19]) if fields is not None else -1


def _cpu_ns(pid: int) -> int:
    """The CPU time of ``pid``'s threads in ns (``/proc/PID/task/TID/schedstat``), 0 where the kernel has none."""
    total = 0
    for tid in ProcFS.threads(pid):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                total += int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            continue
    return total

