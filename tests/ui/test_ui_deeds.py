"""Actions in the players' words: whose, what and where, never the engine's notation."""

from __future__ import annotations

import pytest

from companion.rules import (
    BLACK,
    Action,
    BuildMonument,
    ChooseWar,
    ConflictKind,
    Game,
    PendingKind,
    TakeTreasure,
    cell_name,
    position,
)
from companion.ui.deeds import deed
from companion.ui.gallery import pending, play_until

BOARD = """
     ABCDEFGHIJKLMNOP
  1  ................
  2  ................
  3  ................
  4  ................
  5  rA..............
  6  r...............
  7  ................
  8  ................
  9  ................
 10  ................
 11  ................
"""


def game() -> Game:
    return position(BOARD, leaders={"A": (0, BLACK)}, hands=["rrbkkk", "rrgkkk"])


@pytest.mark.parametrize(("action", "words"), [
    ("tile red F7", "Player 1's red temple on F7"),
    ("leader red B6", "Player 1's red priest on B6"),
    ("leader black B6", "Player 1's black king on B6 (moved from B5)"),
    ("withdraw black", "Player 1's black king withdrawn from B5"),
    ("catastrophe A6", "Player 1's catastrophe on A6"),
    ("swap 2", "Player 1's swap of 2 tiles"),
    ("pass", "Player 1's pass"),
])
def test_every_board_move_and_button_names_its_player_piece_and_square(action: str, words: str) -> None:
    state = game().state
    assert deed(state, Action.parse(action)) == words


def test_without_the_owner_for_choices_on_one_players_board() -> None:
    state = game().state
    assert deed(state, Action.parse("tile red F7"), whose=False) == "a red temple on F7"
    assert deed(state, Action.parse("leader black B6"), whose=False) == "the black king on B6 (moved from B5)"


def test_decisions_name_the_tiles_the_monument_and_the_treasure() -> None:
    revolt, _ = play_until(pending(PendingKind.SUPPORT, lambda g: g.pending.conflict.kind is ConflictKind.REVOLT))
    who = revolt.state.players[revolt.pending.player].name
    assert deed(revolt.state, Action.parse("support 2")) == f"{who}'s 2 red temples committed from hand"
    built, _ = play_until(pending(PendingKind.MONUMENT))
    option = next(o for o in built.pending.options if isinstance(o, BuildMonument))
    who = built.state.players[built.pending.player].name
    assert deed(built.state, option) == f"{who}'s {option.monument.value} monument on {cell_name(option.cell)}"
    assert deed(built.state, Action.parse("no-monument")) == f"{who}'s choice of no monument"
    taken, _ = play_until(pending(PendingKind.TREASURE))
    treasure = taken.pending.options[0]
    assert isinstance(treasure, TakeTreasure)
    who = taken.state.players[taken.pending.player].name
    assert deed(taken.state, treasure) == f"{who}'s treasure taken from {cell_name(treasure.cell)}"
    war, _ = play_until(pending(PendingKind.WAR_ORDER))
    first = war.pending.options[0]
    assert isinstance(first, ChooseWar)
    assert deed(war.state, first).endswith(f"choice of the {first.colour.leader_name}s' war first")
