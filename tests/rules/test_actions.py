"""More of RULES.md sections 3–5, action by action: tiles, leaders (lifted first), swaps, passes, decisions
asked out of turn, the English support variant, and the deal from a fixed bag."""

from __future__ import annotations

import pytest
from rulecheck import ONE_KINGDOM, hand, illegal, kinds, leader, only, points, sq

from companion.rules import EventKind, Game, PendingKind, cell_name, position
from companion.rules.pieces import Colour

RED, BLUE, GREEN, BLACK = Colour
NOTHING = {"red": 0, "blue": 0, "green": 0, "black": 0}

# One kingdom: Player 1's king on G6 between Player 2's priest (E6) and farmer (I6).
BRIDGE = """
     ABCDEFGHIJKLMNOP
  1  t...~~~~~...~..t
  2  ....~.......~...
  3  ...~~.......~~..
  4  ~~~~.........~~~
  5  .....r.r......~~
  6  ....ArKrB.....~.
  7  ~~~~........~~~.
  8  ...~~~~.....~...
  9  ......~~~~~~~...
 10  ................
 11  ...............t
"""
BRIDGE_LEADERS = {"A": (1, RED), "K": (0, BLACK), "B": (1, BLUE)}


def test_tiles_go_on_empty_squares_farms_on_the_river_the_rest_on_land_from_the_hand() -> None:
    game = position(BRIDGE, leaders=BRIDGE_LEADERS, hands=["rrbbkk", "rrbbgk"])
    illegal(game, "tile blue L10", "farm-on-land", None, "farms (blue tiles) go only on river")
    illegal(game, "tile red A4", "tile-on-river", None, "a temple may not")
    illegal(game, "tile green L10", "not-in-hand", None, "no green tile")
    illegal(game, "tile black F6", "occupied", None, "F6 is taken")
    illegal(game, "tile black G6", "occupied", None, "G6 is taken")  # a leader's square
    game.apply("tile blue A4")
    assert hand(game, 0) == {"red": 2, "blue": 1, "green": 0, "black": 2}


def test_a_tile_scores_for_the_leader_of_its_colour_else_for_the_king_else_for_nobody() -> None:
    game = position(BRIDGE, leaders=BRIDGE_LEADERS, hands=["rrggkk", "rrbbgk"])
    assert only(game.apply("tile red E5"), EventKind.SCORED).player == 1  # the priest's owner
    assert only(game.apply("tile green G5"), EventKind.SCORED).player == 0  # no trader: the king's owner
    assert points(game, 0) == {"red": 0, "blue": 0, "green": 1, "black": 0}
    assert points(game, 1) == {"red": 1, "blue": 0, "green": 0, "black": 0}
    lone = position(BRIDGE.replace("ArKrB", "Ar.rB"), leaders={"A": (1, RED), "B": (1, BLUE)},
                    hands=["rrggkk", "rrbbgk"])
    assert len(lone.state.kingdoms()) == 2
    assert kinds(lone.apply("tile green D6")) == [EventKind.TILE_PLACED]  # a priest only: nobody scores green
    assert points(lone, 0) == NOTHING and points(lone, 1) == NOTHING


def test_a_moved_leader_is_lifted_first_then_placed_under_the_placement_rules() -> None:
    game = position(BRIDGE, leaders=BRIDGE_LEADERS)
    # Lifted from G6, the king no longer joins E6 F6 F5 to H5 H6 I6: G5 would touch both kingdoms.
    illegal(game, "leader black G5", "leader-unites", 6, "unites two kingdoms")
    illegal(game, "leader black G6", "same-square", 6, "already stands on G6")
    assert "leader black G5" not in {str(a) for a in game.legal_actions()}
    moved = only(game.apply("leader black E5"), EventKind.LEADER_MOVED)
    assert moved.cells == (sq("G6"), sq("E5"))
    assert len(game.state.kingdoms()) == 2


def test_a_leader_may_join_a_kingdom_to_leaderless_regions() -> None:
    game = position(BRIDGE.replace("  7  ~~~~........~~~.", "  7  ~~~~..r.....~~~."), leaders=BRIDGE_LEADERS)
    game.apply("withdraw black")
    assert len(game.state.kingdoms()) == 2
    # F7 touches the priest's kingdom (F6) and the lone temple G7.
    events = game.apply("leader green F7")
    assert kinds(events) == [EventKind.LEADER_PLACED, EventKind.HANDS_REFILLED, EventKind.TURN_ENDED]
    kingdom = next(k for k in game.state.kingdoms() if k.mask >> sq("F7") & 1)
    assert kingdom.mask >> sq("G7") & 1


