from __future__ import annotations

import numpy as np
import pytest
from conftest import SIZE, calibrated

from vision import gate
from vision.observer import Observer
from vision.reading import CellClass, ReadStatus
from vision.sim import synthetic
from vision.sim.synthetic import CellTruth, Scene

LORES = (320, 240)


def _lores(frame: np.ndarray) -> np.ndarray:
    import cv2

    return cv2.resize(frame, LORES, interpolation=cv2.INTER_AREA)


def test_a_still_board_passes_after_the_configured_frames() -> None:
    frames = [
        s.frame
        for s in synthetic.render_sequence([(Scene.setup(), synthetic.Conditions(noise_sigma=5))] * 6, size=SIZE)
    ]
    keeper = gate.StabilityGate(still_frames=3)
    stills = [keeper.update(_lores(f)).still for f in frames]
    assert stills == [False, False, False, True, True, True]


def test_still_frames_must_be_positive() -> None:
    with pytest.raises(ValueError, match="still_frames"):
        gate.StabilityGate(still_frames=0)


def test_a_hand_passing_never_yields_a_reading_and_the_move_is_read_after() -> None:
    before = Scene.setup()
    after = before.with_cells({40: CellTruth(CellClass.TILE_GREEN)})
    rng = np.random.default_rng(12)
    shots = synthetic.hand_passing(before, after, rng=rng, still=4, moving=8)
    rendered = synthetic.render_sequence(shots, size=SIZE, seed=3)
    observer = Observer(calibrated("classic"), still_frames=2)
    readings = [observer.feed(r.frame, small=_lores(r.frame)) for r in rendered]
    for shot, reading in zip(rendered, readings, strict=True):
        if shot.hand_mask.any():
            assert not reading.ok
    last = readings[-1]
    assert last.ok and last.cells[40].cls is CellClass.TILE_GREEN


def test_a_hand_held_still_over_the_board_is_seen_on_the_rim() -> None:
    calibration = calibrated("classic")
    observer = Observer(calibration, still_frames=2)
    hand = synthetic.Hand(edge="left", along=0.5, reach=0.45)
    frame = synthetic.render(Scene.setup(), size=SIZE, conditions=synthetic.Conditions(hands=(hand,))).frame
    states = [observer.gate.update(_lores(frame)) for _ in range(5)]
    assert all(s.hand for s in states) and states[-1].still  # held still: only the rim gives it away
    assert observer.feed(frame, small=_lores(frame)).status is ReadStatus.MOVING


def test_watching_a_camera_reads_only_after_the_hand_has_gone() -> None:
    from vision.sim.camera import SyntheticCamera

    after = Scene.setup().with_cells({60: CellTruth(CellClass.TILE_BLACK)})
    camera = SyntheticCamera(size=SIZE, seed=4)
    observer = Observer(calibrated("classic"), still_frames=2)
    with camera:
        first = [observer.watch(camera) for _ in range(3)]
        camera.hand_passing(after, frames=6)
        during = [observer.watch(camera) for _ in range(6)]
        later = [observer.watch(camera) for _ in range(3)]
    assert first[-1].ok and first[-1].cells[60].cls is CellClass.EMPTY_LAND
    assert not any(r.ok for r in during)
    assert later[-1].ok and later[-1].cells[60].cls is CellClass.TILE_BLACK


def test_an_unplugged_camera_is_a_bad_frame_not_a_crash() -> None:
    from vision.sim.camera import SyntheticCamera

    camera = SyntheticCamera(size=SIZE)
    observer = Observer(calibrated("classic"))
    with camera:
        camera.unplug()
        reading = observer.watch(camera)
    assert reading.status is ReadStatus.BAD_FRAME and "cable" in reading.message


def _table_with_board(left: int, *, arm: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """A small picture (320×240): a checked tablecloth, a board of 15 px squares with a 3 px border
    whose grid starts `left` px across; and the grid (image → squares)."""
    rows, cols = np.indices((240, 320))
    picture = np.where((((rows // 10) + (cols // 10)) % 2 == 0)[..., None], (40, 40, 170), (225, 230, 235))
    top, square, border = 40, 15, 3
    picture[top - border : top + 11 * square + border, left - border : left + 16 * square + border] = (60, 40, 110)
    picture[top : top + 11 * square, left : left + 16 * square] = (150, 185, 175)
    if arm:
        picture[150:240, 150:185] = (110, 145, 200)
    grid = np.array([[1 / square, 0, -left / square], [0, 1 / square, -top / square], [0, 0, 1]])
    return picture.astype(np.uint8), grid


def test_after_a_bump_the_rim_is_compared_board_and_table_each_where_they_are() -> None:
    """The border moved with the board, the tablecloth beyond it did not: that is no arm; an arm is."""
    then, grid_then = _table_with_board(40)
    now, grid_now = _table_with_board(45)
    before, places = gate.rim_places(grid_then, (320, 240)), gate.rim_places(grid_now, (320, 240))
    assert gate.rim_unlike(gate.rim_colours(now, places), gate.rim_colours(then, before), places).any()
    assert not gate.rim_unlike_after_move(then, before, now, places).any()
    reaching, _ = _table_with_board(45, arm=True)
    assert gate.rim_sides(gate.rim_unlike_after_move(then, before, reaching, places)) == ("bottom",)


def test_a_lamps_reflection_on_the_rim_is_no_arm_a_bare_arm_or_a_sleeve_is() -> None:
    """A reflection adds white light, which a camera's tone curve squeezes in its brightest
    channels: every channel brighter, none more coloured. A bare arm is more coloured than a
    dull border; a dark sleeve is darker."""
    board, grid = _table_with_board(40)
    places = gate.rim_places(grid, (320, 240))
    rim = gate.rim_colours(board, places)
    x, y = (places.mean(axis=1) * (320, 240)).T
    spot = np.exp(-((x - 280) ** 2 + (y - 120) ** 2) / (2 * 20.0**2))[:, None]  # on the right edge
    curve = 255 * (1 - np.exp(-(rim + 400 * spot) / 160)) / (1 - np.exp(-255 / 160))  # tone curve, as cameras
    glaring = curve * (rim.mean() / curve[spot[:, 0] < 0.01].mean())  # exposure set on the rest
    assert not gate.rim_unlike(glaring.astype(np.float32), rim, places).any()
    for arm in ((110, 145, 200), (50, 40, 40)):  # a bare arm, a dark sleeve
        reaching = glaring.copy()
        reaching[spot[:, 0] > 0.5] = arm
        assert gate.rim_sides(gate.rim_unlike(reaching.astype(np.float32), rim, places)) == ("right",), arm
