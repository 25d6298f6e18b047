"""The known traps of the rules (issue 2, "Tests"): one test each, in the order the issue lists them.

Every position keeps three treasures far off (A1, P1, P11) unless the test is about treasures, so that
a turn can end without ending the game.
"""

from __future__ import annotations

from rulecheck import ONE_KINGDOM, hand, illegal, kinds, leader, names, of_kind, only, points, sq, squares, tile_at

from companion.rules import EventKind, Game, PendingKind, position, rank_scores
from companion.rules.pieces import Colour

RED, BLUE, GREEN, BLACK = Colour
NOTHING = {"red": 0, "blue": 0, "green": 0, "black": 0}


def offered(game: object) -> set[str]:
    return {str(a) for a in game.legal_actions()}  # type: ignore[attr-defined]


# --- the uniting tile never scores ----------------------------------------------------------------


def test_the_uniting_tile_never_scores_even_without_a_war() -> None:
    # Player 1's king on E6 (temple D6) and Player 2's priest on I6 (temples H6, J6): no colour twice.
    game = position("""
     ABCDEFGHIJKLMNOP
  1  t...~~~~~...~..t
  2  ....~.......~...
  3  ...~~.......~~..
  4  ~~~~.........~~~
  5  ..............~~
  6  ...rAk.rBr....~.
  7  ~~~~........~~~.
  8  ...~~~~.....~...
  9  ......~~~~~~~...
 10  ................
 11  ...............t
""", leaders={"A": (0, BLACK), "B": (1, RED)}, hands=["rrbbgk", "rrbbgk"])
    events = game.apply("tile red G6")  # red, next to the priest's kingdom: it would score if it joined only that
    assert of_kind(events, EventKind.SCORED) == [] and of_kind(events, EventKind.WAR_STARTED) == []
    assert "unites two kingdoms" in events[1].text and events[1].page == 9
    assert len(game.state.kingdoms()) == 1 and game.state.unification == -1
    assert points(game, 0) == NOTHING and points(game, 1) == NOTHING
    # The next tile beside it scores as usual, and only for itself: one red point for the priest.
    assert only(game.apply("tile red G5"), EventKind.SCORED).player == 1
    assert points(game, 1) == {"red": 1, "blue": 0, "green": 0, "black": 0} and points(game, 0) == NOTHING


def test_the_uniting_tile_never_scores_after_its_war() -> None:
    game = position("""
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
""", leaders={"A": (0, BLACK), "B": (1, BLACK)}, hands=["kkkrrg", "kkbbgr"], bag="rbgk" * 5)
    events = game.apply("tile black G6")  # a settlement: it would score for a king, but it unites
    assert of_kind(events, EventKind.SCORED) == []
    conflict = game.pending.conflict
    assert conflict is not None and sq("G6") not in conflict.attacker_supporters + conflict.defender_supporters
    assert (conflict.attacker_strength, conflict.defender_strength) == (2, 3)  # E5 F6 / H6 I5 I7, not G6
    game.apply("support 0")
    events = game.apply("support 0")
    assert [e.amount for e in of_kind(events, EventKind.SCORED)] == [3]  # E6 E5 F6: the war only
    assert tile_at(game, "G6") is BLACK and not game.state.square(sq("G6")).unification
    assert points(game, 1) == {"red": 0, "blue": 0, "green": 0, "black": 3}


# --- priest wars ------------------------------------------------------------------------------------

# Player 1's priest on E6 with temples C6 D6 F6 and the treasure temple D5; his king on F5 beside F6.
# Player 2's priest on I6 with five temples. A tile on G6 starts the war of the priests.
PRIESTS_AT_WAR = """
     ABCDEFGHIJKLMNOP
  1  t...~~~~~...~..t
  2  ....~.......~...
  3  ...~~.......~~..
  4  ~~~~.........~~~
  5  ...t.K..rr....~~
  6  ..rrAr.rBr....~.
  7  ~~~~....r...~~~.
  8  ...~~~~.....~...
  9  ......~~~~~~~...
 10  ................
 11  ...............t
"""


