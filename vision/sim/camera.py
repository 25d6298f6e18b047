"""The simulator as a camera: the renderer behind the same interface as the Pi camera."""

from __future__ import annotations

from collections import deque

import cv2
import numpy as np

from vision.camera import DARKER, SMALL_WIDTH, CameraError, Playback, exposure_problem
from vision.sim import synthetic
from vision.sim.perturbations import Conditions
from vision.sim.synthetic import CameraPose, Scene, Shot, Style

_MID_GREY = 110.0  # the mean grey level automatic exposure aims at
_METER_STEPS = 4


class SyntheticCamera(Playback):
    """The renderer as a camera. The demo sets `scene` after each move and may send a hand
    over the board (`hand_passing`) or change the light (`conditions`) as time goes on."""

    def __init__(
        self,
        scene: Scene | None = None,
        *,
        style: Style = "classic",
        size: tuple[int, int] = (2028, 1520),
        pose: CameraPose | None = None,
        conditions: Conditions | None = None,
        seed: int = 0,
    ) -> None:
        super().__init__()
        self.scene = scene or Scene.setup()
        self.style = style
        self.size = size
        self.pose = pose or CameraPose()
        self.conditions = conditions or Conditions()
        self.seed = seed
        self.metered = 1.0  # the exposure the camera set itself, on top of the table's (`meter_again`)
        self._queue: deque[Shot] = deque()
        self._moment: tuple[int, Shot] | None = None
        self._unplugged = False

    def hand_passing(self, after: Scene | None = None, *, frames: int = 8) -> None:
        """A hand reaches in over the next `frames` moments; the board shows `after` once it has
        been furthest in, and stays so."""
        rng = np.random.default_rng(self.seed + self._position + 1000)
        start = self._queue[-1][0] if self._queue else self.scene
        shots = synthetic.hand_passing(start, after, rng=rng, still=0, moving=frames, base=self.conditions)
        self._queue.extend(shots)

    @property
    def passing(self) -> bool:
        """Whether a hand queued by `hand_passing` has yet to come and go."""
        return bool(self._queue)

    @property
    def showing(self) -> Shot:
        """What the camera saw at its last moment: the board and what was over it."""
        return self._moment[1] if self._moment is not None else (self.scene, self.conditions)

    def unplug(self) -> None:
        """From now on the camera fails as a disconnected one does (for tests and the demo)."""
        self._unplugged = True

    def _shot(self, position: int) -> Shot:
        """What the camera sees at a moment; queued shots are used up one per moment."""
        if self._moment is None or self._moment[0] != position:
            if self._queue:
                shot = self._queue.popleft()
                self.scene = shot[0]
            else:
                shot = (self.scene, self.conditions)
            self._moment = (position, shot)
        return self._moment[1]

    def meter_again(self) -> bool:
        """As automatic exposure does: the exposure scaled, a few steps, until the moment last
        captured is neither washed out nor black and its mean grey is near a mid-grey; that
        moment is then taken again."""
        self._check_started()
        position = max(self._position, 0)
        for _ in range(_METER_STEPS):
            frame = self._render(position, self.size)
            mean = float(frame[::8, ::8].mean())
            if exposure_problem(frame) is None and abs(mean / _MID_GREY - 1) < 0.1:
                break
            self.metered *= float(np.clip(_MID_GREY / max(mean, 1.0), 0.25, 4.0))
        self._delivered = False
        return True

    def _render(self, position: int, size: tuple[int, int], exposure: float = 1.0) -> np.ndarray:
        if self._unplugged:
            raise CameraError("The camera stopped sending pictures. Check its cable.")
        scene, conditions = self._shot(position)
        share = exposure * self.metered
        rendered = synthetic.render(
            scene,
            style=self.style,
            size=size,
            pose=self.pose,
            conditions=conditions if share == 1.0 else conditions.exposed(share),
            seed=self.seed + position,
        )
        return rendered.frame

    def _full(self, position: int) -> np.ndarray:
        return self._render(position, self.size)

    def capture_darker(self) -> np.ndarray:
        """The moment last captured, through DARKER of the exposure."""
        self._check_started()
        return self._render(max(self._position, 0), self.size, DARKER)

    def _small(self, position: int) -> np.ndarray:
        w, h = self.size
        small = (SMALL_WIDTH, max(2, round(h * SMALL_WIDTH / w)))
        return cv2.cvtColor(self._render(position, small), cv2.COLOR_BGR2GRAY)
