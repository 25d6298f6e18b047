"""Rendered frames with ground truth, and calibrations made from them (once per test session)."""

from __future__ import annotations

import functools

import cv2
import numpy as np
import pytest

from vision import calibration as calib
from vision.reading import CellClass
from vision.sim import synthetic
from vision.sim.synthetic import CellTruth, Scene

SIZE = (1014, 760)  # half the HQ camera's still: fast, and the markers are still plain to see
# One piece of every kind the reader must tell apart (and every dynasty's symbol on one colour).
PIECES = {
    "red tile": CellTruth(CellClass.TILE_RED),
    "blue tile": CellTruth(CellClass.TILE_BLUE),
    "green tile": CellTruth(CellClass.TILE_GREEN),
    "black tile": CellTruth(CellClass.TILE_BLACK),
    "treasure": CellTruth(CellClass.TREASURE),
    "face-down": CellTruth(CellClass.FACE_DOWN),
    "catastrophe": CellTruth(CellClass.CATASTROPHE),
    "unification": CellTruth(CellClass.UNIFICATION),
    **{
        f"{c} leader": CellTruth(CellClass[f"LEADER_{c.upper()}"], dynasty="bull")
        for c in ("red", "blue", "green", "black")
    },
    **{f"black {d}": CellTruth(CellClass.LEADER_BLACK, dynasty=d) for d in ("archer", "pot", "lion")},
}


@functools.cache
def calibrated(
    style: str = "classic", pose: synthetic.CameraPose | None = None, without: tuple[str, str] | None = None
) -> calib.Calibration:
    """without: the colours of a monument left out of the "show me your pieces" picture."""
    setup = synthetic.render(Scene.setup(), style=style, size=SIZE, pose=pose, seed=1)
    layout = {c: p for c, p in calib.pieces_layout().items() if p.monument is None or tuple(p.monument) != without}
    shown = Scene.setup().with_cells({c: CellTruth(p.cls, p.dynasty, p.monument) for c, p in layout.items()})
    pieces = synthetic.render(shown, style=style, size=SIZE, pose=pose, seed=2)
    return calib.calibrate(setup.frame, [(pieces.frame, layout)])


def cover(frame: np.ndarray, corners: np.ndarray) -> None:
    """Paint over a marker (its corners in the frame) and a little around it, as a hand would."""
    x0, y0 = (corners.min(axis=0) - 6).astype(int)
    x1, y1 = (corners.max(axis=0) + 6).astype(int)
    frame[y0:y1, x0:x1] = 90


@pytest.fixture(params=["classic", "modern"])
def style(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def shadowed(frame: np.ndarray, centre: tuple[float, float], axes: tuple[float, float], angle: float,
             blur: float, darkness: float) -> np.ndarray:
    """The frame with a soft shadow over it: an ellipse (centre and half-axes in pixels, turned by
    `angle` degrees), its edge blurred by `blur` pixels, taking away `darkness` of the light."""
    shade = np.zeros(frame.shape[:2], np.float32)
    cv2.ellipse(shade, (int(centre[0]), int(centre[1])), (int(axes[0]), int(axes[1])), angle, 0, 360, 1.0, -1)
    shade = cv2.GaussianBlur(shade, (0, 0), blur)[..., None]
    return (frame * (1 - darkness * shade)).astype(np.uint8)
