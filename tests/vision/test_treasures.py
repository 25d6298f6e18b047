"""A treasure's own colours, looked for anywhere on its temple square (`vision.treasures`)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import cast

import numpy as np

from vision import classify, geometry, treasures
from vision.first_look import Seen
from vision.reading import CELLS, CellClass, CellReading
from vision.references import References
from vision.tuning import TUNING

PX = 32
TILE = (40, 40, 170)  # B, G, R: a red tile
SYMBOL = (210, 215, 220)  # its pale temple symbol
GOLD = (40, 170, 230)  # a coin


def square(treasure: tuple[int, int] | None = None, colour: tuple[int, int, int] = GOLD, seed: int = 0) -> np.ndarray:
    """A red temple tile seen from above (a little noise), its treasure's top-left corner at `treasure`."""
    rng = np.random.default_rng(seed)
    picture = np.empty((PX, PX, 3), np.float32)
    picture[:] = TILE
    picture[12:20, 12:20] = SYMBOL
    if treasure is not None:
        y, x = treasure
        picture[y : y + 10, x : x + 10] = colour
    noisy: np.ndarray = picture + rng.normal(0, 3, picture.shape)
    return noisy


def test_a_treasure_near_its_tiles_edge_shows_its_colours_and_a_bare_temple_none() -> None:
    shown_at_setup = np.array([square((11, 11), seed=s) for s in range(10)])
    tiles = np.array([square(seed=10 + s) for s in range(5)])
    colours = treasures.learn(shown_at_setup, tiles, TUNING.treasure_least)
    assert colours is not None
    now = np.array([square((1, 21), seed=20), square((21, 1), seed=21), square(seed=22)])
    near_edge, other_corner, bare = treasures.shown(now, colours)
    assert near_edge >= TUNING.treasure_shown and other_corner >= TUNING.treasure_shown
    assert bare < TUNING.treasure_shown / 4


def test_no_colours_are_a_treasures_own_without_red_tiles_or_when_it_is_coloured_like_its_tile() -> None:
    shown_at_setup = np.array([square((11, 11), seed=s) for s in range(10)])
    tiles = np.array([square(seed=10 + s) for s in range(5)])
    assert treasures.learn(shown_at_setup, tiles[:0], TUNING.treasure_least) is None
    assert treasures.learn(shown_at_setup[:0], tiles, TUNING.treasure_least) is None
    red_gems = np.array([square((11, 11), colour=(45, 45, 175), seed=s) for s in range(10)])
    assert treasures.learn(red_gems, tiles, TUNING.treasure_least) is None


def test_a_temple_showing_a_little_of_its_treasures_colours_or_read_where_none_are_known_is_unsure() -> None:
    """Read whole, a temple square read as a bare red tile is taken as one only where it shows
    none of a treasure's own colours (red tiles never show them): a treasure at the tile's corner,
    mostly hidden, showed a fifth of a set-up treasure's share, and was read as the bare tile. Where
    this table's treasures show no colours of their own nothing tells them from the tile."""
    shown_at_setup = np.array([square((11, 11), seed=s) for s in range(10)])
    tiles = np.array([square(seed=10 + s) for s in range(5)])
    colours = treasures.learn(shown_at_setup, tiles, TUNING.treasure_least)
    assert colours is not None
    temples = sorted(geometry.start_temple_cells())
    now = {temples[0]: square(seed=30), temples[1]: square((29, 29), seed=31), temples[2]: square((1, 21), seed=32)}
    patches = np.zeros((CELLS, PX, PX, 3), np.float32)
    for cell, picture in now.items():
        patches[cell] = picture
    seen = cast(Seen, SimpleNamespace(patches=patches, washed=np.zeros(CELLS)))
    setup = tuple(CellClass.TREASURE if c in temples else CellClass.EMPTY_LAND for c in range(CELLS))
    shares = treasures.shown(patches[list(now)], colours)
    assert shares[0] == 0 and 0 < shares[1] < TUNING.treasure_shown <= shares[2]

    def read(known: treasures.TreasureColours | None) -> list[CellClass]:
        references = cast(References, SimpleNamespace(setup=setup, treasure_colours=known))
        cells = [CellReading(CellClass.TILE_RED, 1.0) for _ in range(CELLS)]
        classify._treasures_found(cells, seen, references, {})
        return [cells[c].cls for c in now]

    assert read(colours) == [CellClass.TILE_RED, CellClass.UNKNOWN, CellClass.TREASURE]
    assert read(None) == [CellClass.UNKNOWN] * 3
