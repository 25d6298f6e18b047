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
    EventKind,
    Game,
    GameState,
    IllegalAction,
    PendingKind,
    cell_name,
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
from companion.ui.board import board_view, marks
from companion.ui.log import recent
from companion.ui.model import Button, MarkKind, Screen, Tone, UiState
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
# Events after which the players see the result before going on.
_RESULTS = frozenset({EventKind.CONFLICT_WON, EventKind.PIECES_REMOVED, EventKind.LEADER_EXILED})
_CAMERA_TROUBLE = frozenset({ReadStatus.NO_BOARD, ReadStatus.BOARD_MOVED, ReadStatus.BAD_FRAME,
                             ReadStatus.NOT_CALIBRATED})


@dataclass(frozen=True, slots=True)
class Moment:
    """Something that stops the normal flow until the players deal with it."""

    kind: str  # "mismatch", "unclear", "ambiguous", "takeback", "correct", "error", "disk_full", "camera",
    # "resuming", "edge"
    outcome: Outcome | None = None
    error: Exception | None = None
    started: datetime | None = None
    cells: tuple[int, ...] = ()  # "correct": the squares the camera disagrees with or cannot read; "edge": the patch
    notes: tuple[str, ...] = ()  # "resuming": what of the record could not be read


class Sight(Protocol):
    """What the companion tells the observer behind the camera as the game goes on."""

    tall: frozenset[int]
    excused: frozenset[int]
    face_down: frozenset[int] | None
    candidates: tuple[frozenset[CellClass], ...] | None

    def agree(self, shown: Sequence[CellReading]) -> None:
        """The game agreed with the board of the last reading: `shown` is what each square shows."""


