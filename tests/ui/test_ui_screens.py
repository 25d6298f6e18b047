"""View-model tests: what each screen says, which commands its buttons send, which rule page it cites.

Game situations come from seeded self-play of the real engine (companion.ui.gallery.play_until), and
every engine action a screen offers is applied to that game to prove the engine accepts it.
"""

from __future__ import annotations

import re
from datetime import datetime

import pytest

from companion.commands import UNDO, Key, UiCommand, Verb
from companion.rules import (
    BuildMonument,
    ChooseWar,
    ConflictKind,
    EventKind,
    Game,
    GameConfig,
    IllegalAction,
    PendingKind,
    TakeTreasure,
    cell_name,
    final_scores,
    parse_cell,
)
from companion.ui import messages, screens
from companion.ui.gallery import conflict, happened, notice, pending, play_until, two_tall_squares
from companion.ui.model import Button, Chip, MarkKind, Screen, Tone, UiState
from companion.ui.screens import Asking, TableView
from vision.reading import CellClass


def view(found, **fields) -> TableView:  # type: ignore[no-untyped-def]
    game, events = found
    return TableView(game.state, game.config, events=events, **fields)


def accepted(game: Game, command: UiCommand | None) -> None:
    """The engine takes the action the screen sends (then it is taken back)."""
    assert command is not None and command.verb is Verb.ACTION, command
    game.apply(str(command.value))
    game.undo()


def ok(screen: Screen) -> UiCommand | None:
    return screen.resolve(UiCommand.key(Key.OK))


@pytest.fixture(scope="module")
def mid():  # type: ignore[no-untyped-def]
    return play_until(lambda game, events: game.pending.kind is PendingKind.ACTION and game.state.turn >= 12)


def test_turn_shows_whose_turn_the_actions_left_and_the_kingdoms(mid) -> None:  # type: ignore[no-untyped-def]
    game, _ = mid
    state = game.state
    screen = screens.for_state(view(mid))
    player = state.players[state.current]
    assert screen.name == "turn"
    assert player.name in screen.title and player.name in screen.status
    assert f"{state.actions_left} action" in screen.status and f"bag {state.bag_count}" in screen.status
    assert screen.board is not None and len(screen.board.squares) == 176
    assert {frozenset(k.cells) for k in state.kingdoms()} == set(screen.board.kingdoms)
    assert screen.help is not None and screen.help.page in (6, 7, 8, 9, 11, 14)
    commands = {b.label: b.command for b in screen.buttons}
    assert commands["Pass"] == UiCommand.action("pass") and commands["Take back"] == UNDO
    assert commands["Swap tiles"] == UiCommand.nav("swap")
    assert screen.strip is not None
    assert [(seat.name, seat.dynasty) for seat in screen.strip.seats] == [(p.name, p.dynasty) for p in state.players]
    accepted(game, commands["Pass"])
    assert screen.resolve(UiCommand.key(Key.BACK, long=True)) == UNDO


def test_up_and_down_move_the_focus_and_ok_presses_the_focused_button(mid) -> None:  # type: ignore[no-untyped-def]
    first = screens.turn(view(mid))
    assert first.focus == 0
    assert first.resolve(UiCommand.key(Key.DOWN)) == UiCommand.focus(1)
    assert first.resolve(UiCommand.key(Key.UP)) == UiCommand.focus(len(first.buttons) - 1)
    moved = screens.turn(view(mid, ui=UiState().apply(UiCommand.focus(1))))
    assert ok(moved) == UiCommand.action("pass")


def test_swap_asks_how_many_tiles_in_table_mode() -> None:
    game = Game.new(3, hidden_hands=True)
    swap = screens.for_state(TableView(game.state, game.config, asking=Asking.SWAP))
    assert swap.name == "swap" and swap.stepper is not None
    assert (swap.stepper.minimum, swap.stepper.maximum, swap.stepper.value) == (1, 6, 1)
    assert swap.resolve(UiCommand.key(Key.UP)) == UiCommand.entry(2)
    three = screens.swap(TableView(game.state, game.config, UiState(entry=3)))
    assert ok(three) == UiCommand.action("swap 3")
    accepted(game, ok(three))
    most = screens.swap(TableView(game.state, game.config, UiState(entry=6)))
    assert most.resolve(UiCommand.key(Key.UP)) == UiCommand.entry(6)  # clamped at a full hand
    assert most.resolve(UiCommand.key(Key.BACK)) == UiCommand.nav("close")


