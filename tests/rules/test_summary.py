"""RULES.md section 0, the player's own summary: one test per sentence, named after it."""

from __future__ import annotations

from rulecheck import ONE_KINGDOM, hand, illegal, kinds, leader, names, of_kind, only, points, sq, squares, tile_at

from companion.rules import ConflictKind, EventKind, Game, PendingKind, position, rank_scores
from companion.rules.pieces import Colour

RED, BLUE, GREEN, BLACK = Colour

# Every position keeps three treasures far off (A1, P1, P11) so that a turn can end without ending the game.

# Two kingdoms side by side: Player 1's priest on E6, Player 2's priest on I6, G6 empty between them.
TWO_KINGDOMS = """
     ABCDEFGHIJKLMNOP
  1  t...~~~~~...~..t
  2  ....~.......~...
  3  ...~~.......~~..
  4  ~~~~.........~~~
  5  ....r...r.....~~
  6  ...rAr.rBr....~.
  7  ~~~~........~~~.
  8  ...~~~~.....~...
  9  ......~~~~~~~...
 10  ................
 11  ...............t
"""
PRIESTS = {"A": (0, RED), "B": (1, RED)}


# --- 1. Leader placement (p. 6) ------------------------------------------------------------------


def test_a_leader_must_be_placed_on_an_empty_land_square_next_to_a_temple() -> None:
    game = position(TWO_KINGDOMS, leaders=PRIESTS)
    illegal(game, "leader black L10", "no-temple", 6, "next to a temple")
    illegal(game, "leader black F6", "occupied", 6, "empty square")  # a temple
    illegal(game, "leader black E6", "occupied", 6, "empty square")  # a leader
    events = game.apply("leader black D5")
    placed = only(events, EventKind.LEADER_PLACED)
    assert (placed.page, placed.player, placed.colour, placed.cells) == (6, 0, BLACK, squares("D5"))
    assert leader(game, 0, BLACK) == "D5"
    assert game.pending.kind is PendingKind.ACTION and game.pending.actions_left == 1


def test_a_leader_may_not_be_placed_on_a_river_square() -> None:
    game = position(TWO_KINGDOMS.replace("  6  ...rAr.rBr....~.", "  6  ...rAr.rBr...r~."), leaders=PRIESTS)
    # O6 is river and lies next to the temple on N6.
    illegal(game, "leader green O6", "leader-on-river", 6, "river")
    assert "leader green O6" not in {str(a) for a in game.legal_actions()}
    game.apply("leader green N5")  # land above the same temple is fine


def test_a_leader_may_not_be_placed_so_that_it_unites_kingdoms() -> None:
    game = position(TWO_KINGDOMS.replace("  7  ~~~~........~~~.", "  7  ~~~~..r.....~~~."), leaders=PRIESTS)
    # G6 touches both kingdoms (F6 and H6) and the temple on G7.
    illegal(game, "leader black G6", "leader-unites", 6, "unites two kingdoms")
    assert "leader black G6" not in {str(a) for a in game.legal_actions()}
    game.apply("leader black F7")  # next to the same temple, touching one kingdom only


def test_leaders_can_be_moved_or_withdrawn_under_other_rules() -> None:
    game = position(TWO_KINGDOMS, leaders=PRIESTS)
    moved = only(game.apply("leader red C6"), EventKind.LEADER_MOVED)
    assert moved.cells == squares("E6", "C6") and moved.page == 6
    assert leader(game, 0, RED) == "C6"
    withdrawn = only(game.apply("withdraw red"), EventKind.LEADER_WITHDRAWN)
    assert withdrawn.cells == squares("C6")
    assert leader(game, 0, RED) is None
    assert game.pending.player == 1  # two actions: the turn passed on
    illegal(game, "withdraw black", "not-on-board", 6, "not on the board")


# --- 2. Catastrophe (p. 7) ------------------------------------------------------------------------


