"""Colours, monuments, tile counts: the game's components."""

from __future__ import annotations

import enum


class Colour(enum.Enum):
    """A civilization colour; also the colour of the leader it belongs to."""

    RED = "red"
    BLUE = "blue"
    GREEN = "green"
    BLACK = "black"

    @property
    def index(self) -> int:
        return _INDEX[self]

    @property
    def tile_name(self) -> str:
        return TILE_NAMES[self]

    @property
    def leader_name(self) -> str:
        return LEADER_NAMES[self]

    @classmethod
    def parse(cls, text: str) -> Colour:
        try:
            return cls(text.strip().lower())
        except ValueError:
            raise ValueError(f"{text!r} is not a colour: red, blue, green or black") from None


COLOURS: tuple[Colour, ...] = tuple(Colour)
RED, BLUE, GREEN, BLACK = COLOURS
_INDEX = {colour: i for i, colour in enumerate(COLOURS)}
TILE_NAMES = {RED: "temple", BLUE: "farm", GREEN: "market", BLACK: "settlement"}
LEADER_NAMES = {RED: "priest", BLUE: "farmer", GREEN: "trader", BLACK: "king"}

# 153 civilization tiles in all (rulebook p. 2).
TILES_IN_GAME: tuple[int, ...] = (57, 36, 30, 30)
HAND_SIZE = 6
CATASTROPHES_PER_PLAYER = 2
DYNASTIES = ("archer", "bull", "pot", "lion")


class Monument(enum.Enum):
    """The six monuments, one for each pair of colours."""

    RED_BLUE = "red/blue"
    RED_GREEN = "red/green"
    RED_BLACK = "red/black"
    BLUE_GREEN = "blue/green"
    BLUE_BLACK = "blue/black"
    GREEN_BLACK = "green/black"

    @property
    def colours(self) -> tuple[Colour, Colour]:
        first, second = self.value.split("/")
        return Colour(first), Colour(second)

    @classmethod
    def parse(cls, text: str) -> Monument:
        parts = text.strip().lower().split("/")
        if len(parts) == 2:
            for monument in cls:
                if set(monument.value.split("/")) == set(parts):
                    return monument
        raise ValueError(f"{text!r} is not a monument: two colours such as red/blue")
