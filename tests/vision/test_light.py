"""The light undone pixel by pixel, and the grid cut out of the frame."""

from __future__ import annotations

import cv2
import numpy as np
from conftest import SIZE, calibrated

from vision import geometry, light, rectify
from vision.reading import COLUMNS, ROWS, CellClass
from vision.sim import synthetic
from vision.sim.synthetic import CellTruth, Conditions, Scene


def test_a_glare_spot_is_followed_over_a_hole_in_the_bare_board() -> None:
    px = light._LIGHT_PX
    rows, cols = np.indices((ROWS * px, COLUMNS * px), dtype=np.float32)
    x, y = (cols + 0.5) / px, (rows + 0.5) / px
    glare = 120 * np.exp(-((x - 6.5) ** 2 + (y - 4.5) ** 2) / (2 * 1.1**2)).astype(np.float32)
    weight = np.ones_like(glare)
    weight[3 * px : 6 * px, 5 * px : 8 * px] = 0  # three by three squares of pieces over the heart
    spot = light._glare_spot(glare, weight)
    assert spot is not None
    heart = (slice(4 * px, 5 * px), slice(6 * px, 7 * px))
    assert np.abs(spot[heart] - glare[heart]).max() < 0.1 * glare.max()


def test_no_glare_spot_is_made_up() -> None:
    px = light._LIGHT_PX
    rng = np.random.default_rng(1)
    noise = np.abs(rng.normal(0, 4, (ROWS * px, COLUMNS * px))).astype(np.float32)
    assert light._glare_spot(noise, np.ones_like(noise)) is None


def test_a_glare_spot_over_pieces_is_undone() -> None:
    """The light on the squares under a lamp's reflection, read from the bare board around them."""
    calibration = calibrated("classic")
    assert calibration.references is not None
    scene = synthetic.random_scene(np.random.default_rng(3), pieces=60)
    glare = synthetic.Glare(0.5, 0.5, 0.09, 0.35)
    seen = synthetic.render(scene, size=SIZE, conditions=Conditions(glare=glare), seed=2).frame
    clean = synthetic.render(scene, size=SIZE, seed=2).frame
    top_down, truth = (rectify.rectify(f, calibration.homography).astype(np.float32) for f in (seen, clean))
    lit = light.light(top_down.astype(np.uint8), calibration.references.board)
    undone = light.undo_light(top_down.astype(np.uint8), calibration.references.board, lit).image
    lit_square = light.Light(lit.gain, lit.glare)  # one brightness and one glare per square
    flat = rectify.cells(top_down) - lit_square.glare.reshape(-1, 1, 1, 1)
    flat /= lit_square.gain.reshape(-1, 1, 1, 3)
    glared = rectify.cells(np.abs(top_down - truth)).mean(axis=(1, 2, 3)) > 20
    assert glared.sum() >= 4
    pixel_error = np.abs(rectify.cells(undone) - rectify.cells(truth))[glared].mean()
    square_error = np.abs(flat - rectify.cells(truth))[glared].mean()
    assert pixel_error < 0.5 * square_error


def test_a_small_glare_spot_among_pieces_is_found_from_the_board_beside_it() -> None:
    """A lamp's reflection little more than a square across, its heart on a piece and the squares
    around it crowded: no square beside it is bare board under a light changing linearly across
    it, yet quarters of them are, and show the spot's shape."""
    calibration = calibrated("classic")
    assert calibration.references is not None
    row, col = 5, 9  # the square under the spot's heart
    rivers = geometry.river_cells()
    tiles = ("TILE_RED", "TILE_BLACK", "TILE_GREEN")
    crowd = {
        (r, c): CellTruth(CellClass.TILE_BLUE if r * COLUMNS + c in rivers else CellClass[tiles[(r + c) % 3]])
        for r in range(row - 1, row + 2)
        for c in range(col - 1, col + 2)
        if (r - row, c - col) not in ((0, -1), (-1, 0))  # the squares left of it and above it bare
    }
    scene = Scene.setup().with_cells({r * COLUMNS + c: piece for (r, c), piece in crowd.items()})
    x, y, w = np.linalg.inv(calibration.homography) @ np.array([col + 0.5, row + 0.5, 1.0])
    glare = synthetic.Glare(x / w / SIZE[0], y / w / SIZE[1], 0.05, 0.6)
    seen = synthetic.render(scene, size=SIZE, conditions=Conditions(glare=glare), seed=2).frame
    clean = synthetic.render(scene, size=SIZE, seed=2).frame
    top_down, truth = (rectify.rectify(f, calibration.homography) for f in (seen, clean))
    added = (top_down.astype(np.float32) - truth).min(axis=2)  # the same on every channel, unless clipped
    board = calibration.references.board
    found = light.undo_light(top_down, board, light.light(top_down, board)).glare
    px = rectify.PX_PER_SQUARE
    heart = (slice(row * px, (row + 1) * px), slice(col * px, (col + 1) * px))
    assert added[heart].max() > 100
    assert np.abs(found[heart] - added[heart]).mean() < 0.15 * added[heart].max()


def test_squares_that_may_be_bare_count_only_when_their_pattern_says_so() -> None:
    """Squares agreed bare that changed since (`maybe`) may hold a new piece: the light is measured
    on those still showing their printed pattern, never on one a piece now covers."""
    calibration = calibrated("classic")
    assert calibration.references is not None
    land = [c for c, truth in enumerate(Scene.setup().cells) if truth.cls is CellClass.EMPTY_LAND]
    covered, bare = land[40], land[41]
    scene = Scene.setup().with_cells({covered: CellTruth(CellClass.TILE_RED)})
    frame = synthetic.render(scene, size=SIZE, conditions=Conditions(lamp=0.3, exposure=0.8), seed=2).frame
    top_down = rectify.rectify(frame, calibration.homography)
    known = np.array([truth.cls is CellClass.EMPTY_LAND for truth in Scene.setup().cells])
    maybe = np.zeros_like(known)
    known[[covered, bare]], maybe[[covered, bare]] = False, True
    board = calibration.references.board
    assert not light.light(top_down, board, known).bare[[covered, bare]].any()
    lit = light.light(top_down, board, known, maybe)
    assert lit.bare[bare] and not lit.bare[covered]


def test_the_grid_is_cut_out_as_a_warp_would() -> None:
    calibration = calibrated("classic")
    frame = synthetic.render(Scene.setup(), size=SIZE, seed=4).frame
    px = rectify.PX_PER_SQUARE * rectify.SUPERSAMPLE
    transform = rectify.top_down_transform(calibration.homography, px)
    warped = cv2.warpPerspective(frame, transform, (COLUMNS * px, ROWS * px), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REPLICATE)
    expected = cv2.resize(warped, (COLUMNS * rectify.PX_PER_SQUARE, ROWS * rectify.PX_PER_SQUARE),
                          interpolation=cv2.INTER_AREA)
    assert np.abs(rectify.rectify(frame, calibration.homography).astype(int) - expected).max() <= 2
