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
from collections.abc import Callable
from typing import Any, Protocol

import anyio

from kubelite.informer.delta_fifo import DeltaFIFO, Deltas, DeltaType, KeyedProcessFunc
from kubelite.informer.reflector import Reflector
from kubelite.logs import get_logger
from kubelite.supervise import first_error, report_error

__all__ = ["Controller", "DeltaHandler", "process_deltas"]

log = get_logger("kubelite.informer")

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
        keyed_process: KeyedProcessFunc | None = None, on_drained: Callable[[], None] | None = None,
    ) -> None:
        self.queue = queue
        self.reflector = reflector
        self.process = process
        self.keyed_process = keyed_process
        self.on_drained = on_drained
        self._ready = asyncio.Event()
        queue.notify = self._ready.set

    def has_synced(self) -> bool:
        """Whether the initial list has been popped into the cache (upstream ``HasSynced``)."""
        return self.queue.has_synced()

    def last_sync_resource_version(self) -> str:
        """The resourceVersion the reflector last synced to."""
        return self.reflector.last_sync_resource_version()

    async def run(self) -> None:
        """Run until cancelled: the reflector and the pop loop in one anyio task group, so a reflector
        that dies of a bug ends the run with its exception."""
        reflector_done = False

        async def reflect() -> None:
            nonlocal reflector_done
            try:
                await self.reflector.run()
            finally:
                reflector_done = True
                self._ready.set()

        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(reflect, name=f"reflector-{self.reflector.name}")
                await self._process_loop(lambda: reflector_done)
                tg.cancel_scope.cancel()
        except BaseExceptionGroup as eg:
            raise first_error(eg) from None
        finally:
            self.queue.close()

    def _log_error(self, err: BaseException) -> None:
        # upstream processLoop logs and keeps going; here it is also an unexpected component error
        report_error(f"informer/{self.reflector.name}", err, event="process_deltas_failed")

    async def _process_loop(self, reflector_done: Callable[[], bool]) -> None:
        queue, process, keyed, ready = self.queue, self.process, self.keyed_process, self._ready
        pop, drain, log_error = queue.pop, queue.drain, self._log_error
        on_drained = self.on_drained
        while True:
            if keyed is not None:
                drain(keyed, log_error)
            else:
                while len(queue):
                    try:
                        pop(process)
                    except Exception as err:
                        log_error(err)
            if on_drained is not None:
                on_drained()
            if reflector_done():
                return
            ready.clear()
            await ready.wait()
