"""The stability gate: the board is read only after it has been still for a while with no hand over it.

It runs on every frame of the camera's small stream, so it must stay cheap: a tiny image, one
absolute difference with the previous frame, and a look at the board's rim. A hand cannot reach a
square without its arm crossing the rim, so a rim that no longer looks like the rim seen at
calibration means a hand (or a sleeve, or a cup) is in view even when it holds perfectly still.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.reading import COLUMNS, ROWS

WIDTH = 160  # px of the gate's working image; enough to see an arm, small enough to cost nothing
RIM_OFFSET = 0.45  # squares outside the grid edge where the rim is watched (the border's middle)
RIM_STEP = 0.5  # squares between watched points: an arm covers several
RIM_TOLERANCE = 0.18  # change of a rim point, beyond the smooth change of light, that is not the rim
RIM_RUN = 2  # neighbouring unlike points that make an arm


@dataclass(frozen=True, slots=True)
class GateState:
    still: bool  # still long enough with no hand in view: the frame may be read
    moving: bool  # this frame differs from the previous one
    hand: bool  # something covers the board's rim
    still_frames: int  # consecutive frames without motion


def small_image(frame: np.ndarray, width: int = WIDTH) -> np.ndarray:
    """The frame shrunk to `width` pixels across and smoothed (BGR stays BGR)."""
    h, w = frame.shape[:2]
    height = max(1, round(h * width / w))
    small = cv2.resize(
        frame, (width, height), interpolation=cv2.INTER_AREA if w <= 4 * width else cv2.INTER_LINEAR
    )
    blurred: np.ndarray = cv2.GaussianBlur(small, (3, 3), 0)
    return blurred


def rim_squares() -> np.ndarray:
    """The watched points of the rim, in board squares: a loop just outside the grid."""
    left, top, right, bottom = -RIM_OFFSET, -RIM_OFFSET, COLUMNS + RIM_OFFSET, ROWS + RIM_OFFSET
    xs = np.arange(left, right, RIM_STEP)
    ys = np.arange(top, bottom, RIM_STEP)
    loop = [np.column_stack([xs, np.full_like(xs, top)]), np.column_stack([np.full_like(ys, right), ys])]
    loop += [
        np.column_stack([xs[::-1], np.full_like(xs, bottom)]),
        np.column_stack([np.full_like(ys, left), ys[::-1]]),
    ]
    return np.concatenate(loop)


def rim_places(homography: np.ndarray, image_size: tuple[int, int]) -> np.ndarray:
    """The rim points as shares (0..1) of the frame's width and height."""
    inverse = np.linalg.inv(homography)
    points = cv2.perspectiveTransform(rim_squares().reshape(-1, 1, 2).astype(np.float64), inverse).reshape(
        -1, 2
    )
    shares: np.ndarray = points / np.array(image_size, dtype=np.float64)
    return shares


def rim_colours(small: np.ndarray, places: np.ndarray) -> np.ndarray:
    """BGR colours (N×3 float32) of the rim points in a small colour image; outside it: zero."""
    h, w = small.shape[:2]
    x = np.round(places[:, 0] * w - 0.5).astype(int)
    y = np.round(places[:, 1] * h - 0.5).astype(int)
    inside = (x >= 0) & (x < w) & (y >= 0) & (y < h)
    colours = np.zeros((len(places), 3), dtype=np.float32)
    colours[inside] = small[y[inside], x[inside]].reshape(-1, 3 if small.ndim == 3 else 1)
    return colours


class StabilityGate:
    """Counts still frames on the small stream; `update` says whether the board may be read now.

    still_frames: how many consecutive motionless frames are needed before a reading.
    change_level: grey levels (0..255) a pixel must change by to count as motion.
    motion_share: share of changed pixels that makes a frame "moving" (sensor noise stays below).
    """

    def __init__(
        self,
        still_frames: int = 3,
        *,
        change_level: int = 14,
        motion_share: float = 0.002,
        width: int = WIDTH,
    ) -> None:
        if still_frames < 1:
            raise ValueError("still_frames must be at least 1")
        self.still_frames = still_frames
        self.change_level = change_level
        self.motion_share = motion_share
        self.width = width
        self._previous: np.ndarray | None = None
        self._count = 0
        self._places: np.ndarray | None = None
        self._reference: np.ndarray | None = None

    def watch_rim(self, places: np.ndarray, reference: np.ndarray) -> None:
        """Watch the board's rim: places from `rim_places`, reference colours from `rim_colours`
        on a small image of the board with nobody's hand over it."""
        self._places = np.asarray(places, dtype=np.float64)
        self._reference = np.asarray(reference, dtype=np.float32)

    def reset(self) -> None:
        self._previous = None
        self._count = 0

    def update(self, frame: np.ndarray) -> GateState:
        """Feed one frame of the small stream (BGR, any size)."""
        small = small_image(frame, self.width)
        gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) if small.ndim == 3 else small
        moving = True
        if self._previous is not None and self._previous.shape == gray.shape:
            changed = cv2.absdiff(gray, self._previous) > self.change_level
            moving = bool(np.count_nonzero(changed) > self.motion_share * changed.size)
        self._previous = gray
        self._count = 0 if moving else self._count + 1
        hand = self._hand_in_view(small)
        still = not moving and not hand and self._count >= self.still_frames
        return GateState(still=still, moving=moving, hand=hand, still_frames=self._count)

    def _hand_in_view(self, small: np.ndarray) -> bool:
        if self._places is None or self._reference is None or small.ndim != 3:
            return False
        return rim_covered(rim_colours(small, self._places), self._reference, self._places)


def rim_covered(colours: np.ndarray, reference: np.ndarray, places: np.ndarray) -> bool:
    """Whether something lies on the rim: a run of neighbouring points unlike their reference
    once a smooth change of light over the whole rim (a lamp, the sun, vignetting) is allowed for.
    An arm is a few squares wide where it crosses the rim; shadows and glare are soft and wide."""
    ratio = colours / np.maximum(reference, 4.0)
    x, y = places[:, 0] - 0.5, places[:, 1] - 0.5
    basis = np.column_stack([np.ones(len(places)), x, y, x * y, x * x, y * y])
    agree = np.ones(len(places), dtype=bool)
    for tolerance in (0.6, 0.35, RIM_TOLERANCE):
        if np.count_nonzero(agree) < 2 * basis.shape[1]:
            return True  # hardly any of the rim looks like it should
        solution, *_ = np.linalg.lstsq(basis[agree], ratio[agree], rcond=None)
        fit = basis @ solution
        agree = np.all(np.abs(ratio / np.maximum(fit, 1e-3) - 1) < tolerance, axis=1)
    unlike = ~agree
    run = unlike.copy()
    for step in range(1, RIM_RUN):  # the rim is a loop: runs may wrap around
        run &= np.roll(unlike, step)
    return bool(run.any())
