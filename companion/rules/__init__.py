"""The rules of Tigris & Euphrates: a pure engine, standard library only, no I/O.

    game = Game.new(3, seed=1)
    game.pending            # who must decide what now
    game.legal_actions()    # every legal choice (full-information mode)
    events = game.apply("tile red F7")
    game.undo()
"""

from .actions import (
    Action,
    BuildMonument,
    ChooseWar,
    DeclineMonument,
    Pass,
    PlaceCatastrophe,
    PlaceLeader,
    PlaceTile,
    Support,
    Swap,
    TakeTreasure,
    Withdraw,
)
from .board import (
    BOARDS,
    COLUMNS,
    NEIGHBOURS,
    ROWS,
    SQUARES,
    Board,
    bit,
    block_cells,
    block_mask,
    board_named,
    cell_name,
    cells_of,
    expand,
    parse_cell,
    region_of,
    regions,
)
from .config import GameConfig
from .engine import Game, NothingToUndo, initial_state, legal_actions, replay, state_summary, support_colour
from .errors import CompanionError, IllegalAction
from .events import Event, EventKind
from .pieces import BLACK, BLUE, COLOURS, DYNASTIES, GREEN, HAND_SIZE, RED, TILES_IN_GAME, Colour, Monument
from .playout import random_playout
from .policy import policy_action
from .position import position
from .scoring import PlayerScore, final_scores, rank_scores, spread_treasures
from .state import (
    NO_CELL,
    BuiltMonument,
    Conflict,
    ConflictKind,
    GameState,
    Kingdom,
    Pending,
    PendingKind,
    PlayerState,
    Square,
)

__all__ = [
    "BLACK", "BLUE", "BOARDS", "COLOURS", "COLUMNS", "DYNASTIES", "GREEN", "HAND_SIZE", "NEIGHBOURS", "NO_CELL",
    "RED", "ROWS", "SQUARES", "TILES_IN_GAME", "Action", "Board", "BuildMonument", "BuiltMonument", "ChooseWar",
    "Colour", "CompanionError", "Conflict", "ConflictKind", "DeclineMonument", "Event", "EventKind", "Game",
    "GameConfig", "GameState", "IllegalAction", "Kingdom", "Monument", "NothingToUndo", "Pass", "Pending",
    "PendingKind", "PlaceCatastrophe", "PlaceLeader", "PlaceTile", "PlayerScore", "PlayerState", "Square",
    "Support", "Swap", "TakeTreasure", "Withdraw", "bit", "block_cells", "block_mask", "board_named", "cell_name",
    "cells_of", "expand", "final_scores", "initial_state", "legal_actions", "parse_cell", "policy_action",
    "position", "random_playout", "rank_scores", "region_of", "regions", "replay", "spread_treasures",
    "state_summary", "support_colour",
]
