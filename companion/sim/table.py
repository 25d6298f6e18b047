"""A table of simulated players, for the demo, the game benchmark and the end-to-end tests.

The players play a full-information game of the rules engine (the *truth*) with the simple
policy, and do on the physical board what real players do: they place and move pieces with their
hands, lift what the rules send off a moment later, and press buttons for what the camera cannot
see. The companion in front of them plays the same game in table mode, knowing only what it sees
and what it is told. No camera and no screen here: those come from the caller.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.rules import (
    Action,
    BuildMonument,
    Event,
    EventKind,
    Game,
    GameState,
    PendingKind,
    PlaceCatastrophe,
    PlaceLeader,
    PlaceTile,
    Swap,
    TakeTreasure,
    Withdraw,
    block_cells,
    policy_action,
    state_summary,
)
from companion.tracker import Look, expected_cells
from vision.reading import BoardReading, CellClass, CellReading, ReadStatus

# What players do by hand on the board; everything else goes through the buttons.
_BY_HAND = (PlaceTile, PlaceLeader, Withdraw, PlaceCatastrophe)
_CHORES = frozenset({EventKind.PIECES_REMOVED, EventKind.LEADER_EXILED, EventKind.UNIFICATION_REMOVED,
                     EventKind.TREASURE_TAKEN, EventKind.MONUMENT_BUILT})


def reading_of(looks: Sequence[Look], time: float = 0.0) -> BoardReading:
    """What a camera that never errs would read of a board showing `looks`."""
    cells = tuple(look.seen() for look in looks)
    return BoardReading(ReadStatus.OK, cells, board_found=True, time=time)


class Blind:
    """What the companion briefs the observer with, for eyes that need none of it."""

    def __init__(self) -> None:
        self.tall: frozenset[int] = frozenset()
        self.excused: frozenset[int] = frozenset()
        self.unexplained: frozenset[int] = frozenset()
        self.face_down: frozenset[int] | None = None
        self.candidates: tuple[frozenset[CellClass], ...] | None = None

    def agree(self, shown: Sequence[CellReading]) -> None:
        del shown

    def expect_setup(self, shown: Sequence[CellReading]) -> None:
        del shown


class PerfectEyes:
    """A camera that never errs and always gets a look once the hands are gone: what is left for
    the players to answer is the game's own (the order of two moves made at once, on a board that
    shows only their end): the ceiling the game benchmark's camera is measured against."""

    read_ms = 0.0

    def __init__(self) -> None:
        self.observer = Blind()
        self.board: list[Look] = []

    def look(self, looks: Sequence[Look], *, hand: bool = True) -> BoardReading:
        self.board = list(looks)
        return self.again()

    def again(self) -> BoardReading:
        return reading_of(self.board)


def public(state: GameState) -> dict[str, Any]:
    """What both the truth and the companion's table-mode game know: everything but hands and bag order."""
    summary = state_summary(state)
    for key in ("out", "unknown_out"):
        summary.pop(key)
    for player in summary["players"]:
        player.pop("hand")
    return summary


@dataclass(frozen=True, slots=True)
class Move:
    """What the players do next: change the board by hand, or tell the companion on the buttons."""

    by_hand: bool
    actions: tuple[Action, ...] = ()  # the truth's actions (none for chores)
    command: str = ""  # the button action in table-mode words: "swap 3", "support 2"…


@dataclass
class Table:
    truth: Game
    rng: random.Random
    board: list[Look]  # what the physical board shows now
    quick: float = 0.15  # how often a player makes both actions before the camera gets a look
    by_hand: float = 0.6  # how often a monument or a treasure is taken care of on the board itself
    chores: dict[int, Look] = field(default_factory=dict)  # squares the players still have to put right

    @classmethod
    def new(cls, players: int, seed: int, board: str = "standard") -> Table:
        truth = Game.new(players, seed=seed, board=board)
        return cls(truth, random.Random(seed), list(expected_cells(truth.state)))

    @property
    def over(self) -> bool:
        return self.truth.state.over

    def agrees(self, state: GameState) -> bool:
        return public(state) == public(self.truth.state)

    def step(self) -> Move:
        """The players' next move on the truth game; the board changes at once when it is by hand."""
        if self.chores:
            for cell, look in self.chores.items():
                self.board[cell] = look
            self.chores.clear()
            return Move(True)
        action = policy_action(self.truth, self.rng)
        if isinstance(action, _BY_HAND) or (isinstance(action, BuildMonument | TakeTreasure)
                                             and self.rng.random() < self.by_hand and self._seen_to_go(action)):
            actions: list[Action] = [action]
            self._play(action, by_hand=True)
            second = self._quick_second()
            if second is not None:
                actions.append(second)
                self._play(second, by_hand=True)
            return Move(True, tuple(actions))
        self._play(action, by_hand=False)
        command = f"swap {action.count}" if isinstance(action, Swap) else str(action)
        return Move(False, (action,), command)

    def _seen_to_go(self, action: BuildMonument | TakeTreasure) -> bool:
        """Whether the camera can see this done by hand: not a treasure on a tile turned face down
        under a monument, which the monument hides (the players choose it on the buttons)."""
        return not isinstance(action, TakeTreasure) or self.board[action.cell].cls is CellClass.TREASURE

    def _quick_second(self) -> Action | None:
        pending = self.truth.pending
        if pending.kind is not PendingKind.ACTION or pending.actions_left != 1 or self.rng.random() >= self.quick:
            return None
        action = policy_action(self.truth, self.rng)
        return action if isinstance(action, _BY_HAND) else None

    def _play(self, action: Action, *, by_hand: bool) -> list[Event]:
        events = self.truth.apply(action)
        later = {cell for e in events if e.kind in _CHORES for cell in e.cells}
        if by_hand:  # what the player did with their own hand is done already
            if isinstance(action, BuildMonument):
                later -= set(block_cells(action.cell))
            if isinstance(action, TakeTreasure):
                later.discard(action.cell)
        for cell, wanted in enumerate(expected_cells(self.truth.state)):
            if self.board[cell] == wanted:
                self.chores.pop(cell, None)
            elif wanted.cls is CellClass.UNIFICATION and wanted.also is not None and cell not in later:
                self.board[cell] = Look(wanted.also)  # the uniting tile first; its marker comes after
                self.chores[cell] = wanted
            elif cell in later or cell in self.chores:
                self.chores[cell] = wanted
            else:
                self.board[cell] = wanted
        return events