def test_revolt_highlights_both_sides_and_commits_what_the_player_entered() -> None:
    found = play_until(pending(PendingKind.SUPPORT, lambda g: g.pending.conflict.kind is ConflictKind.REVOLT))
    game, _ = found
    conflict = game.pending.conflict
    n = min(2, game.pending.max_support)
    screen = screens.for_state(view(found, ui=UiState(entry=n)))
    assert screen.name == "support" and "revolt" in screen.title.lower() and "attacker" in screen.title
    assert screen.board is not None
    assert screen.board.marked(MarkKind.ATTACKER) == (conflict.attacker_leader, *conflict.attacker_supporters)
    assert screen.board.marked(MarkKind.DEFENDER) == (conflict.defender_leader, *conflict.defender_supporters)
    assert screen.stepper is not None and screen.stepper.maximum == game.pending.max_support
    assert screen.stepper.colour == "red"  # revolts are fought with temples
    assert screen.help is not None and screen.help.page == 8
    assert ok(screen) == UiCommand.action(f"support {n}")
    accepted(game, ok(screen))
    assert screen.table is not None and cell_name(conflict.attacker_leader) in screen.table.header[1]


def test_war_defender_sees_what_the_attacker_committed() -> None:
    found = play_until(pending(PendingKind.SUPPORT, lambda g: g.pending.conflict.kind is ConflictKind.WAR
                               and g.pending.conflict.attacker_committed is not None))
    game, _ = found
    conflict = game.pending.conflict
    screen = screens.for_state(view(found))
    assert "defender" in screen.title and screen.help is not None and screen.help.page == 9
    assert screen.table is not None and screen.table.rows[1][0] == "From hand"
    assert screen.table.rows[1][1] == Chip(conflict.colour.value, str(conflict.attacker_committed))
    assert screen.stepper is not None and screen.stepper.colour == conflict.colour.value
    assert screen.stepper.value == 0
    accepted(game, ok(screen))


def test_result_marks_exactly_the_pieces_that_must_leave() -> None:
    found = play_until(lambda game, events: any(e.kind is EventKind.CONFLICT_WON and e.page == 9 for e in events))
    _, events = found
    removed = {c for e in events if e.kind in (EventKind.PIECES_REMOVED, EventKind.LEADER_EXILED,
                                                EventKind.UNIFICATION_REMOVED) for c in e.cells}
    screen = screens.notice(view(found), notice(found))
    assert screen.board is not None and set(screen.board.marked(MarkKind.REMOVE)) == removed
    won = next(e for e in events if e.kind is EventKind.CONFLICT_WON)
    assert won.text.startswith(screen.title) and screen.table is not None
    assert won.text.endswith(f"{screen.table.rows[-1][1]} to {screen.table.rows[-1][2]}") or \
        won.text.endswith(f"{screen.table.rows[-1][2]} to {screen.table.rows[-1][1]}")  # the totals
    assert any(e.text in screen.lines for e in events if e.kind is EventKind.SCORED)
    assert ok(screen) == UiCommand.nav("done")


def test_war_order_offers_each_war_to_the_active_player() -> None:
    found = play_until(pending(PendingKind.WAR_ORDER))
    game, _ = found
    screen = screens.for_state(view(found))
    wars = [o for o in game.pending.options if isinstance(o, ChooseWar)]
    assert [b.command for b in screen.buttons] == [UiCommand.action(str(w)) for w in wars]
    assert [b.colour for b in screen.buttons] == [w.colour.value for w in wars]
    assert screen.help is not None and screen.help.page == 9
    for button in screen.buttons:
        accepted(game, button.command)


def test_monument_asks_which_square_first_when_a_tile_completes_two() -> None:
    game = two_tall_squares()
    first = screens.for_state(TableView(game.state, game.config))
    assert first.name == "monument" and first.help is not None and first.help.page == 11
    a10, b10 = parse_cell("A10"), parse_cell("B10")
    assert [b.command for b in first.buttons[:2]] == [UiCommand.pick(a10), UiCommand.pick(b10)]
    assert first.buttons[-1].command == UiCommand.action("no-monument")
    assert first.board is not None and first.board.marked(MarkKind.OPTION) == (a10, b10)
    # Tapping any square of the second 2×2 picks it.
    assert first.resolve(UiCommand.tap(parse_cell("C11"))) == UiCommand.pick(b10)
    ui = UiState().apply(UiCommand.pick(b10))
    assert ui is not None and ui.pick == b10
    second = screens.monument(TableView(game.state, game.config, ui))
    builds = [o for o in game.pending.options if isinstance(o, BuildMonument) and o.cell == b10]
    assert [b.command for b in second.buttons[:-1]] == [UiCommand.action(str(o)) for o in builds]
    assert all(b.colour and b.colour != "black" for b in second.buttons[:-1])  # the monument's other colour
    assert second.board is not None
    assert second.board.marked(MarkKind.OPTION) == tuple(parse_cell(n) for n in ("B10", "C10", "B11", "C11"))
    for button in second.buttons:
        accepted(game, button.command)
    assert second.resolve(UiCommand.key(Key.BACK)) == UiCommand.pick(-1)


