"""The synthetic camera on real rendered frames: geometry, pieces where they belong, ground truth."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from conftest import PIECES

from vision import aruco, geometry
from vision.reading import COLUMNS, CellClass, block_cells
from vision.sim.synthetic import (
    CameraPose,
    CellTruth,
    Conditions,
    Glare,
    Hand,
    Scene,
    Shadow,
    hand_passing,
    random_conditions,
    random_pose,
    random_scene,
    render,
    render_sequence,
    top_down,
)

POSES = {
    "straight down": CameraPose(),
    "tilted and turned": CameraPose(tilt_deg=18, yaw_deg=-7, offset_mm=(15, -10)),
    "low and wide": CameraPose(height_mm=520, hfov_deg=66),
}


def _gray(frame: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)


def _our_markers(frame: np.ndarray) -> list[aruco.Marker]:
    """The board's markers only: OpenCV 4.6 also decodes a stray id in the border's lettering at
    some poses, which a reader must ignore just the same."""
    return [m for m in aruco.detect(_gray(frame)) if m.id in geometry.MARKER_IDS]


def _patch(rendered, cell: int) -> np.ndarray:
    """The middle of a square in the frame (half a square wide)."""
    x, y = geometry.cell_centre_mm(cell)
    quarter = geometry.SQUARE_MM / 4
    corners = np.array([[[x - quarter, y - quarter]], [[x + quarter, y + quarter]]], np.float64)
    (x0, y0), (x1, y1) = cv2.perspectiveTransform(corners, rendered.board_to_image).reshape(2, 2).round().astype(int)
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
    found = {m.id: m.corners for m in _our_markers(rendered.frame)}
    assert sorted(found) == [0, 1, 2, 3]
    for marker_id, corners in found.items():
        assert np.abs(corners - rendered.marker_corners[marker_id]).max() < 1.5


@pytest.mark.parametrize("pose", POSES.values(), ids=POSES.keys())
def test_grid_corners_agree_with_the_detected_markers(pose):
    rendered = render(Scene.setup(), pose=pose)
    found = _our_markers(rendered.frame)
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
    found = {m.id: m.corners for m in _our_markers(bumped.frame)}
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


# --- Perturbations. -----------------------------------------------------------------------------

SMALL = (812, 608)  # a quicker frame for checks that do not depend on resolution

PERTURBATIONS = {
    "lens blur": Conditions(blur_sigma=1.5),
    "sensor noise": Conditions(noise_sigma=5),
    "JPEG": Conditions(jpeg_quality=60),
    "uneven light": Conditions(light_falloff=0.4, light_angle_deg=30),
    "vignette": Conditions(vignette=0.3),
    "warm lamp": Conditions(lamp=0.8),
    "cool lamp": Conditions(lamp=-0.8),
    "glare": Conditions(glare=Glare(0.4, 0.5)),
    "shadow": Conditions(shadows=(Shadow(0.5, 0.5),)),
    "hand": Conditions(hands=(Hand(),)),
    "bump": Conditions(board_shift_mm=(10, 5), board_rotation_deg=2),
    "overexposed": Conditions(exposure=1.6),
}


@pytest.mark.parametrize("conditions", PERTURBATIONS.values(), ids=PERTURBATIONS.keys())
def test_each_perturbation_changes_the_frame(conditions):
    clean = render(Scene.setup(), size=SMALL)
    changed = render(Scene.setup(), size=SMALL, conditions=conditions)
    assert changed.frame.shape == clean.frame.shape and changed.frame.dtype == np.uint8
    difference = np.abs(changed.frame.astype(int) - clean.frame.astype(int))
    assert difference.mean() > 0.5


def _mean_bgr(frame: np.ndarray) -> np.ndarray:
    return frame.reshape(-1, 3).mean(axis=0)


def test_lamps_tint_the_picture():
    b0, _, r0 = _mean_bgr(render(Scene.setup(), size=SMALL).frame)
    b_warm, _, r_warm = _mean_bgr(render(Scene.setup(), size=SMALL, conditions=Conditions(lamp=0.8)).frame)
    b_cool, _, r_cool = _mean_bgr(render(Scene.setup(), size=SMALL, conditions=Conditions(lamp=-0.8)).frame)
    assert r_warm / b_warm > 1.2 * r0 / b0
    assert r_cool / b_cool < 0.85 * r0 / b0


def test_glare_is_brightest_at_its_centre():
    frame = render(Scene.setup(), size=SMALL, conditions=Conditions(glare=Glare(0.3, 0.6, 0.06, 0.8))).frame
    gray = cv2.GaussianBlur(_gray(frame), (0, 0), 8)
    y, x = np.unravel_index(np.argmax(gray), gray.shape)
    assert abs(x / SMALL[0] - 0.3) < 0.05 and abs(y / SMALL[1] - 0.6) < 0.05


def test_uneven_light_darkens_the_far_side():
    lit_from_left = Conditions(light_falloff=0.5, light_angle_deg=0)
    frame = _gray(render(Scene.setup(), size=SMALL, conditions=lit_from_left).frame).astype(float)
    clean = _gray(render(Scene.setup(), size=SMALL).frame).astype(float)
    ratio = frame / np.maximum(clean, 1)
    assert ratio[:, : SMALL[0] // 4].mean() > ratio[:, -SMALL[0] // 4 :].mean() + 0.25


def test_hand_mask_covers_the_hand_and_nothing_else():
    clean = render(Scene.setup(), size=SMALL)
    assert not clean.hand_mask.any()
    hand = Hand(edge="bottom", along=0.5, reach=0.5, sleeve=None, skin=(90, 140, 210))
    held = render(Scene.setup(), size=SMALL, conditions=Conditions(hands=(hand,)))
    mask = held.hand_mask
    assert mask.shape == SMALL[::-1] and mask.dtype == bool
    assert 0.02 < mask.mean() < 0.2
    rows = np.flatnonzero(mask.any(axis=1))
    assert rows.max() == SMALL[1] - 1  # the arm comes in from the bottom edge ...
    assert abs(rows.min() / SMALL[1] - 0.5) < 0.05  # ... and the fingertips reach half-way up
    skin = held.frame[mask].astype(int)
    assert (skin[:, 2] > skin[:, 0]).mean() > 0.95  # skin-coloured wherever the mask says
    # The top third, far from the hand and its shadow, is untouched.
    top = slice(0, SMALL[1] // 3)
    assert np.array_equal(held.frame[top], clean.frame[top])


def test_hands_reaching_further_cover_more():
    areas = [
        render(Scene.setup(), size=SMALL, conditions=Conditions(hands=(Hand(reach=r),))).hand_mask.mean()
        for r in (0.1, 0.3, 0.6)
    ]
    assert areas[0] < areas[1] < areas[2]


def test_seeded_noise_is_reproducible_and_differs_between_seeds():
    noisy = Conditions(noise_sigma=4, jpeg_quality=85)
    a = render(Scene.setup(), size=SMALL, conditions=noisy, seed=1).frame
    b = render(Scene.setup(), size=SMALL, conditions=noisy, seed=1).frame
    c = render(Scene.setup(), size=SMALL, conditions=noisy, seed=2).frame
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)


def test_random_conditions_keep_the_markers_readable():
    rng = np.random.default_rng(5)
    for i in range(6):
        conditions = random_conditions(rng)
        pose = random_pose(rng)
        rendered = render(Scene.setup(), pose=pose, conditions=conditions, seed=i, style=("classic", "modern")[i % 2])
        found = {m.id for m in _our_markers(rendered.frame)}
        assert found == {0, 1, 2, 3}, conditions.notes


def test_random_conditions_are_reproducible_and_varied():
    first = [random_conditions(np.random.default_rng(9), hands=True) for _ in range(2)]
    assert first[0] == first[1]
    drawn = [random_conditions(np.random.default_rng(s), hands=True) for s in range(30)]
    assert len({c.notes for c in drawn}) > 10
    assert all(c.hands for c in drawn)
    assert not any(random_conditions(np.random.default_rng(s)).hands for s in range(30))


def test_a_hand_passing_places_a_piece():
    before = Scene.setup()
    after = before.with_cells({40: CellTruth(CellClass.TILE_BLUE)})
    shots = hand_passing(before, after, rng=np.random.default_rng(3), still=3, moving=7)
    assert len(shots) == 13
    assert [s for s, _ in shots[:3]] == [before] * 3 and [s for s, _ in shots[-3:]] == [after] * 3
    frames = render_sequence(shots, size=SMALL)
    areas = [f.hand_mask.mean() for f in frames]
    assert areas[:3] == [0, 0, 0] and areas[-3:] == [0, 0, 0]
    peak = int(np.argmax(areas))
    assert 3 < peak < 9
    assert all(a > 0 for a in areas[3:10])
    assert areas[3] < areas[peak] > areas[9]


# --- Piece styles and board art. -------------------------------------------------------------------

PPS = 48
LAND_CELL = 5 * COLUMNS + 7  # H6


def _square(image: np.ndarray, cell: int, pps: int = PPS, inset: int = 0) -> np.ndarray:
    m = round(geometry.MARGIN_MM / geometry.SQUARE_MM * pps)
    row, col = divmod(cell, COLUMNS)
    y, x = m + row * pps, m + col * pps
    return image[y + inset : y + pps - inset, x + inset : x + pps - inset].astype(int)


@pytest.mark.parametrize("style", ["classic", "modern"])
def test_every_piece_looks_different_from_every_other(style):
    looks = {"empty land": _square(top_down(Scene.setup(), style, PPS), LAND_CELL)}
    for name, truth in PIECES.items():
        looks[name] = _square(top_down(Scene.setup().with_cells({LAND_CELL: truth}), style, PPS), LAND_CELL)
    names = list(looks)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            # Dynasty symbols are small: two leaders of one colour differ on only a few % of the square.
            differing = (np.abs(looks[a] - looks[b]).sum(axis=2) > 60).mean()
            assert differing > 0.02, f"{a} and {b} look alike in {style}"


def _saturation(bgr: np.ndarray) -> float:
    return float(cv2.cvtColor(bgr.astype(np.uint8), cv2.COLOR_BGR2HSV)[..., 1].mean())


def test_modern_tiles_are_mostly_grey_and_classic_ones_solid():
    for colour in ("red", "blue", "green"):
        scene = Scene.setup().with_cells({LAND_CELL: CellTruth(CellClass[f"TILE_{colour.upper()}"])})
        classic = _saturation(_square(top_down(scene, "classic", PPS), LAND_CELL))
        modern = _saturation(_square(top_down(scene, "modern", PPS), LAND_CELL))
        assert modern < 0.6 * classic, colour


def test_a_monument_covers_its_two_by_two():
    block = block_cells(LAND_CELL)
    scene = Scene.setup().with_cells({c: CellTruth(CellClass.MONUMENT, monument=("red", "blue")) for c in block})
    with_monument = top_down(scene, "classic", PPS)
    empty = top_down(Scene.setup(), "classic", PPS)
    for cell in block:
        assert np.abs(_square(with_monument, cell) - _square(empty, cell)).mean() > 30
    assert np.array_equal(_square(with_monument, LAND_CELL + 2), _square(empty, LAND_CELL + 2))


@pytest.mark.parametrize("style", ["classic", "modern"])
def test_the_board_is_printed_not_flat(style):
    image = top_down(Scene.setup(), style, 96)
    land, river = _square(image, LAND_CELL, 96, inset=8), _square(image, 4, 96, inset=8)  # H6 and E1
    for inner in (land, river):
        assert inner.std(axis=(0, 1)).mean() > 4  # texture, not a flat colour
    land, river = land.mean(axis=(0, 1)), river.mean(axis=(0, 1))
    assert river[0] > land[0] + 30  # river squares are bluer


def test_jitter_moves_pieces_but_keeps_them_on_their_squares():
    scene = Scene.setup().with_cells({LAND_CELL: CellTruth(CellClass.TILE_BLACK)})
    straight = top_down(scene, "classic", PPS)
    moved = top_down(scene, "classic", PPS, jitter=0.08, seed=4)
    assert not np.array_equal(_square(straight, LAND_CELL), _square(moved, LAND_CELL))
    assert np.array_equal(moved, top_down(scene, "classic", PPS, jitter=0.08, seed=4))
    dark = (_square(moved, LAND_CELL).mean(axis=2) < 80).mean()
    assert dark > 0.85 * (_square(straight, LAND_CELL).mean(axis=2) < 80).mean()  # still on its own square


def test_with_a_placement_pieces_stay_put_from_picture_to_picture_unless_moved():
    """Hands put each piece down once: the next picture (another seed: other noise, another
    hand's piece elsewhere) shows it where it was; `poses` nudges or turns one on purpose."""
    other = next(c for c in range(COLUMNS * 3, COLUMNS * 11) if c != LAND_CELL and Scene.setup().cells[c].cls
                 is CellClass.EMPTY_LAND)
    scene = Scene.setup().with_cells({LAND_CELL: CellTruth(CellClass.TILE_BLACK)})
    later = scene.with_cells({other: CellTruth(CellClass.LEADER_RED)})
    first = top_down(scene, "classic", PPS, jitter=0.08, seed=1, placement=3)
    second = top_down(later, "classic", PPS, jitter=0.08, seed=2, placement=3)
    assert np.array_equal(_square(first, LAND_CELL), _square(second, LAND_CELL))
    afresh = top_down(later, "classic", PPS, jitter=0.08, seed=2)
    assert not np.array_equal(_square(first, LAND_CELL), _square(afresh, LAND_CELL))
    nudged = top_down(scene, "classic", PPS, jitter=0.08, seed=1, placement=3, poses=((LAND_CELL, 0.1, 0, 45),))
    assert not np.array_equal(_square(first, LAND_CELL), _square(nudged, LAND_CELL))


def test_random_scenes_hold_every_kind_of_piece():
    seen = set()
    for seed in range(6):
        scene = random_scene(np.random.default_rng(seed), pieces=70)
        seen |= {t.cls for t in scene.cells}
        for cell, truth in enumerate(scene.cells):
            if truth.cls is CellClass.TILE_BLUE:
                assert cell in scene.river
    assert seen == set(CellClass) - {CellClass.UNKNOWN}


def _centroid(mask: np.ndarray) -> np.ndarray:
    ys, xs = np.nonzero(mask)
    return np.array([xs.mean(), ys.mean()])


def test_tall_pieces_lean_away_from_the_camera():
    corner, under = 0, 5 * COLUMNS + 7  # A1, and H6 near the point below the lens
    leader = CellTruth(CellClass.LEADER_RED, dynasty="pot")
    scene = Scene.setup().with_cells({corner: leader, under: leader})
    straight = top_down(scene, "modern", PPS)
    seen = top_down(scene, "modern", PPS, viewpoint=(240.0, 165.0, 650.0))

    def red(image: np.ndarray, cell: int) -> np.ndarray:
        """Where the red figure is, in the square and half a square around it."""
        m = round(geometry.MARGIN_MM / geometry.SQUARE_MM * PPS)
        row, col = divmod(cell, COLUMNS)
        y, x = m + row * PPS - PPS // 2, m + col * PPS - PPS // 2
        patch = image[y : y + 2 * PPS, x : x + 2 * PPS].astype(int)
        b, g, r = patch[..., 0], patch[..., 1], patch[..., 2]
        return (r > 150) & (g < 90) & (b < 90)

    shift = _centroid(red(seen, corner)) - _centroid(red(straight, corner))
    assert shift[0] < -3 and shift[1] < -3  # pushed out towards the board's top-left corner
    near = _centroid(red(seen, under)) - _centroid(red(straight, under))
    assert np.abs(near).max() <= 1.5
    flat = Scene.setup().with_cells({corner: CellTruth(CellClass.TILE_BLUE)})
    tile_shift = np.abs(
        top_down(flat, "modern", PPS, viewpoint=(240.0, 165.0, 650.0)).astype(int)
        - top_down(flat, "modern", PPS).astype(int)
    )
    assert tile_shift.any()  # tiles lean too, but only a pixel or so
