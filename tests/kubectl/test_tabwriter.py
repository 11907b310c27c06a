"""Go text/tabwriter layout, as kubectl get and kubectl describe use it."""

from __future__ import annotations

import pytest

from kubelite.kubectl.tabwriter import DESCRIBE, GET, PrefixWriter, table, tabwrite


@pytest.mark.parametrize(
    ("text", "settings", "want"),
    [
        ("a\tb\tc\nlonger\tx\ty\n", GET, "a         b         c\nlonger    x         y\n"),
        ("NAME\tAGE\nvery-long-name-here\t5s\n", GET, "NAME" + " " * 18 + "AGE\nvery-long-name-here   5s\n"),
        ("Name:\tx\nNamespace:\tdefault\n", DESCRIBE, "Name:       x\nNamespace:  default\n"),
        # a line without a tab ends the column block: the two blocks align independently
        ("A:\t1\nsection\nLonger key:\t2\n", DESCRIBE, "A:  1\nsection\nLonger key:  2\n"),
        # cells of the second column only align within lines that have one
        ("k\tv\tw\nkk\tvv\n", DESCRIBE, "k   v  w\nkk  vv\n"),
        # trailing text without a tab is never padded, empty cells are
        ("x\t\ty\n", DESCRIBE, "x    y\n"),
        ("", GET, ""),
    ],
    ids=["get-min-width", "get-padding", "describe", "blocks", "nested", "empty-cell", "empty"],
)
def test_tabwrite(text: str, settings: tuple[int, int], want: str) -> None:
    assert tabwrite(text, settings=settings) == want


def test_table_joins_cells() -> None:
    assert table(("NAME", "READY"), [("web", "1/1")]) == "NAME      READY\nweb       1/1\n"


def test_prefix_writer_indents_and_flush_separates_alignment() -> None:
    w = PrefixWriter()
    w.write(0, "Name:\tweb\n")
    w.write(1, "Key:\tvalue\n")
    w.flush()
    w.write(1, "Type\tReason\n")
    w.line(1, "Normal", "Scheduled")
    assert w.text() == "Name:   web\n  Key:  value\n  Type    Reason\n  Normal  Scheduled\n"
