"""Board taps snap to the nearest choice: the same answer as a plain search, built cheaply."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.commands import UiCommand
from companion.rules import COLUMNS, SQUARES, parse_cell
from companion.ui.board import snap_taps


def nearest_by_search(options: set[int], cell: int) -> int | None:
    """The option a tap on `cell` means: within one square (diagonals too), the closest, then the lowest."""
    col, row = cell % COLUMNS, cell // COLUMNS
    near = [(abs(col - o % COLUMNS) + abs(row - o // COLUMNS), o) for o in options
            if max(abs(col - o % COLUMNS), abs(row - o // COLUMNS)) <= 1]
    return min(near)[1] if near else None


@settings(max_examples=60, deadline=None)
@given(st.sets(st.integers(0, SQUARES - 1), max_size=60), st.booleans())
def test_a_tap_means_the_nearest_option_within_one_square(options: set[int], everywhere: bool) -> None:
    taps = dict(snap_taps(options, UiCommand.pick, everywhere=everywhere))
    for cell in range(SQUARES):
        meant = nearest_by_search(options, cell)
        if meant is not None:
            assert taps[cell] == UiCommand.pick(meant)
        elif everywhere:
            assert taps[cell] == UiCommand.pick(cell)
        else:
            assert cell not in taps


def test_each_option_command_is_made_once() -> None:
    # Screens make commands with f-strings (a treasure, a square's name): once per option, not per square.
    options = [parse_cell(name) for name in ("A1", "C3", "H6", "H7", "P11")]
    made: list[int] = []

    def command(cell: int) -> UiCommand:
        made.append(cell)
        return UiCommand.action(f"treasure {cell}")

    taps = snap_taps(options, command)
    assert sorted(made) == sorted(options)
    assert len(taps) == len({cell for cell, _ in taps}) > len(options)
