"""What the camera may see on each square at its next look: the rules' answer, for the observer.

The observer names a square that changed only among the classes the game allows there
(`Observer.candidates`, plain data: vision never imports the companion). Allowed is everything a
legal continuation may show before the next look: what the square shows now, or what the rules
say it should show (a piece owed, lifted); what up to two board actions of the players who may
move could put there or take away (a quick player makes both between two looks, and the tracker
searches such pairs), with the leaders they send home, the monuments they allow and the
treasures they hand out; and the boards a takeback brings back.

Worked out on bitboards, not by trying action pairs on the engine (hundreds of first actions, each
with hundreds of second ones), and generous rather than strict: a class missing from a square's
set is a misread nobody is told of, an extra one costs the observer only a little discrimination.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache

from vision.reading import CellClass

from .rules import (
    BLUE,
    COLOURS,
    NEIGHBOURS,
    NO_CELL,
    RED,
    SQUARES,
    BuildMonument,
    Colour,
    GameState,
    Monument,
    TakeTreasure,
    bit,
    block_mask,
    cells_of,
    expand,
    region_of,
    regions,
)
from .tracker import LEADER_CLASS, TILE_CLASS, Look, expected_cells

_CLASSES = tuple(CellClass)
_BIT = {cls: 1 << i for i, cls in enumerate(_CLASSES)}
# The top-left squares of the 2×2 blocks that fit on the 16×11 board.
_TOP_LEFTS = sum(bit(row * 16 + col) for row in range(10) for col in range(15))


def candidates(state: GameState, shown: Sequence[Look],
               earlier: Sequence[GameState] = ()) -> tuple[frozenset[CellClass], ...]:
    """For each of the 176 squares, every class the camera may legitimately see there at the next
    look. `shown` is what the table showed at the last agreement (`Tracker.shown`), `earlier` the
    states a takeback may return to."""
    codes = [0] * SQUARES
    for looks in (shown, expected_cells(state), *(expected_cells(before) for before in earlier)):
        for cell, look in enumerate(looks):
            codes[cell] |= _BIT[look.cls] | (_BIT[look.also] if look.also is not None else 0)
    if not state.over:
        for classes, mask in _moves(state):
            flag = sum(_BIT[cls] for cls in classes)
            for cell in cells_of(mask):
                codes[cell] |= flag
    return tuple(_classes(code) for code in codes)


@lru_cache(maxsize=512)
def _classes(code: int) -> frozenset[CellClass]:
    """One shared set per combination: a board has few of them."""
    return frozenset(cls for cls in _CLASSES if code & _BIT[cls])


def _moves(state: GameState) -> Iterator[tuple[tuple[CellClass, ...], int]]:
    """Where classes may appear within the next two board actions, as bitboards."""
    board, players = state.board, state.players
    land, river = board.land, board.river
    # After the last action of a turn, the next player's first one may come before the camera looks.
    seats = [state.current] if state.actions_left >= 2 else [state.current, (state.current + 1) % len(players)]
    catastrophes = min(2, sum(players[seat].catastrophes for seat in seats))
    drawing = any(players[seat].hand_size for seat in seats)
    colours = [colour for colour in COLOURS if drawing and state.unseen(colour) > 0]
    temples, treasures = state.tiles[RED.index], state.treasures
    movable = sum(bit(cell) for seat in seats for cell in players[seat].leaders if cell != NO_CELL)
    free = state.empty | movable  # empty now, or once the first action moved a leader away
    monument, red_blocks = _monument_blocks(state, free, colours)
    # A treasure the first action hands out leaves a bare temple the second may hit.
    untouchable = treasures & ~_takeable(state, free)
    free |= _sent_home(state, red_blocks, catastrophes, untouchable)
    on_land = tuple(TILE_CLASS[colour] for colour in colours if colour is not BLUE)
    on_river = tuple(TILE_CLASS[colour] for colour in colours if colour is BLUE)
    yield on_land, free & land
    yield on_river, free & river
    tiled = free & ((land if on_land else 0) | (river if on_river else 0))
    # A leader stands next to a temple: one there now, or one the first action puts beside it.
    new_temples = _beside(free & land) if RED in colours else 0
    yield tuple(LEADER_CLASS.values()), free & land & (expand(temples) | new_temples)
    if catastrophes:
        yield (CellClass.CATASTROPHE,), (free | state.all_tiles & ~state.facedown) & ~untouchable
    yield (CellClass.EMPTY_LAND,), free & ~state.empty
    yield (CellClass.MONUMENT, CellClass.FACE_DOWN), monument
    yield (CellClass.TILE_RED,), _takeable(state, free)
    yield (CellClass.UNIFICATION,), _uniting(state, tiled, movable)


def _beside(mask: int) -> int:
    """The squares next to a square of `mask` (not `mask` itself, unless next to another of it)."""
    near = 0
    for cell in cells_of(mask):
        near |= NEIGHBOURS[cell]
    return near


def _monument_blocks(state: GameState, free: int, colours: Sequence[Colour]) -> tuple[int, int]:
    """The squares of the 2×2 blocks a monument may soon stand on, and those of red ones: blocks
    already offered, and blocks with two or three face-up tiles of a colour whose empty squares
    tiles of that colour may fill (a monument of that colour still in the box)."""
    squares = 0
    for built in state.monuments:
        squares |= built.squares
    for option in state.pending.options:
        if isinstance(option, BuildMonument):
            squares |= block_mask(option.cell)
    red = squares & state.tiles[RED.index]
    spare = {colour for monument in set(Monument) - {m.monument for m in state.monuments}
             for colour in monument.colours}
    for colour in spare:
        tiles = state.tiles[colour.index]
        room = free & (state.board.river if colour is BLUE else state.board.land) if colour in colours else 0
        a, b, c, d = (tiles >> shift for shift in (0, 1, 16, 17))  # each block's squares, on its top-left
        filled = tiles | room
        whole = filled & filled >> 1 & filled >> 16 & filled >> 17
        two = (a & (b | c | d)) | (b & (c | d)) | (c & d)
        tops = whole & two & ~(a & b & c & d) & _TOP_LEFTS
        blocks = tops | tops << 1 | tops << 16 | tops << 17
        squares |= blocks
        if colour is RED:
            red |= blocks
    return squares, red


def _sent_home(state: GameState, red_blocks: int, catastrophes: int, untouchable: int) -> int:
    """Leaders whose every temple may go (catastrophes, or tiles turned under a monument): the
    rules send them home and the players lift them. `untouchable`: treasures no catastrophe may
    reach before the next look."""
    temples = state.tiles[RED.index]
    hittable = temples & ~untouchable if catastrophes else 0
    lost = 0
    for cell in cells_of(state.leader_mask):
        left = NEIGHBOURS[cell] & temples & ~red_blocks
        if not left & ~hittable and left.bit_count() <= catastrophes:
            lost |= bit(cell)
    return lost


def _takeable(state: GameState, free: int) -> int:
    """Treasures a trader may take soon: those of a region that two more pieces may join to
    another treasure (a taken treasure leaves its red tile showing)."""
    treasures, pieces = state.treasures, state.pieces
    takeable = 0
    for option in state.pending.options:
        if isinstance(option, TakeTreasure):
            takeable |= bit(option.cell)
    for region in regions(pieces):
        if not region & treasures:
            continue
        grown = region
        for _ in range(2):
            grown |= expand(grown) & free
            grown = region_of(grown, pieces | grown)
        if (grown & treasures).bit_count() >= 2:
            takeable |= region & treasures
    return takeable


def _uniting(state: GameState, room: int, movable: int) -> int:
    """Squares where a tile may unite two kingdoms and carry the unification tile during the wars:
    two regions lie within two squares (one more piece may join each), one of them a kingdom
    already (one action adds at most one leader). A leader that may move first is left out of the
    regions: it may leave a gap between two kingdoms it joined, and a tile there unites them."""
    one = two = kingdoms = 0
    for region in regions(state.pieces & ~movable):
        near = expand(expand(region))
        two |= one & near
        one |= near
        if expand(region) & state.leader_mask:  # its own leaders, or one beside it that may stay
            kingdoms |= near
    return room & two & kingdoms