def test_a_priest_war_keeps_treasure_temples_and_temples_next_to_another_leader() -> None:
    game = position(PRIESTS_AT_WAR, leaders={"A": (0, RED), "K": (0, BLACK), "B": (1, RED)},
                    hands=["gbbkkk", "bbggkk"])
    game.apply("tile green G6")
    conflict = game.pending.conflict
    assert conflict is not None
    assert names(conflict.attacker_supporters) == ["C6", "D5", "D6", "F6"]
    assert names(conflict.defender_supporters) == ["H6", "I5", "I7", "J5", "J6"]
    game.apply("support 0")
    events = game.apply("support 0")
    removed = only(events, EventKind.PIECES_REMOVED)
    assert names(removed.cells) == ["C6", "D6", "E6"]  # not D5 (treasure) nor F6 (beside the king on F5)
    assert tile_at(game, "D5") is RED and game.state.square(sq("D5")).treasure
    assert tile_at(game, "F6") is RED and leader(game, 0, BLACK) == "F5"  # the king keeps his temple
    assert only(events, EventKind.SCORED).amount == 3
    assert of_kind(events, EventKind.LEADER_EXILED) == []


# --- several wars: the active player orders them; a later war may be dropped -------------------------

# Three players. Player 2's priest on F5 and Player 3's king on C6 in the left kingdom, joined to H6 only
# through the temples E6 F6 G6; Player 3's priest on J6 and Player 2's king on K5 in the right kingdom.
TWO_WARS = """
     ABCDEFGHIJKLMNOP
  1  t...~~~~~...~..t
  2  ....~.......~...
  3  ...~~.......~~..
  4  ~~~~.........~~~
  5  .....P....B...~~
  6  ..Arrrr.rQr...~.
  7  ~~~~........~~~.
  8  ...~~~~.....~...
  9  ......~~~~~~~...
 10  ................
 11  ...............t
"""
TWO_WARS_LEADERS = {"P": (1, RED), "A": (2, BLACK), "Q": (2, RED), "B": (1, BLACK)}


def test_the_active_player_orders_several_wars_even_when_not_involved() -> None:
    game = position(TWO_WARS, players=3, leaders=TWO_WARS_LEADERS, hands=["gggbbk", "bbbggk", "rrrbbg"])
    events = game.apply("tile green H6")
    assert of_kind(events, EventKind.WAR_STARTED) == []
    assert (game.pending.kind, game.pending.player) == (PendingKind.WAR_ORDER, 0)
    assert offered(game) == {"war red", "war black"}
    illegal(game, "war blue", "war-order", 9, "chooses the next war")
    illegal(game, "support 0", "war-order", 9, "war red, war black")
    started = only(game.apply("war black"), EventKind.WAR_STARTED)
    assert started.colour is BLACK and game.pending.kind is PendingKind.SUPPORT
    game.apply("support 0")
    game.apply("support 0")
    # The black war is over (no settlements on either side: the defender wins 0 to 0); the red war follows.
    assert game.pending.kind is PendingKind.SUPPORT and game.pending.conflict is not None
    assert game.pending.conflict.colour is RED


def test_a_later_war_is_dropped_when_an_earlier_one_disconnected_its_leaders() -> None:
    game = position(TWO_WARS, players=3, leaders=TWO_WARS_LEADERS, hands=["gggbbk", "bbbggk", "rrrbbg"])
    game.apply("tile green H6")
    game.apply("war red")  # Player 2 (F5, temples D6 E6 F6 G6) attacks Player 3 (J6, temples I6 K6)
    game.apply("support 0")
    events = game.apply("support 3")  # 4 against 2 + 3: Player 3 wins
    removed = only(events, EventKind.PIECES_REMOVED)
    assert names(removed.cells) == ["E6", "F5", "F6", "G6"]  # D6 stays: it is next to the king on C6
    dropped = only(events, EventKind.WAR_DROPPED)
    assert dropped.colour is BLACK and dropped.page == 9
    assert of_kind(events, EventKind.WAR_STARTED) == []
    assert kinds(events).index(EventKind.WAR_DROPPED) < kinds(events).index(EventKind.UNIFICATION_REMOVED)
    assert leader(game, 2, BLACK) == "C6" and leader(game, 1, BLACK) == "K5"  # both kings stay
    assert game.pending.kind is PendingKind.ACTION and game.pending.player == 0