@dataclass
class Controller:
    game: Game
    record: GameRecord = field(default_factory=MemoryRecord)
    tracker: Tracker = field(init=False)  # what the table shows, as last confirmed by the camera
    ui: UiState = field(default_factory=UiState)
    moment: Moment | None = None
    events: tuple[Event, ...] = ()
    asking: str | None = None  # "swap" or "scores", opened from the turn screen
    notice: str | None = None  # "result" after a conflict, until the players or the camera move on
    reading: BoardReading | None = None  # the last usable reading, re-examined after each decision
    looking: str = ""  # a word for the status line while the camera waits for a clear view
    # Squares the players named: kept while the camera sees them unchanged since the last agreement.
    corrections: dict[int, CellClass] = field(default_factory=dict)
    # The camera refuses to read while unreadable squares at the edge look like an arm reaching in.
    # Seen for the same squares EDGE_PATIENCE times, the players are asked; squares they say nothing
    # lies over are `excused` (the observer reads through them) until the camera reads them again.
    excused: frozenset[int] = frozenset()
    _edge: tuple[tuple[int, ...], int] = ((), 0)
    _earlier: list[GameState] = field(default_factory=list)  # before each action the camera just explained
    _moved: bool = False  # a hand went over the board since the last reading
    _latest: BoardReading | None = None  # the last reading the camera made
    _agreed: tuple[BoardReading, BoardReading] | None = None  # a reading the game agreed with, as corrected
    _told: tuple[tuple[object, ...], tuple[frozenset[CellClass], ...]] | None = field(default=None, repr=False)
    hand_tally: HandTally | None = None  # the players chose to tally by hand from the menu
    new_game: bool = False  # the players asked for a new game: the main loop goes back to the set-up

    def __post_init__(self) -> None:
        self.tracker = Tracker.start(self.game.state)

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
        if not reading.ok:
            if reading.status in _CAMERA_TROUBLE:
                self.looking = reading.message or reading.status.value
            elif reading.status is ReadStatus.MOVING and reading.low_confidence:
                self._edge_refused(reading)
            return None
        self.looking = ""
        self._edge = ((), 0)
        self.excused = frozenset(c for c in self.excused if c in reading.low_confidence)
        self._latest = reading
        self._keep_corrections(reading)
        if self.moment is not None and self.moment.kind in ("disk_full", "error", "resuming"):
            self.reading = reading
            return None
        return self._reconcile(reading)

    def _edge_refused(self, reading: BoardReading) -> None:
        patch = reading.low_confidence
        last, seen = self._edge
        self._edge = (patch, seen + 1 if patch == last else 1)
        self.looking = reading.message or reading.status.value
        if self._edge[1] >= EDGE_PATIENCE and self.moment is None:
            self.moment, self.ui = Moment("edge", cells=patch), UiState()

    def brief(self, sight: Sight) -> None:
        """Tell the observer what the game knows of the board: where tall pieces stand, which
        squares the players were excused, where a monument (and so a face-down tile) may lie, what
        may appear on each square, and, once, the board of the last reading when the game agreed
        with it (the observer's picture of it becomes the reference the next reading is compared with)."""
        sight.tall, sight.excused = tall_squares(self.state), self.excused
        sight.face_down = monument_squares(self.state)
        sight.candidates = self._candidates()
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

    def _reconcile(self, reading: BoardReading, *, takeback: bool = True) -> Outcome:
        tracker = self.tracker
        raw, reading = reading, self._corrected(reading)
        self.looking = ""
        outcome = tracker.reconcile(self.state, reading, earlier=self._earlier if takeback else ())
        if isinstance(outcome, Unclear):
            self.looking = outcome.message
            if outcome.ask:
                self.moment = Moment("unclear", outcome)
                self.reading = raw
            return outcome
        self.reading = raw
        if isinstance(outcome, Steady):
            self._commit(reading)
            self._clear_board_moment()
        elif isinstance(outcome, Explained):
            self._clear_board_moment()
            self._play_seen(outcome.actions, reading)
        elif isinstance(outcome, Ambiguous | Mismatch):
            self.moment = Moment("ambiguous" if isinstance(outcome, Ambiguous) else "mismatch", outcome)
        elif isinstance(outcome, Takeback):
            self.moment = Moment("takeback", outcome)
        return outcome

    def _corrected(self, reading: BoardReading) -> BoardReading:
        """The reading with the squares the players named."""
        if not self.corrections:
            return reading
        cells = list(reading.cells)
        for cell, cls in self.corrections.items():
            cells[cell] = CellReading(cls, 1.0)
        unsure = tuple(c for c in reading.low_confidence if c not in self.corrections)
        return replace(reading, cells=tuple(cells), low_confidence=unsure)

    def _clear_board_moment(self) -> None:
        if self.moment is not None and self.moment.kind in ("mismatch", "unclear", "ambiguous", "takeback"):
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
        self._after(events)

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
            self.take_back()
        elif verb is Verb.NAV and isinstance(value, str):
            self._navigate(value)
        elif verb is Verb.CHOOSE:
            self._choose(*resolved.choice)
        elif verb is Verb.TAP and isinstance(value, int):
            self.ui = replace(self.ui, pick=value) if self.moment is not None else self.ui
        elif verb is Verb.MENU:
            self.asking = "menu" if self.asking is None else None

    def decide(self, text: str) -> None:
        """An action the camera cannot see: swap, pass, support, war order, monument, treasure."""
        try:
            action = Action.parse(text)
        except ValueError as error:
            self.moment = Moment("error", error=IllegalAction("unreadable", str(error)))
            return
        events = self._apply(action, None)
        if events is None:
            return
        self.tracker.commit(self.state)  # the table has not changed: what the rules removed is now owed
        self._earlier = []
        self.asking = None
        self._after(events)
        if self.reading is not None:
            self._reconcile(self.reading)  # the rest of a quick double action may now be explained

    def take_back(self) -> None:
        """Undo the last action, or as many as the board was seen to go back by."""
        moment = self.moment
        steps = moment.outcome.steps if moment is not None and isinstance(moment.outcome, Takeback) else 1
        for _ in range(steps):
            try:
                self.record.undo(self.game)
            except CompanionError as error:  # nothing to take back
                self.moment = Moment("error", error=error)
                return
            except OSError as error:
                self.moment = _saving_failed(error)
                return
            if self._earlier:
                self._earlier.pop()
        if moment is not None and moment.kind == "takeback" and self.reading is not None:
            self._commit(self._corrected(self.reading))  # the players already put the board back
        self.moment = None
        self.events, self.notice, self.asking = (), None, None
        self.ui = UiState()

    def _navigate(self, where: str) -> None:
        if where in ("swap", "scores", "menu"):
            self.asking = where
        elif where == "manual":
            self.asking, self.hand_tally = None, HandTally.of([p.name for p in self.state.players])
        elif where == "new":
            self.new_game = True
        elif where == "correct":
            self.asking, self.moment, self.ui = None, Moment("correct", cells=self._disagreeing()), UiState()
        elif where == "forward" and self.reading is not None:  # not a takeback: a new move that looks like one
            self.moment, self.ui = None, UiState()
            self._reconcile(self.reading, takeback=False)
        elif where == "nothing" and self.moment is not None and self.moment.kind == "edge":
            # The players see nothing over those squares: the camera reads through them from now on.
            self.excused |= frozenset(self.moment.cells)
            self.moment, self.ui, self._edge = None, UiState(), ((), 0)
        elif where in ("close", "done", "retry", "recheck", "back"):
            if self.moment is not None and self.moment.kind in ("error", "resuming", "disk_full", "camera", "edge"):
                self.moment, self._edge = None, ((), 0)
            if where in ("done", "close"):
                self.notice = None
            self.asking = None
            self.ui = UiState()
            if self.reading is not None:  # look at the board again: it may have been put right meanwhile
                self._reconcile(self.reading)

    def _choose(self, what: str, which: str) -> None:
        if what == "explain" and self.moment is not None and isinstance(self.moment.outcome, Ambiguous):
            options = self.moment.outcome.options
            if which.isdigit() and int(which) < len(options) and self.reading is not None:
                self.moment = None
                self._play_seen(options[int(which)], self._corrected(self.reading))
        elif what == "correct" and self.reading is not None:
            self.correct(which)

    def correct(self, text: str) -> None:
        """"F7 red tile": the players say what stands on a square; the reading is re-examined with it."""
        reading = self.reading
        name, _, piece = text.partition(" ")
        try:
            cell = parse_cell(name)
            cls = CellClass(piece)
        except ValueError as error:
            self.moment = Moment("error", error=IllegalAction("unreadable", str(error)))
            return
        if reading is None:
            return
        self.ui = UiState()
        self.moment = None
        self.corrections[cell] = cls
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
            self.moment = Moment("error", error=error)
        except OSError as error:
            self.moment = _saving_failed(error)
        return None

    def _after(self, events: list[Event]) -> None:
        self.events = tuple(events)
        self.ui = UiState()
        if any(e.kind in _RESULTS for e in events):
            self.notice = "result"
        elif any(e.kind in (EventKind.BAG_LOW, EventKind.MONUMENT_SCORED) for e in events):
            self.notice = "end_of_turn"  # monument points, or the end is near: worth a moment
        elif self.notice == "end_of_turn" or (self.notice == "result" and not self.owed):
            self.notice = None

    # --- what the players see ---------------------------------------------------------------------

    def screen(self) -> Screen:
        if self.hand_tally is not None:
            return self.hand_tally.screen()
        state = self.state
        moment = self.moment
        if moment is not None:
            return self._moment_screen(moment)
        view = screens.TableView(state, self.game.config, self.ui, self.events, self.asking, moves=recent(self.game))
        if self.asking is None and self.notice == "result" and state.pending.kind is PendingKind.ACTION:
            if self.owed:
                return screens.result(view)
            self.notice = None
        if self.asking is None and self.notice == "end_of_turn" and state.pending.kind is PendingKind.ACTION:
            return screens.end_of_turn(view)
        owed = self.owed
        if self.asking is None and owed and state.pending.kind in (PendingKind.ACTION, PendingKind.GAME_OVER):
            return self._on_board(messages.message(
                "Put the board right", *(f"Please {o}." for o in owed),
                "The camera checks it: play goes on when it is done.",
                tone=Tone.WARNING, name="owed", ui=self.ui,
                buttons=(Button("Done — look again", UiCommand.nav("recheck"), primary=True),)),
                MarkKind.REMOVE, [o.cell for o in owed])
        return self._camera_note(screens.for_state(view))

    def _camera_note(self, screen: Screen) -> Screen:
        """While the camera waits for a clear view, the players see why."""
        if not self.looking:
            return screen
        said = self.looking if self.looking.endswith((".", "?", "!")) else f"{self.looking}."
        return replace(screen, lines=(*screen.lines, f"Camera: {said}"))

    def _on_board(self, screen: Screen, kind: MarkKind, cells: Sequence[int]) -> Screen:
        """A message with the board picture beside it and the squares concerned marked."""
        return replace(screen, status=screens.status(self.state), board=board_view(self.state, marks(kind, cells)))

    def _moment_screen(self, moment: Moment) -> Screen:
        state = self.state
        outcome = moment.outcome
        if moment.kind == "disk_full":
            return messages.disk_full()
        if moment.kind == "camera":
            return messages.camera_lost()
        if moment.kind == "edge":
            names = ", ".join(cell_name(c) for c in moment.cells)
            return self._on_board(messages.message(
                "Anything over the edge of the board?",
                f"The camera cannot read {names} and waits, in case a hand or an arm is over them.",
                "If nothing is there, say so: those squares are then asked about, never guessed.",
                tone=Tone.WARNING, name="edge", ui=self.ui,
                buttons=(Button("Nothing there — read the board", UiCommand.nav("nothing"), primary=True),
                         Button("Look again", UiCommand.nav("recheck")))),
                MarkKind.DIFFERS, moment.cells)
        if moment.kind == "error" and moment.error is not None:
            return messages.error(moment.error)
        if moment.kind == "correct":
            start = moment.cells[0] if moment.cells else CENTRE
            return messages.correct(state, start if self.ui.pick is None else self.ui.pick, moment.cells, self.ui)
        if moment.kind == "resuming" and moment.started is not None:
            return screens.beside_board(messages.resuming(moment.started, len(self.game.actions), *moment.notes),
                                        state, recent(self.game))
        if isinstance(outcome, Mismatch):
            rule = IllegalAction("board", outcome.rule, outcome.page) if outcome.rule else None
            return messages.mismatch(state, outcome.cells, rule, self.ui)
        if isinstance(outcome, Unclear):
            if self.ui.pick is not None or len(outcome.cells) <= FEW_SQUARES:
                return messages.mismatch(state, outcome.cells, None, self.ui)
            # Too many to correct one by one: most likely the light or something over the board.
            return self._on_board(messages.message(
                f"The camera cannot read {len(outcome.cells)} squares",
                "Is the light right, and nothing over the board or casting a shadow on it?",
                tone=Tone.WARNING, name="unreadable", ui=self.ui,
                buttons=(Button("Look again", UiCommand.nav("recheck"), primary=True),
                         Button("Correct them one by one", UiCommand.pick(outcome.cells[0])))),
                MarkKind.DIFFERS, outcome.cells)
        if isinstance(outcome, Ambiguous):
            buttons = tuple(Button(" then ".join(str(a) for a in option), UiCommand.choose("explain", i))
                            for i, option in enumerate(outcome.options))
            return self._on_board(messages.message(
                "What happened?", "The board can be read more than one way: say which is right.",
                buttons=buttons, tone=Tone.PROMPT, name="ambiguous", ui=self.ui), MarkKind.DIFFERS, outcome.cells)
        if isinstance(outcome, Takeback):
            undone = ", ".join(str(a) for a in self.game.actions[-outcome.steps:])
            return self._on_board(messages.message(
                "Take it back?", f"The board is back as it was before: {undone}.", tone=Tone.PROMPT,
                name="takeback", ui=self.ui, buttons=(Button("Take it back", UiCommand(Verb.UNDO), primary=True),
                                          Button("No — it is a new move", UiCommand.nav("forward")))),
                MarkKind.DIFFERS, ())
        return messages.message("Please wait")


def _saving_failed(error: OSError) -> Moment:
    if error.errno == errno.ENOSPC:
        return Moment("disk_full", error=error)
    return Moment("error", error=error)
