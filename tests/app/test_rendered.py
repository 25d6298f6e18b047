"""The tracker and the controller on rendered camera frames read by the real observer."""

from __future__ import annotations

import os

from companion.app.controller import Controller
from companion.app.eyes import CameraEyes
from companion.rules import Game, parse_cell
from companion.tracker import Look, expected_cells
from companion.ui.commands import Key, UiCommand
from vision.reading import CellClass

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")


def board(*actions: str) -> list[Look]:
    """What the board looks like after `actions` from the set-up."""
    game = Game.new(2, hidden_hands=True)
    for action in actions:
        game.apply(action)
    return list(expected_cells(game.state))


def show(controller: Controller, eyes: CameraEyes, looks: list[Look]) -> None:
    """The players make the board look like `looks`; the companion looks until it sees clearly."""
    controller.on_motion()
    controller.on_reading(eyes.look(looks))
    for _ in range(5):
        if not controller.looking:
            return
        controller.on_reading(eyes.again())
    raise AssertionError(f"the camera never saw the board clearly: {controller.looking}")


def test_rendered_moves_illegal_placements_quick_doubles_and_takebacks() -> None:
    eyes = CameraEyes(11, size=(1014, 760), lamp=False)
    controller = Controller(Game.new(2, hidden_hands=True))
    illegal = board()
    illegal[parse_cell("H4")] = Look(CellClass.LEADER_RED, dynasty="archer")  # far from any temple
    show(controller, eyes, illegal)
    screen = controller.screen()
    assert screen.name == "mismatch"
    assert "A leader must stand next to a temple" in " ".join(screen.lines)
    assert controller.game.actions == ()
    show(controller, eyes, board())  # the leader is taken off again
    assert controller.screen().name == "turn"
    show(controller, eyes, board("tile black H4", "tile green L11"))  # both before the camera looks
    played = [str(a) for a in controller.game.actions]
    assert sorted(played) == ["tile black H4", "tile green L11"]
    show(controller, eyes, board(played[0]))  # the second tile lifted by hand: that ended the turn
    assert controller.screen().name == "takeback"
    assert "cannot be taken back" in " ".join(controller.screen().lines)  # tiles were drawn since
    show(controller, eyes, board(*played))  # put back
    assert controller.screen().name == "turn" and controller.state.current == 1
    show(controller, eyes, board(*played, "tile red F11"))
    show(controller, eyes, board(*played))  # the next player's tile taken back by hand, in their turn
    assert controller.screen().name == "takeback"
    assert "The board is back as it was before" in " ".join(controller.screen().lines)
    controller.handle(UiCommand.key(Key.OK))
    assert [str(a) for a in controller.game.actions] == played
    assert controller.screen().name == "turn"
