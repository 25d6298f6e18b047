"""What may appear where: the classes the rules allow on each square at the next look."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import replace

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from companion.rules import (
    BLACK,
    BLUE,
    GREEN,
    RED,
    Action,
    Game,
    GameConfig,
    GameState,
    PendingKind,
    cell_name,
    parse_cell,
    policy_action,
    position,
)
from companion.sight import candidates
from companion.tracker import LEADER_CLASS, Look, expected_cells
from vision.reading import CellClass

LEADERS = frozenset(LEADER_CLASS.values())
LAND_TILES = frozenset({CellClass.TILE_RED, CellClass.TILE_GREEN, CellClass.TILE_BLACK})
MONUMENT_PARTS = frozenset({CellClass.MONUMENT, CellClass.FACE_DOWN})
ODD = 0.3  # how often the casual player does any legal thing instead of the sensible one

# Player 0 (archer) to play. A: their red priest; B, C: player 1's black king and green trader.
GROUND = """
     ABCDEFGHIJKLMNOP
  1  ....~~~~~...~...
  2  ....~.......~...
  3  ...~~.......~~..
  4  ~~~~.........~~~
  5  ..............~~
  6  ......Ar.rB...~.
  7  ~~~~........~~~.
  8  ...~~~~.....~...
  9  ......~~~~~~~...
 10  ...x......tC....
 11  ...............t
"""


def ground(hands: Sequence[str] | None = None, bag: str = "rbgk" * 20, catastrophes: Sequence[int] | None = None,
           actions_left: int = 2) -> GameState:
    leaders = {"A": (0, RED), "B": (1, BLACK), "C": (1, GREEN)}
    return position(GROUND, leaders=leaders, hands=hands, bag=bag, catastrophes=catastrophes,
                    actions_left=actions_left).state


# Player 0 to play, no catastrophes left to anyone. A: their red priest and D their trader; B, C:
# player 1's red priest and blue farmer.
BLOCKS = """
     ABCDEFGHIJKLMNOP
  1  ....~~~~~...~...
  2  .kk.~.kk....~...
  3  .k.~~.......~~..
  4  ~~~~.........~~~
  5  ......Ar.rB...~~
  6  ..............~.
  7  ~~~~........~~~.
  8  ...~~~~.....~...
  9  ......~~~~~~~...
 10  ........Crr.....
 11  tD..t....r.....t