def test_the_attacker_of_a_war_the_active_player_is_not_in_is_the_first_involved_player_clockwise() -> None:
    # Four players, Player 3 (seat 2) to play: the kings of Player 2 (seat 1) and Player 4 (seat 3) meet.
    # Clockwise from seat 2 comes seat 3 before seat 1: Player 4 attacks, though seated after Player 2.
    game = position("""
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
""", players=4, current=2, leaders={"A": (1, BLACK), "B": (3, BLACK)},
        hands=["rrbbgk", "kkrrbb", "ggrrbb", "kkkrbb"], bag="rbgk" * 3)
    started = only(game.apply("tile green G6"), EventKind.WAR_STARTED)
    assert started.player == 3 and "Player 4 attacks Player 2" in started.text
    conflict = game.pending.conflict
    assert conflict is not None and (conflict.attacker, conflict.defender) == (3, 1)
    assert game.pending.player == 3 and game.pending.max_support == 3
    assert (conflict.attacker_strength, conflict.defender_strength) == (3, 2)


# --- revolts ------------------------------------------------------------------------------------------

# One kingdom: Player 2's king on I6 (temples H6 J6 I5). Player 1 enters with a king on G5 (temples F5 H5).
KINGS_REVOLT = ONE_KINGDOM


def test_a_revolt_scores_red_and_removes_no_board_tile() -> None:
    game = position(KINGS_REVOLT, leaders={"B": (1, BLACK)}, hands=["rrrkkk", "bbggkk"])
    board_before = (game.state.tiles, game.state.facedown, game.state.treasures)
    started = only(game.apply("leader black G5"), EventKind.REVOLT_STARTED)
    assert started.colour is BLACK
    assert game.pending.max_support == 3  # revolts are fought with temples, whatever the leaders' colour
    game.apply("support 2")  # 2 + 2 = 4 against 3
    events = game.apply("support 0")
    scored = only(events, EventKind.SCORED)
    assert (scored.player, scored.colour, scored.amount) == (0, RED, 1)
    assert points(game, 0) == {"red": 1, "blue": 0, "green": 0, "black": 0}
    assert only(events, EventKind.PIECES_REMOVED).cells == squares("I6")
    assert (game.state.tiles, game.state.facedown, game.state.treasures) == board_before
    assert hand(game, 0) == {"red": 1, "blue": 0, "green": 0, "black": 3}  # the black tiles stayed in hand


def test_moving_a_leader_inside_its_own_kingdom_is_no_revolt() -> None:
    game = position(KINGS_REVOLT, leaders={"B": (1, BLACK)}, hands=["rrrkkk", "bbggkk"], current=1)
    events = game.apply("leader black G5")  # Player 2 moves his own king within his kingdom
    assert kinds(events) == [EventKind.LEADER_MOVED]
    assert game.pending.kind is PendingKind.ACTION and leader(game, 1, BLACK) == "G5"
    assert len(game.state.kingdoms()) == 1


# --- leaders off the board --------------------------------------------------------------------------


def test_leaders_off_the_board_are_never_in_any_kingdom_computation() -> None:
    game = position(KINGS_REVOLT, leaders={"B": (1, BLACK)}, hands=["rrrkkk", "bbggkk"], current=1)
    game.apply("withdraw black")
    assert game.state.kingdoms() == () and game.state.leader_mask == 0
    assert all(p.leaders == (-1, -1, -1, -1) for p in game.state.players)
    assert of_kind(game.apply("tile black G7"), EventKind.SCORED) == []  # no king on the board to score it
    # Player 1's king enters the former kingdom: no revolt against a king in the supply.
    events = game.apply("leader black G5")
    assert kinds(events) == [EventKind.LEADER_PLACED] and game.pending.kind is PendingKind.ACTION
    assert [k.leaders for k in game.state.kingdoms()] == [((0, BLACK, sq("G5")),)]
    # A catastrophe exiles him: he is gone from every computation at once.
    game.apply("catastrophe F5")
    game.apply("pass")
    game.apply("catastrophe H5")
    assert leader(game, 0, BLACK) is None and game.state.kingdoms() == ()


# --- tiles and kingdoms -------------------------------------------------------------------------------

