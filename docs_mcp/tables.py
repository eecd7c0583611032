"""Plain-text tables for the commands that list things (`libraries`, `keys list`)."""

from __future__ import annotations

from collections.abc import Collection, Sequence


def table_lines(rows: Sequence[Sequence[str | None]], right_aligned: Collection[int] = ()) -> list[str]:
    """Rows (the first is the header) as lines with columns as wide as their widest cell, two spaces
    apart, trailing blanks trimmed; an empty cell ('' or None) shows '-'."""
    cells = [tuple(cell or "-" for cell in row) for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(cells[0]))]
    return [
        "  ".join(
            cell.rjust(width) if i in right_aligned else cell.ljust(width)
            for i, (cell, width) in enumerate(zip(row, widths))
        ).rstrip()
        for row in cells
    ]
