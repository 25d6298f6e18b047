"""The move log: each applied action in a line of the game's words, as Board Game Arena's log has it.

"Bull: red temple F7 → +1 red". Pure: derived from the game's snapshots before and after each action,
so a resumed or taken-back game tells the same story. Points appear only when scores are open.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from companion.rules import (
    COLOURS,
    COLUMNS,
    NO_CELL,
    Action,
    BuildMonument,
    ChooseWar,
    DeclineMonument,
    Game,
    GameState,
    Pass,
    PlaceCatastrophe,
    PlaceLeader,
    PlaceTile,
    Support,
    Swap,
    TakeTreasure,
    Withdraw,
    cell_name,
)

from .model import LEADER_WORDS, TILE_WORDS

RECENT = 8  # moves kept for the screens: a turn or two of every player at a 4-player table


@dataclass(frozen=True, slots=True)
class Move:
    """One applied action: who, what, where, and the points it brought (per player and colour)."""

    player: str
    what: str  # "red temple F7"
    cells: tuple[int, ...]  # the squares it concerns, ringed on the board picture
    points: tuple[tuple[str, str, int], ...] = ()  # (player, colour, points)

    def line(self, scores_open: bool) -> str:
        """"Bull: red temple F7 → +1 red"; another player's points carry their name; hidden scores, none."""
        text = f"{self.player}: {self.what}"
        if not scores_open or not self.points:
            return text
        gains = ", ".join(f"{'' if who == self.player else who + ' '}+{n} {colour}" for who, colour, n in self.points)
        return f"{text} → {gains}"


def recent(game: Game, count: int = RECENT) -> tuple[Move, ...]:
    """The last `count` moves of `game`, oldest first."""
    states, actions = game.states, game.actions
    first = max(0, len(actions) - count)
    return tuple(move(states[i], actions[i], states[i + 1]) for i in range(first, len(actions)))


def move(before: GameState, action: Action, after: GameState) -> Move:
    """The move `action` made from `before` to `after`."""
    seat = before.pending.player
    player = before.players[seat].name
    what, cells = _words(before, action, seat)
    points = tuple(
        (p.name, colour.value, now - then)
        for p, q in zip(before.players, after.players, strict=True)
        for colour, then, now in zip(COLOURS, p.points, q.points, strict=True)
        if now > then
    )
    return Move(player, what, cells, points)


def _words(before: GameState, action: Action, seat: int) -> tuple[str, tuple[int, ...]]:
    if isinstance(action, PlaceTile):
        colour = action.colour.value
        return f"{colour} {TILE_WORDS[colour]} {cell_name(action.cell)}", (action.cell,)
    if isinstance(action, PlaceLeader):
        colour = action.colour.value
        was = before.players[seat].leader_cell(action.colour)
        if was != NO_CELL:
            return (f"{colour} {LEADER_WORDS[colour]} {cell_name(was)} → {cell_name(action.cell)}",
                    (was, action.cell))
        return f"{colour} {LEADER_WORDS[colour]} to {cell_name(action.cell)}", (action.cell,)
    if isinstance(action, Withdraw):
        colour = action.colour.value
        was = before.players[seat].leader_cell(action.colour)
        return f"{colour} {LEADER_WORDS[colour]} off {cell_name(was)}", (was,)
    if isinstance(action, PlaceCatastrophe):
        return f"catastrophe on {cell_name(action.cell)}", (action.cell,)
    if isinstance(action, Swap):
        return f"swaps {_tiles(action.count)}", ()
    if isinstance(action, Pass):
        return "passes", ()
    if isinstance(action, Support):
        conflict = before.pending.conflict
        what = conflict.kind.value if conflict is not None else "conflict"
        return f"commits {_tiles(action.count)} to the {what}", ()
    if isinstance(action, ChooseWar):
        return f"{action.colour.value} war first", ()
    if isinstance(action, BuildMonument):
        c = action.cell
        return f"{action.monument.value} monument at {cell_name(c)}", (c, c + 1, c + COLUMNS, c + COLUMNS + 1)
    if isinstance(action, DeclineMonument):
        return "no monument", ()
    if isinstance(action, TakeTreasure):
        return f"treasure from {cell_name(action.cell)}", (action.cell,)
    return str(action), ()


def _tiles(n: int) -> str:
    return f"{n} tile{'s' if n != 1 else ''}"


def last_cells(moves: Sequence[Move]) -> tuple[int, ...]:
    """The squares of the newest move, ringed on the board picture (none after a pass or a swap)."""
    return moves[-1].cells if moves else ()