def test_treasure_lists_the_choices_and_a_tap_near_one_takes_it() -> None:
    found = play_until(pending(PendingKind.TREASURE))
    game, _ = found
    options = [o for o in game.pending.options if isinstance(o, TakeTreasure)]
    screen = screens.for_state(view(found))
    assert [b.command for b in screen.buttons] == [UiCommand.action(str(o)) for o in options]
    cell = options[0].cell
    assert screen.resolve(UiCommand.tap(cell)) == UiCommand.action(str(options[0]))
    for button in screen.buttons:
        accepted(game, button.command)
    corners = all(game.state.square(o.cell).corner for o in options)
    assert corners == any("corner" in line for line in screen.lines)


def test_end_of_turn_warns_when_the_bag_runs_low() -> None:
    found = play_until(happened(EventKind.BAG_LOW))
    ended = notice(found)
    screen = screens.notice(view(found), ended)
    game, _ = found
    assert isinstance(ended, screens.TurnEnd) and ended.actor != game.state.current
    assert screen.status.startswith(game.state.players[ended.actor].name) and "turn over" in screen.status
    assert screen.tone is Tone.WARNING and screen.help is not None and screen.help.page == 14
    assert "Everybody draws back to 6 tiles" in screen.lines
    assert any("tiles left in the bag" in line for line in screen.lines)
    assert screen.buttons[0].label.startswith("Next: ")


def test_hidden_scores_show_only_the_seat_that_peeks(mid) -> None:  # type: ignore[no-untyped-def]
    game, _ = mid
    screen = screens.for_state(view(mid, asking=Asking.SCORES, ui=UiState(peek=1)))
    assert screen.table is not None
    shown = [row[1] != "hidden" for row in screen.table.rows]
    assert shown == [seat == 1 for seat in range(len(game.state.players))]
    bo = game.state.players[1]
    assert [c.text for c in screen.table.rows[1][1:5]] == [str(n) for n in bo.points]  # type: ignore[union-attr]
    assert screen.table.rows[1][5] == str(bo.treasures) and screen.table.rows[0][5] == ""
    holds = [b.hold for b in screen.buttons if b.hold is not None]
    assert holds == [UiCommand.peek(seat) for seat in range(len(game.state.players))]


def test_open_scores_show_everybody(mid) -> None:  # type: ignore[no-untyped-def]
    game, _ = mid
    config = GameConfig(players=game.config.players, open_scores=True)
    screen = screens.scores(TableView(game.state, config))
    assert screen.table is not None and all(row[1] != "hidden" for row in screen.table.rows)
    assert [b.label for b in screen.buttons] == ["Close"]


def test_final_tally_ranks_and_explains() -> None:
    found = play_until(pending(PendingKind.GAME_OVER))
    game, _ = found
    screen = screens.for_state(view(found))
    scores = sorted(final_scores(game.state), key=lambda s: (s.rank, s.seat))
    assert screen.name == "tally" and screen.help is not None and screen.help.page == 14
    assert screen.table is not None
    assert [row[0] for row in screen.table.rows] == [f"{s.rank}. {s.name}" for s in scores]
    assert [row[-1] for row in screen.table.rows] == [str(s.score) for s in scores]
    assert game.state.game_over in screen.lines[0]
    for s, row in zip(scores, screen.table.rows, strict=True):
        colours = [cell for cell in row if isinstance(cell, Chip)]
        # Each colour: the points, the treasures added beside them, the weakest framed.
        assert [c.text for c in colours] == [str(n) for n in s.points]
        assert [c.extra for c in colours] == [f"+{n}" if n else "" for n in s.spread]
        assert [c.highlight for c in colours] == [i == s.final.index(s.score) for i in range(4)]
        assert all(not line.startswith(s.name) for line in screen.lines if not s.tie_break)


