"""The informer's engine: a Reflector filling a DeltaFIFO and a loop popping it; client-go
``tools/cache/controller.go`` (``controller.Run``, ``processLoop``, ``processDeltas``).

Contract:
- :func:`process_deltas` applies one key's Deltas, oldest first, to the client state (the informer's
  Indexer) and then tells the handler: ``Added``/``Updated``/``Replaced``/``Sync`` become ``on_update``
  if the key is already in the state, ``on_add`` otherwise; ``Deleted`` becomes ``on_delete``. The state
  is always written before the handler hears of it, so a handler that reads the cache sees at least
  the object it was told about.
- :class:`Controller` runs the reflector as a task and drains the queue in its own task: every popped
  key is processed synchronously (no await between pop and the end of processing), so the cache and
  the notifications can never interleave with another key's. ``has_synced`` is the queue's.
- The loop wakes once per batch, not once per change: it processes everything queued, then waits
  for the queue's ``notify``. With ``keyed_process`` it uses :meth:`DeltaFIFO.drain` (the key computed
  when the change was queued is passed along, no per-change records); otherwise :meth:`DeltaFIFO.pop`.
- Stopping (cancelling :meth:`Controller.run`) cancels the reflector and closes the queue.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any, Protocol

import structlog

from kubelite.informer.delta_fifo import DeltaFIFO, Deltas, DeltaType, KeyedProcessFunc
from kubelite.informer.reflector import Reflector

__all__ = ["Controller", "DeltaHandler", "process_deltas"]

log = structlog.get_logger("kubelite.informer")

_DELETED = DeltaType.DELETED


class ClientState(Protocol):
    def add(self, obj: Any) -> None: ...

    def update(self, obj: Any) -> None: ...

    def delete(self, obj: Any) -> None: ...

    def get(self, obj: Any) -> Any | None: ...


class DeltaHandler(Protocol):
    """The synchronous side of a handler that ``process_deltas`` calls (the informer distributes)."""

    def on_add(self, obj: Any, is_in_initial_list: bool) -> None: ...

    def on_update(self, old: Any, new: Any) -> None: ...

    def on_delete(self, obj: Any) -> None: ...


def process_deltas(handler: DeltaHandler, client_state: ClientState, deltas: Deltas, is_in_initial_list: bool) -> None:
    """See the module docstring (upstream ``processDeltas``)."""
    for typ, obj in deltas:
        if typ is _DELETED:
            client_state.delete(obj)
            handler.on_delete(obj)
            continue
        old = client_state.get(obj)
        if old is not None:
            client_state.update(obj)
            handler.on_update(old, obj)
        else:
            client_state.add(obj)
            handler.on_add(obj, is_in_initial_list)


class Controller:
    """Reflector + pop loop over one DeltaFIFO. ``process`` is called for every popped key, or
    ``keyed_process`` (see :meth:`DeltaFIFO.drain`) instead when it is given."""

    def __init__(
        self, queue: DeltaFIFO, reflector: Reflector, process: Callable[[Deltas, bool], None], *,
        keyed_process: KeyedProcessFunc | None = None,
    ) -> None:
        self.queue = queue
        self.reflector = reflector
        self.process = process
        self.keyed_process = keyed_process
        self._ready = asyncio.Event()
        queue.notify = self._ready.set

    def has_synced(self) -> bool:
        return self.queue.has_synced()

    def last_sync_resource_version(self) -> str:
        return self.reflector.last_sync_resource_version()

    async def run(self) -> None:
        """Run until cancelled."""
        reflector = asyncio.get_running_loop().create_task(
            self.reflector.run(), name=f"reflector-{self.reflector.name}"
        )
        # A reflector that dies of a bug must wake the loop, which then re-raises its exception.
        reflector.add_done_callback(lambda _: self._ready.set())
        try:
            await self._process_loop(reflector)
        finally:
            reflector.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reflector
            self.queue.close()

    def _log_error(self, err: BaseException) -> None:
        # upstream processLoop logs and keeps going
        log.error("process_deltas_failed", reflector=self.reflector.name, error=repr(err))

    async def _process_loop(self, reflector: asyncio.Task[None]) -> None:
        queue, process, keyed, ready = self.queue, self.process, self.keyed_process, self._ready
        pop, drain, log_error = queue.pop, queue.drain, self._log_error
        while True:
            if keyed is not None:
                drain(keyed, log_error)
            else:
                while len(queue):
                    try:
                        pop(process)
                    except Exception as err:
                        log_error(err)
            if reflector.done():
                reflector.result()
                return
            ready.clear()
            await ready.wait()
