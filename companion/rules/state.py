"""The game state: an immutable snapshot, with `pending` saying who must decide what now."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from .actions import Action
from .board import FULL, Board, bit, block_mask, cells_of, regions
from .pieces import COLOURS, TILES_IN_GAME, Colour, Monument

NO_CELL = -1


@dataclass(frozen=True, slots=True)
class PlayerState:
    seat: int
    name: str
    dynasty: str
    points: tuple[int, ...]  # victory points per colour, in COLOURS order
    treasures: int
    hand: tuple[int, ...] | None  # tiles per colour; None in table mode, where hands are hidden
    hand_size: int
    catastrophes: int
    leaders: tuple[int, ...]  # the square of each leader (COLOURS order), NO_CELL when in the supply

    def leader_cell(self, colour: Colour) -> int:
        return self.leaders[colour.index]


class PendingKind(enum.Enum):
    ACTION = "play an action"
    SUPPORT = "commit support"
    WAR_ORDER = "choose the next war"
    MONUMENT = "build a monument or not"
    TREASURE = "take a treasure"
    GAME_OVER = "the game is over"


class ConflictKind(enum.Enum):
    REVOLT = "revolt"  # started by a leader, fought with temples
    WAR = "war"  # started by a tile uniting two kingdoms, fought with the war's colour


@dataclass(frozen=True, slots=True)
class Conflict:
    """A revolt or a war, from the board strengths to the attacker's commitment."""

    kind: ConflictKind
    colour: Colour
    attacker: int
    defender: int
    attacker_leader: int
    defender_leader: int
    attacker_supporters: tuple[int, ...]  # squares that count for the attacker
    defender_supporters: tuple[int, ...]
    attacker_committed: int | None = None
    uniting_tile: int = NO_CELL

    @property
    def attacker_strength(self) -> int:
        return len(self.attacker_supporters)

    @property
    def defender_strength(self) -> int:
        return len(self.defender_supporters)


@dataclass(frozen=True, slots=True)
class Pending:
    """Who must decide what now. The screens and buttons read only this."""

    kind: PendingKind
    player: int
    actions_left: int = 0
    conflict: Conflict | None = None
    options: tuple[Action, ...] = ()  # the choices, for WAR_ORDER, MONUMENT and TREASURE
    max_support: int = 0
    treasures_to_take: int = 0


@dataclass(frozen=True, slots=True)
class BuiltMonument:
    monument: Monument
    cell: int  # top-left square of its 2×2
    colour: Colour  # colour of the four face-down tiles beneath it

    @property
    def squares(self) -> int:
        return block_mask(self.cell)


@dataclass(frozen=True, slots=True)
class Square:
    """Everything on one square, for screens and the tracker."""

    cell: int
    river: bool
    tile: Colour | None  # colour of a tile, face up or face down
    face_down: bool
    treasure: bool
    corner: bool
    leader: tuple[int, Colour] | None  # (seat, colour)
    catastrophe: bool
    monument: Monument | None
    unification: bool

    @property
    def empty(self) -> bool:
        return self.tile is None and self.leader is None and not self.catastrophe


@dataclass(frozen=True, slots=True)
class Kingdom:
    """A region with at least one leader."""

    mask: int
    leaders: tuple[tuple[int, Colour, int], ...]  # (seat, colour, square)
    treasures: int

    @property
    def cells(self) -> tuple[int, ...]:
        return tuple(cells_of(self.mask))


def leaders_in(players: Sequence[PlayerState], mask: int) -> list[tuple[int, Colour, int]]:
    """(seat, colour, square) of every leader standing in `mask`."""
    return [
        (player.seat, colour, where)
        for player in players
        for colour, where in zip(COLOURS, player.leaders, strict=True)
        if where != NO_CELL and mask >> where & 1
    ]


def tiles_on_board(tiles: Sequence[int], monuments: Sequence[BuiltMonument], colour: Colour) -> int:
    """Tiles of `colour` on the board, face up (`tiles`) or face down under a monument."""
    return tiles[colour.index].bit_count() + sum(4 for m in monuments if m.colour is colour)