def test_a_tile_may_join_a_kingdom_to_leaderless_regions() -> None:
    # H5 touches Player 1's kingdom (H6, king on H7) and three leaderless temples: G5, I5, H4.
    game = position("""
     ABCDEFGHIJKLMNOP
  1  t...~~~~~...~..t
  2  ....~.......~...
  3  ...~~.......~~..
  4  ~~~~...r......~~
  5  ......r.r.....~~
  6  .......r......~.
  7  ~~~~...K....~~~.
  8  ...~~~~.....~...
  9  ......~~~~~~~...
 10  ................
 11  ...............t
""".replace("  4  ~~~~...r......~~", "  4  ~~~~...r.....~~~"), leaders={"K": (0, BLACK)}, hands=["rrrkkk", "bbggkk"])
    assert "tile red H5" in offered(game)
    scored = only(game.apply("tile red H5"), EventKind.SCORED)
    assert (scored.player, scored.colour) == (0, RED)  # no priest there: the king takes it
    (kingdom,) = game.state.kingdoms()
    assert names(kingdom.cells) == ["G5", "H4", "H5", "H6", "H7", "I5"]


def test_a_tile_may_never_touch_three_kingdoms() -> None:
    # G6 touches Player 1's king (F6, E6), Player 2's king (H6, I6) and Player 1's priest (G5, G4).
    game = position("""
     ABCDEFGHIJKLMNOP
  1  t...~~~~~...~..t
  2  ....~.......~...
  3  ...~~.......~~..
  4  ~~~~..P......~~~
  5  ......r.......~~
  6  ....Ar.rB.....~.
  7  ~~~~..r.....~~~.
  8  ...~~~~.....~...
  9  ......~~~~~~~...
 10  ................
 11  ...............t
""", leaders={"A": (0, BLACK), "B": (1, BLACK), "P": (0, RED)}, hands=["rrrkkk", "bbggkk"])
    assert len(game.state.kingdoms()) == 3
    illegal(game, "tile red G6", "three-kingdoms", None, "more than two kingdoms")
    assert not {"tile red G6", "tile black G6", "tile green G6"} & offered(game)
    illegal(game, "leader green G6", "leader-unites", 6, "unites two kingdoms")
    # One square further down, F7 touches one kingdom and the leaderless temple G7: fine.
    game.apply("tile black F7")
    assert len(game.state.kingdoms()) == 3


# --- catastrophes ------------------------------------------------------------------------------------

# A red 2×2 short of F6 beside Player 1's king on G6 (temple G7), a treasure on J6, and Player 2's priest
# on L6 whose only temple is L5.
CATASTROPHES = """
     ABCDEFGHIJKLMNOP
  1  t...~~~~~...~..t
  2  ....~.......~...
  3  ...~~.......~~..
  4  ~~~~.........~~~
  5  ....rr.....r..~~
  6  ....r.K..t.Q..~.
  7  ~~~~..r.....~~~.
  8  ...~~~~.....~...
  9  ......~~~~~~~...
 10  ................
 11  ...............t
"""


def test_catastrophes_on_river_are_fine_but_not_on_treasures_monuments_leaders_or_catastrophes() -> None:
    game = position(CATASTROPHES, leaders={"K": (0, BLACK), "Q": (1, RED)}, hands=["rrbbgk", "rrbbgk"])
    game.apply("tile red F6")
    game.apply("monument red/blue E5")
    event = only(game.apply("catastrophe A4"), EventKind.CATASTROPHE)  # an empty river square
    assert event.cells == squares("A4") and event.colour is None and game.state.square(sq("A4")).river
    assert game.pending.player == 1
    for square, what in (("E5", "monument"), ("F6", "monument"), ("J6", "treasure"), ("G6", "leader"),
                         ("L6", "leader"), ("A4", "another catastrophe")):
        illegal(game, f"catastrophe {square}", "catastrophe-blocked", 7, what)
        assert f"catastrophe {square}" not in offered(game)
    assert {"catastrophe B4", "catastrophe G7", "catastrophe L5", "catastrophe P10"} <= offered(game)


def test_catastrophes_exile_leaders_that_lose_their_last_temple() -> None:
    game = position(CATASTROPHES, leaders={"K": (0, BLACK), "Q": (1, RED)}, hands=["rrbbgk", "rrbbgk"],
                    current=1)
    events = game.apply("catastrophe L5")  # Player 2 destroys the only temple of his own priest
    assert kinds(events) == [EventKind.CATASTROPHE, EventKind.LEADER_EXILED]
    assert only(events, EventKind.LEADER_EXILED).cells == squares("L6") and leader(game, 1, RED) is None
    events = game.apply("catastrophe G7")  # and then the king's temple
    assert only(events, EventKind.LEADER_EXILED).player == 0 and leader(game, 0, BLACK) is None
    assert game.state.leader_mask == 0