def test_the_tally_says_each_tie_break_in_words_without_a_doubled_full_stop() -> None:
    from companion.rules import rank_scores

    scores = rank_scores(["Anna", "Bo", "Cem"], [(5, 7, 6, 9), (7, 5, 9, 6), (4, 8, 8, 8)], [2, 2, 3])
    screen = screens.tally(scores, reason="Tally entered by hand")
    assert screen.lines[0] == "Tally entered by hand."
    assert "Bo is tied with Anna on all four colours: they share rank 2." in screen.lines
    assert not any(".." in line for line in (*screen.lines, screen.help.text if screen.help else ""))


def test_mismatch_names_the_rule_and_offers_the_ways_out(mid) -> None:  # type: ignore[no-untyped-def]
    game, _ = mid
    with pytest.raises(IllegalAction) as caught:
        game.apply("leader red A1")
    differ = (parse_cell("A1"), parse_cell("H6"))
    screen = messages.mismatch(game.state, differ, caught.value)
    assert screen.tone is Tone.ERROR and screen.help is not None and screen.help.page == caught.value.page == 6
    assert "A1, H6" in screen.lines[0]
    assert screen.board is not None and screen.board.marked(MarkKind.DIFFERS) == differ
    assert [b.command for b in screen.buttons] == [UiCommand.nav("recheck"), UiCommand.pick(0), UNDO]
    # A tap next to a differing square picks it; a tap far away picks the square tapped.
    assert screen.resolve(UiCommand.tap(parse_cell("B2"))) == UiCommand.pick(parse_cell("A1"))
    assert screen.resolve(UiCommand.tap(parse_cell("P11"))) == UiCommand.pick(parse_cell("P11"))
    picked = messages.mismatch(game.state, differ, caught.value, UiState(pick=parse_cell("H6")))
    assert picked.name == "correct" and "H6" in picked.title
    assert UiCommand.choose("correct", "H6 red leader") in [b.command for b in picked.buttons]
    assert picked.resolve(UiCommand.key(Key.BACK)) == UiCommand.pick(-1)
    assert picked.buttons[-1].command == UiCommand.pick(parse_cell("A1"))  # round to the first marked square


def test_a_river_square_can_only_be_corrected_to_river_pieces(mid) -> None:  # type: ignore[no-untyped-def]
    game, _ = mid
    river = parse_cell("E1")
    screen = messages.correct(game.state, river)
    assert [b.command.value for b in screen.buttons] == [
        "correct=E1 empty river", "correct=E1 blue tile", "correct=E1 monument", "correct=E1 catastrophe",
        "correct=E1 unification tile"]


def test_a_land_square_offers_every_piece_the_camera_can_name_there(mid) -> None:  # type: ignore[no-untyped-def]
    game, _ = mid
    land = parse_cell("H6")
    screen = messages.correct(game.state, land)
    offered = [b.command.value.removeprefix("correct=H6 ") for b in screen.buttons if b.command.verb is Verb.CHOOSE]
    assert offered == [cls.value for cls in CellClass if cls not in (
        CellClass.EMPTY_RIVER, CellClass.TILE_BLUE, CellClass.FACE_DOWN, CellClass.UNKNOWN)]
    labels = {b.command.value.removeprefix("correct=H6 "): b.label for b in screen.buttons}
    assert labels["treasure on a temple"] == "Treasure"
    assert labels["monument"] == "Monument" and screen.help is not None and "face-down tile" in screen.help.text
    assert labels["red leader"] == "Priest" and labels["green tile"] == "Market"
    # The square being corrected is shown close up (the renderer makes every square a finger wide).
    assert screen.board is not None and screen.board.zoom == land


def test_messages_say_what_happened_in_plain_words() -> None:
    resuming = messages.resuming(datetime(2026, 11, 28, 20, 14), 37)
    assert resuming.title == "Resuming the game started 20:14 — 37 actions"
    assert messages.disk_full().title == "The memory card is full"
    assert messages.camera_lost().title == "Camera lost — check the cable"
    assert ok(messages.camera_lost()) == UiCommand.nav("retry")
    error = messages.error(IllegalAction("leader-temple", "A leader must stand next to a temple", 6))
    assert error.help is not None and error.help.page == 6 and error.tone is Tone.WARNING


