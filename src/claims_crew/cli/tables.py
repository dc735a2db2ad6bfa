"""The commands' tables: rich's Table, laid out so that no word is broken in two.

A table wider than the terminal is fitted by rich by narrowing its widest columns, below their
longest word where it must, and a word that no longer fits is folded or cut: "C-104/2",
"ESCAL/ATED", "conflict/s", "needs_more_evi…". This Table lays its columns out first: each at
least as wide as its longest word (its header's included), and the room left shared out by how
much wider each column's text would like to be. Words then wrap whole, at spaces.

Where even the longest words cannot stand side by side, some must fold, and the columns say
which may not: one added with `no_wrap=True` (an id) keeps its text on one line, one added with
`whole_words=True` (outcomes, reason codes, a URL among words) keeps its longest word whole.
Of the others, only those with the longest words fold them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich import table as rich_table
from rich.measure import Measurement

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderResult


class Table(rich_table.Table):
    """rich.table.Table, with every column at least as wide as its longest word."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.whole_words: set[int] = set()  # the columns added with whole_words=True

    def add_column(self, *args: Any, whole_words: bool = False, **kwargs: Any) -> None:
        """rich's add_column; `whole_words`: never fold this column's words, even where not
        every column's can stay whole."""
        if whole_words:
            self.whole_words.add(len(self.columns))
        super().add_column(*args, **kwargs)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        widths = word_widths(self, console, options)
        if widths is None:
            yield from super().__rich_console__(console, options)
            return
        # Fixed for this rendering only (word_widths found none fixed before): the table may be
        # printed again at another width.
        try:
            for column, width in zip(self.columns, widths, strict=True):
                column.width = width
            yield from super().__rich_console__(console, options)
        finally:
            for column in self.columns:
                column.width = None


def word_widths(table: Table, console: Console, options: ConsoleOptions) -> list[int] | None:
    """Each column's text width so that the table fits `options.max_width` with no word broken,
    else none of the words the columns keep whole; None where rich's own layout is the one to
    use: the table fits as it is, it sets its own widths or ratios, or the whole columns alone
    leave the others no room."""
    columns = table.columns
    if not columns or table.width is not None:
        return None
    if any(column.width is not None or column.ratio for column in columns):
        return None
    pads = [_padding(table, i) for i in range(len(columns))]
    # What rich's borders take: the two edges and one rule between each pair of columns.
    borders = (2 if table.box and table.show_edge else 0) + (len(columns) - 1 if table.box else 0)
    room = options.max_width - borders - sum(pads)
    least, most = [], []  # the longest word, and the longest line, of each column
    for column in columns:
        cells = [column.header, *column.cells] if table.show_header else list(column.cells)
        sizes = [Measurement.get(console, options, cell) for cell in cells] or [Measurement(1, 1)]
        least.append(max(size.minimum for size in sizes))
        most.append(max(size.maximum for size in sizes))
    if sum(most) <= room:
        return None
    if sum(least) <= room:
        extra = _fair(room - sum(least), [m - n for m, n in zip(most, least, strict=True)])
        return [n + e for n, e in zip(least, extra, strict=True)]
    # Not every word fits: a no_wrap column keeps its line, a whole_words one its longest word.
    kept = {
        i: most[i] if column.no_wrap else least[i]
        for i, column in enumerate(columns)
        if column.no_wrap or i in table.whole_words
    }
    others = [i for i in range(len(columns)) if i not in kept]
    spare = room - sum(kept.values())
    if not others or spare < len(others):
        return None
    given = dict(zip(others, _fair(spare, [least[i] for i in others]), strict=True))
    return [kept[i] if i in kept else given[i] for i in range(len(columns))]


def _fair(spare: int, wants: list[int]) -> list[int]:
    """`spare` shared out so that each gets what it wants up to a cap, the same for all: the
    smallest wants are met in full, and the rest share what is left evenly."""
    given = [0] * len(wants)
    waiting = sorted(range(len(wants)), key=lambda i: wants[i])
    while waiting:
        even, odd = divmod(spare, len(waiting))
        if wants[waiting[0]] <= even:
            first = waiting.pop(0)
            given[first] = wants[first]
            spare -= wants[first]
            continue
        for rank, index in enumerate(waiting):
            given[index] = even + (rank < odd)
        break
    return given


def _padding(table: rich_table.Table, index: int) -> int:
    """The padding rich puts either side of column `index`'s text (Table._get_padding_width)."""
    _, right, _, left = table.padding
    if table.collapse_padding:
        left, right = 0, abs(left - right)
    if not table.pad_edge:
        left = 0 if index == 0 else left
        right = 0 if index == len(table.columns) - 1 else right
    return left + right
