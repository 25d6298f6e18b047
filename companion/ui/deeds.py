"""Actions in the players' words: "Bull's red temple on F7", never the engine's "tile red F7"."""

from __future__ import annotations

from companion.rules import (
    NO_CELL,
    Action,
    BuildMonument,
    ChooseWar,
    DeclineMonument,
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
    support_colour,
)


def deed(state: GameState, action: Action, *, whose: bool = True) -> str:
    """`action`, taken in `state`, as the players say it: whose it is (unless not `whose`), what and where."""
    who = state.players[state.pending.player]
    mine = f"{who.name}'s" if whose else "the"
    if isinstance(action, PlaceTile):
        return f"{mine if whose else 'a'} {action.colour.value} {action.colour.tile_name} on {cell_name(action.cell)}"
    if isinstance(action, PlaceLeader):
        leader = f"{mine} {action.colour.value} {action.colour.leader_name} on {cell_name(action.cell)}"
        came = who.leader_cell(action.colour)
        return leader if came == NO_CELL else f"{leader} (moved from {cell_name(came)})"
    if isinstance(action, Withdraw):
        came = who.leader_cell(action.colour)
        where = f" from {cell_name(came)}" if came != NO_CELL else ""
        return f"{mine} {action.colour.value} {action.colour.leader_name} withdrawn{where}"
    if isinstance(action, PlaceCatastrophe):
        return f"{mine if whose else 'a'} catastrophe on {cell_name(action.cell)}"
    if isinstance(action, Swap):
        return f"{mine} swap of {action.count} tile{'s' if action.count != 1 else ''}"
    if isinstance(action, Pass):
        return f"{mine} pass"
    if isinstance(action, Support) and state.pending.conflict is not None:
        colour = support_colour(state.pending.conflict)
        return (f"{mine} {action.count} {colour.value} {colour.tile_name}{'s' if action.count != 1 else ''} "
                "committed from hand")
    if isinstance(action, ChooseWar):
        return f"{mine} choice of the {action.colour.leader_name}s' war first"
    if isinstance(action, BuildMonument):
        return f"{mine} {action.monument.value} monument on {cell_name(action.cell)}"
    if isinstance(action, DeclineMonument):
        return f"{mine} choice of no monument"
    if isinstance(action, TakeTreasure):
        return f"{mine} treasure {'taken ' if whose else ''}from {cell_name(action.cell)}"
    return f"{mine} {action}"  # a support outside a conflict: the engine refuses it before it is said
