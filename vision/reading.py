"""What the vision tells the rest of the program: one `BoardReading` per still board.

This is the contract between `vision` and the companion, and the only module of `vision` the
tracker and the screens import (DESIGN.md: the reading's value types live in a module of vision
that imports nothing else; it needs only the standard library). Colours are plain strings
("red", "blue", "green", "black") because the vision knows nothing of the rules' types.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

COLUMNS = 16
ROWS = 11
CELLS = COLUMNS * ROWS  # row-major: index = row * COLUMNS + col
COLOURS = ("red", "blue", "green", "black")


class CellClass(enum.Enum):
    EMPTY_LAND = "empty land"
    EMPTY_RIVER = "empty river"
    TILE_RED = "red tile"
    TILE_BLUE = "blue tile"
    TILE_GREEN = "green tile"
    TILE_BLACK = "black tile"
    TREASURE = "treasure on a temple"
    FACE_DOWN = "face-down tile"
    MONUMENT = "monument"
    LEADER_RED = "red leader"
    LEADER_BLUE = "blue leader"
    LEADER_GREEN = "green leader"
    LEADER_BLACK = "black leader"
    CATASTROPHE = "catastrophe"
    UNIFICATION = "unification tile"
    UNKNOWN = "unknown"

    @property
    def is_tile(self) -> bool:
        """A face-up civilization tile of one colour (a temple carrying a treasure is `TREASURE`)."""
        return self in _TILES

    @property
    def is_leader(self) -> bool:
        return self in _LEADERS

    @property
    def is_empty(self) -> bool:
        """Bare board, land or river."""
        return self is CellClass.EMPTY_LAND or self is CellClass.EMPTY_RIVER

    @property
    def colour(self) -> str | None:
        """The colour of a tile or leader class, else None."""
        return self.value.split()[0] if self in _TILES or self in _LEADERS else None


_TILES = frozenset({CellClass.TILE_RED, CellClass.TILE_BLUE, CellClass.TILE_GREEN, CellClass.TILE_BLACK})
_LEADERS = frozenset({CellClass.LEADER_RED, CellClass.LEADER_BLUE, CellClass.LEADER_GREEN, CellClass.LEADER_BLACK})


def block_cells(top_left: int) -> tuple[int, int, int, int]:
    """The four squares of the 2×2 whose top-left square is `top_left`: where a monument stands."""
    return top_left, top_left + 1, top_left + COLUMNS, top_left + COLUMNS + 1


class ReadStatus(enum.Enum):
    OK = "ok"
    MOVING = "the board is moving or a hand is over it"
    NO_BOARD = "the board markers are not in view"
    BOARD_MOVED = "the board or camera moved and the markers are hidden"
    BAD_FRAME = "the camera frame is unusable"
    NOT_CALIBRATED = "the camera is not calibrated yet"


@dataclass(frozen=True, slots=True)
class CellReading:
    cls: CellClass
    confidence: float  # 0..1; below the observer's threshold the cell is reported, never guessed
    dynasty: str | None = None  # for leaders, when the symbol could be seen
    monument: tuple[str, str] | None = None  # the two colours of a monument part, when seen


@dataclass(frozen=True, slots=True)
class BoardReading:
    status: ReadStatus
    cells: tuple[CellReading, ...] = ()  # CELLS entries when status is OK, else empty
    board_found: bool = False
    hands_in_view: bool = False
    time: float = 0.0
    message: str = ""  # for the players, in plain words
    # cell indices below the threshold; with MOVING, the unreadable patch taken for an arm reaching in
    low_confidence: tuple[int, ...] = field(default=())
    # the squares that differ from the picture last agreed on (every other square reads as agreed);
    # None when there was none to compare with and the whole board was read
    changed: tuple[int, ...] | None = None

    @property
    def ok(self) -> bool:
        return self.status is ReadStatus.OK
