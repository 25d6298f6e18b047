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

WIDTH = 320  # px of the gate's working image; enough to see an arm, small enough to cost nothing
RIM_STEP = 0.5  # squares between rim patches (each is twice as long): an arm covers several
RIM_TOLERANCE = 0.18  # change of a rim point, beyond the smooth change of light, that is not the rim
RIM_RUN = 2  # neighbouring unlike points that make an arm
RIM_MISFIT = 0.01  # what a change of light leaves unexplained, as a share of the brightness
RIM_SHADOW = 0.04  # how unevenly a shadow darkens a patch's channels: ratios' spread over their mean
RIM_PATTERN = 4.0  # grey levels: the spread of a patch's samples that shows the border's printed pattern
RIM_FOLLOWS = 0.9  # how closely a patch's samples follow their agreed pattern under another light
RIM_WHITE = 0.25  # how unevenly a reflection that went darkened a patch's channels: spread over mean


@dataclass(frozen=True, slots=True)
class GateState:
    still: bool  # no motion for the configured number of frames
    moving: bool  # this frame differs from the previous one
    hand: bool  # something covers the board's rim (colour frames only; the observer checks again)
    still_frames: int  # consecutive frames without motion


def small_image(frame: np.ndarray, width: int = WIDTH) -> np.ndarray:
    """The frame shrunk to `width` pixels across and smoothed (BGR stays BGR)."""
    h, w = frame.shape[:2]
    height = max(1, round(h * width / w))
    small = cv2.resize(frame, (width, height), interpolation=cv2.INTER_AREA if w <= 4 * width else cv2.INTER_LINEAR)
    blurred: np.ndarray = cv2.GaussianBlur(small, (3, 3), 0)
    return blurred


def rim_squares() -> np.ndarray:
    """The watched patches of the rim, in board squares: (patches, samples, 2).

    A loop of overlapping patches, each a square long, across the border just outside the grid;
    a patch's colour is the mean of its samples, so the printed coordinates along the border
    look the same however the sampling falls. The marker cards at the corners are left out:
    their fine print flickers at this size.
    """
    along = np.linspace(-RIM_STEP, RIM_STEP, 5)
    across = np.array([0.35, 0.6, 0.85])
    patches = []
    for length, fixed, horizontal, outward, backwards in (  # clockwise, so neighbours follow each other
        (COLUMNS, 0.0, True, -1.0, False),
        (ROWS, COLUMNS, False, 1.0, False),
        (COLUMNS, ROWS, True, 1.0, True),
        (ROWS, 0.0, False, -1.0, True),
    ):
        centres = np.arange(RIM_STEP, length - RIM_STEP / 2, RIM_STEP)
        for centre in centres[::-1] if backwards else centres:
            u, v = np.meshgrid(centre + along, fixed + outward * across)
            points = np.column_stack([u.ravel(), v.ravel()]) if horizontal else np.column_stack([v.ravel(), u.ravel()])
            patches.append(points)
    return np.array(patches)


_RIM = rim_squares()


def _side(patch: np.ndarray) -> str:
    u, v = patch.mean(axis=0)
    return "top" if v < 0 else "right" if u > COLUMNS else "bottom" if v > ROWS else "left"


_SIDES = tuple(_side(patch) for patch in _RIM)


def rim_sides(unlike: np.ndarray) -> tuple[str, ...]:
    """The edges of the board (top, right, bottom, left) where rim patches are `unlike` their own."""
    covered = {_SIDES[i] for i in np.flatnonzero(unlike)}
    return tuple(side for side in ("top", "right", "bottom", "left") if side in covered)


def rim_places(homography: np.ndarray, image_size: tuple[int, int]) -> np.ndarray:
    """The rim samples as shares (0..1) of the frame's width and height: (patches, samples, 2)."""
    inverse = np.linalg.inv(homography)
    flat = _RIM.reshape(-1, 1, 2).astype(np.float64)
    points = cv2.perspectiveTransform(flat, inverse).reshape(_RIM.shape)
    shares: np.ndarray = points / np.array(image_size, dtype=np.float64)
    return shares


def rim_samples(small: np.ndarray, places: np.ndarray) -> np.ndarray:
    """The BGR colour of each rim sample in a small colour image: (patches, samples, 3) float32."""
    h, w = small.shape[:2]
    x = np.clip(np.round(places[..., 0] * w - 0.5).astype(int), 0, w - 1)
    y = np.clip(np.round(places[..., 1] * h - 0.5).astype(int), 0, h - 1)
    samples: np.ndarray = small[y, x].reshape(*places.shape[:2], -1).astype(np.float32)
    return samples


