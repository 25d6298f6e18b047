"""Which colour a leader shows, for leaders whose colour shows in the middle and for those whose
colour shows only in a rim."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision import leaders
from vision.reading import CellClass
from vision.references import References

PX = 32
PALE = (200, 215, 225)  # BGR: a cream disc
LAND = (120, 160, 175)
COLOURS = {
    CellClass.LEADER_RED: (40, 40, 190),
    CellClass.LEADER_BLUE: (180, 90, 40),
    CellClass.LEADER_GREEN: (60, 150, 50),
    CellClass.LEADER_BLACK: (40, 40, 40),
}


def _figure(colour: tuple[int, int, int], rim_only: bool, rng: np.random.Generator) -> np.ndarray:
    """A leader seen from above on land: a solid disc of its colour, or a pale disc whose colour
    shows only in a band at 0.3–0.42 of a square from the middle; a little sensor noise."""
    patch = np.empty((PX, PX, 3), np.float32)
    patch[:] = LAND
    centre = (PX // 2, PX // 2)
    cv2.circle(patch, centre, round(0.42 * PX), colour, -1)
    if rim_only:
        cv2.circle(patch, centre, round(0.3 * PX), PALE, -1)
    return np.clip(patch + rng.normal(0, 4, patch.shape), 0, 255).astype(np.uint8)


def _bare(rng: np.random.Generator) -> np.ndarray:
    """A square of bare land: a little sensor noise."""
    return np.clip(np.full((PX, PX, 3), LAND) + rng.normal(0, 4, (PX, PX, 3)), 0, 255).astype(np.uint8)


def _references(rim_only: bool, colours: dict[CellClass, tuple[int, int, int]] = COLOURS) -> References:
    """References holding three examples of each leader colour (what the leader rings read) and
    three of bare land."""
    rng = np.random.default_rng(1)
    classes = sorted([cls for cls in colours for _ in range(3)] + [CellClass.EMPTY_LAND] * 3, key=lambda c: c.value)
    looks = np.stack([_figure(colours[cls], rim_only, rng) if cls in colours else _bare(rng) for cls in classes])
    return _calibration(classes, looks)


def _calibration(classes: list[CellClass], looks: np.ndarray) -> References:
    """References holding `looks`, pictures of `classes` (sorted)."""
    k = len(classes)
    return References(board=np.zeros(looks.shape[1:], np.uint8), prototypes=np.zeros((k, 4)), classes=tuple(classes),
                      dynasties=(None,) * k, monuments=(None,) * k, scale=np.ones(4), setup=(), looks=looks)


@pytest.mark.parametrize("rim_only", [False, True])
def test_a_leader_shows_the_colour_of_its_examples_in_the_ring_that_tells_them_apart(rim_only: bool) -> None:
    references = _references(rim_only)
    kind = references.leader_colours
    # A pale disc's colour shows only in its rim; a solid figure's anywhere but the corners.
    assert kind.rings == (2,) if rim_only else 3 not in kind.rings
    assert set(kind.each) == set(COLOURS)
    assert all(leaders.told_apart(a, b, kind) for a in COLOURS for b in COLOURS if a is not b)
    rng = np.random.default_rng(2)
    for cls, colour in COLOURS.items():
        figure = _figure(colour, rim_only, rng).astype(np.float32)
        seen = leaders.colour_shown(figure, kind)
        assert seen is not None
        assert seen[0] is cls
        assert seen[1] == 1.0, (cls, seen)
        in_ring = leaders.shown(figure[None], kind)[0]
        white = np.ones(3, np.float32)
        assert leaders.colour_agrees(cls, in_ring, 1.0, white, kind, 1.0)
        others = [other for other in COLOURS if other is not cls]
        assert not any(leaders.colour_agrees(other, in_ring, 1.0, white, kind, 1.0) for other in others)


def test_a_colour_between_two_leaders_colours_is_named_without_confidence() -> None:
    references = _references(rim_only=True)
    (rb, rg, rr), (kb, kg, kr) = COLOURS[CellClass.LEADER_RED], COLOURS[CellClass.LEADER_BLACK]
    between = ((rb + kb) // 2, (rg + kg) // 2, (rr + kr) // 2)
    seen = leaders.colour_shown(_figure(between, True, np.random.default_rng(3)).astype(np.float32),
                                 references.leader_colours)
    assert seen is not None
    assert seen[0] in (CellClass.LEADER_RED, CellClass.LEADER_BLACK)
    assert seen[1] < 0.5


def test_a_calibration_that_showed_one_leader_colour_names_none() -> None:
    references = _references(rim_only=True, colours={CellClass.LEADER_RED: COLOURS[CellClass.LEADER_RED]})
    assert references.leader_colours.rings == (0,)
    figure = _figure(COLOURS[CellClass.LEADER_RED], True, np.random.default_rng(4)).astype(np.float32)
    assert leaders.colour_shown(figure, references.leader_colours) is None


def _on_grass(colour: tuple[int, int, int] | None, rng: np.random.Generator) -> np.ndarray:
    """A square (16 px, as squares are read) of land printed with rows of grass every third pixel,
    a little greener than the land (41 grey levels away), bare or under a pale disc of 0.34 square
    whose colour shows only in a rim a pixel wide (never-tuned-on game 371's)."""
    px = 16
    patch = np.empty((px, px, 3), np.float32)
    patch[:] = LAND
    patch[(np.arange(px) + rng.integers(3)) % 3 == 0] = (100, 168, 140)
    if colour is not None:
        cv2.circle(patch, (px // 2, px // 2), round(0.34 * px), colour, -1)
        cv2.circle(patch, (px // 2, px // 2), round(0.28 * px), PALE, -1)
    return np.clip(patch + rng.normal(0, 4, patch.shape), 0, 255).astype(np.uint8)


def test_a_boards_own_print_never_counts_as_a_leaders_rim() -> None:
    """A pixel about a leader's centre counts as the piece's when further from the board beside it
    than the calibration's bare squares lie from theirs: on a board printed with grass, the grass
    in the rim ring is the board's, and a rim a pixel wide is named its colour surely (counting any
    pixel 35 grey levels from the board as the piece's left 36 of 200 reads unsure)."""
    rng = np.random.default_rng(1)
    classes = sorted([cls for cls in COLOURS for _ in range(3)] + [CellClass.EMPTY_LAND] * 8, key=lambda c: c.value)
    references = _calibration(classes, np.stack([_on_grass(COLOURS.get(cls), rng) for cls in classes]))
    named = [(cls, leaders.colour_shown(_on_grass(colour, rng).astype(np.float32), references.leader_rims))
             for cls, colour in COLOURS.items() for _ in range(50)]
    assert [seen for cls, seen in named if seen != (cls, 1.0)] == []


def test_a_calibration_that_showed_no_bare_square_reads_a_leaders_rings_whole() -> None:
    """No bare square seen (a damaged or partial calibration): nothing tells the board's own print,
    so no pixel is told from the board and the leader is read in its rings, never a crash."""
    rng = np.random.default_rng(5)
    classes = sorted([cls for cls in COLOURS for _ in range(3)], key=lambda c: c.value)
    references = _calibration(classes, np.stack([_figure(COLOURS[cls], True, rng) for cls in classes]))
    assert references.unlike_board == float("inf")
    figure = _figure(COLOURS[CellClass.LEADER_BLUE], True, rng).astype(np.float32)
    seen = leaders.colour_shown(figure, references.leader_rims)
    assert seen is not None and seen[0] is CellClass.LEADER_BLUE


def test_nearer_black_a_colour_stands_without_much_to_spare_only_if_it_is_that_colour_dimmed() -> None:
    """Pale tiles with a coloured frame: the black one shows much colour, its pale face's. A
    colour nearer the black tile's than the green one's is the green tile in a shadow only where
    it is green's own steps made smaller (a shadow scales them all alike), or where the looks are
    sure with much to spare and it is not surely nearer black's; a colour unlike green's, nearer
    black's, is not green (game 493's black tile read green by both looks, 0.54 and 0.66,
    silently; never-tuned-on game 1231's, green to the rings at 1.0, 4.5 times nearer black's)."""
    pale = {CellClass.TILE_GREEN: (82.0, 118.0, 125.0), CellClass.TILE_BLACK: (102.0, 131.0, 171.0),
            CellClass.TILE_RED: (88.0, 102.0, 167.0), CellClass.TILE_BLUE: (119.0, 118.0, 140.0)}
    kind = leaders.Colours((0,), {cls: np.array([bgr]) for cls, bgr in pale.items()}, 2.0)
    white = np.ones(3)
    blackish = np.array([[95.0, 122.0, 165.0]])  # surely nearer black's steps, not green's dimmed
    assert not leaders.colour_agrees(CellClass.TILE_GREEN, blackish, 1.0, white, kind, 0.66)
    assert not leaders.colour_agrees(CellClass.TILE_GREEN, blackish, 1.0, white, kind, 1.0)
    between = np.array([[89.5, 121.0, 147.0]])  # nearer black's, 1.4 times: not surely
    assert leaders.colour_agrees(CellClass.TILE_GREEN, between, 1.0, white, kind, 1.0)
    assert leaders.colour_agrees(CellClass.TILE_BLACK, blackish, 1.0, white, kind, 0.66)
    solid = leaders.Colours((0,), {CellClass.TILE_GREEN: np.array([[60.0, 150.0, 50.0]]),
                                   CellClass.TILE_BLACK: np.array([[40.0, 40.0, 42.0]])}, 2.0)
    shadowed = np.array([[15.0, 37.5, 12.5]])  # a solid green tile at a quarter of the light: nearer black's
    assert leaders.colour_agrees(CellClass.TILE_GREEN, shadowed, 1.0, white, solid, 0.66)
