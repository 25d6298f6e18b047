"""How a whole game's moves are counted (the game benchmark's figures), with stand-in eyes."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace

import pytest

from companion.app.controller import Controller
from companion.rules import BLACK, BLUE, Game, parse_cell, position
from companion.sim import demo
from companion.sim.demo import DemoError, Screens, Stats, answer, play, press
from companion.sim.table import Blind, PerfectEyes, Table, reading_of
from companion.tracker import Ambiguous, Look, Takeback, Unclear, expected_cells
from vision.reading import BoardReading, CellClass, CellReading, ReadStatus


class RefusingEyes:
    """A camera whose every still look is refused, as when the edge test never lets a board through."""

    read_ms = 0.0

    def __init__(self) -> None:
        self.observer = Blind()

    def look(self, looks: Sequence[Look], *, hand: bool = True) -> BoardReading:
        return self.again()

    def again(self) -> BoardReading:
        return BoardReading(ReadStatus.MOVING, board_found=True, hands_in_view=True,
                            message="Something lies over the board's left edge: a hand, a cup, a deep shadow?")


class MisreadingEyes(PerfectEyes):
    """A camera that reads every board perfectly, except on the first move: there it also sees,
    with confidence, a red leader standing in the river (no rule explains that)."""

    def __init__(self) -> None:
        super().__init__()
        self.wrong = True

    def look(self, looks: Sequence[Look], *, hand: bool = True) -> BoardReading:
        before = self.board
        reading = super().look(looks, hand=hand)
        changed = [c for c, (a, b) in enumerate(zip(before, looks, strict=False)) if a != b]
        if self.wrong and changed:
            self.wrong = False
            river = next(c for c, look in enumerate(looks) if look.cls is CellClass.EMPTY_RIVER)
            cells = list(reading.cells)
            cells[river] = CellReading(CellClass.LEADER_RED, 1.0)
            reading = replace(reading, cells=tuple(cells))
        return reading


def _game(seed: int = 1) -> tuple[Table, Controller]:
    return Table.new(3, seed), Controller(Game.new(3, hidden_hands=True))


def test_a_game_whose_every_look_is_refused_stalls_and_is_not_a_silent_disagreement() -> None:
    table, controller = _game()
    stats = Stats()
    with pytest.raises(DemoError, match="stalled"):
        play(table, controller, RefusingEyes(), Screens(), stats)
    assert stats.seen >= 1  # the move was made on the board ...
    assert stats.unaided == 0  # ... not recognised ...
    assert stats.corrected == 0
    assert stats.stalled == 1  # ... the game stalled ...
    assert stats.silent == 0  # ... and the companion never claimed a board it had not seen


def test_a_move_the_companion_never_settles_on_stalls_the_game_and_is_not_recognised(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Looks that never satisfy the companion (never-tuned-on game 453: every look refused at the
    edge, the edge question answered, refused again) left the move uncounted: 3 of 3 recognised."""
    def never(*_: object) -> frozenset[str]:
        raise demo.NeverSettled("the companion never settled")

    monkeypatch.setattr(demo, "_settle", never)
    table, controller = _game()
    stats = Stats()
    with pytest.raises(DemoError, match="stalled"):
        play(table, controller, PerfectEyes(), Screens(), stats)
    assert stats.seen >= 1 and stats.unaided == stats.corrected == 0
    assert stats.stalled == 1 and stats.silent == 0


def test_moves_that_needed_help_are_counted_by_what_the_players_were_asked() -> None:
    table, controller = _game()
    stats = Stats()
    eyes = MisreadingEyes()
    eyes.board = list(table.board)
    play(table, controller, eyes, Screens(), stats)
    assert table.over
    assert stats.corrected >= 1
    assert sum(stats.helped_by.values()) >= stats.corrected
    assert stats.unaided + stats.corrected == stats.seen
    assert stats.silent == stats.stalled == 0



def test_a_camera_that_never_errs_is_asked_only_the_order_of_two_moves_made_at_once() -> None:
    """Seed 22's players three times make both their actions before the camera gets a look, and
    the two orders score differently: the game's own question, counted apart from the camera's."""
    table, controller = _game(22)
    stats = Stats()
    play(table, controller, PerfectEyes(), Screens(), stats)
    assert table.over and stats.silent == stats.stalled == 0
    assert stats.prompts == {"ambiguous": 3}
    assert stats.corrected == stats.order_only == 6 and stats.helped_by == {"order": 6}
    assert stats.unaided + stats.corrected == stats.seen


def test_a_question_asked_of_a_misread_board_is_the_cameras_not_only_the_order() -> None:
    table, controller = _game(22)
    stats = Stats()
    eyes = MisreadingEyes()
    eyes.board = list(table.board)
    play(table, controller, eyes, Screens(), stats)
    assert stats.order_only == 6 and stats.corrected > stats.order_only  # the misread move asked more


