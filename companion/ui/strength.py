"""What a tap on the board picture asks: a kingdom's strength per colour, or a leader's (pure, no pygame).

Kingdoms are numbered in the order of `GameState.kingdoms()`, as the board picture numbers them.
"""

from __future__ import annotations

from companion.rules import COLOURS, NEIGHBOURS, GameState, cell_name

from .model import LEADER_WORDS, TILE_WORDS


def detail(state: GameState, cell: int) -> tuple[str, ...]:
    """Lines about the leader on `cell`, or the kingdom it belongs to; none for a square outside every kingdom."""
    kingdoms = state.kingdoms()
    number, kingdom = next(((i + 1, k) for i, k in enumerate(kingdoms) if k.mask >> cell & 1), (0, None))
    if kingdom is None:
        return ()
    standing = state.leader_at(cell)
    if standing is not None:
        seat, colour = standing
        word = TILE_WORDS[colour.value]
        war = (state.tiles[colour.index] & kingdom.mask).bit_count()
        revolt = (NEIGHBOURS[cell] & state.temples).bit_count()
        return (f"{state.players[seat].name}'s {colour.value} {LEADER_WORDS[colour.value]} on {cell_name(cell)}, "
                f"kingdom {number}:",
                f"in a war {war} {word}{'s' if war != 1 else ''} of the kingdom; "
                f"in a revolt {revolt} temple{'s' if revolt != 1 else ''} beside it.")
    counts = " · ".join(f"{(state.tiles[c.index] & kingdom.mask).bit_count()} {c.value}" for c in COLOURS)
    leaders = ", ".join(f"{state.players[seat].name}'s {colour.value} {LEADER_WORDS[colour.value]}"
                        for seat, colour, _ in kingdom.leaders)
    treasures = f"; {kingdom.treasures} treasure{'s' if kingdom.treasures != 1 else ''}" if kingdom.treasures else ""
    return (f"Kingdom {number}: {counts}{treasures}.", f"Leaders: {leaders}.")