"""


def blocks() -> Game:
    leaders = {"A": (0, RED), "B": (1, RED), "C": (1, BLUE), "D": (0, GREEN)}
    return position(BLOCKS, leaders=leaders, catastrophes=[0, 0])


def allowed(state: GameState, *earlier: GameState,
            shown: Sequence[Look] | None = None) -> dict[str, frozenset[CellClass]]:
    found = candidates(state, expected_cells(state) if shown is None else shown, earlier)
    return {cell_name(cell): classes for cell, classes in enumerate(found)}


def test_tiles_keep_to_their_ground_and_nothing_covers_a_catastrophe() -> None:
    state = ground()
    where = allowed(state)
    river = state.board.river
    for cell, classes in enumerate(where.values()):
        on_river = bool(river >> cell & 1)
        assert (CellClass.TILE_BLUE in classes) <= on_river, cell_name(cell)
        assert not LAND_TILES & classes or not on_river, cell_name(cell)
        assert not LEADERS & classes or not on_river, cell_name(cell)  # no leader on the river
    assert CellClass.TILE_BLUE in where["A4"] and where["F11"] >= LAND_TILES
    assert where["D10"] == {CellClass.CATASTROPHE}


def test_a_leader_stands_only_next_to_a_temple_there_now_or_placed_first() -> None:
    where = allowed(ground())
    assert where["H5"] >= LEADERS  # beside the temple on H6
    assert where["H4"] >= LEADERS  # beside H5, where a temple may go first
    no_red = allowed(ground(hands=["bbggkk", "bbggkk"], bag="bgk" * 20))
    assert no_red["H5"] >= LEADERS
    assert not LEADERS & no_red["H4"]  # no temple left to draw: nothing new to stand beside
    assert CellClass.TILE_RED not in no_red["H4"] and CellClass.TILE_GREEN in no_red["H4"]


def test_a_leader_leaves_when_its_player_moves_it_or_its_temples_may_fall() -> None:
    where = allowed(ground())
    assert CellClass.EMPTY_LAND in where["G6"]  # the player to move may move or withdraw it
    assert CellClass.EMPTY_LAND in where["K6"]  # a catastrophe on J6 sends the king home
    assert CellClass.EMPTY_LAND not in where["L10"]  # its temple carries a treasure: no catastrophe there
    assert where["K10"] == where["P11"] == {CellClass.TREASURE}  # and no other treasure near: none taken


def test_catastrophes_only_from_the_players_who_may_move() -> None:
    none_left = allowed(ground(catastrophes=[0, 2]))
    assert not any(CellClass.CATASTROPHE in classes for name, classes in none_left.items() if name != "D10")
    assert CellClass.EMPTY_LAND not in none_left["K6"]  # nothing can take the king's temple
    last_action = allowed(ground(catastrophes=[0, 2], actions_left=1))  # player 1's turn may come before a look
    assert CellClass.CATASTROPHE in last_action["J6"] and CellClass.CATASTROPHE in last_action["F11"]
    assert CellClass.EMPTY_LAND in last_action["K6"]


def test_a_monument_may_rise_where_tiles_may_complete_a_2x2() -> None:
    where = allowed(blocks().state)
    for name in ("B2", "C2", "B3", "C3", "G2", "H2", "G3", "H3", "J10", "K10", "J11", "K11"):
        assert where[name] >= MONUMENT_PARTS, name
    assert not MONUMENT_PARTS & where["J5"]  # a lone temple
    assert CellClass.EMPTY_LAND in where["I10"]  # a red monument on J10 takes the farmer's only temple
    assert CellClass.EMPTY_LAND not in where["K5"]  # nothing can take player 1's priest's temple


def test_a_treasure_may_go_where_two_pieces_join_it_to_another() -> None:
    where = allowed(blocks().state)
    assert CellClass.TILE_RED in where["A11"] and CellClass.TILE_RED in where["E11"]  # tiles on C11 and D11
    assert where["P11"] == {CellClass.TREASURE}
    game = blocks()
    game.apply("tile red C11")
    game.apply("tile red D11")  # the trader's kingdom holds two treasures: one must go
    assert game.state.pending.kind is PendingKind.TREASURE
    assert CellClass.TILE_RED in allowed(game.state)["A11"]


def test_the_unification_tile_only_where_a_tile_may_unite_kingdoms() -> None:
    where = allowed(blocks().state)
    assert CellClass.UNIFICATION in where["I5"]  # between the two priests' kingdoms
    for name in ("F5", "H8", "C9"):  # beside one kingdom at most
        assert CellClass.UNIFICATION not in where[name], name


def test_a_takeback_and_the_pieces_owed_stay_possible() -> None:
    before = ground()
    game = Game.from_state(GameConfig(players=2), before)
    game.apply("tile red F11")
    assert CellClass.EMPTY_LAND not in allowed(game.state)["F11"]
    assert CellClass.EMPTY_LAND in allowed(game.state, before)["F11"]  # the board put back as it was
    table = list(expected_cells(game.state))
    table[parse_cell("B8")] = Look(CellClass.LEADER_BLACK, "archer")  # the rules sent it home, still there
    assert {CellClass.LEADER_BLACK, CellClass.EMPTY_LAND} <= allowed(game.state, shown=table)["B8"]


def test_nothing_new_appears_once_the_game_is_over() -> None:
    over = replace(ground(), game_over="The bag is empty")
    assert all(len(classes) == 1 for classes in allowed(over).values())


# --- every move of whole games ------------------------------------------------------------------


def casual(game: Game, rng: random.Random) -> Action:
    """The demo's simple player, who now and then does something odd (any legal action)."""
    return rng.choice(game.legal_actions()) if rng.random() < ODD else policy_action(game, rng)


def next_boards(states: Sequence[GameState], start: int) -> Iterator[tuple[int, GameState]]:
    """The states after each step of the next two actions from `states[start]`, with the decisions
    between them; a conflict ends it (the camera looks before it is fought)."""
    done = 0
    for end in range(start + 1, len(states)):
        done += states[end - 1].pending.kind is PendingKind.ACTION
        yield end, states[end]
        if done == 2 or states[end].pending.kind in (PendingKind.SUPPORT, PendingKind.GAME_OVER):
            return


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 4), board=st.sampled_from(["standard", "alternate"]))
@example(seed=64, players=3, board="alternate")  # a treasure taken, then a catastrophe on its temple
@example(seed=379, players=3, board="standard")  # a leader moved off, a tile in its place unites
def test_what_the_next_two_actions_show_is_always_a_candidate(seed: int, players: int, board: str) -> None:
    game = Game.new(players, board=board, seed=seed)
    rng = random.Random(seed)
    states = [game.state]
    while not game.state.over:
        game.apply(casual(game, rng))
        states.append(game.state)
    for start, state in enumerate(states):
        if state.pending.kind is not PendingKind.ACTION:
            continue
        allowed_now = candidates(state, expected_cells(state))
        for end, after in next_boards(states, start):
            for cell, look in enumerate(expected_cells(after)):
                missing = {look.cls, look.also} - {None} - allowed_now[cell]
                assert not missing, (f"{cell_name(cell)} shows {missing} after "
                                     f"{', '.join(map(str, game.actions[start:end]))}")
