"""The camera at a simulated table: the synthetic camera films the board, the real observer reads it.

`CameraEyes.look(board)` sends a hand over the board (or not), lets the camera run as
`companion run` does (`run.read_when_still`: small frames to the stability gate, a full frame read
once the board is still) and returns that reading, timing the companion's part apart from the
rendering. Between looks the lamp may change colour and brightness, or, at a table of another
printing (`vision.sim.unseen`), the evening's light drifts and a lamp is switched on and off.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from companion.tracker import Look
from vision import calibration as calib
from vision.camera import capture_exposed
from vision.observer import Observer
from vision.reading import BoardReading, ReadStatus
from vision.sim import synthetic
from vision.sim.camera import SyntheticCamera
from vision.sim.perturbations import Conditions
from vision.sim.synthetic import CellTruth, Scene, Style

Drift = Callable[[Conditions, np.random.Generator], Conditions]  # the light at the next look


def scene_of(looks: Sequence[Look], board: str = "standard") -> Scene:
    setup = Scene.setup(board)
    cells = tuple(CellTruth(look.cls, look.dynasty, look.monument) for look in looks)
    return Scene(cells, setup.river, setup.corners)


def synthetic_calibration(pose: synthetic.CameraPose, size: tuple[int, int], *, style: Style = "classic",
                          board: str = "standard", seed: int = 0,
                          conditions: Conditions | None = None) -> calib.Calibration:
    """Calibrate as players do at set-up: the set-up position, then one of each piece laid out,
    under the table's light (`conditions`; a perfect picture when not given)."""
    setup = synthetic.render(Scene.setup(board), style=style, size=size, pose=pose, conditions=conditions, seed=seed)
    layout = calib.pieces_layout(board)
    pieces = Scene.setup(board).with_cells({c: CellTruth(p.cls, p.dynasty, p.monument) for c, p in layout.items()})
    shown = synthetic.render(pieces, style=style, size=size, pose=pose, conditions=conditions, seed=seed + 1)
    return calib.calibrate(setup.frame, [(shown.frame, layout)], board)


def refusal(reading: BoardReading) -> str:
    """The kind of a refused reading, in its own words but not which edge or marker."""
    reason = reading.message.split(":")[0] or reading.status.value
    return re.sub(r"board's .* edge", "board's edge", re.sub(r"the .* marker", "a marker", reason))


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
    """A synthetic camera and the observer, calibrated on the set-up position as at a real table.

    By default the developed-on table: a camera straight over the board and a lamp that now and
    then changes. Another table gives its `pose`, the light it starts in (`conditions`, also the
    calibration's) and how that light changes from look to look (`drift`)."""

    def __init__(self, seed: int, *, board: str = "standard", style: Style = "classic",
                 size: tuple[int, int] = (1014, 760), hands: bool = True, lamp: bool = True,
                 still_frames: int = 2, pose: synthetic.CameraPose | None = None,
                 conditions: Conditions | None = None, drift: Drift | None = None) -> None:
        self.rng = np.random.default_rng(seed)
        self.board, self.hands, self.lamp, self.drift = board, hands, lamp, drift
        pose = pose or synthetic.CameraPose()
        self.camera = SyntheticCamera(Scene.setup(board), style=style, size=size, pose=pose,
                                      conditions=conditions or Conditions(noise_sigma=2.0), seed=seed * 7919)
        self.camera.start()
        calibration = synthetic_calibration(pose, size, style=style, board=board, seed=seed, conditions=conditions)
        self.observer = Observer(calibration, still_frames=still_frames)
        self.read_ms = 0.0  # how long the last reading took, from the still frame to the reading
        self.frames = 0
        self.still_boards = 0  # still frames read with no hand in the picture ...
        self.refused: Counter[str] = Counter()  # ... and those of them refused, by the reason given

    def look(self, looks: Sequence[Look], *, hand: bool = True) -> BoardReading:
        """The players changed the board to `looks` (with a hand over it when `hand`): the next reading."""
        after = scene_of(looks, self.board)
        if self.drift is not None:
            self.camera.conditions = self.drift(self.camera.conditions, self.rng)
        elif self.lamp and self.rng.random() < 0.1:
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
            frame = capture_exposed(self.camera)
            darker = Rendering(self.camera.capture_darker)
            start = time.perf_counter()
            reading = self.observer.read(frame, darker=darker)
            self.read_ms = (spent + time.perf_counter() - start - darker.seconds) * 1000
            if not self.camera.showing[1].hands:
                self.still_boards += 1
                if not reading.ok:
                    self.refused[refusal(reading)] += 1
            if self.camera.passing:
                continue  # read before the hand came in: the companion goes on watching
            if reading.status is not ReadStatus.MOVING or reading.low_confidence:
                return reading  # read, or a patch at the edge the players may be asked about
        return BoardReading(ReadStatus.MOVING, message="The board never stood still.")
