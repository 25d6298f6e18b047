"""The controller: the only stateful object of the companion.

It holds the game, its record (journal), the tracker and what the players are being asked, turns
readings and UiCommands (touch, GPIO buttons, keyboard) into engine actions, and decides which
screen the players see. Everything arrives on the main loop; nothing here waits or draws.
"""

from __future__ import annotations

import errno
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Protocol

from companion.app.hand_tally import HandTally
from companion.commands import UiCommand, Verb
from companion.rules import (
    Action,
    CompanionError,
    Event,
    Game,
    GameState,
    IllegalAction,
    PendingKind,
    Support,
    Swap,
    parse_cell,
)
from companion.sight import candidates
from companion.tracker import (
    Ambiguous,
    Explained,
    Mismatch,
    Outcome,
    Owed,
    Steady,
    Takeback,
    Tracker,
    Unclear,
    expected_cells,
    monument_squares,
    tall_squares,
)
from companion.ui import messages, screens
from companion.ui.advice import CameraTrouble, Trouble
from companion.ui.log import recent
from companion.ui.messages import Final, Foreseen, TakeBack
from companion.ui.model import Code, Screen, UiState
from companion.ui.screens import Asking, Notice, Result
from vision.reading import BoardReading, CellClass, CellReading, ReadStatus


class GameRecord(Protocol):
    """Where applied actions are kept before the screen moves on (companion.app.journal.Journal)."""

    def apply(self, game: Game, action: Action | str, reading: object = None) -> list[Event]: ...

    def undo(self, game: Game) -> Action: ...


class MemoryRecord:
    """A record that keeps nothing: for replays and tests that need no file."""

    def apply(self, game: Game, action: Action | str, reading: object = None) -> list[Event]:
        return game.apply(action)

    def undo(self, game: Game) -> Action:
        return game.undo()


# Where "correct a square" opens when the camera agrees with the game: the middle of the board.
CENTRE = parse_cell("H6")
FEW_SQUARES = 6  # unreadable squares the players are asked to name one by one; more, and the light is asked about
EDGE_PATIENCE = 3  # still looks refused for the same patch at the edge before the players are asked about it
_CAMERA_TROUBLE = frozenset({ReadStatus.NO_BOARD, ReadStatus.BOARD_MOVED, ReadStatus.BAD_FRAME,
                             ReadStatus.NOT_CALIBRATED})
_TROUBLES = {ReadStatus.NO_BOARD: CameraTrouble.NO_BOARD, ReadStatus.BOARD_MOVED: CameraTrouble.BOARD_MOVED,
             ReadStatus.BAD_FRAME: CameraTrouble.NO_PICTURE, ReadStatus.NOT_CALIBRATED: CameraTrouble.NOT_CALIBRATED}


# --- what stops the normal flow until the players deal with it (a closed union, like the tracker's outcomes) --


@dataclass(frozen=True, slots=True)
class Correcting:
    """The players name what stands on squares; `cells` are those the camera disagrees with or cannot read."""

    cells: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Problem:
    """Something the players asked for cannot be done (a rule, nothing to take back, a record not saved)."""

    error: Exception


@dataclass(frozen=True, slots=True)
class DiskFull:
    """The memory card is full: the last action was not saved, and play waits."""


@dataclass(frozen=True, slots=True)
class CameraLost:
    """The camera stopped sending pictures; the game is kept while it is started again."""


@dataclass(frozen=True, slots=True)
class Resuming:
    """The game was rebuilt from its record after a restart: the players confirm before play goes on.
    `notes`: what of a damaged record could not be read."""

    started: datetime
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Edge:
    """Unreadable squares at the board's edge, refused again and again as an arm reaching in: is anything there?"""

    cells: tuple[int, ...]


# The tracker's questions about the board (it cannot be explained, read, or is read more than one way, or
# went back) are moments themselves.
BoardQuestion = Mismatch | Unclear | Ambiguous | Takeback
Moment = BoardQuestion | Correcting | Problem | DiskFull | CameraLost | Resuming | Edge
# Moments during which a reading is kept but not reconciled: the game is not ready for it.
_PAUSED = (Problem, DiskFull, Resuming)
# Moments the players leave by closing them; the board questions end when the board is explained.
_CLOSED_BY_PLAYERS = (Problem, DiskFull, CameraLost, Resuming, Edge)