def test_a_catastrophe_blocks_its_square_permanently() -> None:
    game = position(TWO_KINGDOMS, leaders=PRIESTS)
    event = only(game.apply("catastrophe G6"), EventKind.CATASTROPHE)
    assert (event.page, event.cells, event.colour) == (7, squares("G6"), None)
    game.apply("pass")
    assert game.pending.player == 1
    illegal(game, "tile red G6", "occupied", None, "G6 is taken")
    illegal(game, "leader black G6", "occupied", 6, "G6 is taken")
    illegal(game, "catastrophe G6", "catastrophe-blocked", 7, "another catastrophe")
    assert len(game.state.kingdoms()) == 2  # it connects nothing
    assert game.state.square(sq("G6")).catastrophe and not game.state.square(sq("G6")).empty


def test_a_catastrophe_goes_on_an_empty_square_or_a_tile_but_not_on_a_treasure_monument_or_leader() -> None:
    game = position(TWO_KINGDOMS.replace("  5  ....r...r.....~~", "  5  ....r...t.....~~"), leaders=PRIESTS,
                    catastrophes=[2, 0])
    illegal(game, "catastrophe I5", "catastrophe-blocked", 7, "treasure")
    illegal(game, "catastrophe E6", "catastrophe-blocked", 7, "leader")
    out_before = game.state.out[RED.index]
    event = only(game.apply("catastrophe D6"), EventKind.CATASTROPHE)
    assert event.colour is RED and "destroying the red temple" in event.text
    assert tile_at(game, "D6") is None and game.state.out[RED.index] == out_before + 1
    game.apply("catastrophe L10")  # an empty land square
    assert game.state.players[0].catastrophes == 0
    assert game.pending.player == 1
    illegal(game, "catastrophe L11", "no-catastrophes", 7, "no catastrophe tiles left")
    # Nor on a monument's face-down tiles.
    mono = _game_with_red_monument()
    illegal(mono, "catastrophe F5", "catastrophe-blocked", 7, "monument")


def test_if_a_catastrophe_removes_the_last_temple_next_to_a_leader_that_leader_is_withdrawn_at_once() -> None:
    game = position(TWO_KINGDOMS, leaders=PRIESTS)
    # Player 2's priest on I6 has temples on H6, J6 and I5; Player 1's on E6 has D6, F6 and E5.
    assert of_kind(game.apply("catastrophe H6"), EventKind.LEADER_EXILED) == []
    assert of_kind(game.apply("catastrophe J6"), EventKind.LEADER_EXILED) == []
    assert leader(game, 1, RED) == "I6" and game.pending.player == 1
    events = game.apply("catastrophe I5")
    exiled = only(events, EventKind.LEADER_EXILED)
    assert (exiled.player, exiled.colour, exiled.cells) == (1, RED, squares("I6"))
    assert exiled.page in (6, 7) and "returns to its owner" in exiled.text
    assert kinds(events)[:2] == [EventKind.CATASTROPHE, EventKind.LEADER_EXILED]
    assert leader(game, 1, RED) is None and leader(game, 0, RED) == "E6"
    assert not game.state.leader_mask & (1 << sq("I6"))


# --- 3. Revolt (p. 8) -----------------------------------------------------------------------------

# One kingdom: Player 2's priest on I6 beside three temples (H6, J6, I5), joined through the
# settlements F6 G6. Player 1 enters the kingdom with a priest on G5, beside the temples F5 and H5.
REVOLT = ONE_KINGDOM


def _revolt(hands: list[str]) -> Game:
    game = position(REVOLT, leaders={"B": (1, RED)}, hands=hands)
    events = game.apply("leader red G5")
    started = only(events, EventKind.REVOLT_STARTED)
    assert (started.player, started.colour, started.cells, started.page) == (0, RED, squares("G5", "I6"), 8)
    return game


def test_attacker_and_defender_count_the_temples_next_to_their_leaders() -> None:
    game = _revolt(["rrrrbb", "rrbbgk"])
    conflict = game.pending.conflict
    assert conflict is not None and conflict.kind is ConflictKind.REVOLT
    assert names(conflict.attacker_supporters) == ["F5", "H5"]  # G6 is a settlement, not a temple
    assert names(conflict.defender_supporters) == ["H6", "I5", "J6"]