# --- monuments ---------------------------------------------------------------------------------------


def test_a_red_monument_exiles_leaders_and_the_treasure_on_a_face_down_tile_stays_collectable() -> None:
    # Red E5 (a treasure) F5 E6; Player 1's king on G5 beside F5 only, his trader on D6 beside C6 and E6;
    # a treasure temple on H6, alone.
    game = position("""
     ABCDEFGHIJKLMNOP
  1  t...~~~~~...~..t
  2  ....~.......~...
  3  ...~~.......~~..
  4  ~~~~.........~~~
  5  ....trK.......~~
  6  ..rTr..t......~.
  7  ~~~~........~~~.
  8  ...~~~~.....~...
  9  ......~~~~~~~...
 10  ................
 11  ...............t
""", leaders={"K": (0, BLACK), "T": (0, GREEN)}, hands=["rrbbgk", "rrbbgk"])
    game.apply("tile red F6")
    events = game.apply("monument red/green E5")
    exiled = only(events, EventKind.LEADER_EXILED)
    assert (exiled.player, exiled.colour, exiled.cells) == (0, BLACK, squares("G5"))
    assert leader(game, 0, GREEN) == "D6"  # the trader still has C6
    square = game.state.square(sq("E5"))
    assert square.face_down and square.treasure
    game.apply("tile red G6")  # joins the lone treasure on H6 to the trader's kingdom
    assert (game.pending.kind, game.pending.treasures_to_take) == (PendingKind.TREASURE, 1)
    assert offered(game) == {"treasure E5", "treasure H6"}
    taken = only(game.apply("treasure E5"), EventKind.TREASURE_TAKEN)
    assert taken.cells == squares("E5") and game.state.players[0].treasures == 1
    assert game.state.square(sq("E5")).face_down and not game.state.square(sq("E5")).treasure


def test_monuments_are_optional_and_the_player_picks_the_2x2() -> None:
    # F6 completes two red 2×2s: E5 F5 E6 F6 and F5 G5 F6 G6.
    drawing = """
     ABCDEFGHIJKLMNOP
  1  t...~~~~~...~..t
  2  ....~.......~...
  3  ...~~.......~~..
  4  ~~~~.........~~~
  5  ....rrr.......~~
  6  ....r.r.......~.
  7  ~~~~........~~~.
  8  ...~~~~.....~...
  9  ......~~~~~~~...
 10  ................
 11  ...............t
"""
    game = position(drawing, hands=["rrbbgk", "rrbbgk"])
    game.apply("tile red F6")
    assert offered(game) == {f"monument {m} {at}" for m in ("red/blue", "red/green", "red/black")
                             for at in ("E5", "F5")} | {"no-monument"}
    built = only(game.apply("monument red/green F5"), EventKind.MONUMENT_BUILT)
    assert names(built.cells) == ["F5", "F6", "G5", "G6"]
    assert tile_at(game, "E5") is RED and not game.state.square(sq("E5")).face_down
    assert [m.monument.value for m in game.state.monuments] == ["red/green"]

    declined = position(drawing, hands=["rrbbgk", "rrbbgk"])
    declined.apply("tile red F6")
    events = declined.apply("no-monument")
    assert kinds(events) == [EventKind.MONUMENT_DECLINED] and declined.state.monuments == ()
    assert declined.state.facedown == 0 and declined.pending.kind is PendingKind.ACTION
    assert kinds(declined.apply("tile black H10")) == [EventKind.TILE_PLACED, EventKind.HANDS_REFILLED,
                                                       EventKind.TURN_ENDED]  # no second chance later


