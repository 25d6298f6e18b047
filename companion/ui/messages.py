"""When the board and the game disagree, and when something outside the game needs the players."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from companion.commands import UNDO, UiCommand
from companion.rules import Action, Event, EventKind, Game, GameConfig, GameState, IllegalAction, cell_name
from vision.reading import CellClass

from .advice import Trouble
from .board import board_view, marks, snap_taps
from .deeds import deed
from .model import LEADER_WORDS, NO_UI, TILE_WORDS, Button, Help, MarkKind, Screen, Tone, UiState
from .screens import POINTS, seat_name, status

OK = UiCommand.nav("close")
BACK_TO_GAME = UiCommand.nav("back-to-game")
TAKE_IT_BACK = UiCommand.nav("undo")  # confirmed: the takeback shown is done


# --- taking back ----------------------------------------------------------------------------------


class Final(enum.Enum):
    """Why an action can no longer be taken back. As on Board Game Arena, a takeback never goes back past
    hidden information shown, a swap's draw from the bag, or another player's decision. The end of a turn
    is no bar: the tiles drawn to refill the hands go back in the bag while the next player has not acted."""

    SUPPORT = "tiles committed from hand were shown"
    SWAP = "tiles were drawn from the bag"
    OTHER_PLAYER = "another player decided"


@dataclass(frozen=True, slots=True)
class TakeBack:
    """What a takeback undoes, latest first: each action with the state it was taken in. `final` is why
    the last of them cannot be taken back (None: all can)."""

    deeds: tuple[tuple[GameState, Action], ...]
    final: Final | None = None

    @property
    def words(self) -> str:
        return ", then ".join(deed(state, action) for state, action in self.deeds)

    def why(self) -> str:
        """Why the takeback is refused, in words."""
        state, _ = self.deeds[-1]
        who = state.players[state.pending.player].name
        if self.final is Final.SUPPORT:
            return "Tiles committed to a revolt or war were shown to the other side: play never goes back past them."
        if self.final is Final.SWAP:
            return "The new tiles were drawn from the bag and seen: play never goes back past a draw."
        return (f"That was {who}'s decision, in {state.players[state.current].name}'s turn: a takeback never makes "
                "another player decide again.")


def take_back(state: GameState, plan: TakeBack, ui: UiState = NO_UI) -> Screen:
    """"Take back" asks first, saying what will be undone, or says why it cannot be."""
    if plan.final is not None:
        return message(f"{plan.words[0].upper()}{plan.words[1:]} cannot be taken back", plan.why(),
                       tone=Tone.WARNING, name="take_back_refused", ui=ui)
    return _on_board(state, message(
        f"Take back {plan.words}?",
        "The game goes back to before it; then put the board back as it was: the camera checks it.",
        tone=Tone.PROMPT, name="take_back", ui=ui,
        buttons=(Button("Take it back", TAKE_IT_BACK, primary=True), Button("Keep it", OK))),
        MarkKind.DIFFERS, ())


def taken_back(screen: Screen, undone: TakeBack | None) -> Screen:
    """After a takeback, the next screen says what was undone."""
    if undone is None:
        return screen
    return replace(screen, lines=(f"Taken back: {undone.words}.", *screen.lines))


def mismatch(state: GameState, differ: Sequence[int], error: IllegalAction | None = None,
             ui: UiState = NO_UI) -> Screen:
    """The board shows something the game cannot explain: show where, say which rule, offer the ways out."""
    if ui.pick is not None:
        return correct(state, ui.pick, differ, ui)
    where = ", ".join(cell_name(c) for c in sorted(differ))
    lines = [f"{len(differ)} square{'s' if len(differ) != 1 else ''} differ from the game: {where}."]
    if error is not None:
        lines.append(f"Not allowed: {error.message}.".replace("..", "."))
    lines.append("Put the board right, or tap a square the camera misread.")
    buttons = (
        Button("I put it right", UiCommand.nav("recheck"), primary=True),
        Button("Correct a misread", UiCommand.pick(sorted(differ)[0]) if differ else UiCommand.nav("recheck")),
        Button("Take back last action", UNDO),
    )
    help_ = (Help(error.message, error.page) if error is not None else
             Help("The companion never guesses: the board and the game must agree before play goes on."))
    return Screen(
        name="mismatch", title="The board does not match the game", status=_turn(state), lines=tuple(lines),
        buttons=buttons, focus=ui.focus % len(buttons) if ui.focus is not None else 0,
        board=board_view(state, marks(MarkKind.DIFFERS, differ), tappable=True),
        taps=snap_taps(differ, UiCommand.pick, everywhere=True), help=help_, tone=Tone.ERROR,
    )


# Where each piece the camera can name may stand: farms on the river; monuments, catastrophes and the
# unification tile anywhere; everything else on land. A face-down tile is offered as part of its
# monument: the tracker takes either for the other.
_RIVER = frozenset({CellClass.EMPTY_RIVER, CellClass.TILE_BLUE})
_NOT_OFFERED = frozenset({CellClass.UNKNOWN, CellClass.FACE_DOWN})
_ANYWHERE = frozenset({CellClass.MONUMENT, CellClass.CATASTROPHE, CellClass.UNIFICATION})
_LABELS = {CellClass.TREASURE: "Treasure", CellClass.MONUMENT: "Monument",
           CellClass.UNIFICATION: "Unification tile"}


def pieces_for(state: GameState, cell: int) -> tuple[str, ...]:
    """What a square can show, in the vision's words (`vision.reading.CellClass` values)."""
    river = state.square(cell).river
    return tuple(cls.value for cls in CellClass
                 if cls not in _NOT_OFFERED and (cls in _ANYWHERE or (cls in _RIVER) == river))


