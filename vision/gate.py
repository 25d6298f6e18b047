"""The stability gate: the board is read only after it has been still for a while with no hand over it.

It runs on every frame of the camera's small stream, so it must stay cheap: a tiny grayscale image,
one absolute difference with the previous frame, and a look at the board's rim. A hand cannot
reach a square without its arm crossing the rim, so a rim that no longer looks like the rim seen at
calibration means a hand (or a sleeve, or a cup) is in view even when it holds perfectly still.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

WIDTH = 160  # px of the gate's working image; enough to see a hand, small enough to cost nothing


@dataclass(frozen=True, slots=True)
class GateState:
    still: bool  # still long enough with no hand in view: the frame may be read
    moving: bool  # this frame differs from the previous one
    hand: bool  # something covers the board's rim
    still_frames: int  # consecutive frames without motion


def small_gray(frame: np.ndarray, width: int = WIDTH) -> np.ndarray:
    """The frame as a `width`-wide grayscale image (bilinear: a blur follows anyway)."""
    h, w = frame.shape[:2]
    height = max(1, round(h * width / w))
    small = cv2.resize(frame, (width, height), interpolation=cv2.INTER_LINEAR)
    if small.ndim == 3:
        small = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    blurred: np.ndarray = cv2.GaussianBlur(small, (3, 3), 0)
    return blurred


class StabilityGate:
    """Counts still frames on the small stream; `update` says whether the board may be read now.

    still_frames: how many consecutive motionless frames are needed before a reading.
    change_level: grey levels (0..255) a pixel must change by to count as motion.
    motion_share: share of changed pixels that makes a frame "moving" (sensor noise stays below).
    hand_share: share of rim pixels unlike the calibrated rim that means "a hand is in view".
    """

    def __init__(
        self,
        still_frames: int = 3,
        *,
        change_level: int = 16,
        motion_share: float = 0.002,
        hand_share: float = 0.04,
        width: int = WIDTH,
    ) -> None:
        if still_frames < 1:
            raise ValueError("still_frames must be at least 1")
        self.still_frames = still_frames
        self.change_level = change_level
        self.motion_share = motion_share
        self.hand_share = hand_share
        self.width = width
        self._previous: np.ndarray | None = None
        self._count = 0
        self._rim: np.ndarray | None = None  # boolean mask in the small image
        self._rim_reference: np.ndarray | None = None  # rim levels divided by their median

    def set_rim(self, frame: np.ndarray, rim_mask: np.ndarray) -> None:
        """Learn what the board's rim looks like with no hand over it.

        rim_mask: boolean mask, any size (it is resized to the gate's image), True on the rim.
        """
        small = small_gray(frame, self.width)
        mask = cv2.resize(rim_mask.astype(np.uint8), small.shape[::-1], interpolation=cv2.INTER_NEAREST) > 0
        if not mask.any():
            raise ValueError("the board's rim is not in the picture")
        self._rim = mask
        self._rim_reference = _normalised(small[mask])

    def reset(self) -> None:
        self._previous = None
        self._count = 0

    def update(self, frame: np.ndarray) -> GateState:
        """Feed one frame of the small stream (BGR or grayscale, any size)."""
        small = small_gray(frame, self.width)
        moving = True
        if self._previous is not None and self._previous.shape == small.shape:
            changed = cv2.absdiff(small, self._previous) > self.change_level
            moving = bool(np.count_nonzero(changed) > self.motion_share * changed.size)
        self._previous = small
        self._count = 0 if moving else self._count + 1
        hand = self._hand_in_view(small)
        still = not moving and not hand and self._count >= self.still_frames
        return GateState(still=still, moving=moving, hand=hand, still_frames=self._count)

    def _hand_in_view(self, small: np.ndarray) -> bool:
        if self._rim is None or self._rim_reference is None or self._rim.shape != small.shape:
            return False
        # Levels relative to the rim's median, so a lamp switched on does not look like a hand.
        unlike = np.abs(_normalised(small[self._rim]) - self._rim_reference) > 0.25
        return bool(np.count_nonzero(unlike) > self.hand_share * unlike.size)


def _normalised(levels: np.ndarray) -> np.ndarray:
    values = levels.astype(np.float32)
    return values / max(float(np.median(values)), 1.0)