def test_monument_points_only_for_the_active_players_own_leaders_at_end_of_turn() -> None:
    # One kingdom: Player 2's priest on D5; Player 1's king on G6 and trader on H6. F6 completes E5 F5 E6 F6.
    game = position("""
     ABCDEFGHIJKLMNOP
  1  t...~~~~~...~..t
  2  ....~.......~...
  3  ...~~.......~~..
  4  ~~~~.........~~~
  5  ..rPrrr.......~~
  6  ....r.KT......~.
  7  ~~~~..rr....~~~.
  8  ...~~~~.....~...
  9  ......~~~~~~~...
 10  ................
 11  ...............t
""", leaders={"P": (1, RED), "K": (0, BLACK), "T": (0, GREEN)}, hands=["rrbbgk", "rrbbgk"])
    scored = only(game.apply("tile red F6"), EventKind.SCORED)
    assert (scored.player, scored.colour) == (1, RED)  # the priest's owner takes the red tile
    assert of_kind(game.apply("monument red/black E5"), EventKind.MONUMENT_SCORED) == []  # not yet: end of turn
    assert len(game.state.kingdoms()) == 1 and game.state.leader_mask.bit_count() == 3
    events = game.apply("pass")
    scored = only(events, EventKind.MONUMENT_SCORED)
    assert (scored.player, scored.colour, scored.amount, scored.page) == (0, BLACK, 1, 11)
    assert kinds(events)[:2] == [EventKind.PASSED, EventKind.MONUMENT_SCORED]  # before the refill
    assert points(game, 0) == {"red": 0, "blue": 0, "green": 0, "black": 1}
    assert points(game, 1) == {"red": 1, "blue": 0, "green": 0, "black": 0}
    game.apply("pass")
    events = game.apply("pass")  # Player 2's turn ends: his priest scores, Player 1's king does not
    assert [(e.player, e.colour) for e in of_kind(events, EventKind.MONUMENT_SCORED)] == [(1, RED)]
    assert points(game, 0)["black"] == 1 and points(game, 1)["red"] == 2


# --- treasures ---------------------------------------------------------------------------------------


def test_the_trader_takes_all_treasures_but_one_corners_first_right_after_his_placement() -> None:
    # Leaderless: the corner treasure B8 with B9; C10 to F10 with treasures on D10 and F10.
    game = position("""
     ABCDEFGHIJKLMNOP
  1  t...~~~~~...~..t
  2  ....~.......~...
  3  ...~~.......~~..
  4  ~~~~.........~~~
  5  ..............~~
  6  ..............~.
  7  ~~~~........~~~.
  8  .t.~~~~.....~...
  9  .r....~~~~~~~...
 10  ..rtrt..........
 11  ...............t
""", hands=["rrbbgk", "rrbbgk"])
    assert game.state.board.corners >> sq("B8") & 1
    events = game.apply("leader green C9")  # joins both regions into one kingdom with three treasures
    assert kinds(events) == [EventKind.LEADER_PLACED, EventKind.TREASURE_TAKEN]
    assert only(events, EventKind.TREASURE_TAKEN).cells == squares("B8")  # the corner, without asking
    assert (game.pending.kind, game.pending.player, game.pending.treasures_to_take) == (PendingKind.TREASURE, 0, 1)
    assert offered(game) == {"treasure D10", "treasure F10"}
    illegal(game, "treasure B9", "treasure", None, "D10, F10")
    illegal(game, "pass", "treasure", None, "takes a treasure")
    game.apply("treasure F10")
    assert game.state.players[0].treasures == 2 and names(
        c for c in range(176) if game.state.treasures >> c & 1) == ["A1", "D10", "P1", "P11"]
    assert game.pending.kind is PendingKind.ACTION and game.pending.actions_left == 1


def test_a_single_war_then_the_trader_takes_the_treasures_it_brought_together() -> None:
    # Player 1's trader on E5 (market D5) in a kingdom with the treasure D6; Player 2's trader on I6
    # (markets H6 I5) with the treasure J6. A settlement on G6 unites them: the war of the traders.
    game = position("""
     ABCDEFGHIJKLMNOP
  1  t...~~~~~...~..t
  2  ....~.......~...
  3  ...~~.......~~..
  4  ~~~~.........~~~
  5  ...gA...g.....~~
  6  ...trk.gBt....~.
  7  ~~~~........~~~.
  8  ...~~~~.....~...
  9  ......~~~~~~~...
 10  ................
 11  ...............t
""", leaders={"A": (0, GREEN), "B": (1, GREEN)}, hands=["kkrrbb", "rrbbkk"])
    game.apply("tile black G6")
    game.apply("support 0")
    events = game.apply("support 0")  # 1 against 2: Player 2 wins
    assert names(only(events, EventKind.PIECES_REMOVED).cells) == ["D5", "E5"]
    # The last war is over: the unification tile comes off, then the winner's trader takes a treasure.
    assert kinds(events)[-1] is EventKind.UNIFICATION_REMOVED and game.state.unification == -1
    assert (game.pending.kind, game.pending.player) == (PendingKind.TREASURE, 1)
    assert offered(game) == {"treasure D6", "treasure J6"}
    events = game.apply("treasure D6")
    assert kinds(events) == [EventKind.TREASURE_TAKEN]
    assert game.state.players[1].treasures == 1 and game.state.players[0].treasures == 0
    assert game.pending.kind is PendingKind.ACTION and game.pending.actions_left == 1


