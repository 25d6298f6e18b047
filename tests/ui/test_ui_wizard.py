"""The set-up wizard and the hand-entered tally, step by step."""

from __future__ import annotations

from companion.commands import Key, UiCommand
from companion.rules import Game, parse_cell
from companion.ui import wizard
from companion.ui.model import MarkKind
from companion.ui.wizard import ManualTally, SetupDraft, manual_tally

BACK = UiCommand.nav("back")


def test_the_wizard_walks_from_players_to_the_camera_check() -> None:
    draft = SetupDraft()
    screen = wizard.setup(draft)
    assert screen.name == "setup_players" and screen.back is None
    assert [b.command for b in screen.buttons] == [UiCommand.choose("players", n) for n in (2, 3, 4)]
    draft = draft.apply(UiCommand.choose("players", 3))
    assert draft is not None and draft.step == "dynasties"
    assert "Seat 1 (the first player)" in wizard.setup(draft).title
    draft = draft.apply(UiCommand.choose("dynasty", "pot"))
    assert draft is not None
    second = wizard.setup(draft)
    assert "Seat 2" in second.title and "Seat 1: pot" in second.lines
    assert [b.label for b in second.buttons] == ["Archer (A)", "Bull (B)", "Lion (L)"]  # pot is taken
    assert draft.apply(UiCommand.choose("dynasty", "pot")) is None
    for command in (UiCommand.choose("dynasty", "lion"), UiCommand.choose("dynasty", "archer"),
                    UiCommand.choose("board", "alternate"), UiCommand.choose("scores", "open")):
        draft = draft.apply(command)
        assert draft is not None
    assert draft.step == "camera"
    config = draft.config()
    assert (config.players, config.board, config.open_scores, config.hidden_hands) == (3, "alternate", True, True)
    assert config.dynasties == ("pot", "lion", "archer") and config.names == ("Pot", "Lion", "Archer")
    Game(config)  # the engine accepts it


def test_camera_check_shows_the_expected_set_up_and_what_differs() -> None:
    draft = SetupDraft(step="camera", players=2, dynasties=("bull", "lion"))
    clean = wizard.setup(draft)
    assert clean.board is not None and sum(s.treasure for s in clean.board.squares) == 10
    assert clean.buttons[clean.focus].command == UiCommand.nav("start")
    wrong = wizard.setup(draft, differ=(parse_cell("K1"),))
    assert wrong.board is not None and wrong.board.marked(MarkKind.DIFFERS) == (parse_cell("K1"),)
    assert wrong.buttons[wrong.focus].command == UiCommand.nav("recheck")
    assert wrong.lines[1] == "1 square does not match yet (marked)."


def test_back_undoes_one_step() -> None:
    draft = SetupDraft(step="board", players=2, dynasties=("bull", "lion"))
    back = draft.apply(BACK)
    assert back == SetupDraft(step="dynasties", players=2, dynasties=("bull",))
    back = back.apply(BACK)
    assert back is not None and back.dynasties == ()
    assert wizard.setup(SetupDraft(step="scores")).resolve(UiCommand.key(Key.BACK)) == BACK


def test_manual_tally_is_entered_with_plus_minus_and_ranked_by_the_engine() -> None:
    draft = ManualTally.new(["Anna", "Bo"])
    screen = manual_tally(draft)
    assert screen.stepper is not None and screen.stepper.colour == "red" and screen.table is not None
    assert screen.table.selected == (0, 1)
    command = screen.resolve(UiCommand.key(Key.UP))
    assert command == UiCommand.choose("points", 1)
    draft = draft.apply(command)
    assert draft is not None and draft.values[0][0] == 1
    for value in (4, 3, 5, 2):  # Anna: red 1 then blue 4, green 3, black 5, treasures 2
        draft = draft.apply(UiCommand.nav("next"))
        assert draft is not None
        draft = draft.apply(UiCommand.choose("points", value))
        assert draft is not None
    assert draft.values[0] == (1, 4, 3, 5, 2)
    assert manual_tally(draft).stepper is not None and manual_tally(draft).stepper.colour is None  # treasures
    for value in (3, 3, 3, 3, 0):  # Bo
        draft = draft.apply(UiCommand.nav("next"))
        assert draft is not None
        draft = draft.apply(UiCommand.choose("points", value))
        assert draft is not None
    assert draft.field == 9  # the last one: OK now shows the result
    assert manual_tally(draft).resolve(UiCommand.key(Key.OK)) == UiCommand.nav("tally")
    anna, bo = draft.scores()
    # Anna's 2 treasures lift red 1→3: (3,4,3,5) sorted (3,3,4,5) beats Bo's (3,3,3,3) on the third colour.
    assert (anna.rank, bo.rank, anna.score, bo.score) == (1, 2, 3, 3)
    assert "third-weakest" in anna.tie_break
