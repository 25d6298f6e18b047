"""The player strip and the supply, as Board Game Arena shows them beside the board (pure, no pygame).

Per seat: the leaders on the board or in hand, the catastrophes left, the treasures taken (only when
scores are open: they sit behind the player's screen). For everyone: the treasures still on the board
(the game ends at two), the monuments still to build, the tiles of each colour not yet seen, the bag.
"""

from __future__ import annotations

from companion.rules import COLOURS, NO_CELL, GameState, Monument

from .model import Seat, Strip, Supply


def strip(state: GameState, scores_open: bool) -> Strip:
    built = {m.monument for m in state.monuments}
    seats = tuple(
        Seat(
            name=p.name,
            dynasty=p.dynasty,
            leaders=tuple((c.value, p.leader_cell(c) != NO_CELL) for c in COLOURS),
            catastrophes=p.catastrophes,
            treasures=p.treasures if scores_open else None,
            current=p.seat == state.current,
        )
        for p in state.players
    )
    supply = Supply(
        bag=state.bag_count,
        treasures=state.treasures.bit_count(),
        monuments=tuple((m.colours[0].value, m.colours[1].value) for m in Monument if m not in built),
        unseen=tuple((c.value, state.unseen(c)) for c in COLOURS),
    )
    return Strip(seats, supply)