# The two positions of issue 14 are fixtures (tests/conftest.py): the table tests play them too.


def test_no_treasure_is_taken_between_two_wars_of_one_tile(two_wars_over_treasures: Game) -> None:
    game = two_wars_over_treasures
    game.apply("tile green E10")
    game.apply("war black")
    game.apply("support 0")
    events = game.apply("support 0")  # settlements 1 against 4: Player 2 wins the black war
    assert names(only(events, EventKind.PIECES_REMOVED).cells) == ["C8", "C9"]
    # The united kingdom now holds B8 and H10 and Player 2's trader, but the red war comes first.
    assert EventKind.TREASURE_TAKEN not in kinds(events)
    conflict = game.pending.conflict
    assert game.pending.kind is PendingKind.SUPPORT and conflict is not None and conflict.colour is RED
    assert game.state.square(sq("B8")).treasure and conflict.attacker_supporters == squares("B8")
    game.apply("support 0")
    events = game.apply("support 0")  # temples 1 against 2: Player 2 wins the red war
    # B8 still carries its treasure: it stays on the board, and only the priest scores.
    assert names(only(events, EventKind.PIECES_REMOVED).cells) == ["A8"]
    assert tile_at(game, "B8") is RED and points(game, 1)["red"] == 1
    # Then the unification tile comes off, and the trader takes the corner treasure B8.
    assert kinds(events)[-2:] == [EventKind.UNIFICATION_REMOVED, EventKind.TREASURE_TAKEN]
    assert only(events, EventKind.TREASURE_TAKEN).cells == squares("B8")
    assert game.state.players[1].treasures == 1 and game.state.square(sq("H10")).treasure
    assert game.pending.kind is PendingKind.ACTION and game.pending.actions_left == 1


def test_the_monument_decision_comes_before_the_treasures(trader_in_the_square: Game) -> None:
    game = trader_in_the_square
    events = game.apply("tile red F6")
    assert EventKind.TREASURE_TAKEN not in kinds(events) and game.pending.kind is PendingKind.MONUMENT
    events = game.apply("monument red/blue E5")
    # The temples turn face down: the trader goes home before the treasure check, which finds no trader.
    assert only(events, EventKind.LEADER_EXILED).cells == squares("D5")
    assert EventKind.TREASURE_TAKEN not in kinds(events)
    assert game.state.square(sq("E5")).treasure and game.state.square(sq("G6")).treasure
    assert game.state.players[0].treasures == 0
    assert game.pending.kind is PendingKind.ACTION and game.pending.actions_left == 1


def test_without_a_monument_the_trader_takes_a_treasure_after_the_decision(trader_in_the_square: Game) -> None:
    game = trader_in_the_square
    game.apply("tile red F6")
    game.apply("no-monument")
    assert (game.pending.kind, game.pending.player, game.pending.treasures_to_take) == (PendingKind.TREASURE, 0, 1)
    assert offered(game) == {"treasure E5", "treasure G6"}


# --- end of turn and end of game ---------------------------------------------------------------------


def test_all_players_refill_at_end_of_turn_and_catastrophes_are_not_in_the_hand() -> None:
    game = position(KINGS_REVOLT, leaders={"B": (1, RED)}, hands=["rrrrbb", "rrbbgk"])
    game.apply("leader red G5")
    game.apply("support 1")
    game.apply("support 2")  # 2 + 1 against 3 + 2: Player 2 keeps his place
    assert [p.hand_size for p in game.state.players] == [5, 4]
    bag = game.state.bag_count
    events = game.apply("catastrophe L10")
    assert game.state.players[0].catastrophes == 1
    refilled = only(events, EventKind.HANDS_REFILLED)
    assert refilled.amount == bag - 3 == game.state.bag_count
    assert [p.hand_size for p in game.state.players] == [6, 6]
    assert [sum(p.hand or ()) for p in game.state.players] == [6, 6]
    assert game.state.players[0].catastrophes == 1  # catastrophes are never drawn back


