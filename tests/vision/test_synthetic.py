"""The synthetic camera on real rendered frames: geometry, pieces where they belong, ground truth."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision import aruco, geometry
from vision.reading import COLUMNS, CellClass
from vision.synthetic import CameraPose, CellTruth, Conditions, Scene, render, top_down

POSES = {
    "straight down": CameraPose(),
    "tilted and turned": CameraPose(tilt_deg=18, yaw_deg=-7, offset_mm=(15, -10)),
    "low and wide": CameraPose(height_mm=520, hfov_deg=66),
}


def _gray(frame: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)


def _patch(rendered, cell: int) -> np.ndarray:
    """The middle of a square in the frame (half a square wide)."""
    x, y = geometry.cell_centre_mm(cell)
    quarter = geometry.SQUARE_MM / 4
    corners = np.array([[[x - quarter, y - quarter]], [[x + quarter, y + quarter]]], np.float64)
    (x0, y0), (x1, y1) = (
        cv2.perspectiveTransform(corners, rendered.board_to_image).reshape(2, 2).round().astype(int)
    )
    return rendered.frame[y0:y1, x0:x1]


def test_setup_scene_matches_the_printed_board():
    scene = Scene.setup("standard")
    classes = [t.cls for t in scene.cells]
    assert classes.count(CellClass.TREASURE) == 10
    assert classes.count(CellClass.EMPTY_RIVER) == 41
    assert scene.cells[10].cls is CellClass.TREASURE  # K1
    assert scene.cells[4].cls is CellClass.EMPTY_RIVER  # E1
    assert len(scene.corners) == 4
    alternate = Scene.setup("alternate")
    assert alternate.river != scene.river


@pytest.mark.parametrize(
    "bad",
    [
        lambda s: Scene(s.cells[:-1], s.river),
        lambda s: s.with_cells({0: CellTruth(CellClass.UNKNOWN)}),
        lambda s: s.with_cells({0: CellTruth(CellClass.LEADER_RED, dynasty="dragon")}),
        lambda s: s.with_cells({0: CellTruth(CellClass.MONUMENT, monument=("red", "blue"))}),
    ],
)
def test_impossible_scenes_are_refused(bad):
    with pytest.raises(ValueError):
        bad(Scene.setup())


@pytest.mark.parametrize("pose", POSES.values(), ids=POSES.keys())
@pytest.mark.parametrize("size", [(2028, 1520), (1640, 1232)])
def test_markers_are_found_where_the_render_says(pose, size):
    rendered = render(Scene.setup(), pose=pose, size=size)
    found = {m.id: m.corners for m in aruco.detect(_gray(rendered.frame))}
    assert sorted(found) == [0, 1, 2, 3]
    for marker_id, corners in found.items():
        assert np.abs(corners - rendered.marker_corners[marker_id]).max() < 1.5


@pytest.mark.parametrize("pose", POSES.values(), ids=POSES.keys())
def test_grid_corners_agree_with_the_detected_markers(pose):
    rendered = render(Scene.setup(), pose=pose)
    found = aruco.detect(_gray(rendered.frame))
    image = np.concatenate([m.corners for m in found])
    board = np.concatenate([geometry.marker_corners_mm(m.id) for m in found])
    homography, _ = cv2.findHomography(board, image)
    grid_mm = geometry.grid_corners_mm().reshape(-1, 1, 2).astype(np.float64)
    grid = cv2.perspectiveTransform(grid_mm, homography)
    assert np.abs(grid.reshape(4, 2) - rendered.grid_corners).max() < 2.0


def test_a_bumped_board_moves_grid_and_markers_together():
    still = render(Scene.setup())
    bumped = render(Scene.setup(), conditions=Conditions(board_shift_mm=(12, -8), board_rotation_deg=3))
    moved = np.linalg.norm(bumped.grid_corners - still.grid_corners, axis=1)
    assert moved.min() > 10  # pixels: a real bump, not rounding
    found = {m.id: m.corners for m in aruco.detect(_gray(bumped.frame))}
    assert sorted(found) == [0, 1, 2, 3]
    for marker_id, corners in found.items():
        assert np.abs(corners - bumped.marker_corners[marker_id]).max() < 1.5


def test_pieces_appear_on_their_squares():
    cell = 5 * COLUMNS + 7  # H6, empty land at set-up
    empty = render(Scene.setup())
    red = render(Scene.setup().with_cells({cell: CellTruth(CellClass.TILE_RED)}))
    b, g, r = _patch(red, cell).reshape(-1, 3).mean(axis=0)
    assert r > g + 60 and r > b + 60
    assert not np.array_equal(_patch(red, cell), _patch(empty, cell))
    assert np.array_equal(_patch(red, cell + 2), _patch(empty, cell + 2))


def test_grid_corners_bound_the_board_in_the_frame():
    rendered = render(Scene.setup())
    tl, tr, br, bl = rendered.grid_corners
    assert tl[0] < tr[0] and bl[0] < br[0] and tl[1] < bl[1] and tr[1] < br[1]
    h, w = rendered.frame.shape[:2]
    assert rendered.frame.dtype == np.uint8 and rendered.frame.shape == (h, w, 3) == (1520, 2028, 3)
    width = tr[0] - tl[0]
    assert 0.6 * w < width < 0.95 * w  # the default pose fills most of the frame


def test_renders_are_reproducible():
    scene = Scene.setup()
    assert np.array_equal(render(scene, seed=3).frame, render(scene, seed=3).frame)


@pytest.mark.parametrize("style", ["classic", "modern"])
def test_top_down_is_sized_by_squares(style):
    image = top_down(Scene.setup(), style, 32)
    margin = round(geometry.MARGIN_MM / geometry.SQUARE_MM * 32)
    assert image.shape == (11 * 32 + 2 * margin, 16 * 32 + 2 * margin, 3)
    assert image.flags.writeable  # a private copy, never the cached art
