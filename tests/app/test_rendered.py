"""The tracker and the controller on rendered camera frames read by the real observer."""

from __future__ import annotations

import os

from companion.app.controller import Controller
from companion.commands import Key, UiCommand
from companion.rules import Game, parse_cell
from companion.sim.eyes import CameraEyes
from companion.tracker import Look, expected_cells
from vision.gate import GateState
from vision.reading import BoardReading, CellClass, CellReading, ReadStatus

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")


def board(*actions: str) -> list[Look]:
    """What the board looks like after `actions` from the set-up."""
    game = Game.new(2, hidden_hands=True)
    for action in actions:
        game.apply(action)
    return list(expected_cells(game.state))


def show(controller: Controller, eyes: CameraEyes, looks: list[Look]) -> None:
    """The players make the board look like `looks`; the companion looks until it sees clearly,
    telling the observer what the game knows before each look, as the main loop does."""
    controller.on_motion()
    controller.brief(eyes.observer)
    controller.on_reading(eyes.look(looks))
    for _ in range(5):
        if not controller.looking:
            return
        controller.brief(eyes.observer)
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
    assert sorted(str(a) for a in controller.game.actions) == ["tile black H4", "tile green L11"]
    first = str(controller.game.actions[0])
    show(controller, eyes, board(first))  # the second tile taken back by hand, though it ended the turn
    assert controller.screen().name == "takeback"
    assert "The board is back as it was before" in " ".join(controller.screen().lines)
    controller.handle(UiCommand.key(Key.OK))
    assert [str(a) for a in controller.game.actions] == [first]
    assert controller.screen().name == "turn"



def test_a_look_at_the_board_waits_until_the_hand_has_come_and_gone() -> None:
    """However still the board seems and however well it reads while the hand comes in, the look
    the players' move is judged by is the one after the hand has gone (the companion goes on
    watching in between)."""
    eyes = CameraEyes(12, size=(1014, 760), lamp=False)
    still = GateState(still=True, moving=False, hand=False, still_frames=9)
    eyes.observer.gate.update = lambda small: still  # type: ignore[method-assign]

    def read(frame: object, darker: object = None) -> BoardReading:  # every frame read, as it shows
        scene = eyes.camera.showing[0]
        return BoardReading(ReadStatus.OK, cells=tuple(CellReading(t.cls, 1.0) for t in scene.cells),
                            board_found=True)

    eyes.observer.read = read  # type: ignore[method-assign]
    reading = eyes.look(board("tile black H4"))
    assert reading.cells[parse_cell("H4")].cls is CellClass.TILE_BLACK
    assert not eyes.camera.passing
