"""Column layout as Go's ``text/tabwriter`` does it, which is what kubectl prints through.

Contract: :func:`tabwrite` is a pure function of its input text and settings. A *cell* is text ended by a
tab; the text after a line's last tab is not a cell and is never padded. Cells in the same column of
*contiguous* lines form a column block, and each block is as wide as its widest cell plus ``padding``
(at least ``minwidth``). A line with fewer cells ends the block, so (as in ``kubectl describe``) the
alignment of ``Name:`` rows and of the ``Conditions`` table can interact exactly as they do upstream.

Settings used by kubectl:
- ``kubectl get``: ``printers.GetNewTabWriter`` = minwidth 10, tabwidth 4, padding 3 (:data:`GET`).
- ``kubectl describe``: ``describe.tabbedString`` = minwidth 0, tabwidth 8, padding 2 (:data:`DESCRIBE`).
Only the space padding mode is implemented (the tabwidth only matters when padding with tabs).
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["DESCRIBE", "GET", "PrefixWriter", "tabwrite"]

#: (minwidth, padding) of ``printers.GetNewTabWriter``
GET = (10, 3)
#: (minwidth, padding) of ``describe.tabbedString``
DESCRIBE = (0, 2)


def _format(lines: Sequence[list[str]], widths: list[int], lo: int, hi: int, minwidth: int, padding: int,
            out: list[str]) -> None:
    """Go's ``Writer.format``: find the column blocks of column ``len(widths)`` in lines[lo:hi], recursively."""
    column = len(widths)
    start = lo
    i = lo
    while i < hi:
        if column >= len(lines[i]) - 1:
            i += 1
            continue
        _write(lines, widths, start, i, out)
        start = i
        width = minwidth
        while i < hi and column < len(lines[i]) - 1:
            width = max(width, len(lines[i][column]) + padding)
            i += 1
        widths.append(width)
        _format(lines, widths, start, i, minwidth, padding, out)
        widths.pop()
        start = i
    _write(lines, widths, start, hi, out)


def _write(lines: Sequence[list[str]], widths: list[int], lo: int, hi: int, out: list[str]) -> None:
    for line in lines[lo:hi]:
        parts = []
        for j, cell in enumerate(line):
            parts.append(cell.ljust(widths[j]) if j < len(widths) else cell)
        out.append("".join(parts))


def tabwrite(text: str, *, settings: tuple[int, int] = GET) -> str:
    """Lay out tab-separated ``text`` (lines ended by ``\\n``) as ``tabwriter.Writer`` would."""
    if not text:
        return ""
    minwidth, padding = settings
    raw = text.split("\n")
    trailing = raw[-1] == ""
    if trailing:
        raw.pop()
    lines = [r.split("\t") for r in raw]
    out: list[str] = []
    _format(lines, [], 0, len(lines), minwidth, padding, out)
    return "\n".join(out) + ("\n" if trailing else "")


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A ``kubectl get`` table: header and rows, tab-joined and laid out with :data:`GET`."""
    return tabwrite("".join("\t".join(r) + "\n" for r in [header, *rows]), settings=GET)


class PrefixWriter:
    """``describe.PrefixWriter``: each write is indented two spaces per level; :meth:`text` lays the whole
    buffer out with :data:`DESCRIBE`, so alignment spans sections exactly as upstream's single tabwriter."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._done: list[str] = []

    def write(self, level: int, text: str) -> None:
        self._parts.append("  " * level + text)

    def line(self, level: int, *cells: str) -> None:
        """One line of tab-separated cells (``w.Write(level, "%s\\t%s\\n", ...)``)."""
        self._parts.append("  " * level + "\t".join(cells) + "\n")

    def flush(self) -> None:
        """``w.Flush()``: lay out what was written so far; later lines align on their own."""
        self._done.append(tabwrite("".join(self._parts), settings=DESCRIBE))
        self._parts = []

    def text(self) -> str:
        self.flush()
        return "".join(self._done)