class Sight(Protocol):
    """What the companion tells the observer behind the camera as the game goes on."""

    tall: frozenset[int]
    excused: frozenset[int]
    unexplained: frozenset[int]
    face_down: frozenset[int] | None
    candidates: tuple[frozenset[CellClass], ...] | None

    def agree(self, shown: Sequence[CellReading]) -> None:
        """The game agreed with the board of the last reading: `shown` is what each square shows."""

    def expect_setup(self, shown: Sequence[CellReading]) -> None:
        """Nothing done yet in this game: the board should show its set-up position, `shown`."""


@dataclass
class Controller:
    game: Game
    record: GameRecord = field(default_factory=MemoryRecord)
    tracker: Tracker = field(init=False)  # what the table shows, as last confirmed by the camera
    ui: UiState = field(default_factory=UiState)
    moment: Moment | None = None
    events: tuple[Event, ...] = ()
    asking: Asking | None = None  # a prompt the players opened from the turn screen or the menu
    # Results and ends of turn still to show, oldest first. A result stays until the players are done
    # with it or the camera saw its pieces leave; an end of turn until the next action.
    notices: tuple[Notice, ...] = ()
    undone: TakeBack | None = None  # what the players took back since the last action, said on the next screens
    reading: BoardReading | None = None  # the last usable reading, re-examined after each decision
    looking: str = ""  # a word for the status line while the camera waits for a clear view
    trouble: Trouble | None = None  # the last still board was refused: said on the screen until one is read
    # Squares the players named: kept while the camera sees them unchanged since the last agreement.
    corrections: dict[int, CellClass] = field(default_factory=dict)
    # The camera refuses to read while unreadable squares at the edge look like an arm reaching in.
    # Seen over the same squares EDGE_PATIENCE times, the players are asked; squares they say nothing
    # lies over are `excused` (the observer reads through them) until the camera reads them again.
    excused: frozenset[int] = frozenset()
    # Squares the last reading left unclear to the game (unsure, or named as they were where a legal
    # move needs them changed): the observer reads them again whatever its comparison says.
    unexplained: frozenset[int] = frozenset()
    _edge: tuple[frozenset[int], int] = (frozenset(), 0)  # the squares refused look after look, and how often
    _earlier: list[GameState] = field(default_factory=list)  # before each action the camera just explained
    _moved: bool = False  # a hand went over the board since the last reading
    _latest: BoardReading | None = None  # the last reading the camera made
    _agreed: tuple[BoardReading, BoardReading] | None = None  # a reading the game agreed with, as corrected
    _told: tuple[tuple[object, ...], tuple[frozenset[CellClass], ...]] | None = field(default=None, repr=False)
    hand_tally: HandTally | None = None  # the players chose to tally by hand from the menu
    new_game: bool = False  # the players asked for a new game: the main loop goes back to the set-up
    phones: tuple[Code, ...] = ()  # the phones' links, when they are on (companion.phone.follow sets them)

    def __post_init__(self) -> None:
        self.tracker = Tracker.start(self.game.state)

    @classmethod
    def resume(cls, game: Game, record: GameRecord, started: datetime, notes: Sequence[str] = ()) -> Controller:
        """The controller of a game rebuilt from its record after a restart: the players confirm it (told
        what of a damaged record was lost, `notes`), and the pieces they still had to lift when the power
        went are asked for again."""
        controller = cls(game, record, moment=Resuming(started, tuple(notes)))
        controller.tracker = Tracker.resume(game)
        return controller

    @property
    def state(self) -> GameState:
        return self.game.state

    @property
    def owed(self) -> tuple[Owed, ...]:
        owed = self.tracker.owed(self.state)
        if self.reading is None:
            return owed
        return tuple(o for o in owed if not o.wanted.fits(self.reading.cells[o.cell]))

    # --- from the camera --------------------------------------------------------------------------

    def on_reading(self, reading: BoardReading) -> Outcome | None:
        """A still board was read: reconcile it. Returns what the tracker found (None when ignored)."""
        self.trouble = _trouble(reading)
        if not reading.ok:
            if reading.status in _CAMERA_TROUBLE:
                self.looking = reading.message or reading.status.value
            elif reading.status is ReadStatus.MOVING and reading.low_confidence:
                self._edge_refused(reading)
            return None
        self.looking = ""
        self._edge = (frozenset(), 0)
        self.excused = frozenset(c for c in self.excused if c in reading.low_confidence)
        self._latest = reading
        self._keep_corrections(reading)
        if isinstance(self.moment, _PAUSED):
            self.reading = reading
            return None
        outcome = self._reconcile(reading)
        self._tidy()
        return outcome

    def _edge_refused(self, reading: BoardReading) -> None:
        """One more still look refused for a patch at the edge. Whatever lies there, held still, the
        squares at its fringe come and go from look to look with the picture's noise: a patch sharing
        a square with the one before is the same, and the players are asked about all it covered
        (counting only identical patches, game 453's players were never asked and it stalled)."""
        patch = frozenset(reading.low_confidence)
        last, seen = self._edge
        self._edge = (last | patch, seen + 1) if patch & last else (patch, 1)
        self.looking = reading.message or reading.status.value
        if self._edge[1] >= EDGE_PATIENCE and self.moment is None:
            self.moment, self.ui = Edge(tuple(sorted(self._edge[0]))), UiState()

    def brief(self, sight: Sight) -> None:
        """Tell the observer what the game knows of the board: where tall pieces stand, which
        squares the players were excused, which the game cannot explain as last read, where a
        monument (and so a face-down tile) may lie, what may appear on each square, and, once, the
        board of the last reading when the game agreed with it (the observer's picture of it becomes
        the reference the next reading is compared with); before anything was done in the game, the
        set-up position the board should show."""
        sight.tall, sight.excused, sight.unexplained = tall_squares(self.state), self.excused, self.unexplained
        sight.face_down = monument_squares(self.state)
        sight.candidates = self._candidates()
        if not self.game.actions:
            sight.expect_setup(tuple(look.seen() for look in self.tracker.shown))
        if self._agreed is not None and self._agreed[0] is self._latest:
            sight.agree(self._agreed_board(self._agreed[1]))
        self._agreed = None

    def _candidates(self) -> tuple[frozenset[CellClass], ...]:
        """What may appear where: worked out again only when the game, the table or the takebacks changed."""
        key = (self.state, self.tracker.shown, *self._earlier)  # compared by identity first: cheap
        if self._told is None or self._told[0] != key:
            self._told = key, candidates(self.state, self.tracker.shown, self._earlier)
        return self._told[1]

    def _agreed_board(self, seen: BoardReading) -> tuple[CellReading, ...]:
        """The table as the tracker knows it, in the class the camera saw where a square may look two
        ways (a uniting tile before its marker is put on, tiles not yet turned under a monument)."""
        return tuple(CellReading(cell.cls if look.also is not None and look.fits(cell) else look.cls, 1.0,
                                 look.dynasty, look.monument)
                     for look, cell in zip(self.tracker.shown, seen.cells, strict=True))

    def on_motion(self) -> None:
        """A hand went over the board: a square the players named may have changed under it."""
        self._moved = True

    def _keep_corrections(self, reading: BoardReading) -> None:
        """A new look: a square the players named stays named while the camera sees it unchanged since
        the last agreement. Otherwise (an absolute read, or the square changed) only while the camera
        still cannot read it and no hand went over the board."""
        moved, self._moved = self._moved, False
        changed = reading.changed
        for cell in [c for c in self.corrections if changed is None or c in changed]:
            if moved or cell not in reading.low_confidence:
                del self.corrections[cell]

    def _commit(self, reading: BoardReading) -> None:
        """The game agrees with the board of the last reading (`reading`, as the players corrected it)."""
        self.tracker.commit(self.state, reading)
        if self.reading is not None:
            self._agreed = self.reading, reading

    def back_from_setup(self) -> None:
        """The players left the set-up of a new game for this one (or its tally)."""
        self.new_game = False
        if self.hand_tally is not None:
            self.hand_tally.new_game = False

    def camera_lost(self) -> None:
        """The camera stopped sending pictures: say so until it is back."""
        self.moment = CameraLost()

    def camera_back(self) -> None:
        """Pictures again: play goes on (the next still board is read afresh)."""
        if isinstance(self.moment, CameraLost):
            self.moment = None

    def _reconcile(self, reading: BoardReading, *, takeback: bool = True) -> Outcome:
        tracker = self.tracker
        raw, reading = reading, self._corrected(reading)
        self.looking = ""
        outcome = tracker.reconcile(self.state, reading, earlier=self._earlier if takeback else ())
        self.unexplained = frozenset(outcome.cells) if isinstance(outcome, Unclear) else frozenset()
        if isinstance(outcome, Unclear):
            self.looking = outcome.message
            if outcome.ask:
                self.moment = outcome
                self.reading = raw
            return outcome
        self.reading = raw
        if isinstance(outcome, Steady):
            self._commit(reading)
            self._clear_board_moment()
        elif isinstance(outcome, Explained):
            self._clear_board_moment()
            self._play_seen(outcome.actions, reading)
        elif isinstance(outcome, Ambiguous | Mismatch | Takeback):
            self.moment = outcome
        return outcome

    def _corrected(self, reading: BoardReading) -> BoardReading:
        """The reading with the squares the players named (as seen: the tracker looks no further there)."""
        if not self.corrections:
            return reading
        cells = list(reading.cells)
        for cell, cls in self.corrections.items():
            cells[cell] = CellReading(cls, 1.0)
        unsure = tuple(c for c in reading.low_confidence if c not in self.corrections)
        changed = None if reading.changed is None else tuple(sorted(set(reading.changed) | set(self.corrections)))
        return replace(reading, cells=tuple(cells), low_confidence=unsure, changed=changed)

    def _clear_board_moment(self) -> None:
        if isinstance(self.moment, BoardQuestion):
            self.moment = None
            self.ui = UiState()

    def _play_seen(self, actions: Sequence[Action], reading: BoardReading) -> None:
        earlier: list[GameState] = []
        events: list[Event] = []
        for action in actions:
            earlier.append(self.state)
            new = self._apply(action, reading)
            if new is None:
                return
            events += new
        self._commit(reading)
        self._earlier = earlier
        if earlier:
            self._after(events, earlier[0])

    # --- from the players -------------------------------------------------------------------------

    def handle(self, command: UiCommand) -> None:
        """A raw command from a touch, a button or a key."""
        if self.hand_tally is not None:
            self.hand_tally.handle(command)
            self.new_game = self.hand_tally.new_game
            return
        # Only raw keys and taps mean something that depends on the screen shown.
        raw = command.verb in (Verb.KEY, Verb.TAP, Verb.RELEASE)
        resolved = self.screen().resolve(command) if raw else command
        if resolved is None:
            return
        new_ui = self.ui.apply(resolved)
        if new_ui is not None:
            self.ui = new_ui
            return
        verb, value = resolved.verb, resolved.value
        if verb is Verb.ACTION and isinstance(value, str):
            self.decide(value)
        elif verb is Verb.UNDO:
            self._ask_take_back()
        elif verb is Verb.NAV and isinstance(value, str):
            self._navigate(value)
        elif verb is Verb.CHOOSE:
            self._choose(*resolved.choice)
        elif verb is Verb.TAP and isinstance(value, int):
            self.ui = replace(self.ui, pick=value) if self.moment is not None else self.ui
        elif verb is Verb.MENU:
            self.asking = Asking.MENU if self.asking is None else None
        self._tidy()

    def decide(self, text: str) -> None:
        """An action the camera cannot see: swap, pass, support, war order, monument, treasure."""
        try:
            action = Action.parse(text)
        except ValueError as error:
            self.moment = Problem(IllegalAction("unreadable", str(error)))
            return
        before = self.state
        events = self._apply(action, None)
        if events is None:
            return
        self.tracker.commit(self.state)  # the table has not changed: what the rules removed is now owed
        self._earlier = []
        self.asking = None
        self._after(events, before)
        if self.reading is not None:
            self._reconcile(self.reading)  # the rest of a quick double action may now be explained

    def _ask_take_back(self) -> None:
        """"Take back" (a button, the menu, a long press of back) first says what it will undo."""
        if isinstance(self.moment, Takeback):  # the board went back: its screen already asks
            self.take_back()
        elif not self.game.actions:
            self.take_back()  # says there is nothing to take back
        else:
            if isinstance(self.moment, BoardQuestion):
                self.moment = None  # asked again after the takeback, or when the players keep the action
            self.asking, self.ui = Asking.TAKE_BACK, UiState()

    def plan(self, steps: int) -> TakeBack:
        """What taking back the last `steps` actions would undo, or why it cannot (as on Board Game Arena:
        never past support shown, a swap's draw from the bag or another player's decision)."""
        actions = self.game.actions
        deeds: list[tuple[GameState, Action]] = []
        for k in range(1, min(steps, len(actions)) + 1):
            before, action = self.game.before(k), actions[-k]
            deeds.append((before, action))
            final = _final(before, action)
            if final is not None:
                return TakeBack(tuple(deeds), final)
        return TakeBack(tuple(deeds))

    def take_back(self) -> None:
        """Undo the last action, or as many as the board was seen to go back by, unless that is no longer
        allowed (the screen already says why)."""
        moment = self.moment
        steps = moment.steps if isinstance(moment, Takeback) else 1
        plan = self.plan(steps)
        if plan.final is not None:
            return
        for _ in range(steps):
            try:
                self.record.undo(self.game)
            except CompanionError as error:  # nothing to take back
                self.moment = Problem(error)
                return
            except OSError as error:
                self.moment = _saving_failed(error)
                return
            if self._earlier:
                self._earlier.pop()
        if isinstance(moment, Takeback) and self.reading is not None:
            self._commit(self._corrected(self.reading))  # the players already put the board back
        self.moment = None
        self.events, self.notices, self.asking = (), (), None
        self.undone = TakeBack(self.undone.deeds + plan.deeds) if self.undone is not None else plan
        self.ui = UiState()

    def _navigate(self, where: str) -> None:
        if where in _ASKED:
            self.asking = _ASKED[where]
        elif where == "manual":
            self.asking, self.hand_tally = None, HandTally.of([p.name for p in self.state.players])
        elif where == "undo":  # "Take it back", confirmed
            self.take_back()
        elif where == "start-new":  # confirmed: the main loop goes to the set-up, which leads back here
            self.asking, self.new_game = None, True
        elif where == "correct":
            self.asking, self.moment, self.ui = None, Correcting(self._disagreeing()), UiState()
        elif where == "forward" and self.reading is not None:  # not a takeback: a new move that looks like one
            self.moment, self.ui = None, UiState()
            self._reconcile(self.reading, takeback=False)
        elif where == "nothing" and isinstance(self.moment, Edge):
            # The players see nothing over those squares: the camera reads through them from now on.
            self.excused |= frozenset(self.moment.cells)
            self.moment, self.ui, self._edge = None, UiState(), (frozenset(), 0)
        elif where in ("close", "done", "retry", "recheck", "back"):
            if isinstance(self.moment, _CLOSED_BY_PLAYERS):
                self.moment, self._edge = None, (frozenset(), 0)
            if where == "done" and self.asking is None and self.moment is None:
                self.notices = self.notices[1:]  # the players are done with the notice shown
            self.asking = None
            self.ui = UiState()
            if self.reading is not None:  # look at the board again: it may have been put right meanwhile
                self._reconcile(self.reading)

    def _choose(self, what: str, which: str) -> None:
        if what == "explain" and isinstance(self.moment, Ambiguous):
            options = self.moment.options
            if which.isdigit() and int(which) < len(options) and self.reading is not None:
                self.moment = None
                self._play_seen(options[int(which)], self._corrected(self.reading))
        elif what == "correct" and self.reading is not None:
            self.correct(which)

    def correct(self, text: str) -> None:
        """"F7 red tile": the players say what stands on a square; the reading is re-examined with it
        once they have said so of every square the question marked."""
        reading = self.reading
        name, _, piece = text.partition(" ")
        try:
            cell = parse_cell(name)
            cls = CellClass(piece)
        except ValueError as error:
            self.moment = Problem(IllegalAction("unreadable", str(error)))
            return
        if reading is None:
            return
        self.corrections[cell] = cls
        # An ambiguous board's squares each fit some move: the one the players say was misread is enough
        # to look again.
        marked = self.moment.cells if isinstance(self.moment, Mismatch | Unclear) else ()
        left = [c for c in marked if c not in self.corrections]
        if left:
            # The board is looked at again once the players said what stands on every square the
            # question marked: with one of them still misread, the rest could explain a move
            # nobody made, and it would be played before they got to it.
            self.ui = UiState(pick=next((c for c in left if c > cell), left[0]))
            return
        self.ui = UiState()
        self.moment = None
        self._reconcile(reading)

    def _disagreeing(self) -> tuple[int, ...]:
        """Squares the last reading shows differently from both the game and the table as last confirmed,
        or could not read."""
        reading = self.reading
        if reading is None:
            return ()
        expected, shown = expected_cells(self.state), self.tracker.shown
        differ = {cell for cell, seen in enumerate(reading.cells)
                  if not expected[cell].fits(seen) and not shown[cell].fits(seen)}
        return tuple(sorted(differ | set(reading.low_confidence)))

    # --- applying ---------------------------------------------------------------------------------

    def _apply(self, action: Action, reading: BoardReading | None) -> list[Event] | None:
        try:
            return self.record.apply(self.game, action, reading)
        except IllegalAction as error:
            self.moment = Problem(error)
        except OSError as error:
            self.moment = _saving_failed(error)
        return None

    def _after(self, events: list[Event], before: GameState) -> None:
        """What the players must see of `events`, from the action(s) taken in `before`: each conflict
        decided (the conflict as it stood comes from `before`), then the end of the turn."""
        self.events = tuple(events)
        self.ui, self.undone = UiState(), None
        kept = tuple(n for n in self.notices if isinstance(n, Result))  # an end of turn lasts until the next move
        self.notices = kept + screens.notices_of(events, before, self.game.actions[-1])

    def _tidy(self) -> None:
        """A result stays up until its pieces are off the board: the camera saw them go."""
        owed = {o.cell for o in self.owed}
        self.notices = tuple(n for n in self.notices if not isinstance(n, Result) or owed & set(n.removed))

    # --- what the players see ---------------------------------------------------------------------

    def screen(self) -> Screen:
        """What the players see now (changes nothing)."""
        if self.hand_tally is not None:
            return self.hand_tally.screen()
        state = self.state
        moment = self.moment
        if moment is not None:
            return self._moment_screen(moment)
        view = screens.TableView(state, self.game.config, self.ui, self.events, self.asking,
                                 actions=self.game.actions, camera=self.trouble, moves=recent(self.game),
                                 phones=self.phones)
        if self.asking is Asking.TAKE_BACK and self.game.actions:
            return messages.take_back(state, self.plan(1), self.ui)
        if self.asking is None and self.notices:
            return screens.notice(view, self.notices[0])
        owed = self.owed
        if self.asking is None and owed and state.pending.kind is PendingKind.ACTION:
            chores = messages.owed(state, [(o.cell, str(o)) for o in owed], self.ui, self.trouble)
            return messages.taken_back(chores, self.undone)
        shown = screens.for_state(view)
        if self.trouble is None:  # else the screen already says why the camera waits
            shown = messages.camera_note(shown, self.looking)
        return messages.taken_back(shown, self.undone)

    def _moment_screen(self, moment: Moment) -> Screen:
        state, ui = self.state, self.ui
        if isinstance(moment, DiskFull):
            return messages.disk_full()
        if isinstance(moment, CameraLost):
            return messages.camera_lost()
        if isinstance(moment, Edge):
            return messages.edge(state, moment.cells, ui)
        if isinstance(moment, Problem):
            return messages.error(moment.error)
        if isinstance(moment, Correcting):
            start = moment.cells[0] if moment.cells else CENTRE
            return messages.correct(state, start if ui.pick is None else ui.pick, moment.cells, ui)
        if isinstance(moment, Resuming):
            return screens.beside_board(messages.resuming(moment.started, len(self.game.actions), *moment.notes),
                                        state, recent(self.game))
        if isinstance(moment, Mismatch):
            rule = IllegalAction("board", moment.rule, moment.page) if moment.rule else None
            return messages.mismatch(state, moment.cells, rule, ui)
        if isinstance(moment, Unclear):
            if ui.pick is not None or len(moment.cells) <= FEW_SQUARES:
                return messages.mismatch(state, moment.cells, None, ui)
            return messages.unreadable(state, moment.cells, ui)  # most likely the light, or something over it
        if isinstance(moment, Ambiguous):
            options = [Foreseen.trying(self.game.config, state, option) for option in moment.options]
            return messages.ambiguous(state, options, moment.cells, ui)
        return messages.takeback(state, self.plan(moment.steps), ui)


_ASKED = {asking.value: asking for asking in Asking}  # the NAV words that open a prompt


def _trouble(reading: BoardReading) -> Trouble | None:
    """Why a still board was refused, for the players (None: it was read). A refusal for something at
    the edge names its squares (an arm reaching in); one without squares is a covered marker or border,
    which the camera's message names."""
    if reading.ok:
        return None
    if reading.status is ReadStatus.MOVING:
        kind = CameraTrouble.ARM if reading.low_confidence else CameraTrouble.COVERED
    else:
        kind = _TROUBLES[reading.status]
    return Trouble(kind, reading.message or reading.status.value, reading.low_confidence)


def _final(before: GameState, action: Action) -> Final | None:
    """Why `action`, taken in `before`, can no longer be taken back (None: it can). The end of a turn is
    not a reason: the tiles drawn to refill the hands go back in the bag."""
    if isinstance(action, Support):
        return Final.SUPPORT
    if isinstance(action, Swap):
        return Final.SWAP
    if before.pending.player != before.current:
        return Final.OTHER_PLAYER
    return None


def _saving_failed(error: OSError) -> Moment:
    if error.errno == errno.ENOSPC:
        return DiskFull()
    return Problem(error)
