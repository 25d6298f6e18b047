"""The camera at a simulated table: the synthetic camera films the board, the real observer reads it.

`CameraEyes.look(board)` sends a hand over the board (or not), lets the camera run as
`companion run` does (`run.read_when_still`: small frames to the stability gate, a full frame read
once the board is still) and returns that reading, timing the companion's part apart from the
rendering. Between looks the lamp may change colour and brightness.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from companion.tracker import Look
from vision import calibration as calib
from vision.observer import Observer
from vision.reading import BoardReading, ReadStatus
from vision.sim import synthetic
from vision.sim.camera import SyntheticCamera
from vision.sim.perturbations import Conditions
from vision.sim.synthetic import CellTruth, Scene


def scene_of(looks: Sequence[Look], board: str = "standard") -> Scene:
    setup = Scene.setup(board)
    cells = tuple(CellTruth(look.cls, look.dynasty, look.monument) for look in looks)
    return Scene(cells, setup.river, setup.corners)


def synthetic_calibration(pose: synthetic.CameraPose, size: tuple[int, int], *, style: str = "classic",
                          board: str = "standard", seed: int = 0) -> calib.Calibration:
    """Calibrate as players do at set-up: the set-up position, then one of each piece laid out."""
    setup = synthetic.render(Scene.setup(board), style=style, size=size, pose=pose, seed=seed)
    layout = calib.pieces_layout(board)
    pieces = Scene.setup(board).with_cells({c: CellTruth(p.cls, p.dynasty, p.monument) for c, p in layout.items()})
    shown = synthetic.render(pieces, style=style, size=size, pose=pose, seed=seed + 1)
    return calib.calibrate(setup.frame, [(shown.frame, layout)], board)


class Rendering:
    """A capture the simulation renders on demand: its time is the simulation's, not the
    companion's, and is kept apart (`seconds`)."""

    def __init__(self, capture: Callable[[], np.ndarray | None]) -> None:
        self.capture = capture
        self.seconds = 0.0

    def __call__(self) -> np.ndarray | None:
        start = time.perf_counter()
        try:
            return self.capture()
        finally:
            self.seconds += time.perf_counter() - start


class CameraEyes:
    """A synthetic camera and the observer, calibrated on the set-up position as at a real table."""

    def __init__(self, seed: int, *, board: str = "standard", style: str = "classic",
                 size: tuple[int, int] = (1014, 760), hands: bool = True, lamp: bool = True,
                 still_frames: int = 2) -> None:
        self.rng = np.random.default_rng(seed)
        self.board, self.hands, self.lamp = board, hands, lamp
        pose = synthetic.CameraPose()
        self.camera = SyntheticCamera(Scene.setup(board), style=style, size=size, pose=pose,
                                      conditions=Conditions(noise_sigma=2.0), seed=seed * 7919)
        self.camera.start()
        self.observer = Observer(synthetic_calibration(pose, size, style=style, board=board, seed=seed),
                                 still_frames=still_frames)
        self.read_ms = 0.0  # how long the last reading took, from the still frame to the reading
        self.frames = 0

    def look(self, looks: Sequence[Look], *, hand: bool = True) -> BoardReading:
        """The players changed the board to `looks` (with a hand over it when `hand`): the next reading."""
        after = scene_of(looks, self.board)
        if self.lamp and self.rng.random() < 0.1:
            self.camera.conditions = replace(self.camera.conditions, lamp=float(self.rng.uniform(-0.5, 0.5)),
                                             exposure=float(self.rng.uniform(0.9, 1.1)))
        if hand and self.hands:
            self.camera.hand_passing(after, frames=4)
        else:
            self.camera.scene = after
        return self.again()

    def again(self) -> BoardReading:
        """Watch until the gate lets a still frame through, and read it (fresh sensor noise each time)."""
        for _ in range(40):
            self.frames += 1
            small = self.camera.capture_small()  # rendering is the simulation's cost, not the companion's
            start = time.perf_counter()
            gate = self.observer.gate.update(small)
            if not gate.still:
                continue
            spent = time.perf_counter() - start
            frame = self.camera.capture()
            darker = Rendering(self.camera.capture_darker)
            start = time.perf_counter()
            reading = self.observer.read(frame, darker=darker)
            self.read_ms = (spent + time.perf_counter() - start - darker.seconds) * 1000
            if reading.status is not ReadStatus.MOVING or reading.low_confidence:
                return reading  # read, or a patch at the edge the players may be asked about
        return BoardReading(ReadStatus.MOVING, message="The board never stood still.")
