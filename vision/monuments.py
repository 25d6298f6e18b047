"""Which monument a block of four squares shows, by its colours.

A monument's quarters each show a part of a tall piece that leans outwards at the rim of the
picture and may stand turned: their pictures fit the set-up's pictures of its quarters loosely, and
often fit two monuments alike. Its colours do not care where they lie: the colours of the whole
block, the light undone and regardless of brightness, are compared with each monument's at set-up
(`name`), among the monuments that may stand there (on a kingdom's tiles of one colour, one of the
three of that colour), in the colours in which those monuments differ.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection
from typing import TYPE_CHECKING

import numpy as np

from vision.reading import COLOURS
from vision.tuning import TUNING

if TYPE_CHECKING:
    from vision.references import References

MONUMENTS = tuple((a, b) for i, a in enumerate(COLOURS) for b in COLOURS[i + 1 :])
_BINS = 8  # per channel's share of a pixel's brightness (0 to 1): an eighth of it a bin


def colours(pixels: np.ndarray) -> np.ndarray:
    """How the pixels (any shape, ending in B, G, R under the calibration light) spread over the
    colours regardless of brightness: a histogram of _BINS² shares that sum to 1 of each pixel's
    blue and green shares of its brightness (its chromaticity). A monument's side turned from the
    lamp, seen at set-up from another place on the board, is darker than its lit side, not of
    another colour: brightness would weigh a red monument's shade as much as its top's colour
    (a red/green monument's red was mostly dark at set-up, a lit red/blue one bright, and a lit
    red/green block was named red/blue). Pixels near black have no colour to trust: each channel
    counts `TUNING.monument_dark` grey levels more, so they lean to grey. Each pixel is shared
    among the four bins about it by its distance to their centres (a light a little off moves a
    colour's share into the next bin gradually, never a whole colour at once)."""
    lit = np.clip(pixels.reshape(-1, 3).astype(np.float32), 0, 255) + TUNING.monument_dark
    place = lit[:, :2] / lit.sum(axis=1, keepdims=True) * _BINS - 0.5
    below = np.floor(place)
    beyond = place - below  # how far past the centre of the bin below: the share of the bin above
    first = below.astype(np.intp)
    strides = np.array([_BINS, 1])
    shares = np.zeros(_BINS**2)
    for corner in itertools.product((0, 1), repeat=2):
        step = np.array(corner)
        bins = np.clip(first + step, 0, _BINS - 1) @ strides
        weights = np.prod(np.where(step == 1, beyond, 1 - beyond), axis=1)
        shares += np.bincount(bins, weights=weights, minlength=_BINS**2)
    result: np.ndarray = shares / max(float(shares.sum()), 1e-9)
    return result


def name(
    block: np.ndarray, candidates: Collection[tuple[str, str]], references: References
) -> tuple[str, str] | None:
    """The monument among `candidates` whose colours at set-up the block's (`block`: its pixels,
    the light undone) come clearly nearest, in the colours in which the candidates differ: the
    next one's differ `TUNING.monument_apart` times as much, and `TUNING.monument_near` times as
    much as the nearest one's differ in all colours. None when it is not clear, or when a
    candidate was not shown at set-up (it could be the one)."""
    known = references.monument_colours
    if len(candidates) == 0 or any(m not in known for m in candidates):
        return None
    shown = np.array([known[m] for m in candidates])
    seen = colours(block)
    # Only the colours in which the candidates differ tell one from another (one monument's top
    # against another's), not those they share (their common colour, the board and tiles around,
    # a shadow).
    differ, _ = np.linalg.qr((shown[1:] - shown[0]).T)
    apart = sorted((float(np.linalg.norm(differ.T @ (seen - known[m]))), m) for m in candidates)
    # A block far from the nearest in all colours shows what none of them showed at set-up (a lit
    # green top the set-up showed dark): how near it comes to one in the few colours they differ
    # in says little (never-tuned-on game 423: a red/green monument, 0.05 from red/black in those
    # colours and 0.17 from red/green, was named red/black, 0.14 from it in all colours).
    nearest = float(np.linalg.norm(seen - known[apart[0][1]]))
    if len(apart) > 1 and (apart[1][0] < TUNING.monument_apart * apart[0][0]
                           or apart[1][0] < TUNING.monument_near * nearest):
        return None
    return apart[0][1]


def that_may_stand(tiles: Collection[str], elsewhere: Collection[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """The monuments that may stand on a block that held tiles of the colours `tiles` (one colour:
    a monument of that colour; else any), but for those standing `elsewhere`."""
    return tuple(m for m in MONUMENTS if m not in elsewhere and (len(tiles) != 1 or set(tiles) <= set(m)))