class MonumentBlindEyes(PerfectEyes):
    """A camera that reads every square right but never names a monument."""

    def again(self) -> BoardReading:
        reading = super().again()
        return replace(reading, cells=tuple(replace(cell, monument=None) for cell in reading.cells))


def test_which_monument_is_the_cameras_question_even_with_every_square_read_right() -> None:
    table, controller = _game(41)
    stats = Stats()
    play(table, controller, MonumentBlindEyes(), Screens(), stats)
    assert stats.helped_by["ambiguous"] >= 1 and stats.order_only == 0


def test_a_treasure_a_monument_hides_is_chosen_on_the_buttons_not_seen_taken() -> None:
    """Seed 26: a trader's kingdom holds a treasure on a tile turned face down under a monument. Its
    going cannot be seen; the players choose it on the buttons, and the game goes on as the truth's."""
    table, controller = _game(26)
    stats = Stats()
    play(table, controller, PerfectEyes(), Screens(), stats)
    assert table.over and stats.silent == 0 and table.agrees(controller.state)


def test_the_players_say_whether_a_board_that_seems_to_go_back_did() -> None:
    """The camera misses the last move's piece (a glare over it): the board looks as it was before
    that move. The players, who did not take it back, say it is a new move; nothing is undone."""
    table, controller = _game(2)
    boards = {0: list(table.board)}
    while len(controller.game.actions) < 2:
        move = table.step()
        if move.by_hand:
            controller.on_reading(reading_of(table.board))
        else:
            press(controller, move.command)
        boards[len(controller.game.actions)] = list(table.board)
    actions = list(controller.game.actions)
    controller.on_reading(reading_of(boards[len(actions) - 1]))
    assert isinstance(controller.moment, Takeback)
    assert answer(table, controller)
    assert list(controller.game.actions) == actions and not isinstance(controller.moment, Takeback)


TWO_KINGDOMS = """
     ABCDEFGHIJKLMNOP
  1  ................
  2  ................
  3  ................
  4  ................
  5  ................
  6  rAk.kBr.........
  7  ................
  8  ................
  9  ................
 10  ................
 11  ................
"""


def _two_kingdoms() -> Game:
    """Two kingdoms one bare square apart, each with a black leader: a tile there starts a war."""
    return position(TWO_KINGDOMS, leaders={"A": (0, BLACK), "B": (1, BLACK)}, hands=["rrbkkk", "rrgkkk"])


def test_the_players_tap_a_misread_square_when_none_of_the_ways_offered_happened() -> None:
    """The bare land between two kingdoms read surely as a unification tile: a temple or a settlement
    could have been put there. Neither was: the players tap the square and say it is bare; nothing is
    played."""
    truth = _two_kingdoms()
    table = Table(truth, random.Random(0), list(expected_cells(truth.state)))
    controller = Controller(_two_kingdoms())
    looks = list(table.board)
    looks[parse_cell("D6")] = Look(CellClass.UNIFICATION)
    controller.on_reading(reading_of(looks))
    assert isinstance(controller.moment, Ambiguous) and len(controller.moment.options) == 2
    assert answer(table, controller)
    assert controller.moment is None and controller.game.actions == () and table.agrees(controller.state)


ONE_KINGDOM = """
     ABCDEFGHIJKLMNOP
  1  ................
  2  ................
  3  ................
  4  ................
  5  ................
  6  rA..r...........
  7  ................
  8  ................
  9  ................
 10  ................
 11  ................
"""


def _one_kingdom() -> Game:
    """The first player's blue leader beside a temple, another temple three squares away."""
    return position(ONE_KINGDOM, leaders={"A": (0, BLUE)}, hands=["rrbkkk", "rrgkkk"])


def test_the_players_name_a_square_asked_about_though_it_was_read_right() -> None:
    """Never-tuned-on game 1034: a green leader put down was read surely as a blue one, and the
    player's blue leader stands elsewhere. Moving that leader would explain the picture, so the
    companion asks about the square it stands on, read right. The players say what stands there;
    the leader put down is then a misread they correct, and the game is the truth's."""
    truth = _one_kingdom()
    truth.apply("leader green F6")
    table = Table(truth, random.Random(0), list(expected_cells(truth.state)))
    controller = Controller(_one_kingdom())
    looks = list(table.board)
    looks[parse_cell("F6")] = Look(CellClass.LEADER_BLUE)
    misread = replace(reading_of(looks), changed=(parse_cell("F6"),))
    for _ in range(3):
        controller.on_reading(misread)
    assert isinstance(controller.moment, Unclear) and controller.moment.cells == (parse_cell("B6"),)
    asked = []
    while controller.moment is not None and len(asked) < 4:
        asked.append(type(controller.moment).__name__)
        assert answer(table, controller)
    assert asked == ["Unclear", "Mismatch"]
    assert controller.moment is None and table.agrees(controller.state)
