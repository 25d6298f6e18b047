"""The board picture's view-model, built from the engine's state (pure, no pygame)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import lru_cache

from companion.commands import UiCommand
from companion.rules import COLUMNS, ROWS, SQUARES, GameState

from .model import BoardView, Mark, MarkKind, Square


def board_view(
    state: GameState,
    marks: Iterable[Mark] = (),
    *,
    tappable: bool = False,
    kingdoms: bool = True,
) -> BoardView:
    """Every square as the players should see it, kingdoms outlined, `marks` on top."""
    dynasty = {player.seat: player.dynasty for player in state.players}
    top_left = {built.cell: built.monument for built in state.monuments}
    squares = []
    for cell in range(SQUARES):
        s = state.square(cell)
        monument = top_left.get(cell)
        squares.append(Square(
            river=s.river,
            tile=None if s.tile is None else s.tile.value,
            face_down=s.face_down,
            treasure=s.treasure,
            corner=s.corner,
            leader=None if s.leader is None else (s.leader[1].value, dynasty[s.leader[0]]),
            catastrophe=s.catastrophe,
            monument=None if monument is None else (monument.colours[0].value, monument.colours[1].value),
            unification=s.unification,
        ))  # fmt: skip
    outlined = tuple(frozenset(k.cells) for k in state.kingdoms()) if kingdoms else ()
    return BoardView(tuple(squares), outlined, tuple(marks), tappable)


def marks(kind: MarkKind, cells: Iterable[int]) -> tuple[Mark, ...]:
    return tuple(Mark(cell, kind) for cell in cells)


def snap_taps(
    options: Iterable[int], command: Callable[[int], UiCommand], *, everywhere: bool = False
) -> tuple[tuple[int, UiCommand], ...]:
    """Board taps for choosing among `options`: a tap on a square or any of its eight neighbours picks it.

    A square of the landscape board is about 30 px, smaller than a fingertip; snapping gives each
    option a target of three squares by three. With `everywhere`, squares near no option mean themselves.
    """
    chosen = tuple(sorted(set(options)))
    commands = {option: command(option) for option in chosen}
    taps = []
    for cell, option in enumerate(_nearest(chosen)):
        if option is not None:
            taps.append((cell, commands[option]))
        elif everywhere:
            taps.append((cell, command(cell)))
    return tuple(taps)


@lru_cache(maxsize=32)
def _nearest(options: tuple[int, ...]) -> tuple[int | None, ...]:
    """For each square, the option a tap there means: within one square, the closest (diagonals count
    two), then the lowest. Screens are rebuilt for every key and tap: the same options cost once."""
    best: list[tuple[int, int] | None] = [None] * SQUARES
    for option in options:
        col, row = option % COLUMNS, option // COLUMNS
        for r in range(max(row - 1, 0), min(row + 2, ROWS)):
            for c in range(max(col - 1, 0), min(col + 2, COLUMNS)):
                here = (abs(c - col) + abs(r - row), option)
                cell = r * COLUMNS + c
                current = best[cell]
                if current is None or here < current:
                    best[cell] = here
    return tuple(None if b is None else b[1] for b in best)