def test_a_leader_moved_into_a_revolt_that_he_loses_goes_home_not_back() -> None:
    game = position("""
     ABCDEFGHIJKLMNOP
  1  t...~~~~~...~..t
  2  ....~.......~...
  3  ...~~.......~~..
  4  ~~~~.........~~~
  5  .....r.rr.....~~
  6  .....kkrBr....~.
  7  ~~~~........~~~.
  8  ...~~~~.....~...
  9  ......~~~~~~~...
 10  ...........A....
 11  ...........r...t
""", leaders={"A": (0, RED), "B": (1, RED)}, hands=["bbggkk", "bbggkk"])
    events = game.apply("leader red G5")
    assert kinds(events) == [EventKind.LEADER_MOVED, EventKind.REVOLT_STARTED]
    game.apply("support 0")
    game.apply("support 0")  # 2 against 3
    assert leader(game, 0, RED) is None and leader(game, 1, RED) == "I6"
    assert points(game, 1)["red"] == 1


def test_a_green_revolt_is_followed_by_the_treasure_it_brought_together() -> None:
    # Player 2's trader on I6 with the treasure H6; a lone treasure on F5. Player 1's trader enters on G5.
    game = position("""
     ABCDEFGHIJKLMNOP
  1  t...~~~~~...~..t
  2  ....~.......~...
  3  ...~~.......~~..
  4  ~~~~.........~~~
  5  .....t.r......~~
  6  .......tB.....~.
  7  ~~~~........~~~.
  8  ...~~~~.....~...
  9  ......~~~~~~~...
 10  ................
 11  ...............t
""", leaders={"B": (1, GREEN)})
    game.apply("leader green G5")
    conflict = game.pending.conflict
    assert conflict is not None and (conflict.attacker_strength, conflict.defender_strength) == (2, 1)
    game.apply("support 0")
    events = game.apply("support 0")
    assert only(events, EventKind.CONFLICT_WON).player == 0
    assert (game.pending.kind, game.pending.player) == (PendingKind.TREASURE, 0)
    assert {str(a) for a in game.legal_actions()} == {"treasure F5", "treasure H6"}


def test_the_uniting_tile_gets_its_monument_check_after_the_wars() -> None:
    game = position("""
     ABCDEFGHIJKLMNOP
  1  t...~~~~~...~..t
  2  ....~.......~...
  3  ...~~.......~~..
  4  ~~~~.........~~~
  5  .....rr.......~~
  6  ....Ar.kBr....~.
  7  ~~~~........~~~.
  8  ...~~~~.....~...
  9  ......~~~~~~~...
 10  ................
 11  ...............t
""", leaders={"A": (0, BLACK), "B": (1, BLACK)})
    events = game.apply("tile red G6")  # completes F5 G5 F6 G6 and unites the kings
    assert EventKind.MONUMENT_POSSIBLE not in kinds(events)
    game.apply("support 0")
    events = game.apply("support 0")  # 0 against 1 (H6): Player 1's king goes home
    order = kinds(events)
    assert order.index(EventKind.UNIFICATION_REMOVED) < order.index(EventKind.MONUMENT_POSSIBLE)
    assert (game.pending.kind, game.pending.player) == (PendingKind.MONUMENT, 0)
    assert "monument red/black F5" in {str(a) for a in game.legal_actions()}
    assert points(game, 0) == NOTHING  # the uniting tile never scored


def test_a_swap_discards_the_named_tiles_and_draws_as_many_from_the_bag() -> None:
    bag = [RED] * 6 + [BLUE] * 6 + [GREEN, BLACK, GREEN, BLACK] + [RED] * 20
    game = Game.new(2, bag=bag)
    assert hand(game, 0) == {"red": 6, "blue": 0, "green": 0, "black": 0}  # dealt 6 at a time, seat by seat
    assert hand(game, 1) == {"red": 0, "blue": 6, "green": 0, "black": 0}
    illegal(game, "swap blue", "not-in-hand", None, "does not hold 1 blue")
    illegal(game, "swap 2", "swap-which", None, "which tiles")
    out = game.state.out
    event = only(game.apply("swap red red"), EventKind.SWAPPED)
    assert event.amount == 2 and game.state.out[RED.index] == out[RED.index] + 2
    assert hand(game, 0) == {"red": 4, "blue": 0, "green": 1, "black": 1}
    assert game.state.bag_count == len(bag) - 12 - 2


