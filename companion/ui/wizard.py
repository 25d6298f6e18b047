"""Before and without a tracked game: the set-up wizard and the hand-entered tally.

Each has a small frozen draft that the controller keeps; `draft.apply(command)` returns the next draft
(or None when the command is not for it), and a function builds the screen from the draft.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from companion.commands import UiCommand, Verb
from companion.rules import BOARDS, COLOURS, DYNASTIES, Colour, GameConfig, PlayerScore, initial_state, rank_scores

from .board import board_view, marks
from .model import (
    DYNASTY_LETTERS,
    NO_UI,
    TILE_WORDS,
    Button,
    Cell,
    Chip,
    Help,
    MarkKind,
    Screen,
    Stepper,
    Table,
    Tone,
    UiState,
)

STEPS = ("players", "dynasties", "board", "scores", "camera")
BACK = UiCommand.nav("back")


@dataclass(frozen=True, slots=True)
class SetupDraft:
    step: str = "players"
    players: int = 0
    dynasties: tuple[str, ...] = ()  # seat order: seat 1 is the first player, then clockwise
    board: str = "standard"
    open_scores: bool = False

    def apply(self, command: UiCommand) -> SetupDraft | None:
        if command.verb is Verb.NAV and command.value == "back":
            return self._back()
        if command.verb is not Verb.CHOOSE:
            return None
        what, which = command.choice
        if what == "players" and which in ("2", "3", "4"):
            return replace(self, players=int(which), dynasties=(), step="dynasties")
        if what == "dynasty" and which in DYNASTIES and which not in self.dynasties:
            chosen = (*self.dynasties, which)
            return replace(self, dynasties=chosen, step="board" if len(chosen) == self.players else "dynasties")
        if what == "board" and which in BOARDS:
            return replace(self, board=which, step="scores")
        if what == "scores" and which in ("open", "hidden"):
            return replace(self, open_scores=which == "open", step="camera")
        return None

    def _back(self) -> SetupDraft:
        if self.step == "dynasties" and self.dynasties:
            return replace(self, dynasties=self.dynasties[:-1])
        if self.step == "board":
            return replace(self, dynasties=self.dynasties[:-1], step="dynasties")
        return replace(self, step=STEPS[max(0, STEPS.index(self.step) - 1)])

    def config(self) -> GameConfig:
        """The game to start: table mode (hands hidden), players named after their dynasty."""
        return GameConfig(
            players=self.players, board=self.board, hidden_hands=True, open_scores=self.open_scores,
            names=tuple(d.capitalize() for d in self.dynasties), dynasties=self.dynasties,
        )


def setup(draft: SetupDraft, ui: UiState = NO_UI, *, differ: Sequence[int] = ()) -> Screen:
    """One step of the wizard. At the camera step, `differ` are squares that do not show the set-up."""
    number = STEPS.index(draft.step) + 1
    status = f"New game · step {number} of {len(STEPS)}"
    back = BACK if draft.step != "players" else None
    buttons: tuple[Button, ...]
    lines: tuple[str, ...]
    board = None
    if draft.step == "players":
        title, lines = "How many players?", ("Tigris & Euphrates is for 2 to 4 players.",)
        buttons = tuple(Button(f"{n} players", UiCommand.choose("players", n)) for n in (2, 3, 4))
        help_ = Help("Each player takes the four leaders and two catastrophes of one dynasty, and draws 6 tiles.")
    elif draft.step == "dynasties":
        seat = len(draft.dynasties) + 1
        first = " (the first player)" if seat == 1 else ""
        title = f"Seat {seat}{first}: which dynasty?"
        lines = ("Choose the first player at random, then go clockwise round the table.",
                 *(f"Seat {i + 1}: {d}" for i, d in enumerate(draft.dynasties)))
        buttons = tuple(Button(f"{d.capitalize()} ({DYNASTY_LETTERS[d]})", UiCommand.choose("dynasty", d))
                        for d in DYNASTIES if d not in draft.dynasties)
        help_ = Help("The dynasty symbol on the leaders tells whose they are; the screen shows it as a letter.")
    elif draft.step == "board":
        title, lines = "Which side of the board?", ("The standard side has the river in a long bend; the "
                                                    "alternate side is the 2015 edition's back.",)
        buttons = (Button("Standard", UiCommand.choose("board", "standard")),
                   Button("Alternate", UiCommand.choose("board", "alternate")))
        help_ = Help("Both sides have 10 temples with treasures; four of them sit on framed corner squares.")
    elif draft.step == "scores":
        title, lines = "Scores open or hidden?", ("Hidden: each player may peek at their own points.",
                                                  "Open: everybody sees every point.")
        buttons = (Button("Hidden", UiCommand.choose("scores", "hidden")),
                   Button("Open", UiCommand.choose("scores", "open")))
        help_ = Help("In the rulebook, points are kept behind screens: hidden is the usual way.", 14)
    else:
        title = "Camera check: lay out the set-up"
        lines = ("Put a red temple with a treasure on each marked temple square, and nothing else.",
                 ("The camera sees the set-up: all good." if not differ else
                  f"{len(differ)} square{'s do' if len(differ) != 1 else ' does'} not match yet (marked)."))
        buttons = (Button("Start the game", UiCommand.nav("start"), primary=not differ),
                   Button("Check again", UiCommand.nav("recheck"), primary=bool(differ)))
        help_ = Help("The set-up position also teaches the camera the colours of the pieces.")
        board = board_view(initial_state(draft.config()), marks(MarkKind.DIFFERS, differ), kingdoms=False)
    focus = ui.focus % len(buttons) if ui.focus is not None else next(
        (i for i, b in enumerate(buttons) if b.primary), 0)
    return Screen(name=f"setup_{draft.step}", title=title, status=status, lines=lines, buttons=buttons,
                  board=board, help=help_, back=back, focus=focus, tone=Tone.PROMPT)


# --- the hand-entered tally -----------------------------------------------------------------------

FIELDS: tuple[Colour | str, ...] = (*COLOURS, "treasures")


@dataclass(frozen=True, slots=True)
class ManualTally:
    """Points typed in when the game was not tracked: per player four colours and the treasures."""

    names: tuple[str, ...]
    values: tuple[tuple[int, ...], ...]  # per player: red, blue, green, black, treasures
    field: int = 0  # player * 5 + column

    @classmethod
    def new(cls, names: Sequence[str]) -> ManualTally:
        return cls(tuple(names), tuple((0,) * len(FIELDS) for _ in names))

    def apply(self, command: UiCommand) -> ManualTally | None:
        last = len(self.names) * len(FIELDS) - 1
        if command.verb is Verb.NAV and command.value in ("next", "previous"):
            step = 1 if command.value == "next" else -1
            return replace(self, field=max(0, min(last, self.field + step)))
        if command.verb is Verb.CHOOSE and command.choice[0] == "points":
            seat, column = divmod(self.field, len(FIELDS))
            row = list(self.values[seat])
            row[column] = max(0, int(command.choice[1]))
            values = list(self.values)
            values[seat] = tuple(row)
            return replace(self, values=tuple(values))
        return None

    def scores(self) -> list[PlayerScore]:
        """Ranked by the engine's own final scoring."""
        return rank_scores(list(self.names), [v[:4] for v in self.values], [v[4] for v in self.values])


