"""The reading's value types: what a cell class is, and the 2×2 a monument covers."""

from __future__ import annotations

from companion.rules import COLUMNS, ROWS, block_cells, cell_name
from vision import reading
from vision.reading import COLOURS, CellClass


def test_a_cell_class_says_whether_it_is_a_tile_or_a_leader_and_of_which_colour() -> None:
    tiles = {CellClass.TILE_RED, CellClass.TILE_BLUE, CellClass.TILE_GREEN, CellClass.TILE_BLACK}
    leaders = {CellClass.LEADER_RED, CellClass.LEADER_BLUE, CellClass.LEADER_GREEN, CellClass.LEADER_BLACK}
    assert {c for c in CellClass if c.is_tile} == tiles
    assert {c for c in CellClass if c.is_leader} == leaders
    assert {c for c in CellClass if c.is_empty} == {CellClass.EMPTY_LAND, CellClass.EMPTY_RIVER}
    for colour in COLOURS:
        assert CellClass(f"{colour} tile").colour == CellClass(f"{colour} leader").colour == colour
    # A temple under its treasure is read as the treasure: no colour, as for every other piece.
    assert {c.colour for c in CellClass if c not in tiles | leaders} == {None}


def test_the_vision_names_a_monuments_squares_as_the_rules_do() -> None:
    # vision never imports companion: its own helper must agree with the rules' one.
    for top_left in (r * COLUMNS + c for r in range(ROWS - 1) for c in range(COLUMNS - 1)):
        assert reading.block_cells(top_left) == block_cells(top_left), cell_name(top_left)
    assert [cell_name(c) for c in block_cells(0)] == ["A1", "B1", "A2", "B2"]
