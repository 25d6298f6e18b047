"""The 16×11 board: squares as ints, sets of squares as bitboards, and the two board maps.

A square is `row * 16 + col` (A1 == 0, B2 == 17); a set of squares is a Python int with
bit `square` set. Bitboards keep region flood fills and adjacency tests to a few integer
operations, which is what makes the engine fast enough for random playouts.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

COLUMNS = 16
ROWS = 11
SQUARES = COLUMNS * ROWS
FULL = (1 << SQUARES) - 1
COLUMN_LETTERS = "ABCDEFGHIJKLMNOP"

_NOT_FIRST_COLUMN = sum(1 << (r * COLUMNS + c) for r in range(ROWS) for c in range(1, COLUMNS))
_NOT_LAST_COLUMN = sum(1 << (r * COLUMNS + c) for r in range(ROWS) for c in range(COLUMNS - 1))


def square(col: int, row: int) -> int:
    return row * COLUMNS + col


def cell_name(cell: int) -> str:
    """`17` -> `"B2"`."""
    if not 0 <= cell < SQUARES:
        raise ValueError(f"no square number {cell} on a 16×11 board")
    return f"{COLUMN_LETTERS[cell % COLUMNS]}{cell // COLUMNS + 1}"


def parse_cell(text: str) -> int:
    """`"B2"` -> `17`; case-insensitive."""
    text = text.strip().upper()
    if len(text) >= 2 and text[0] in COLUMN_LETTERS and text[1:].isdigit():
        row = int(text[1:])
        if 1 <= row <= ROWS:
            return square(COLUMN_LETTERS.index(text[0]), row - 1)
    raise ValueError(f"{text!r} is not a square: columns are A–P, rows 1–11 (e.g. F7)")


def bit(cell: int) -> int:
    return 1 << cell


def expand(mask: int) -> int:
    """The squares of `mask` and their orthogonal neighbours."""
    return (
        mask
        | ((mask << 1) & _NOT_FIRST_COLUMN)
        | ((mask >> 1) & _NOT_LAST_COLUMN)
        | ((mask << COLUMNS) & FULL)
        | (mask >> COLUMNS)
    )


NEIGHBOURS: tuple[int, ...] = tuple(expand(1 << c) & ~(1 << c) for c in range(SQUARES))


def block_cells(top_left: int) -> tuple[int, int, int, int]:
    """The four squares of the 2×2 whose top-left square is `top_left`: where a monument stands."""
    return top_left, top_left + 1, top_left + COLUMNS, top_left + COLUMNS + 1


def block_mask(top_left: int) -> int:
    """`block_cells` as a bitboard."""
    return sum(1 << cell for cell in block_cells(top_left))


def cells_of(mask: int) -> Iterator[int]:
    """The squares of a bitboard, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def count(mask: int) -> int:
    return mask.bit_count()


def region_of(seed: int, pieces: int) -> int:
    """The squares of `pieces` orthogonally connected to the squares of `seed`."""
    region = seed & pieces
    while True:
        grown = expand(region) & pieces
        if grown == region:
            return region
        region = grown


@lru_cache(maxsize=8192)
def regions(pieces: int) -> tuple[int, ...]:
    """All connected groups of `pieces`, as bitboards (memoised: many states share a layout)."""
    found: list[int] = []
    rest = pieces
    while rest:
        region = region_of(rest & -rest, pieces)
        found.append(region)
        rest &= ~region
    return tuple(found)


@dataclass(frozen=True, slots=True)
class Board:
    """A board map: which squares are river, where the treasure temples start, which are framed corners."""

    name: str
    river: int
    temples: int
    corners: int

    @property
    def land(self) -> int:
        return FULL & ~self.river

    def is_river(self, cell: int) -> bool:
        return bool(self.river >> cell & 1)

    @classmethod
    def from_ascii(cls, name: str, text: str) -> Board:
        """A map drawn as in RULES.md: `.` land, `~` river, `T` treasure temple, `C` one on a framed corner.

        Row labels and a column header are allowed; only the 11 rows of 16 map characters count.
        """
        rows = [line for line in (_map_row(raw) for raw in text.splitlines()) if line is not None]
        if len(rows) != ROWS:
            raise ValueError(f"a board map needs {ROWS} rows of {COLUMNS} squares, found {len(rows)}")
        river = temples = corners = 0
        for r, line in enumerate(rows):
            for c, char in enumerate(line):
                b = 1 << square(c, r)
                if char == "~":
                    river |= b
                elif char in "TC":
                    temples |= b
                    if char == "C":
                        corners |= b
        return cls(name, river, temples, corners)


def _map_row(raw: str) -> str | None:
    parts = raw.split()
    if not parts:
        return None
    line = parts[-1]
    if len(line) == COLUMNS and set(line) <= set(".~TC") and (len(parts) == 1 or parts[0].isdigit()):
        return line
    return None


STANDARD_MAP = """
     ABCDEFGHIJKLMNOP
  1  ....~~~~~.T.~...
  2  .C..~.......~..C
  3  ...~~T......~~..
  4  ~~~~.........~~~
  5  .............T~~
  6  ..............~.
  7  ~~~~....T...~~~.
  8  .C.~~~~.....~...
  9  ......~~~~~~~.C.
 10  .....T..........
 11  ..........T.....
"""

ALTERNATE_MAP = """
     ABCDEFGHIJKLMNOP
  1  ..~~T....T.....~
  2  ..~~..........T~
  3  .C~~...........~
  4  ..~...T....T~~~~
  5  ..~.........~...
  6  ..~T........~..C
  7  ..~~........~~..
  8  C..~~~.T....T~..
  9  .....~~~.....~..
 10  ....C.~~~~~~~~..
 11  ......~..C....C.
"""

BOARDS = {
    "standard": Board.from_ascii("standard", STANDARD_MAP),
    "alternate": Board.from_ascii("alternate", ALTERNATE_MAP),
}


def board_named(name: str) -> Board:
    try:
        return BOARDS[name]
    except KeyError:
        raise ValueError(f"unknown board {name!r}: choose {' or '.join(BOARDS)}") from None
