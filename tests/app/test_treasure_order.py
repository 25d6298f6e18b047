"""Treasures at the table once the action is wholly resolved (RULES.md 6): what the controller, the
tracker and the screens ask of the players between two wars of one tile, and after the last."""

from __future__ import annotations

from companion.app.controller import Controller
from companion.app.table import reading_of
from companion.commands import UiCommand
from companion.rules import BLACK, GREEN, RED, Game, PendingKind, parse_cell, position
from companion.tracker import Look, expected_cells
from vision.reading import BoardReading, CellClass

# A green tile on E10 unites Player 1's kingdom (priest A8, king C8, the corner treasure temple B8,
# a settlement C9, markets B9 B10 C10 D10) with Player 2's (king G10, priest H11, trader I10, the
# treasure temple H10, the temple I11, settlements F10 E11 F11 G11): a black war, then a red one.
TWO_WARS = """
     ABCDEFGHIJKLMNOP
  1  t...~~~~~...~..t
  2  ....~.......~...
  3  ...~~.......~~..
  4  ~~~~.........~~~
  5  ..............~~
  6  ..............~.
  7  ~~~~........~~~.
  8  PtK~~~~.....~...
  9  .gk...~~~~~~~...
 10  .ggg.kLtG.......
 11  ....kkkQr......t
"""


def two_wars() -> Game:
    leaders = {"P": (0, RED), "K": (0, BLACK), "L": (1, BLACK), "Q": (1, RED), "G": (1, GREEN)}
    return position(TWO_WARS, leaders=leaders, hands=["gkkrrb", "kkrrbb"])


def the_tile_on_e10(game: Game) -> BoardReading:
    looks = list(expected_cells(game.state))
    looks[parse_cell("E10")] = Look(CellClass.TILE_GREEN)
    return reading_of(looks)


def test_no_treasure_is_asked_for_between_two_wars_only_after_the_last() -> None:
    game = two_wars()
    controller = Controller(game)
    controller.on_reading(the_tile_on_e10(game))
    assert controller.screen().name == "war_order"
    controller.on_reading(reading_of(expected_cells(game.state)))  # the unification tile goes on
    for decision in ("war black", "support 0", "support 0"):  # Player 2 wins the black war
        controller.handle(UiCommand.action(decision))
    # The red war follows at once; B8 keeps its treasure on the table meanwhile.
    assert controller.screen().name == "support" and game.pending.kind is PendingKind.SUPPORT
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


# Player 1's trader on D5 has one temple, E5 (a treasure); a red tile on F6 finishes the red 2×2 E5–F6
# and joins the lone treasure temple G6 to his kingdom.
TRADER_IN_THE_SQUARE = """
     ABCDEFGHIJKLMNOP
  1  t...~~~~~...~..t
  2  ....~.......~...
  3  ...~~.......~~..
  4  ~~~~.........~~~
  5  ...Gtr........~~
  6  ....r.t.......~.
  7  ~~~~........~~~.
  8  ...~~~~.....~...
  9  ......~~~~~~~...
 10  ................
 11  ...............t
"""


def test_the_monument_is_offered_before_any_treasure_and_a_red_one_leaves_them_all() -> None:
    game = position(TRADER_IN_THE_SQUARE, leaders={"G": (0, GREEN)}, hands=["rrbbgk", "rrbbgk"])
    controller = Controller(game)
    looks = list(expected_cells(game.state))
    looks[parse_cell("F6")] = Look(CellClass.TILE_RED)
    controller.on_reading(reading_of(looks))
    assert controller.screen().name == "monument"
    controller.handle(UiCommand.action("monument red/blue E5"))
    assert controller.screen().name == "result"  # the trader lost his temple and goes home
    owed = [str(o) for o in controller.owed]
    assert "turn the tile on E5 face down under the red/blue monument" in owed  # its treasure stays
    assert not any("treasure" in o for o in owed) and game.state.players[0].treasures == 0
