"""The second artist: printings nobody tuned on, filmed through the same camera with the same truth."""

from __future__ import annotations

import itertools

import cv2
import numpy as np
import pytest
from conftest import PIECES

from vision import calibration as calib
from vision import geometry
from vision.reading import COLUMNS, CellClass
from vision.sim import unseen, unseen_art
from vision.sim.camera import SyntheticCamera
from vision.sim.perturbations import Conditions
from vision.sim.synthetic import CellTruth, Scene, render

SIZE = (1014, 760)
PRINTINGS = (0, 1, 2, 3)
LAND, RIVER = 6 * COLUMNS + 9, 3 * COLUMNS + 1  # J7 and B4 on the standard board
VIEW = (240.0, 165.0, 650.0)  # a camera straight over the grid's middle, board millimetres


def _square(art: np.ndarray, margin_mm: float, cell: int, s: int) -> np.ndarray:
    """The middle three quarters of a square of top-down art."""
    row, col = divmod(cell, COLUMNS)
    o = margin_mm * s / geometry.SQUARE_MM
    x0, y0 = round(o + (col + 0.125) * s), round(o + (row + 0.125) * s)
    return art[y0 : y0 + 3 * s // 4, x0 : x0 + 3 * s // 4].astype(np.float32)


@pytest.mark.parametrize("seed", PRINTINGS)
def test_every_kind_of_piece_looks_different_from_bare_board_and_from_each_other(seed: int) -> None:
    printing = unseen.random_printing(seed)
    s = 48
    empty = printing.board_art(Scene.setup(), s, VIEW)
    looks = {"empty land": _square(empty.colour, empty.margin_mm, LAND, s)}
    for name, truth in PIECES.items():
        if name == "blue tile":  # a farm stands on the river: below
            continue
        art = printing.board_art(Scene.setup().with_cells({LAND: truth}), s, VIEW)
        looks[name] = _square(art.colour, art.margin_mm, LAND, s)
    block = (LAND, LAND + 1, LAND + COLUMNS, LAND + COLUMNS + 1)
    art = printing.board_art(Scene.setup().with_cells(
        {c: CellTruth(CellClass.MONUMENT, monument=("red", "blue")) for c in block}), s, VIEW)
    looks["monument"] = _square(art.colour, art.margin_mm, LAND, s)
    names = list(looks)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            differing = float(np.mean(np.abs(looks[a] - looks[b]).max(axis=2) > 30))
            assert differing > 0.03, f"{a} and {b} look alike in {printing.describe()}"
    water = printing.board_art(Scene.setup(), s, VIEW)
    farm = printing.board_art(Scene.setup().with_cells({RIVER: CellTruth(CellClass.TILE_BLUE)}), s, VIEW)
    change = np.abs(_square(water.colour, water.margin_mm, RIVER, s) - _square(farm.colour, farm.margin_mm, RIVER, s))
    assert float(np.mean(change.max(axis=2) > 30)) > 0.2, "a blue tile on the river must show"


@pytest.mark.parametrize("seed", PRINTINGS)
def test_the_river_squares_are_the_printed_boards_river_squares(seed: int) -> None:
    """Printed as blue squares or drawn across the land, the river runs through the middle of every
    river square and through no other square."""
    look = unseen.random_printing(seed).board
    s = 32
    scene = Scene.setup()
    colour, _ = unseen_art.printed_board(look, unseen.random_printing(seed).table, scene.river, scene.corners, s)
    water, land = np.array(look.water, np.float32), np.array(look.land, np.float32)
    o = unseen_art.pad_mm(look) * s / geometry.SQUARE_MM
    for cell in range(len(scene.cells)):
        row, col = divmod(cell, COLUMNS)
        y, x = round(o + (row + 0.5) * s), round(o + (col + 0.5) * s)
        middle = colour[y - 1 : y + 2, x - 1 : x + 2].reshape(-1, 3).mean(axis=0)
        wet = np.linalg.norm(middle - water) < np.linalg.norm(middle - land)
        assert wet == (cell in scene.river), f"square {cell} of {look.river.value}"


def test_printings_are_the_same_for_a_seed_and_differ_between_seeds() -> None:
    a, b = unseen.random_printing(5), unseen.random_printing(5)
    assert a == b
    assert unseen.random_printing(6) != a
    pose = unseen.random_pose(np.random.default_rng(1), a, SIZE)
    first = render(Scene.setup(), style=a, size=SIZE, pose=pose, seed=3).frame
    again = render(Scene.setup(), style=b, size=SIZE, pose=pose, seed=3).frame
    other = render(Scene.setup(), style=unseen.random_printing(6), size=SIZE, pose=pose, seed=3).frame
    assert np.array_equal(first, again)
    assert float(np.mean(np.abs(first.astype(int) - other.astype(int)))) > 10
    described = {unseen.random_printing(seed).describe() for seed in range(12)}
    assert len(described) == 12


def test_pieces_put_down_again_lie_differently() -> None:
    printing = unseen.random_printing(2)
    scene = Scene.setup().with_cells({LAND: CellTruth(CellClass.TILE_RED), LAND + 2: CellTruth(CellClass.LEADER_RED)})
    once = printing.board_art(scene, 48, VIEW).colour
    same = printing.put_down(0).board_art(scene, 48, VIEW).colour
    again = printing.put_down(1).board_art(scene, 48, VIEW).colour
    assert np.array_equal(once, same)
    assert not np.array_equal(once, again)


@pytest.mark.parametrize("seed", PRINTINGS)
def test_markers_and_grid_land_where_the_truth_says(seed: int) -> None:
    """At the Pi camera's still size (at half of it, a camera hung high makes the markers' cells so
    small that the corner refinement wanders by a few pixels)."""
    printing = unseen.random_printing(seed)
    rng = np.random.default_rng(seed)
    size = (2028, 1520)
    pose = unseen.random_pose(rng, printing, size)
    shot = render(Scene.setup(), style=printing, size=size, pose=pose, conditions=unseen.evening(rng), seed=seed)
    found = calib.find_markers(shot.frame)
    assert set(found) == set(geometry.MARKER_IDS), printing.describe()
    for marker_id, corners in found.items():
        assert np.abs(corners - shot.marker_corners[marker_id]).max() < 1.5
    squares = np.array([[0, 0], [COLUMNS, 11], [COLUMNS, 0], [0, 11]], np.float64)
    grid = calib.to_image(calib.homography_from_markers(found), squares)
    assert np.abs(grid - shot.grid_corners[[0, 2, 1, 3]]).max() < 1.5


@pytest.mark.parametrize("seed", PRINTINGS)
def test_a_piece_appears_on_its_square_in_the_frame(seed: int) -> None:
    printing = unseen.random_printing(seed)
    pose = unseen.random_pose(np.random.default_rng(seed), printing, SIZE)
    cell = 4 * COLUMNS + 11  # L5
    empty = render(Scene.setup(), style=printing, size=SIZE, pose=pose).frame
    shot = render(Scene.setup().with_cells({cell: CellTruth(CellClass.UNIFICATION)}), style=printing, size=SIZE,
                  pose=pose)
    changed = np.abs(shot.frame.astype(int) - empty.astype(int)).max(axis=2) > 40
    ys, xs = np.nonzero(changed)
    centre = cv2.perspectiveTransform(np.array([[[xs.mean(), ys.mean()]]]), np.linalg.inv(shot.board_to_image))
    x, y = centre.ravel() / geometry.SQUARE_MM
    assert (int(y), int(x)) == divmod(cell, COLUMNS)


def test_a_narrow_border_leaves_the_marker_cards_overhanging_onto_the_table() -> None:
    printing = next(p for p in map(unseen.random_printing, range(100)) if p.board.border_mm < 8)
    s = 32
    scene = Scene.setup()
    _, cover = unseen_art.printed_board(printing.board, printing.table, scene.river, scene.corners, s)
    per_mm = s / geometry.SQUARE_MM
    o = unseen_art.pad_mm(printing.board)
    outer = geometry.marker_centre_mm(0) - geometry.MARKER_CARD_MM / 2 + 2  # the card's outer corner
    x, y = ((outer + o) * per_mm).astype(int)
    assert outer[0] < -printing.board.border_mm  # beyond the board's edge ...
    assert cover[y, x] == 255  # ... the card still lies there
    beyond = round((o - printing.board.border_mm - 8) * per_mm)
    middle = round((o + geometry.GRID_HEIGHT_MM / 2) * per_mm)
    assert cover[middle, beyond] < 200  # the table, at most under the board's shadow


def test_the_synthetic_camera_films_a_printing() -> None:
    printing = unseen.random_printing(4)
    pose = unseen.random_pose(np.random.default_rng(4), printing, SIZE)
    camera = SyntheticCamera(style=printing, size=SIZE, pose=pose, conditions=Conditions(noise_sigma=2.0), seed=9)
    camera.start()
    frame = camera.capture()
    assert frame.shape == (SIZE[1], SIZE[0], 3)
    assert set(calib.find_markers(frame)) == set(geometry.MARKER_IDS)


def test_table_effects_reach_further_than_the_developed_ones() -> None:
    rng = np.random.default_rng(0)
    drawn = [unseen.random_conditions(rng) for _ in range(300)]
    radii = [c.glare.radius for c in drawn if c.glare is not None]
    assert max(radii) > 0.15  # a glare spot several squares across (a square is about 4 % of the frame)
    assert max(max((s.darkness for s in c.shadows), default=0) for c in drawn) > 0.5
    assert all(not c.hands for c in drawn)
    assert unseen.random_conditions(np.random.default_rng(3)) == unseen.random_conditions(np.random.default_rng(3))


def test_the_evening_drifts_and_a_lamp_is_switched_on_and_off() -> None:
    rng = np.random.default_rng(1)
    light = unseen.evening(rng)
    assert light.glare is None
    seen = []
    for _ in range(400):
        light = unseen.drift(light, rng)
        seen.append(light)
        assert 0.6 <= light.exposure <= 1.4
    lamp = [c.glare is not None for c in seen]
    assert any(lamp) and not all(lamp)
    switched = sum(a != b for a, b in itertools.pairwise(lamp))
    assert switched >= 2
    assert len({c.glare for c in seen if c.glare is not None}) <= switched  # a glare stays where its lamp is


def test_every_design_turns_up_about_as_often() -> None:
    """Printings are redrawn until their pieces can be told apart; that may not favour a design."""
    printings = [unseen.random_printing(seed) for seed in range(120)]
    for designs in ({p.pieces.tile for p in printings}, {p.pieces.leader for p in printings},
                    {p.pieces.treasure for p in printings}, {p.pieces.monument for p in printings},
                    {p.board.river for p in printings}, {p.board.texture for p in printings},
                    {p.table.surface for p in printings}):
        assert len(designs) == len(type(next(iter(designs))))
    tiles = [p.pieces.tile for p in printings]
    assert min(tiles.count(design) for design in set(tiles)) >= 20  # of 120, 30 expected each
    assert {p.board.border_mm < 10 for p in printings} == {True, False}
