"""What a player asked for: one `UiCommand`, whether it came from a touch, a GPIO button or a key.

The input vocabulary (keys, verbs, commands) that the screens (`companion.ui`) and the buttons
(`companion.hardware`) both speak. It imports nothing of ours, so neither depends on the other.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Key(enum.Enum):
    """The five physical buttons (and their keyboard stand-ins)."""

    UP = "up"  # also "+"
    DOWN = "down"  # also "−"
    OK = "ok"
    BACK = "back"  # a long press means "take back the last action"
    MENU = "menu"


class Verb(enum.Enum):
    KEY = "key"  # a raw button: value is a Key; `long` for a long press
    RELEASE = "release"  # a long-pressed button (value: its Key) was let go
    ACTION = "action"  # an engine action in its text form: "support 3", "swap 2", "pass", "war red"
    TAP = "tap"  # a board square was tapped: value is the cell index
    ENTRY = "entry"  # the number being entered changes to value (the controller stores it)
    FOCUS = "focus"  # the highlighted button changes to index value (the controller stores it)
    PICK = "pick"  # value is a board square picked as the first step of a choice; -1 un-picks
    PEEK = "peek"  # value is a seat peeking at its hidden scores; None when the finger lifts
    CHOOSE = "choose"  # a screen-specific choice, value "what=which": "players=3", "board=alternate"
    UNDO = "undo"  # take back the last action
    MENU = "menu"  # open the menu
    NAV = "nav"  # move between screens: value "next", "back", "scores", "help", "close" …


@dataclass(frozen=True, slots=True)
class UiCommand:
    verb: Verb
    value: str | int | Key | None = None
    long: bool = False

    def __str__(self) -> str:
        value = self.value.value if isinstance(self.value, Key) else self.value
        text = self.verb.value if value is None else f"{self.verb.value} {value}"
        return f"{text} (long)" if self.long else text

    @classmethod
    def key(cls, key: Key, *, long: bool = False) -> UiCommand:
        return cls(Verb.KEY, key, long)

    @classmethod
    def action(cls, text: str) -> UiCommand:
        return cls(Verb.ACTION, text)

    @classmethod
    def tap(cls, cell: int) -> UiCommand:
        return cls(Verb.TAP, cell)

    @classmethod
    def entry(cls, value: int) -> UiCommand:
        return cls(Verb.ENTRY, value)

    @classmethod
    def focus(cls, index: int) -> UiCommand:
        return cls(Verb.FOCUS, index)

    @classmethod
    def pick(cls, cell: int) -> UiCommand:
        return cls(Verb.PICK, cell)

    @classmethod
    def peek(cls, seat: int | None) -> UiCommand:
        return cls(Verb.PEEK, seat)

    @classmethod
    def choose(cls, what: str, which: str | int) -> UiCommand:
        return cls(Verb.CHOOSE, f"{what}={which}")

    @classmethod
    def nav(cls, where: str) -> UiCommand:
        return cls(Verb.NAV, where)

    @property
    def choice(self) -> tuple[str, str]:
        """("players", "3") for `choose players=3`."""
        if self.verb is not Verb.CHOOSE or not isinstance(self.value, str):
            raise ValueError(f"{self} is not a choice")
        what, _, which = self.value.partition("=")
        return what, which


UNDO = UiCommand(Verb.UNDO)
MENU = UiCommand(Verb.MENU)
