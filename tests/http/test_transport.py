"""The coalescing transport under uvicorn: one ``send`` per event-loop step, nothing lost or reordered."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from kubelite.http.server import _CoalescingTransport


class _Recorder:
    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        self.writes.append(data)

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True

    def get_write_buffer_size(self) -> int:
        return 0

    def get_extra_info(self, name: str) -> Any:
        return f"extra:{name}"


async def test_writes_of_one_step_leave_as_one_send() -> None:
    raw = _Recorder()
    t = _CoalescingTransport(raw, asyncio.get_running_loop())  # type: ignore[arg-type]
    t.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n")
    t.write(b"{}")
    assert raw.writes == []
    assert t.get_write_buffer_size() == 40
    await asyncio.sleep(0)
    assert raw.writes == [b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}"]
    t.write(b"next")
    await asyncio.sleep(0)
    assert raw.writes[1:] == [b"next"]


async def test_close_flushes_first_and_the_rest_is_the_transports() -> None:
    raw = _Recorder()
    t = _CoalescingTransport(raw, asyncio.get_running_loop())  # type: ignore[arg-type]
    t.write(b"last words")
    t.close()
    assert raw.writes == [b"last words"]
    assert raw.closed
    assert t.get_extra_info("peername") == "extra:peername"
    t.write(b"after close")
    await asyncio.sleep(0)
    assert raw.writes == [b"last words"]  # a closing transport is not written to


@pytest.mark.parametrize("n", [1, 3, 200], ids=["one", "three", "many"])
async def test_order_is_kept(n: int) -> None:
    raw = _Recorder()
    t = _CoalescingTransport(raw, asyncio.get_running_loop())  # type: ignore[arg-type]
    for i in range(n):
        t.write(b"%d," % i)
    await asyncio.sleep(0)
    assert raw.writes == [b"".join(b"%d," % i for i in range(n))]