def test_squares_the_camera_disagrees_with_are_marked_on_game_screens(mid) -> None:  # type: ignore[no-untyped-def]
    h6 = parse_cell("H6")
    screen = screens.for_state(view(mid, differ=(h6,)))
    assert screen.board is not None and screen.board.marked(MarkKind.DIFFERS) == (h6,)
    assert screens.for_state(view(mid)).board.marked(MarkKind.DIFFERS) == ()  # type: ignore[union-attr]


def test_menu_offers_scores_undo_corrections_and_a_hand_tally(mid) -> None:  # type: ignore[no-untyped-def]
    screen = screens.for_state(view(mid, asking=Asking.MENU))
    commands = [b.command for b in screen.buttons]
    assert screen.name == "menu"
    for wanted in (UiCommand.nav("scores"), UNDO, UiCommand.nav("correct"), UiCommand.nav("manual"),
                   UiCommand.nav("new"), UiCommand.nav("close")):
        assert wanted in commands
    assert screen.buttons[screen.focus].command == UiCommand.nav("close")
    assert screen.resolve(UiCommand.key(Key.BACK)) == UiCommand.nav("close")


def test_a_seat_held_on_the_ok_button_peeks_until_released(mid) -> None:  # type: ignore[no-untyped-def]
    screen = screens.scores(view(mid, asking=Asking.SCORES, ui=UiState(focus=2)))
    assert screen.resolve(UiCommand.key(Key.OK, long=True)) == UiCommand.peek(2)
    assert screen.resolve(UiCommand(Verb.RELEASE, Key.OK)) == UiCommand.peek(None)
    assert screens.turn(view(mid)).resolve(UiCommand(Verb.RELEASE, Key.OK)) is None


def test_up_and_down_move_between_the_buttons_of_a_message() -> None:
    buttons = (Button("Look again", UiCommand.nav("recheck"), primary=True), Button("Correct", UiCommand.pick(3)))
    ui = UiState()
    screen = messages.message("What happened?", buttons=buttons, ui=ui)
    for expected in (1, 0, 1):
        moved = screen.resolve(UiCommand.key(Key.DOWN if expected else Key.UP))
        assert moved == UiCommand.focus(expected)
        ui = ui.apply(moved) or ui
        screen = messages.message("What happened?", buttons=buttons, ui=ui)
        assert screen.focus == expected
    assert screen.resolve(UiCommand.key(Key.OK)) == UiCommand.pick(3)


def test_the_conflict_panel_never_shows_a_negative_or_meaningless_number() -> None:
    # A defender already stronger than the attacker's total: "needs -2 to hold" was shown here.
    found = play_until(conflict(lambda c: c.attacker_committed is not None
                                and c.defender_strength > c.attacker_strength + c.attacker_committed))
    game, _ = found
    c = game.pending.conflict
    for entry in range(game.pending.max_support + 1):
        screen = screens.support(view(found, ui=UiState(entry=entry)))
        assert screen.table is not None
        texts = [*screen.lines, *(cell if isinstance(cell, str) else cell.text
                                  for row in (screen.table.header, *screen.table.rows) for cell in row)]
        assert not any(re.search(r"-\d", text) for text in texts), texts
        totals = screen.table.rows[-1]
        assert totals == ("Total", str(c.attacker_strength + c.attacker_committed), str(c.defender_strength + entry))
        assert screen.lines[0].startswith(f"As it stands, {game.state.players[c.defender].name} (defender) holds")


def test_a_tie_goes_to_the_defender_and_the_attacker_sees_both_sides() -> None:
    found = play_until(conflict(lambda c: c.attacker_committed is None and c.attacker_strength == c.defender_strength))
    game, _ = found
    c = game.pending.conflict
    names = [p.name for p in game.state.players]
    screen = screens.support(view(found))
    assert screen.table is not None
    assert screen.table.header[1:] == (f"{names[c.attacker]} {cell_name(c.attacker_leader)}",
                                       f"{names[c.defender]} {cell_name(c.defender_leader)}")
    assert screen.table.rows[1][2] == "—"  # the defender has not said yet
    assert screen.lines[0].endswith("ties go to the defender.")
    if game.pending.max_support:
        more = screens.support(view(found, ui=UiState(entry=1)))
        assert more.lines[0].startswith(f"As it stands, {names[c.attacker]} (attacker) wins")


def test_the_header_counts_the_action_whose_conflict_is_being_fought() -> None:
    found = play_until(pending(PendingKind.SUPPORT))
    game, _ = found
    left = game.state.actions_left - 1
    assert f"{left} action{'s' if left != 1 else ''} left" in screens.support(view(found)).status