def manual_tally(draft: ManualTally, ui: UiState = NO_UI) -> Screen:
    seat, column = divmod(draft.field, len(FIELDS))
    what = FIELDS[column]
    label = f"{what.value} {TILE_WORDS[what.value]} points" if isinstance(what, Colour) else str(what)
    colour = what.value if isinstance(what, Colour) else None
    rows: tuple[tuple[Cell, ...], ...] = tuple(
        (n, *(str(v) for v in values)) for n, values in zip(draft.names, draft.values, strict=True)
    )
    header: tuple[Cell, ...] = ("", *(Chip(c.value, TILE_WORDS[c.value]) for c in COLOURS), "treasures")
    # With the up/down buttons busy with the number, OK must lead everywhere: to the result at the end.
    last = draft.field == len(draft.names) * len(FIELDS) - 1
    result = Button("Show the result", UiCommand.nav("tally"), primary=last)
    previous = Button("Previous", UiCommand.nav("previous"))
    buttons = (result, previous) if last else (Button("Next", UiCommand.nav("next"), primary=True), previous, result)
    focus = ui.focus % len(buttons) if ui.focus is not None else 0
    return Screen(
        name="manual_tally", title=f"{draft.names[seat]}: {label}", status="Tally by hand",
        lines=("Enter each player's points per colour and treasures; the companion ranks them.",),
        table=Table(header, rows, selected=(seat, column + 1)),
        stepper=Stepper(f"{draft.names[seat]}: {label}", draft.values[seat][column], 0, 99, colour, what="points"),
        buttons=buttons, focus=focus, back=UiCommand.nav("previous"),
        help=Help("Treasures are wild: the companion adds them to each player's weakest colours.", 14),
        tone=Tone.PROMPT,
    )