def correct(state: GameState, cell: int, differ: Sequence[int] = (), ui: UiState = NO_UI) -> Screen:
    """Correct a misread: the players say what really stands on a square."""
    buttons = []
    for piece in pieces_for(state, cell):
        cls = CellClass(piece)
        if cls.colour is not None:
            label = (LEADER_WORDS if cls.is_leader else TILE_WORDS)[cls.colour]
        else:
            label = _LABELS.get(cls, piece)
        colour = "red" if cls is CellClass.TREASURE else cls.colour  # a treasure stands on a temple
        buttons.append(Button(label[0].upper() + label[1:], UiCommand.choose("correct", f"{cell_name(cell)} {piece}"),
                              colour=colour))
    others = sorted(set(differ) - {cell})
    if others:  # without a touch, the buttons still reach every marked square
        following = next((c for c in others if c > cell), others[0])
        buttons.append(Button(f"Next marked: {cell_name(following)}", UiCommand.pick(following)))
    return Screen(
        name="correct", title=f"What stands on {cell_name(cell)}?", status=_turn(state),
        lines=("Tap another square to change it.",),
        buttons=tuple(buttons), focus=ui.focus % len(buttons) if ui.focus is not None else 0,
        board=replace(board_view(state, (*marks(MarkKind.DIFFERS, differ), *marks(MarkKind.OPTION, (cell,))),
                                 tappable=True), zoom=cell),  # close up: every square a finger wide
        taps=snap_taps(differ, UiCommand.pick, everywhere=True), back=UiCommand.pick(-1),
        help=Help("Tiles are temple (red), farm (blue, on the river only), market (green), settlement (black). "
                  "Monument also stands for a face-down tile."),
        tone=Tone.PROMPT,
    )


def message(title: str, *lines: str, tone: Tone = Tone.INFO, buttons: Sequence[Button] = (),
            help_: Help | None = None, name: str = "message", ui: UiState = NO_UI) -> Screen:
    """A few lines and buttons; `ui.focus` is the button the up/down keys moved to."""
    buttons = tuple(buttons) or (Button("OK", OK, primary=True),)
    focus = ui.focus % len(buttons) if ui.focus is not None else 0
    return Screen(name=name, title=title, lines=lines, buttons=buttons, focus=focus, tone=tone, help=help_,
                  back=OK)


def _on_board(state: GameState, screen: Screen, kind: MarkKind, cells: Sequence[int], *,
              tappable: bool = False) -> Screen:
    """A message with the board picture beside it and the squares concerned marked."""
    return replace(screen, status=status(state), board=board_view(state, marks(kind, cells), tappable=tappable))


