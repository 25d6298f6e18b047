"""What happened, in the game's words: the engine returns these from every `apply`."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .pieces import Colour


class EventKind(enum.Enum):
    TILE_PLACED = "tile placed"
    KINGDOMS_UNITED = "kingdoms united"
    SCORED = "scored"  # a tile, a revolt or a war
    MONUMENT_SCORED = "monument scored"  # the active player's leaders beside a monument, at the end of his turn
    LEADER_PLACED = "leader placed"
    LEADER_MOVED = "leader moved"
    LEADER_WITHDRAWN = "leader withdrawn"
    LEADER_EXILED = "leader sent home"
    CATASTROPHE = "catastrophe"
    SWAPPED = "swapped"
    PASSED = "passed"
    REVOLT_STARTED = "revolt started"
    WAR_STARTED = "war started"
    WAR_DROPPED = "war dropped"
    SUPPORT_COMMITTED = "support committed"
    CONFLICT_WON = "conflict won"
    PIECES_REMOVED = "pieces removed"
    MONUMENT_POSSIBLE = "monument possible"
    MONUMENT_BUILT = "monument built"
    MONUMENT_DECLINED = "monument declined"
    TREASURE_TAKEN = "treasure taken"
    UNIFICATION_REMOVED = "unification tile removed"
    TURN_ENDED = "turn ended"
    HANDS_REFILLED = "hands refilled"
    BAG_LOW = "bag low"
    GAME_OVER = "game over"


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened. `cells` are the squares concerned (pieces to remove, treasures to take…)."""

    kind: EventKind
    text: str
    page: int | None = None
    player: int | None = None
    colour: Colour | None = None
    amount: int = 0
    cells: tuple[int, ...] = ()

    def __str__(self) -> str:
        return f"{self.text} (p. {self.page})" if self.page is not None else self.text