def test_then_the_attacker_then_the_defender_may_each_once_add_temple_tiles_from_hand() -> None:
    game = _revolt(["rrrrbb", "rrbbgk"])
    assert (game.pending.kind, game.pending.player, game.pending.max_support) == (PendingKind.SUPPORT, 0, 4)
    assert [str(a) for a in game.legal_actions()] == [f"support {n}" for n in range(5)]
    illegal(game, "support 5", "support-count", 8, "from 0 to 4 red tiles")
    illegal(game, "pass", "not-now", None, "how many tiles to commit")
    committed = only(game.apply("support 3"), EventKind.SUPPORT_COMMITTED)
    assert (committed.player, committed.amount, committed.colour) == (0, 3, RED)
    assert (game.pending.kind, game.pending.player, game.pending.max_support) == (PendingKind.SUPPORT, 1, 2)
    events = game.apply("support 2")
    assert kinds(events)[:2] == [EventKind.SUPPORT_COMMITTED, EventKind.CONFLICT_WON]
    assert game.pending.kind is PendingKind.ACTION  # each side commits once: the revolt is over


def test_highest_total_wins_a_revolt_and_on_a_tie_the_defender_wins() -> None:
    game = _revolt(["rrrrbb", "rrbbgk"])
    game.apply("support 2")  # 2 + 2 = 4 against 3
    won = only(game.apply("support 0"), EventKind.CONFLICT_WON)
    assert won.player == 0 and "4 to 3" in won.text and won.page == 8
    tie = _revolt(["rrrrbb", "rrbbgk"])
    tie.apply("support 3")  # 2 + 3 = 5
    won = only(tie.apply("support 2"), EventKind.CONFLICT_WON)  # 3 + 2 = 5: the defender keeps his place
    assert won.player == 1 and "5 to 5" in won.text and "ties go to the defender" in won.text
    assert leader(tie, 1, RED) == "I6" and leader(tie, 0, RED) is None


def test_the_loser_withdraws_his_leader_the_winner_gets_one_red_point_and_added_temples_leave_the_game() -> None:
    game = _revolt(["rrrrbb", "rrbbgk"])
    out_before = game.state.out[RED.index]
    temples_before = game.state.tiles[RED.index]
    game.apply("support 3")  # 2 + 3 = 5
    events = game.apply("support 1")  # 3 + 1 = 4
    removed = only(events, EventKind.PIECES_REMOVED)
    assert (removed.player, removed.cells) == (1, squares("I6"))
    scored = only(events, EventKind.SCORED)
    assert (scored.player, scored.colour, scored.amount, scored.page) == (0, RED, 1, 8)
    assert points(game, 0) == {"red": 1, "blue": 0, "green": 0, "black": 0}
    assert points(game, 1) == {"red": 0, "blue": 0, "green": 0, "black": 0}
    assert leader(game, 1, RED) is None and leader(game, 0, RED) == "G5"
    assert hand(game, 0)["red"] == 1 and hand(game, 1)["red"] == 1
    assert game.state.out[RED.index] == out_before + 4
    assert game.state.tiles[RED.index] == temples_before  # no temple leaves the board


# --- 4. War (pp. 9–10) ----------------------------------------------------------------------------

# Two kingdoms with kings: Player 1's on E6 (settlements E5, F6), Player 2's on I6 (H6, I5, I7).
# A tile on G6 unites them.
KINGS = """
     ABCDEFGHIJKLMNOP
  1  t...~~~~~...~..t
  2  ....~.......~...
  3  ...~~.......~~..
  4  ~~~~.........~~~
  5  ....k...k.....~~
  6  ...rAk.kBr....~.
  7  ~~~~....k...~~~.
  8  ...~~~~.....~...
  9  ......~~~~~~~...
 10  ................
 11  ...............t
"""