def test_passing_uses_one_action() -> None:
    game = Game.new(2, seed=3)
    assert kinds(game.apply("pass")) == [EventKind.PASSED]
    assert game.pending.player == 0 and game.pending.actions_left == 1
    assert EventKind.TURN_ENDED in kinds(game.apply("pass"))
    assert game.pending.player == 1 and game.state.turn == 2


def test_each_decision_is_asked_of_the_right_player_only() -> None:
    game = position(BRIDGE, leaders=BRIDGE_LEADERS)
    for action in ("support 1", "war red", "no-monument", "treasure A1", "monument red/blue E5"):
        illegal(game, action, "not-now", None, "plays an action")
    game.apply("tile red E5")
    game.apply("leader red H4")  # next to H5: a revolt against the priest on E6
    assert (game.pending.kind, game.pending.player) == (PendingKind.SUPPORT, 0)
    for action in ("tile red A10", "pass", "war red", "treasure A1"):
        illegal(game, action, "not-now", None, "how many tiles to commit")


def test_the_english_support_rule_commits_only_what_wins_or_draws() -> None:
    drawing = ONE_KINGDOM
    game = position(drawing, leaders={"B": (1, RED)}, hands=["rrrrrr", "rrrrrr"], english_support=True)
    game.apply("leader red G5")  # 2 against 3
    assert game.pending.max_support == 2  # enough to be stronger: 4 against 3
    game.apply("support 1")  # 3 against 3
    assert game.pending.max_support == 0  # the defender already draws
    plain = position(drawing, leaders={"B": (1, RED)}, hands=["rrrrrr", "rrrrrr"])
    plain.apply("leader red G5")
    assert plain.pending.max_support == 6


def test_a_game_is_set_up_for_two_to_four_players_on_a_known_board() -> None:
    for players in (1, 5):
        with pytest.raises(ValueError, match="2 to 4 players"):
            Game.new(players)
    with pytest.raises(ValueError, match="unknown board 'moon'"):
        Game.new(2, board="moon")
    with pytest.raises(ValueError, match="one per seat"):
        Game.new(3, names=["Ann", "Bo"])
    with pytest.raises(ValueError, match="at least 12 tiles"):
        Game.new(2, bag=[RED] * 11)
    game = Game.new(4, seed=8)
    assert [p.dynasty for p in game.state.players] == ["archer", "bull", "pot", "lion"]
    assert game.state.bag_count == 143 - 24 and game.state.treasures.bit_count() == 10
    assert game.pending.kind is PendingKind.ACTION and game.pending.player == 0
    alternate = Game.new(2, board="alternate", seed=8).state  # every treasure temple of its map, with its treasure
    assert alternate.treasures == alternate.tiles[RED.index] == alternate.board.temples
    assert alternate.bag_count == 153 - alternate.board.temples.bit_count() - 12


def test_an_illegal_action_is_a_value_error_that_names_the_rule() -> None:
    game = Game.new(2, seed=2)
    error = illegal(game, "leader red A1", "no-temple", 6, "next to a temple")
    assert isinstance(error, ValueError)
    assert str(error) == "A leader must stand next to a temple. (p. 6)"


def test_the_standard_board_is_the_one_of_rules_md() -> None:
    board = Game.new(2, seed=1).state.board
    assert board.river.bit_count() == 41
    temples = [cell_name(c) for c in range(176) if board.temples >> c & 1]
    assert sorted(temples) == sorted(["K1", "B2", "P2", "F3", "N5", "I7", "B8", "O9", "F10", "K11"])
    assert sorted(cell_name(c) for c in range(176) if board.corners >> c & 1) == ["B2", "B8", "O9", "P2"]
    assert board.is_river(sq("E1")) and board.is_river(sq("A4")) and not board.is_river(sq("A1"))