def tiles_unseen(tiles: Sequence[int], monuments: Sequence[BuiltMonument], out: Sequence[int], colour: Colour) -> int:
    """Tiles of `colour` neither on the board nor out of the game: in the bag or in hands."""
    return TILES_IN_GAME[colour.index] - tiles_on_board(tiles, monuments, colour) - out[colour.index]


@dataclass(frozen=True, slots=True)
class GameState:
    board: Board
    tiles: tuple[int, ...]  # face-up tiles per colour, as bitboards
    facedown: int  # face-down (monument) tiles
    treasures: int
    catastrophes: int
    leader_mask: int  # every leader on the board
    monuments: tuple[BuiltMonument, ...]
    unification: int  # the square carrying the unification tile, NO_CELL when none
    players: tuple[PlayerState, ...]
    bag: tuple[Colour, ...]  # the draw order, in full-information mode; empty in table mode
    bag_count: int
    out: tuple[int, ...]  # tiles out of the game, per colour, where the colour is known
    unknown_out: int  # tiles out of the game of unknown colour (table-mode swaps)
    current: int
    actions_left: int
    turn: int
    pending: Pending
    wars: tuple[Colour, ...]  # wars still to fight from the uniting tile
    monument_tile: int  # the tile whose monument check is still due, NO_CELL when none
    treasure_check: bool  # a treasure check is due before the action is over
    game_over: str | None
    hidden_hands: bool
    english_support: bool

    # --- derived views -------------------------------------------------------------------------

    @property
    def all_tiles(self) -> int:
        t = self.tiles
        return t[0] | t[1] | t[2] | t[3] | self.facedown

    @property
    def pieces(self) -> int:
        """Everything that connects: tiles face up or down, and leaders (catastrophes do not)."""
        return self.all_tiles | self.leader_mask

    @property
    def empty(self) -> int:
        return FULL & ~(self.pieces | self.catastrophes)

    @property
    def temples(self) -> int:
        """Face-up red tiles: the only tiles that support leaders."""
        return self.tiles[0]

    def regions(self) -> tuple[int, ...]:
        return regions(self.pieces)

    def kingdom_masks(self) -> list[int]:
        leaders = self.leader_mask
        return [region for region in regions(self.pieces) if region & leaders]

    def leader_at(self, cell: int) -> tuple[int, Colour] | None:
        if not self.leader_mask >> cell & 1:
            return None
        for player in self.players:
            for colour, where in zip(COLOURS, player.leaders, strict=True):
                if where == cell:
                    return player.seat, colour
        raise AssertionError("leader mask out of step with the players' leaders")

    def leaders_in(self, mask: int) -> list[tuple[int, Colour, int]]:
        """(seat, colour, square) of every leader standing in `mask`."""
        return leaders_in(self.players, mask)

    def kingdoms(self) -> tuple[Kingdom, ...]:
        return tuple(
            Kingdom(mask, tuple(self.leaders_in(mask)), (mask & self.treasures).bit_count())
            for mask in self.kingdom_masks()
        )

    def tile_colour(self, cell: int) -> Colour | None:
        for colour, mask in zip(COLOURS, self.tiles, strict=True):
            if mask >> cell & 1:
                return colour
        for built in self.monuments:
            if built.squares >> cell & 1:
                return built.colour
        return None

    def square(self, cell: int) -> Square:
        b = bit(cell)
        monument = next((m.monument for m in self.monuments if m.squares & b), None)
        return Square(
            cell=cell,
            river=bool(self.board.river & b),
            tile=self.tile_colour(cell),
            face_down=bool(self.facedown & b),
            treasure=bool(self.treasures & b),
            corner=bool(self.board.corners & b),
            leader=self.leader_at(cell),
            catastrophe=bool(self.catastrophes & b),
            monument=monument,
            unification=self.unification == cell,
        )

    def on_board(self, colour: Colour) -> int:
        """Tiles of `colour` on the board, face up or down."""
        return tiles_on_board(self.tiles, self.monuments, colour)

    def unseen(self, colour: Colour) -> int:
        """How many tiles of `colour` may still be in the bag or in hands (an upper bound in table mode)."""
        return tiles_unseen(self.tiles, self.monuments, self.out, colour)

    @property
    def over(self) -> bool:
        return self.game_over is not None