def _war(hands: list[str]) -> Game:
    game = position(KINGS, leaders={"A": (0, BLACK), "B": (1, BLACK)}, hands=hands)
    events = game.apply("tile green G6")
    started = only(events, EventKind.WAR_STARTED)
    assert (started.player, started.colour, started.cells, started.page) == (0, BLACK, squares("E6", "I6"), 9)
    return game


def test_each_side_counts_its_supporters_the_tiles_of_the_leaders_colour_in_its_own_kingdom() -> None:
    game = _war(["kkkrrg", "kkbbgr"])
    conflict = game.pending.conflict
    assert conflict is not None and (conflict.kind, conflict.colour) == (ConflictKind.WAR, BLACK)
    assert names(conflict.attacker_supporters) == ["E5", "F6"]
    assert names(conflict.defender_supporters) == ["H6", "I5", "I7"]
    assert game.state.square(sq("G6")).unification


def test_then_the_attacker_then_the_defender_may_play_tiles_of_the_wars_colour_from_hand() -> None:
    game = _war(["kkkrrg", "kkbbgr"])
    assert (game.pending.player, game.pending.max_support) == (0, 3)
    game.apply("support 1")
    assert (game.pending.player, game.pending.max_support) == (1, 2)
    illegal(game, "support 3", "support-count", 9, "from 0 to 2 black tiles")
    game.apply("support 2")
    assert hand(game, 0)["black"] == 2 and hand(game, 1)["black"] == 0


def test_highest_total_wins_a_war_and_the_defender_wins_ties() -> None:
    game = _war(["kkkrrg", "kkbbgr"])
    game.apply("support 2")  # 4
    assert only(game.apply("support 1"), EventKind.CONFLICT_WON).player == 1  # 4 against 4: the defender
    game = _war(["kkkrrg", "kkbbgr"])
    game.apply("support 3")  # 5
    assert only(game.apply("support 1"), EventKind.CONFLICT_WON).player == 0  # 5 against 4


def test_the_loser_removes_his_leader_and_all_his_supporters() -> None:
    game = _war(["kkkrrg", "kkbbgr"])
    game.apply("support 0")
    removed = only(game.apply("support 0"), EventKind.PIECES_REMOVED)  # the attacker loses, 2 to 3
    assert removed.player == 0 and names(removed.cells) == ["E5", "E6", "F6"]
    assert leader(game, 0, BLACK) is None and leader(game, 1, BLACK) == "I6"
    assert tile_at(game, "E5") is None and tile_at(game, "F6") is None
    assert tile_at(game, "D6") is RED and tile_at(game, "G6") is GREEN  # other colours and the uniting tile stay
    assert not game.state.square(sq("G6")).unification


def test_the_winner_scores_one_point_per_removed_leader_and_supporter_and_none_for_tiles_from_hand() -> None:
    game = _war(["kkkrrg", "kkbbgr"])
    out_before = game.state.out[BLACK.index]
    game.apply("support 3")  # 5
    events = game.apply("support 1")  # 4
    scored = only(events, EventKind.SCORED)
    assert (scored.player, scored.colour, scored.amount, scored.page) == (0, BLACK, 4, 9)  # king + H6 I5 I7
    assert points(game, 0)["black"] == 4 and points(game, 1) == {"red": 0, "blue": 0, "green": 0, "black": 0}
    assert game.state.out[BLACK.index] == out_before + 3 + 1 + 3  # committed tiles and removed supporters


# --- 5. Monument (p. 11) --------------------------------------------------------------------------

# Three red tiles of a 2×2 on E5 F5 E6, the fourth square F6 empty; Player 1's king on G6 (temple G7).
SQUARE = """
     ABCDEFGHIJKLMNOP
  1  t...~~~~~...~..t
  2  ....~.......~...
  3  ...~~.......~~..
  4  ~~~~.........~~~
  5  ....rr........~~
  6  ....r.K.......~.
  7  ~~~~..r.....~~~.
  8  ...~~~~.....~...
  9  ......~~~~~~~...
 10  ................
 11  ...............t
"""


