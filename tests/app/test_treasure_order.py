"""Treasures at the table once the action is wholly resolved (RULES.md 6): what the controller, the
tracker and the screens ask of the players between two wars of one tile, and after the last. The
positions are the rules tests' own (tests/conftest.py)."""

from __future__ import annotations

from companion.app.controller import Controller
from companion.commands import UiCommand
from companion.rules import Game, PendingKind, parse_cell
from companion.sim.table import reading_of
from companion.tracker import Look, expected_cells
from vision.reading import BoardReading, CellClass


def with_tile(game: Game, square: str, cls: CellClass) -> BoardReading:
    """The board as the game has it, with a tile just put down on `square`."""
    looks = list(expected_cells(game.state))
    looks[parse_cell(square)] = Look(cls)
    return reading_of(looks)


def test_no_treasure_is_asked_for_between_two_wars_only_after_the_last(two_wars_over_treasures: Game) -> None:
    game = two_wars_over_treasures
    controller = Controller(game)
    controller.on_reading(with_tile(game, "E10", CellClass.TILE_GREEN))
    assert controller.screen().name == "war_order"
    controller.on_reading(reading_of(expected_cells(game.state)))  # the unification tile goes on
    for decision in ("war black", "support 0", "support 0"):  # Player 2 wins the black war
        controller.handle(UiCommand.action(decision))
    # The black war's result, then the red war; B8 keeps its treasure on the table meanwhile.
    assert controller.screen().name == "result" and game.pending.kind is PendingKind.SUPPORT
    assert not any("treasure" in line for line in controller.screen().lines)
    controller.handle(UiCommand.nav("done"))  # "Next: the priests' war"
    assert controller.screen().name == "support"
    assert not any(o.cell == parse_cell("B8") for o in controller.owed)
    for decision in ("support 0", "support 0"):  # Player 2 wins the red war
        controller.handle(UiCommand.action(decision))
    screen = controller.screen()
    assert screen.name == "result"
    taken = [line for line in screen.lines if "treasure" in line]
    assert taken == ["Player 2's trader takes the treasure on B8"]
    owed = [str(o) for o in controller.owed]
    assert "take the treasure from B8" in owed and "take the unification tile off E10" in owed
    assert not any("B8" in o and o.startswith("remove") for o in owed)  # the temple stays


def test_the_monument_is_offered_before_any_treasure_and_a_red_one_leaves_them_all(
        trader_in_the_square: Game) -> None:
    game = trader_in_the_square
    controller = Controller(game)
    controller.on_reading(with_tile(game, "F6", CellClass.TILE_RED))
    assert controller.screen().name == "monument"
    controller.handle(UiCommand.action("monument red/blue E5"))
    assert controller.screen().name == "result"  # the trader lost his temple and goes home
    owed = [str(o) for o in controller.owed]
    assert "turn the tile on E5 face down under the red/blue monument" in owed  # its treasure stays
    assert not any("treasure" in o for o in owed) and game.state.players[0].treasures == 0