def pattern_kept(now: np.ndarray, then: np.ndarray) -> np.ndarray:
    """Rim patches whose samples (`rim_samples`, now and `then`) show the border's printed
    pattern as it was, brighter or darker: a shadow of somebody leaning in, or a light tinted
    unevenly by a lamp and the room, changes the rim's colour but keeps its print; a sleeve or a
    hand over it does not. A plain patch tells nothing."""
    grey_now, grey_then = now.mean(axis=2), then.mean(axis=2)
    grey_now = grey_now - grey_now.mean(axis=1, keepdims=True)
    grey_then = grey_then - grey_then.mean(axis=1, keepdims=True)
    spread_now, spread_then = np.sqrt((grey_now**2).mean(axis=1)), np.sqrt((grey_then**2).mean(axis=1))
    follows = (grey_now * grey_then).mean(axis=1) / np.maximum(spread_now * spread_then, 1e-6)
    kept: np.ndarray = (spread_then >= RIM_PATTERN) & (spread_now >= RIM_PATTERN / 2) & (follows >= RIM_FOLLOWS)
    return kept


def rim_colours(small: np.ndarray, places: np.ndarray) -> np.ndarray:
    """The mean BGR colour (patches × 3, float32) of each rim patch in a small colour image."""
    colours: np.ndarray = rim_samples(small, places).mean(axis=1)
    return colours


def rim_unlike_after_move(then: np.ndarray, places_then: np.ndarray, now: np.ndarray, places_now: np.ndarray
                          ) -> np.ndarray:
    """Which rim patches something lies on (as `rim_unlike`) in the small picture `now`, after the
    board moved since the small picture `then` was taken.

    The rim's samples lie across the board's border, which moved with the board, and the table
    beyond it, which did not; where the border ends is not known (a few millimetres or several
    centimetres). So the rim may now look like the board's rim then (every sample at the same
    point of the board), like the picture then (at the same point of the table), or like a mix,
    each sample whichever of the two is nearer its colour now: a patch is unlike only when it is
    unlike all three. An arm crossing the rim is like none."""
    seen = rim_samples(now, places_now)
    board, table = rim_samples(then, places_then), rim_samples(then, places_now)
    gain = np.median(seen, axis=(0, 1)) / np.maximum(np.median(np.concatenate([board, table]), axis=(0, 1)), 1.0)
    nearer_board = np.abs(seen - board * gain).sum(axis=2) <= np.abs(seen - table * gain).sum(axis=2)
    mixed = np.where(nearer_board[..., None], board, table)
    colours = seen.mean(axis=1)
    unlike: np.ndarray = np.logical_and.reduce([rim_unlike(colours, reference.mean(axis=1), places_now)
                                                for reference in (board, table, mixed)])
    return unlike


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

    def forget_rim(self) -> None:
        """Stop watching the rim (it is no longer where it was seen)."""
        self._places = self._reference = None

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
        still = not moving and self._count >= self.still_frames
        return GateState(still=still, moving=moving, hand=hand, still_frames=self._count)

    def _hand_in_view(self, small: np.ndarray) -> bool:
        if self._places is None or self._reference is None or small.ndim != 3:
            return False
        return rim_covered(rim_colours(small, self._places), self._reference, self._places)


def rim_covered(colours: np.ndarray, reference: np.ndarray, places: np.ndarray) -> bool:
    """Whether something lies on the rim (see `rim_unlike`)."""
    return bool(rim_unlike(colours, reference, places).any())