# Player 1's king on E6 with black tiles F6, F5, G5, G4, H4: a black on F4 completes the 2×2 F4 G4 F5 G5.
# Player 2's king on I6 (settlements H6, I5, I7). A tile on G6 would unite the two kingdoms.
KINGS_AND_SQUARE = """
     ABCDEFGHIJKLMNOP
  1  t...~~~~~...~..t
  2  ....~.......~...
  3  ...~~.......~~..
  4  ~~~~..kk.....~~~
  5  .....kk.k.....~~
  6  ...rAk.kBr....~.
  7  ~~~~....k...~~~.
  8  ...~~~~.....~...
  9  ......~~~~~~~...
 10  ................
 11  ...............t
"""


def _kings_with_black_monument() -> Game:
    game = position(KINGS_AND_SQUARE, leaders={"A": (0, BLACK), "B": (1, BLACK)}, hands=["kkgrrb", "kkbbgr"],
                    bag="rbgk" * 5)
    game.apply("tile black F4")
    assert [str(a) for a in game.legal_actions()] == [
        "monument red/black F4", "monument blue/black F4", "monument green/black F4", "no-monument"]
    game.apply("monument blue/black F4")
    return game


def _game_with_red_monument() -> Game:
    game = position(SQUARE, leaders={"K": (0, BLACK)}, hands=["rrbbgk", "rrbbgk"])
    game.apply("tile red F6")
    game.apply("monument red/black E5")
    return game


def test_a_tile_completing_a_2x2_of_one_colour_lets_the_active_player_build_a_monument_of_that_colour() -> None:
    game = position(SQUARE, leaders={"K": (0, BLACK)}, hands=["rrbbgk", "rrbbgk"])
    events = game.apply("tile red F6")
    possible = only(events, EventKind.MONUMENT_POSSIBLE)
    assert possible.page == 11 and "E5" in possible.text
    assert (game.pending.kind, game.pending.player) == (PendingKind.MONUMENT, 0)
    offered = {str(a) for a in game.legal_actions()}
    assert offered == {"monument red/blue E5", "monument red/green E5", "monument red/black E5", "no-monument"}
    illegal(game, "monument blue/black E5", "monument", 11, "cannot be built")
    built = only(game.apply("monument red/black E5"), EventKind.MONUMENT_BUILT)
    assert names(built.cells) == ["E5", "E6", "F5", "F6"] and built.colour is RED
    assert game.state.facedown == sum(1 << c for c in squares("E5", "E6", "F5", "F6"))
    assert all(game.state.square(s).face_down and game.state.square(s).tile is RED for s in built.cells)
    assert not game.state.tiles[RED.index] & game.state.facedown and tile_at(game, "G7") is RED


def test_face_down_tiles_still_link_leaders_but_never_count_as_supporters() -> None:
    game = _kings_with_black_monument()
    (kingdom,) = (k for k in game.state.kingdoms() if k.mask >> sq("E6") & 1)
    assert {"F4", "G4", "F5", "G5", "H4"} <= set(names(kingdom.cells))  # still in the king's kingdom
    # H4 is linked to Player 1's king only through the face-down G4: it is still his supporter.
    started = only(game.apply("tile green G6"), EventKind.WAR_STARTED)
    assert started.cells == squares("E6", "I6")
    conflict = game.pending.conflict
    assert conflict is not None
    assert names(conflict.attacker_supporters) == ["F6", "H4"]  # F4 G4 F5 G5 are face down
    assert names(conflict.defender_supporters) == ["H6", "I5", "I7"]


def test_monuments_can_never_be_destroyed() -> None:
    war = _kings_with_black_monument()
    war.apply("tile green G6")
    war.apply("support 0")
    removed = only(war.apply("support 0"), EventKind.PIECES_REMOVED)  # Player 1 loses, 2 to 3
    assert names(removed.cells) == ["E6", "F6", "H4"]
    assert war.state.facedown == sum(1 << c for c in squares("F4", "G4", "F5", "G5"))
    game = _game_with_red_monument()
    illegal(game, "catastrophe E5", "catastrophe-blocked", 7, "monument")
    assert "catastrophe E5" not in {str(a) for a in game.legal_actions()}
    illegal(game, "tile red E5", "occupied", None, "taken")


