"""Actions: small frozen values whose text form round-trips (`Action.parse(str(a)) == a`).

The player who acts is never part of an action: it is always `game.pending.player`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .board import cell_name, parse_cell
from .pieces import COLOURS, Colour, Monument


class Action:
    """Base of every action. `Action.parse("tile red F7")` gives a `PlaceTile`."""

    __slots__ = ()
    word: ClassVar[str]

    @staticmethod
    def parse(text: str) -> Action:
        words = text.strip().lower().split()
        if not words:
            raise ValueError("an empty action")
        kind = _BY_WORD.get(words[0])
        if kind is None:
            raise ValueError(f"unknown action {words[0]!r}: one of {', '.join(sorted(_BY_WORD))}")
        try:
            return kind.from_words(words[1:])
        except (ValueError, IndexError) as error:
            raise ValueError(f"cannot read action {text!r}: {error}") from None

    @classmethod
    def from_words(cls, words: list[str]) -> Action:
        raise NotImplementedError


def _no_more(words: list[str]) -> None:
    if words:
        raise ValueError(f"unexpected {' '.join(words)!r}")


@dataclass(frozen=True, slots=True)
class PlaceTile(Action):
    colour: Colour
    cell: int
    word: ClassVar[str] = "tile"

    def __str__(self) -> str:
        return f"tile {self.colour.value} {cell_name(self.cell)}"

    @classmethod
    def from_words(cls, words: list[str]) -> Action:
        _no_more(words[2:])
        return cls(Colour.parse(words[0]), parse_cell(words[1]))


@dataclass(frozen=True, slots=True)
class PlaceLeader(Action):
    """Place a leader from the supply, or move one that stands on the board."""

    colour: Colour
    cell: int
    word: ClassVar[str] = "leader"

    def __str__(self) -> str:
        return f"leader {self.colour.value} {cell_name(self.cell)}"

    @classmethod
    def from_words(cls, words: list[str]) -> Action:
        _no_more(words[2:])
        return cls(Colour.parse(words[0]), parse_cell(words[1]))


@dataclass(frozen=True, slots=True)
class Withdraw(Action):
    colour: Colour
    word: ClassVar[str] = "withdraw"

    def __str__(self) -> str:
        return f"withdraw {self.colour.value}"

    @classmethod
    def from_words(cls, words: list[str]) -> Action:
        _no_more(words[1:])
        return cls(Colour.parse(words[0]))


@dataclass(frozen=True, slots=True)
class PlaceCatastrophe(Action):
    cell: int
    word: ClassVar[str] = "catastrophe"

    def __str__(self) -> str:
        return f"catastrophe {cell_name(self.cell)}"

    @classmethod
    def from_words(cls, words: list[str]) -> Action:
        _no_more(words[1:])
        return cls(parse_cell(words[0]))


@dataclass(frozen=True, slots=True)
class Swap(Action):
    """Discard tiles and draw as many. `tiles` is empty in table mode, where only the count is known."""

    count: int
    tiles: tuple[Colour, ...] = ()
    word: ClassVar[str] = "swap"

    def __post_init__(self) -> None:
        if self.tiles:
            ordered = tuple(sorted(self.tiles, key=COLOURS.index))
            object.__setattr__(self, "tiles", ordered)
            if self.count != len(ordered):
                raise ValueError("the count of a swap must match its tiles")

    @classmethod
    def of(cls, tiles: tuple[Colour, ...]) -> Swap:
        return cls(len(tiles), tiles)

    def __str__(self) -> str:
        if self.tiles:
            return "swap " + " ".join(colour.value for colour in self.tiles)
        return f"swap {self.count}"

    @classmethod
    def from_words(cls, words: list[str]) -> Action:
        if len(words) == 1 and words[0].isdigit():
            return cls(int(words[0]))
        if not words:
            raise ValueError("say which tiles, or how many")
        return cls.of(tuple(Colour.parse(word) for word in words))


@dataclass(frozen=True, slots=True)
class Pass(Action):
    word: ClassVar[str] = "pass"

    def __str__(self) -> str:
        return "pass"

    @classmethod
    def from_words(cls, words: list[str]) -> Action:
        _no_more(words)
        return cls()


@dataclass(frozen=True, slots=True)
class Support(Action):
    """Commit tiles from hand to a revolt or war (the colour is the conflict's)."""

    count: int
    word: ClassVar[str] = "support"

    def __str__(self) -> str:
        return f"support {self.count}"

    @classmethod
    def from_words(cls, words: list[str]) -> Action:
        _no_more(words[1:])
        if not words[0].isdigit():
            raise ValueError("support takes a number of tiles")
        return cls(int(words[0]))


@dataclass(frozen=True, slots=True)
class ChooseWar(Action):
    colour: Colour
    word: ClassVar[str] = "war"

    def __str__(self) -> str:
        return f"war {self.colour.value}"

    @classmethod
    def from_words(cls, words: list[str]) -> Action:
        _no_more(words[1:])
        return cls(Colour.parse(words[0]))


@dataclass(frozen=True, slots=True)
class BuildMonument(Action):
    """Build `monument` on the 2×2 square whose top-left square is `cell`."""

    monument: Monument
    cell: int
    word: ClassVar[str] = "monument"

    def __str__(self) -> str:
        return f"monument {self.monument.value} {cell_name(self.cell)}"

    @classmethod
    def from_words(cls, words: list[str]) -> Action:
        _no_more(words[2:])
        return cls(Monument.parse(words[0]), parse_cell(words[1]))


@dataclass(frozen=True, slots=True)
class DeclineMonument(Action):
    word: ClassVar[str] = "no-monument"

    def __str__(self) -> str:
        return "no-monument"

    @classmethod
    def from_words(cls, words: list[str]) -> Action:
        _no_more(words)
        return cls()


@dataclass(frozen=True, slots=True)
class TakeTreasure(Action):
    cell: int
    word: ClassVar[str] = "treasure"

    def __str__(self) -> str:
        return f"treasure {cell_name(self.cell)}"

    @classmethod
    def from_words(cls, words: list[str]) -> Action:
        _no_more(words[1:])
        return cls(parse_cell(words[0]))


_BY_WORD: dict[str, type[Action]] = {
    kind.word: kind
    for kind in (PlaceTile, PlaceLeader, Withdraw, PlaceCatastrophe, Swap, Pass, Support, ChooseWar,
                 BuildMonument, DeclineMonument, TakeTreasure)
}
