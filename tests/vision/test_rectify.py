from __future__ import annotations

import cv2
import numpy as np
from conftest import SIZE, calibrated

from vision import rectify
from vision.reading import COLUMNS, ROWS
from vision.sim import synthetic
from vision.sim.synthetic import Conditions, Scene


def test_the_top_down_picture_is_the_frame_warped_through_the_grid() -> None:
    """The remap's cached maps say where each top-down pixel lies in the frame: the picture they
    give is the one a full perspective warp through the same grid gives."""
    calibration = calibrated("classic")
    frame = synthetic.render(Scene.setup(), size=SIZE, conditions=Conditions(board_rotation_deg=3.0), seed=3).frame
    px = rectify.PX_PER_SQUARE
    fine = px * rectify.SUPERSAMPLE
    warped = cv2.warpPerspective(
        frame, rectify.top_down_transform(calibration.homography, fine), (COLUMNS * fine, ROWS * fine),
        flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE,
    )
    expected = cv2.resize(warped, (COLUMNS * px, ROWS * px), interpolation=cv2.INTER_AREA).astype(np.int16)
    top_down = rectify.rectify(frame, calibration.homography).astype(np.int16)
    assert top_down.shape == expected.shape
    assert float(np.abs(top_down - expected).mean()) < 0.5
    assert int(np.abs(top_down - expected).max()) <= 8
