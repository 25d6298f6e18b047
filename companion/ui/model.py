"""The view-model: plain frozen values that say what a screen shows. No pygame, no game logic.

Screens (`companion.ui.screens`) build a `Screen` from the game; the renderer draws it; tests read it.
Colours are the rules' words ("red", "blue", "green", "black") and always travel with a symbol and a
word when drawn (see `SYMBOLS`), so colour-blind players read every prompt.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace

from companion.commands import UNDO, Key, UiCommand, Verb

TILE_WORDS = {"red": "temple", "blue": "farm", "green": "market", "black": "settlement"}
LEADER_WORDS = {"red": "priest", "blue": "farmer", "green": "trader", "black": "king"}
# The shape drawn next to each colour: temple ▲, farm ≈, market ●, settlement ■.
SYMBOLS = {"red": "triangle", "blue": "waves", "green": "disc", "black": "square"}
DYNASTY_LETTERS = {"archer": "A", "bull": "B", "pot": "P", "lion": "L"}


class Tone(enum.Enum):
    INFO = "info"
    PROMPT = "prompt"  # a decision is waiting
    WARNING = "warning"
    ERROR = "error"


@dataclass(frozen=True, slots=True)
class Help:
    """The rule behind a prompt, and where to read it."""

    text: str
    page: int | None = None

    def __str__(self) -> str:
        return f"{self.text} — rulebook p. {self.page}" if self.page is not None else self.text


@dataclass(frozen=True, slots=True)
class Chip:
    """A colour shown as its symbol plus a word or number: ▲ 3, ≈ farm."""

    colour: str
    text: str
    extra: str = ""  # drawn after the text in the treasure's gold: the treasures added in the tally
    highlight: bool = False  # framed: the weakest colour in the tally


Cell = str | Chip


@dataclass(frozen=True, slots=True)
class Button:
    label: str
    command: UiCommand
    colour: str | None = None  # draws the colour's symbol before the label
    primary: bool = False
    hold: UiCommand | None = None  # a long press sends this (and PEEK None when released)


@dataclass(frozen=True, slots=True)
class Stepper:
    """A number entered with large − and + (the up and down buttons do the same)."""

    label: str
    value: int
    minimum: int
    maximum: int
    colour: str | None = None
    what: str | None = None  # the value belongs to a draft (a `choose what=N` command), not to UiState

    def step(self, delta: int) -> UiCommand:
        value = max(self.minimum, min(self.maximum, self.value + delta))
        return UiCommand.entry(value) if self.what is None else UiCommand.choose(self.what, value)


@dataclass(frozen=True, slots=True)
class Table:
    header: tuple[Cell, ...]
    rows: tuple[tuple[Cell, ...], ...]
    selected: tuple[int, int] | None = None  # (row, column) being edited


class MarkKind(enum.Enum):
    ATTACKER = "attacker's supporter"
    DEFENDER = "defender's supporter"
    DIFFERS = "differs from the camera"
    REMOVE = "must leave the board"
    OPTION = "can be chosen"
    LAST = "the last move"


@dataclass(frozen=True, slots=True)
class Mark:
    cell: int
    kind: MarkKind


@dataclass(frozen=True, slots=True)
class Square:
    """What one board square shows (empty land when everything is default)."""

    river: bool = False
    tile: str | None = None  # colour of a civilization tile
    face_down: bool = False  # part of a monument
    treasure: bool = False
    corner: bool = False  # a framed corner square: its treasure is taken first
    leader: tuple[str, str] | None = None  # (colour, dynasty)
    catastrophe: bool = False
    monument: tuple[str, str] | None = None  # drawn on the top-left square of its 2×2
    unification: bool = False


@dataclass(frozen=True, slots=True)
class BoardView:
    squares: tuple[Square, ...]  # 176, row-major like the engine
    kingdoms: tuple[frozenset[int], ...] = ()
    marks: tuple[Mark, ...] = ()
    tappable: bool = False
    zoom: int | None = None  # a square to show close up, with its neighbours, big enough for a finger

    def marked(self, kind: MarkKind) -> tuple[int, ...]:
        return tuple(m.cell for m in self.marks if m.kind is kind)


@dataclass(frozen=True, slots=True)
class Seat:
    """One player in the strip: what stands in front of them, and their leaders on the board."""

    name: str
    dynasty: str
    leaders: tuple[tuple[str, bool], ...]  # (colour, on the board) for each of the four
    catastrophes: int  # still to play
    treasures: int | None  # taken; None while scores are hidden (they sit behind the screen)
    current: bool = False


@dataclass(frozen=True, slots=True)
class Supply:
    """What is left in the game for everyone to see."""

    bag: int
    treasures: int  # still on the board: the game ends when only two remain
    monuments: tuple[tuple[str, str], ...]  # the colours of each monument still to be built
    unseen: tuple[tuple[str, int], ...]  # per colour, tiles not yet seen: in the bag or in hands


@dataclass(frozen=True, slots=True)
class Strip:
    seats: tuple[Seat, ...]
    supply: Supply


@dataclass(frozen=True, slots=True)
class UiState:
    """The little a screen remembers between frames: the number being entered, the highlighted
    button, the seat peeking at its scores. The controller stores it and resets it (UiState())
    whenever the screen changes."""

    entry: int | None = None
    focus: int | None = None
    peek: int | None = None
    pick: int | None = None

    def apply(self, command: UiCommand) -> UiState | None:
        """The new UiState if `command` only concerns the screen itself, else None."""
        if command.verb is Verb.ENTRY and isinstance(command.value, int):
            return replace(self, entry=command.value)
        if command.verb is Verb.FOCUS and isinstance(command.value, int):
            return replace(self, focus=command.value)
        if command.verb is Verb.PICK and isinstance(command.value, int):
            return replace(self, pick=command.value if command.value >= 0 else None, focus=None)
        if command.verb is Verb.PEEK:
            return replace(self, peek=command.value if isinstance(command.value, int) else None)
        return None


NO_UI = UiState()


@dataclass(frozen=True, slots=True)
class Code:
    """A QR code to scan, under its label: a phone's link to a page (companion.phone). An empty
    `text` says the link is not there yet (no network)."""

    label: str
    text: str


@dataclass(frozen=True, slots=True)
class Screen:
    name: str  # stable id: "turn", "support", "tally" … (screenshots and tests use it)
    title: str
    status: str = ""  # the header: whose turn, actions left, bag
    lines: tuple[str, ...] = ()
    table: Table | None = None
    stepper: Stepper | None = None
    buttons: tuple[Button, ...] = ()
    board: BoardView | None = None
    help: Help | None = None
    tone: Tone = Tone.INFO
    focus: int = 0  # index into buttons, moved by the up/down buttons when there is no stepper
    back: UiCommand | None = None  # what a short press of back means here
    taps: tuple[tuple[int, UiCommand], ...] = ()  # board squares with a meaning of their own here
    strip: Strip | None = None  # the players and the supply, beside the board
    log: tuple[str, ...] = ()  # the recent moves, oldest first: the last one is the last move
    detail: tuple[str, ...] = ()  # what a tap on the board asked about: a kingdom's or a leader's strength
    codes: tuple[Code, ...] = ()  # QR codes side by side: the phones' links

    def resolve(self, command: UiCommand) -> UiCommand | None:
        """A raw button press → what it means on this screen; every other command passes through."""
        if command.verb is Verb.RELEASE:
            held = self.buttons[self.focus % len(self.buttons)].hold if self.buttons else None
            return UiCommand.peek(None) if held is not None and held.verb is Verb.PEEK else None
        if command.verb is Verb.TAP:
            return next((meant for cell, meant in self.taps if cell == command.value), command)
        if command.verb is not Verb.KEY:
            return command
        key = command.value
        if key in (Key.UP, Key.DOWN):
            delta = 1 if key is Key.UP else -1
            if self.stepper is not None:
                return self.stepper.step(delta)
            if self.buttons:
                return UiCommand.focus((self.focus - delta) % len(self.buttons))  # up = the one above
            return None
        if key is Key.OK:
            if not self.buttons:
                return None
            button = self.buttons[self.focus % len(self.buttons)]
            return button.hold if command.long and button.hold is not None else button.command
        if key is Key.BACK:
            return UNDO if command.long else self.back
        return UiCommand(Verb.MENU)
