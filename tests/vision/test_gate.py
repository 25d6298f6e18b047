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