def _lit_differently(colours: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Patches that are their calibrated selves under other light: brighter or darker (a shadow)
    plus some white (glare), colours ≈ a · reference + b, with nothing else left over; or darker in
    every channel by nearly the same share (a soft shadow's edge across the patch)."""
    see, se = (reference * reference).sum(1), reference.sum(1)
    sec, sc = (reference * colours).sum(1), colours.sum(1)
    det = np.maximum(3 * see - se * se, 1e-3)
    a = (3 * sec - se * sc) / det
    b = (see * sc - se * sec) / det
    misfit = np.sqrt(((colours - a[:, None] * reference - b[:, None]) ** 2).mean(1))
    explained: np.ndarray = (misfit < RIM_MISFIT * np.maximum(colours.mean(1), 1)) & (a > 0.3) & (a < 3) & (b > -10)
    # A soft shadow's edge crossing a patch darkens its samples unevenly, which no single a and b
    # explain when they differ in colour; but it darkens every channel alike.
    ratio = colours / np.maximum(reference, 4.0)
    shadow = (ratio.max(1) < 1) & (ratio.min(1) > 0.3) & (ratio.max(1) - ratio.min(1) < RIM_SHADOW * ratio.mean(1))
    lit: np.ndarray = explained | shadow
    return lit


def _glare(colours: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """Patches under a lamp's reflection: brighter than the light around says (`expected`) in
    every channel, and no more coloured. A reflection adds the lamp's white light, which never adds
    colour; a camera's tone curve squeezes the brightest channels, so it is not simply added."""
    added = colours - expected
    spread_now = colours.max(axis=1) - colours.min(axis=1)
    spread_then = expected.max(axis=1) - expected.min(axis=1)
    glare: np.ndarray = (added.min(axis=1) > 0) & (spread_now <= spread_then)
    return glare


def _glare_went(colours: np.ndarray, reference: np.ndarray, fit: np.ndarray) -> np.ndarray:
    """Patches a lamp's reflection lay on when the `reference` was seen, and no longer does (the
    lamp switched off): the reference brighter than the patch now, under that light (`fit`: the
    light's change since), by the same in every channel: the white light the reflection added.
    A sleeve or a cup there takes away more of some colours than of others."""
    went = reference - colours / np.maximum(fit, 1e-3)
    mean = went.mean(axis=1)
    gone: np.ndarray = (went.min(axis=1) > 0) & (went.max(axis=1) - went.min(axis=1) <= RIM_WHITE * mean)
    return gone


def rim_unlike(colours: np.ndarray, reference: np.ndarray, places: np.ndarray) -> np.ndarray:
    """Which rim patches something lies on: runs of neighbouring patches unlike their reference
    once a smooth change of light over the whole rim (a lamp, the sun, vignetting) is allowed for.
    An arm is a few squares wide where it crosses the rim; shadows and glare are soft and wide."""
    ratio = colours / np.maximum(reference, 4.0)
    centres = places.mean(axis=1)
    x, y = centres[:, 0] - 0.5, centres[:, 1] - 0.5
    basis = np.column_stack([np.ones(len(places)), x, y, x * y, x * x, y * y])
    # The first guess is the light on most of the rim (a fit to all of it would bend towards a
    # bright reflection or a deep shadow); then smooth fits to the patches that agree with it.
    most = np.broadcast_to(np.median(ratio, axis=0), ratio.shape)
    fit = most
    for tolerance in (0.6, 0.35, RIM_TOLERANCE):
        off = ratio / np.maximum(fit, 1e-3) - 1
        # A reflection, brighter than the light around it, would bend the fit up at its edges.
        reflection = _glare(colours, reference * fit) & np.all(off > tolerance / 2, axis=1)
        agree = np.all(np.abs(off) < tolerance, axis=1) & ~reflection
        if np.count_nonzero(agree) < 2 * basis.shape[1]:
            return np.ones(len(places), dtype=bool)  # hardly any of the rim looks like it should
        solution, *_ = np.linalg.lstsq(basis[agree], ratio[agree], rcond=None)
        fit = basis @ solution
    agree = np.all(np.abs(ratio / np.maximum(fit, 1e-3) - 1) < RIM_TOLERANCE, axis=1)
    # A shadow's edge is sharper than the smooth fit; under a coloured lamp it darkens in the
    # lamp's colour, which is the same all round the rim.
    tint = np.median(ratio[agree] / np.maximum(ratio[agree].mean(axis=1, keepdims=True), 1e-3), axis=0)
    # A reflection that went leaves a soft edge the smooth fit bends to, and its brighter core
    # then differs from the fit by less than the white light it added: gone under the light on
    # most of the rim too (never-tuned-on game 1602: a lamp's reflection across the bottom right
    # at the agreement; with it gone, the border there was taken for something lying over the
    # edge at 34 looks, and the game stalled).
    unlike: np.ndarray = (~agree & ~_lit_differently(colours, reference * tint) & ~_glare(colours, reference * fit)
                          & ~_glare_went(colours, reference, fit) & ~_glare_went(colours, reference, most))
    run = unlike.copy()
    for step in range(1, RIM_RUN):  # the rim is a loop: runs may wrap around
        run &= np.roll(unlike, step)
    covered = run.copy()
    for step in range(1, RIM_RUN):
        covered |= np.roll(run, -step)
    return covered