# --- 6. End and scoring (p. 14) -------------------------------------------------------------------


# Three treasures: D10 beside Player 1's trader on E10, G10 one square away, K11 far off.
THREE_TREASURES = """
     ABCDEFGHIJKLMNOP
  1  ....~~~~~...~...
  2  ....~.......~...
  3  ...~~.......~~..
  4  ~~~~.........~~~
  5  ..............~~
  6  ..............~.
  7  ~~~~........~~~.
  8  ...~~~~.....~...
  9  ......~~~~~~~...
 10  ...tG.t.........
 11  ..........t.....
"""


def test_the_game_ends_when_only_one_or_two_treasures_remain_on_the_board() -> None:
    game = position(THREE_TREASURES, leaders={"G": (0, GREEN)}, hands=["rrrrrr", "rrrrrr"])
    game.apply("tile red F10")  # joins G10 to the trader's kingdom: two treasures there
    assert (game.pending.kind, game.pending.player, game.pending.treasures_to_take) == (PendingKind.TREASURE, 0, 1)
    taken = only(game.apply("treasure G10"), EventKind.TREASURE_TAKEN)
    assert (taken.player, taken.cells) == (0, squares("G10"))
    assert game.state.treasures.bit_count() == 2 and game.state.players[0].treasures == 1
    assert game.pending.kind is PendingKind.ACTION and game.pending.actions_left == 1  # not over mid-turn
    events = game.apply("pass")
    over = only(events, EventKind.GAME_OVER)
    assert over.page == 14 and "Only 2 treasures remain" in over.text
    assert game.state.over and game.pending.kind is PendingKind.GAME_OVER and game.legal_actions() == []
    illegal(game, "pass", "game-over", 14, "game is over")


def test_the_game_ends_when_the_bag_is_empty() -> None:
    game = position(THREE_TREASURES, leaders={"G": (0, GREEN)}, hands=["rrrrrr", "rrrrrr"], bag="r")
    game.apply("tile red A10")
    events = game.apply("tile red A11")  # two tiles to draw, one in the bag
    over = only(events, EventKind.GAME_OVER)
    assert "bag could not refill" in over.text and over.page == 14
    assert game.state.bag_count == 0 and game.state.players[0].hand_size == 5
    assert game.pending.kind is PendingKind.GAME_OVER


def test_players_spread_their_treasures_over_the_colours_and_the_highest_weakest_colour_wins() -> None:
    scores = rank_scores(["Ann", "Bo"], [(5, 3, 9, 4), (4, 4, 4, 4)], [2, 0])
    ann, bo = scores
    assert sum(ann.spread) == 2 and ann.key == (4, 5, 5, 9) and ann.score == 4  # both to blue, or blue and black
    assert bo.score == 4 and ann.rank == 1 and bo.rank == 2  # tied weakest 4: Ann's second-weakest 5 beats 4


def test_ties_are_broken_by_the_second_weakest_colour_and_so_on() -> None:
    ann, bo, cy = rank_scores(["Ann", "Bo", "Cy"], [(3, 5, 6, 9), (3, 5, 7, 7), (3, 5, 6, 8)], [0, 0, 0])
    assert [ann.rank, bo.rank, cy.rank] == [2, 1, 3]
    assert "third-weakest" in bo.tie_break


def test_if_all_four_colours_are_equal_the_tied_players_share_the_victory() -> None:
    ann, bo, cy = rank_scores(["Ann", "Bo", "Cy"], [(4, 6, 5, 7), (7, 5, 6, 4), (4, 4, 9, 9)], [0, 0, 0])
    assert (ann.rank, bo.rank, cy.rank) == (1, 1, 3)
    assert "share rank 1" in ann.tie_break and "Bo" in ann.tie_break