def owed(state: GameState, chores: Sequence[tuple[int, str]], ui: UiState = NO_UI,
         camera: Trouble | None = None) -> Screen:
    """Pieces the rules sent off (or turned) are still on the table: `chores` are (square, what to do).
    `camera`: why the camera reads nothing meanwhile."""
    return _on_board(state, message(
        "Put the board right", *(f"Please {chore}." for _, chore in chores),
        *(camera.lines if camera is not None else ("The camera checks it: play goes on when it is done.",)),
        tone=Tone.WARNING, name="owed", ui=ui,
        buttons=(Button("Done — look again", UiCommand.nav("recheck"), primary=True),)),
        MarkKind.REMOVE, [cell for cell, _ in chores])


def edge(state: GameState, cells: Sequence[int], ui: UiState = NO_UI) -> Screen:
    """Squares at the edge the camera keeps taking for an arm reaching in: is anything there?"""
    names = ", ".join(cell_name(c) for c in cells)
    return _on_board(state, message(
        "Anything over the edge of the board?",
        f"The camera cannot read {names} and waits, in case a hand or an arm is over them.",
        "If nothing is there, say so: those squares are then asked about, never guessed.",
        tone=Tone.WARNING, name="edge", ui=ui,
        buttons=(Button("Nothing there — read the board", UiCommand.nav("nothing"), primary=True),
                 Button("Look again", UiCommand.nav("recheck")))),
        MarkKind.DIFFERS, cells)


def unreadable(state: GameState, cells: Sequence[int], ui: UiState = NO_UI) -> Screen:
    """Too many squares to correct one by one: most likely the light, or something over the board."""
    return _on_board(state, message(
        f"The camera cannot read {len(cells)} squares",
        "Is the light right, and nothing over the board or casting a shadow on it?",
        tone=Tone.WARNING, name="unreadable", ui=ui,
        buttons=(Button("Look again", UiCommand.nav("recheck"), primary=True),
                 Button("Correct them one by one", UiCommand.pick(cells[0])))),
        MarkKind.DIFFERS, cells)


@dataclass(frozen=True, slots=True)
class Foreseen:
    """One way to read the board: its actions, each with the state it is taken in, and what follows."""

    deeds: tuple[tuple[GameState, Action], ...]
    events: tuple[Event, ...]

    @classmethod
    def trying(cls, config: GameConfig, state: GameState, actions: Sequence[Action]) -> Foreseen:
        """What `actions` would lead to from `state`, tried on a copy of the game."""
        game = Game.from_state(config, state)
        deeds: list[tuple[GameState, Action]] = []
        events: list[Event] = []
        for action in actions:
            deeds.append((game.state, action))
            events += game.apply(action)
        return cls(tuple(deeds), tuple(events))

    @property
    def words(self) -> str:
        text = ", then ".join(deed(state, action, whose=False) for state, action in self.deeds)
        return text[0].upper() + text[1:]

    @property
    def outcome(self) -> str:
        """What it leads to: the points, then a revolt or a war, a monument to build, leaders sent home, the
        turn passing."""
        players = self.deeds[0][0].players
        points: dict[tuple[int, str], int] = {}
        for e in self.events:
            if e.kind in POINTS and e.player is not None and e.colour is not None:
                points[e.player, e.colour.value] = points.get((e.player, e.colour.value), 0) + e.amount
        said = [f"{players[seat].name} scores {n} {colour} point{'s' if n != 1 else ''}"
                for (seat, colour), n in points.items()]
        said += [e.text for e in self.events if e.kind in _FORESEEN]
        return "; ".join(said) if said else "no points"


# Besides the points, what is worth telling apart when the board can be read more than one way.
_FORESEEN = frozenset({EventKind.KINGDOMS_UNITED, EventKind.REVOLT_STARTED, EventKind.WAR_STARTED,
                       EventKind.LEADER_EXILED, EventKind.MONUMENT_POSSIBLE, EventKind.TREASURE_TAKEN,
                       EventKind.TURN_ENDED})


