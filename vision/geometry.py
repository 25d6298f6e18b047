"""The physical board, in millimetres: one place shared by the renderer and the reader.

Board coordinates: x to the right, y down the board (towards row 11), origin at the outer
top-left corner of the playing grid, as the camera sees the board with its title edge at the top.

Assumptions (measure your own board if a read looks misaligned):
- A square of a Tigris & Euphrates board is about 30 mm, so the 16 × 11 grid is 480 × 330 mm.
- The printed border between the grid and the board edge is at least 36 mm (1.2 squares).

The four calibration markers (vision.aruco: DICT_4X4_50, ids 0 top-left, 1 top-right,
2 bottom-right, 3 bottom-left) are printed 24 mm wide on 36 mm square cards (6 mm of white
around each, which the detector needs). Each card lies on the border with its inner corner
touching the outer corner of the grid, so every marker's centre sits 18 mm (0.6 square)
outside its grid corner along both axes, and the markers stay put with the board when it is
bumped. Markers are laid upright: their own top edge towards the board's title edge.
"""

from __future__ import annotations

import numpy as np

from vision.aruco import CORNER_IDS
from vision.reading import CELLS, COLUMNS, ROWS, block_cells

SQUARE_MM = 30.0
GRID_WIDTH_MM = COLUMNS * SQUARE_MM
GRID_HEIGHT_MM = ROWS * SQUARE_MM
MARGIN_MM = 36.0  # grid edge to board edge

MARKER_SIDE_MM = 24.0  # the black square that the detector finds
MARKER_CARD_MM = 36.0  # the cut card, white quiet zone included
MARKER_OFFSET_MM = MARKER_CARD_MM / 2  # marker centre to grid corner, along x and along y

# The same lengths in squares, for a reader that works on a top-down image in square units.
MARGIN_SQ = MARGIN_MM / SQUARE_MM
MARKER_SIDE_SQ = MARKER_SIDE_MM / SQUARE_MM
MARKER_CARD_SQ = MARKER_CARD_MM / SQUARE_MM
MARKER_OFFSET_SQ = MARKER_OFFSET_MM / SQUARE_MM

BOARD_WIDTH_MM = GRID_WIDTH_MM + 2 * MARGIN_MM
BOARD_HEIGHT_MM = GRID_HEIGHT_MM + 2 * MARGIN_MM

# Corner order used everywhere: top-left, top-right, bottom-right, bottom-left (clockwise).
CORNERS = ("top-left", "top-right", "bottom-right", "bottom-left")
MARKER_IDS = tuple(CORNER_IDS[corner] for corner in CORNERS)


def grid_corners_mm() -> np.ndarray:
    """The outer corners of the playing grid (4×2 float32, TL, TR, BR, BL)."""
    w, h = GRID_WIDTH_MM, GRID_HEIGHT_MM
    return np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float32)


def board_corners_mm() -> np.ndarray:
    """The corners of the whole board, border included (4×2 float32, TL, TR, BR, BL)."""
    m, w, h = MARGIN_MM, GRID_WIDTH_MM, GRID_HEIGHT_MM
    return np.array([[-m, -m], [w + m, -m], [w + m, h + m], [-m, h + m]], dtype=np.float32)


def marker_centre_mm(marker_id: int) -> np.ndarray:
    """Where a marker's centre lies: diagonally outside its grid corner."""
    corner = MARKER_IDS.index(marker_id)
    outward = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], dtype=np.float32)[corner]
    grid_corner: np.ndarray = grid_corners_mm()[corner] + outward * MARKER_OFFSET_MM
    return grid_corner


def marker_corners_mm(marker_id: int) -> np.ndarray:
    """A marker's four corners (4×2 float32), clockwise from its own top-left, the order
    `vision.aruco.detect` reports them in."""
    half = MARKER_SIDE_MM / 2
    square = np.array([[-half, -half], [half, -half], [half, half], [-half, half]], dtype=np.float32)
    corners: np.ndarray = marker_centre_mm(marker_id) + square
    return corners


def all_marker_corners_mm() -> dict[int, np.ndarray]:
    """Every marker's corners, by id."""
    return {marker_id: marker_corners_mm(marker_id) for marker_id in MARKER_IDS}


def cell_centre_mm(cell: int) -> tuple[float, float]:
    """The centre of a square (row-major cell index) in board millimetres."""
    if not 0 <= cell < CELLS:
        raise ValueError(f"there is no square number {cell} on a {COLUMNS}×{ROWS} board")
    row, col = divmod(cell, COLUMNS)
    return ((col + 0.5) * SQUARE_MM, (row + 0.5) * SQUARE_MM)


# The printed boards, as in the rulebook diagrams (/work/shared/RULES.md): river `~`, a start
# temple with its treasure `T`, the same on a framed corner square `C`. Row 1 first.
_MAPS = {
    "standard": (
        "....~~~~~.T.~...",
        ".C..~.......~..C",
        "...~~T......~~..",
        "~~~~.........~~~",
        ".............T~~",
        "..............~.",
        "~~~~....T...~~~.",
        ".C.~~~~.....~...",
        "......~~~~~~~.C.",
        ".....T..........",
        "..........T.....",
    ),
    "alternate": (
        "..~~T....T.....~",
        "..~~..........T~",
        ".C~~...........~",
        "..~...T....T~~~~",
        "..~.........~...",
        "..~T........~..C",
        "..~~........~~..",
        "C..~~~.T....T~..",
        ".....~~~.....~..",
        "....C.~~~~~~~~..",
        "......~..C....C.",
    ),
}
BOARDS = tuple(_MAPS)


def _cells_marked(board: str, marks: str) -> frozenset[int]:
    try:
        rows = _MAPS[board]
    except KeyError:
        raise ValueError(f"unknown board {board!r}: choose one of {', '.join(BOARDS)}") from None
    return frozenset(r * COLUMNS + c for r, line in enumerate(rows) for c, ch in enumerate(line) if ch in marks)


def beside(cell: int) -> set[int]:
    """The squares touching a square side by side."""
    row, col = divmod(cell, COLUMNS)
    return {r * COLUMNS + c for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1))
            if 0 <= r < ROWS and 0 <= c < COLUMNS}


def around(cell: int) -> set[int]:
    """The squares touching a square, side or corner."""
    row, col = divmod(cell, COLUMNS)
    return {r * COLUMNS + c for r in range(max(row - 1, 0), min(row + 2, ROWS))
            for c in range(max(col - 1, 0), min(col + 2, COLUMNS))} - {cell}


def block(top: int) -> tuple[int, int, int, int] | None:
    """The 2×2 block of squares whose top-left one is `top` (where a monument stands), if the
    board has room for it."""
    if top % COLUMNS == COLUMNS - 1 or top >= CELLS - COLUMNS:
        return None
    return block_cells(top)


def river_cells(board: str = "standard") -> frozenset[int]:
    """The river squares of a printed board."""
    return _cells_marked(board, "~")


def start_temple_cells(board: str = "standard") -> frozenset[int]:
    """The squares where the game starts with a temple and its treasure."""
    return _cells_marked(board, "TC")


def corner_treasure_cells(board: str = "standard") -> frozenset[int]:
    """The framed corner squares, whose treasures must be taken first."""
    return _cells_marked(board, "C")