def test_the_bag_running_out() -> None:
    drawing = KINGS_REVOLT
    # One tile left after the refill: the game goes on, with a warning; swaps are limited to the bag.
    game = position(drawing, leaders={"B": (1, BLACK)}, hands=["rrrrbb", "rrbbgk"], bag="rrr")
    game.apply("tile red A10")
    events = game.apply("tile red A11")
    assert of_kind(events, EventKind.GAME_OVER) == [] and game.state.bag_count == 1
    low = only(events, EventKind.BAG_LOW)
    assert low.amount == 1 and low.page == 14
    illegal(game, "swap red red", "bag-short", None, "bag holds only 1 tiles")
    assert {str(a) for a in game.legal_actions() if str(a).startswith("swap")} == {
        "swap red", "swap blue", "swap green", "swap black"}
    # One tile short: the game ends at the end of the turn.
    game.apply("tile red A9")
    assert not game.state.over
    game.apply("tile red B11")
    over = only(game.apply("pass"), EventKind.GAME_OVER) if not game.state.over else None
    assert game.state.over and "bag could not refill" in (game.state.game_over or "")
    assert over is None or over.page == 14


def test_an_exactly_emptied_bag_ends_the_game_at_the_end_of_the_turn() -> None:
    # RULES.md 0.6 "the game ends ... when the bag is empty", checked at the end of the turn (section 8).
    game = position(KINGS_REVOLT, leaders={"B": (1, BLACK)}, hands=["rrrrbb", "rrbbgk"], bag="rr")
    game.apply("tile red A10")
    assert not game.state.over
    over = only(game.apply("tile red A11"), EventKind.GAME_OVER)
    assert over.text.endswith("The bag is empty") and over.page == 14
    assert game.state.bag_count == 0 and [p.hand_size for p in game.state.players] == [6, 6]


def test_two_or_fewer_treasures_end_the_game_at_the_end_of_the_turn_not_before() -> None:
    drawing = """
     ABCDEFGHIJKLMNOP
  1  t...~~~~~...~...
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
    four = position(drawing, leaders={"G": (0, GREEN)}, hands=["rrrrrr", "rrrrrr"])
    four.apply("tile red F10")
    four.apply("treasure D10")
    events = four.apply("pass")  # three treasures left: the game goes on
    assert of_kind(events, EventKind.GAME_OVER) == [] and four.pending.player == 1

    three = position(drawing.replace("  1  t...", "  1  ...."), leaders={"G": (0, GREEN)},
                     hands=["rrrrrr", "rrrrrr"])
    three.apply("tile red F10")
    three.apply("treasure D10")  # two left, but the turn is not over
    assert three.state.treasures.bit_count() == 2 and not three.state.over
    assert "tile red H10" in offered(three)
    events = three.apply("tile red H10")
    assert kinds(events)[-1] is EventKind.GAME_OVER
    assert kinds(events).index(EventKind.HANDS_REFILLED) < kinds(events).index(EventKind.GAME_OVER)


def test_final_scoring_fills_the_weakest_colours_and_breaks_ties_down_to_true_ties() -> None:
    scores = rank_scores(
        ["Ann", "Bo", "Cy", "Di"],
        [(2, 8, 8, 8), (5, 5, 5, 6), (6, 5, 5, 5), (4, 9, 9, 9)],
        [3, 0, 0, 1],
    )
    ann, bo, cy, di = scores
    assert ann.spread == (3, 0, 0, 0) and ann.key == (5, 8, 8, 8)  # all three go to the weakest colour
    assert di.key == (5, 9, 9, 9)
    assert (bo.key, cy.key) == ((5, 5, 5, 6), (5, 5, 5, 6))
    assert [s.rank for s in scores] == [2, 3, 3, 1]  # Di beats Ann on the second-weakest; Bo and Cy share
    assert "share rank 3" in bo.tie_break and "Cy" in bo.tie_break
    assert "behind Di on the second-weakest colour (8 to 9)" in ann.tie_break