def ambiguous(state: GameState, options: Sequence[Foreseen], cells: Sequence[int], ui: UiState = NO_UI) -> Screen:
    """The board can be read more than one way: each way in words with what it leads to; the players say
    which happened, or tap the square the camera misread when none did."""
    if ui.pick is not None:
        return correct(state, ui.pick, cells, ui)
    # The way out when none happened is told in the first line: no room for a button beside two long
    # ways, nor for a line of its own above the order hint at 800×480.
    lines = ["More than one move fits the board: which? If none, tap the misread square.",
             *(f"{option.words}: {option.outcome}." for option in options)]
    if all(len(option.deeds) > 1 for option in options):
        # Both moves were made before the camera got a look: the players can spare themselves this.
        lines.append("Lift your hand between your two actions and the camera sees which came first.")
    buttons = tuple(Button(option.words, UiCommand.choose("explain", i)) for i, option in enumerate(options))
    screen = _on_board(state, message("What happened?", *lines, buttons=buttons, tone=Tone.PROMPT,
                                      name="ambiguous", ui=ui), MarkKind.DIFFERS, cells, tappable=True)
    return replace(screen, taps=snap_taps(cells, UiCommand.pick, everywhere=True))


def takeback(state: GameState, plan: TakeBack, ui: UiState = NO_UI) -> Screen:
    """The board is back as it was before the actions `plan` would undo: take them back (when that is
    still allowed), or is it a new move?"""
    forward = Button("No — it is a new move", UiCommand.nav("forward"))
    if plan.final is not None:
        return _on_board(state, message(
            "The board went back", f"The board is back as it was before {plan.words}, but that cannot be taken "
            f"back. {plan.why()}", "Put the board as the game has it again, or say it is a new move.",
            tone=Tone.WARNING, name="takeback", ui=ui,
            buttons=(Button("I put it back", UiCommand.nav("recheck"), primary=True), forward)),
            MarkKind.DIFFERS, ())
    return _on_board(state, message(
        "Take it back?", f"The board is back as it was before {plan.words}.", tone=Tone.PROMPT,
        name="takeback", ui=ui, buttons=(Button("Take it back", TAKE_IT_BACK, primary=True), forward)),
        MarkKind.DIFFERS, ())


def way_back(screen: Screen) -> Screen:
    """A set-up screen of a new game, with the way back to the game the players left (or its tally)."""
    return replace(screen, buttons=(*screen.buttons, Button("Back to the game", BACK_TO_GAME)))


def camera_note(screen: Screen, looking: str) -> Screen:
    """While the camera waits for a clear view, the players see why."""
    if not looking:
        return screen
    said = looking if looking.endswith((".", "?", "!")) else f"{looking}."
    return replace(screen, lines=(*screen.lines, f"Camera: {said}"))


def resuming(started: datetime, actions: int, *notes: str) -> Screen:
    """`notes`: what of the game record could not be read, for the players to put right on the board."""
    return message(f"Resuming the game started {started:%H:%M} — {actions} action{'s' if actions != 1 else ''}",
                   *notes, "The camera now checks that the board still matches.", name="resuming",
                   buttons=(Button("Continue", OK, primary=True),), tone=Tone.WARNING if notes else Tone.INFO)


def disk_full() -> Screen:
    return message("The memory card is full", "The game cannot be saved, so play is paused.",
                   "Free some space (old game records can go), then press Try again.", tone=Tone.ERROR,
                   buttons=(Button("Try again", UiCommand.nav("retry"), primary=True),), name="disk_full")


def camera_lost() -> Screen:
    return message("Camera lost — check the cable", "The game is kept: nothing is lost.",
                   "Check the camera's ribbon cable, then press Try again.", tone=Tone.ERROR,
                   buttons=(Button("Try again", UiCommand.nav("retry"), primary=True),), name="camera_lost")


def error(problem: Exception) -> Screen:
    """An error in plain words; a broken rule comes with its page."""
    if isinstance(problem, IllegalAction):
        return message("That is not allowed", problem.message, tone=Tone.WARNING, name="illegal",
                       help_=Help(problem.message, problem.page))
    return message("Something went wrong", str(problem) or type(problem).__name__,
                   "The game is kept: nothing is lost.", tone=Tone.ERROR, name="error")


def _turn(state: GameState) -> str:
    return f"{seat_name(state, state.current)} · bag {state.bag_count}"
