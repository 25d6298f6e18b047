"""The camera cannot read the board: say why, and take the two calibration pictures at the table.

Pure view-model like the other screens. The pieces to lay out arrive as the vision's words
(`vision.reading.CellClass` values) and are drawn on the board where they go.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from companion.commands import UiCommand
from companion.rules import COLUMNS, DYNASTIES, GameConfig, initial_state
from vision.reading import CellClass

from .board import board_view
from .model import BoardView, Button, Help, Screen, Square, Tone, UiState

CALIBRATE = UiCommand.nav("calibrate")
PICTURE = UiCommand.nav("picture")
LATER = UiCommand.nav("close")
_HELP = Help("The camera learns where the board lies and what each piece looks like under this table's "
             "light. The four corner markers must be in view.")


def offer(why: str, ui: UiState) -> Screen:
    return _screen("calibration_offer", "The camera cannot read the board", (
        why, "Calibrate now: two pictures of the board, about a minute.",
    ), (Button("Calibrate now", CALIBRATE, primary=True), Button("Not now", LATER)), ui, tone=Tone.ERROR)


def setup_picture(board: str, ui: UiState) -> Screen:
    return _screen("calibration_setup", "Calibration 1 of 2: the set-up position", (
        "Put the ten temples with their treasures on their printed squares, and nothing else.",
        "Keep hands away from the board, then take the picture.",
    ), (Button("Take the picture", PICTURE, primary=True), Button("Cancel", LATER)), ui,
        board=_printed(board))


def pieces_picture(board: str, layout: Mapping[int, tuple[str, str | None, tuple[str, str] | None]],
                   ui: UiState) -> Screen:
    """layout: square → (CellClass value, dynasty, monument colours), as `vision.calibration.pieces_layout`."""
    return _screen("calibration_pieces", "Calibration 2 of 2: every piece", (
        "Lift the ten temples off. Lay out the pieces where the picture shows them: tiles, catastrophes, "
        "the unification tile, all sixteen leaders and the six monuments.",
        "Keep hands away from the board, then take the picture.",
    ), (Button("Take the picture", PICTURE, primary=True), Button("Cancel", LATER)), ui,
        board=layout_view(board, layout))


def working() -> Screen:
    return Screen(name="calibration_working", title="Learning the pieces…",
                  lines=("This takes a few seconds.",), tone=Tone.INFO)


def failed(why: str, ui: UiState) -> Screen:
    return _screen("calibration_failed", "The calibration did not succeed", (
        why, "The calibration file was left as it was.",
    ), (Button("Try again", CALIBRATE, primary=True), Button("Not now", LATER)), ui, tone=Tone.ERROR)


def layout_view(board: str, layout: Mapping[int, tuple[str, str | None, tuple[str, str] | None]]) -> BoardView:
    """The printed board with each laid-out piece drawn on its square (the temples lifted off)."""
    squares = [Square(river=square.river, corner=square.corner) for square in _printed(board).squares]
    top_lefts: set[int] = set()
    covered: set[int] = set()
    for cell in sorted(c for c, (value, _, _) in layout.items() if value == CellClass.MONUMENT.value):
        if cell not in covered:  # row by row, the first square of a 2×2 not yet covered is its top-left
            top_lefts.add(cell)
            covered.update((cell, cell + 1, cell + COLUMNS, cell + COLUMNS + 1))
    for cell, (value, dynasty, colours) in layout.items():
        cls = CellClass(value)
        if cls.name.startswith("TILE_"):
            squares[cell] = replace(squares[cell], tile=cls.colour)
        elif cls.name.startswith("LEADER_") and cls.colour is not None:
            squares[cell] = replace(squares[cell], leader=(cls.colour, dynasty or ""))
        elif cls is CellClass.CATASTROPHE:
            squares[cell] = replace(squares[cell], catastrophe=True)
        elif cls is CellClass.UNIFICATION:
            squares[cell] = replace(squares[cell], unification=True)
        elif cls is CellClass.MONUMENT and colours is not None:
            # drawn on the top-left square of its 2×2, on face-down tiles like a monument in play
            squares[cell] = replace(squares[cell], face_down=True, monument=colours if cell in top_lefts else None)
    return BoardView(tuple(squares))


def _printed(board: str) -> BoardView:
    """The board at the start of a game: rivers, and the temples with their treasures."""
    start = GameConfig(players=2, board=board, hidden_hands=True, names=("", ""), dynasties=DYNASTIES[:2])
    return board_view(initial_state(start), kingdoms=False)


def _screen(name: str, title: str, lines: tuple[str, ...], buttons: tuple[Button, ...], ui: UiState, *,
            board: BoardView | None = None, tone: Tone = Tone.PROMPT) -> Screen:
    focus = ui.focus % len(buttons) if ui.focus is not None else 0
    return Screen(name=name, title=title, lines=lines, buttons=buttons, focus=focus, board=board, help=_HELP,
                  tone=tone, back=LATER)
