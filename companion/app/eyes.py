"""The camera at a simulated table: the synthetic renderer draws the board, the real observer reads it.

`CameraEyes.look(board)` renders a hand reaching in and leaving again (or only the still board),
feeds every frame to the observer exactly as the camera loop would, and returns the first reading
of the still board. Between looks the lamp may change colour and brightness.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from companion.tracker import Look
from vision import calibration as calib
from vision import synthetic
from vision.observer import Observer
from vision.perturbations import Conditions
from vision.reading import BoardReading, ReadStatus
from vision.synthetic import CellTruth, Scene


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


class CameraEyes:
    """Renderer + observer, calibrated on the set-up position like a real camera at set-up."""

    def __init__(self, seed: int, *, board: str = "standard", style: str = "classic",
                 size: tuple[int, int] = (1014, 760), hands: bool = True, lamp: bool = True,
                 still_frames: int = 2) -> None:
        self.rng = np.random.default_rng(seed)
        self.board, self.style, self.size = board, style, size
        self.hands, self.lamp = hands, lamp
        self.pose = synthetic.CameraPose()
        self.conditions = Conditions(noise_sigma=2.0)
        self._seed = seed * 7919
        self.read_ms = 0.0  # how long the observer took on the frame that gave the last reading
        self.frames = 0
        calibration = synthetic_calibration(self.pose, size, style=style, board=board, seed=seed)
        self.observer = Observer(calibration, still_frames=still_frames)
        self.scene = Scene.setup(board)

    def _render(self, scene: Scene, conditions: Conditions) -> np.ndarray:
        self._seed += 1
        shot = synthetic.render(scene, style=self.style, size=self.size, pose=self.pose, conditions=conditions,
                                seed=self._seed)
        self.frames += 1
        return shot.frame

    def _feed(self, frame: np.ndarray) -> BoardReading:
        start = time.perf_counter()
        reading = self.observer.feed(frame)
        self.read_ms = (time.perf_counter() - start) * 1000
        return reading

    def look(self, looks: Sequence[Look], *, hand: bool = True) -> BoardReading:
        """The players changed the board to `looks` (with a hand over it when `hand`): the next reading."""
        after = scene_of(looks, self.board)
        if self.lamp and self.rng.random() < 0.1:
            self.conditions = replace(self.conditions, lamp=float(self.rng.uniform(-0.5, 0.5)),
                                      exposure=float(self.rng.uniform(0.9, 1.1)))
        if hand and self.hands:
            shots = synthetic.hand_passing(self.scene, after, rng=self.rng, still=0, moving=4, base=self.conditions)
            for scene, conditions in shots:
                self._feed(self._render(scene, conditions))
        self.scene = after
        return self.again()

    def again(self) -> BoardReading:
        """Another look at the still board (fresh sensor noise): the first reading the gate lets through."""
        reading = BoardReading(ReadStatus.MOVING)
        for _ in range(self.observer.gate.still_frames + 3):
            reading = self._feed(self._render(self.scene, self.conditions))
            if reading.status is not ReadStatus.MOVING:
                break
        return reading
