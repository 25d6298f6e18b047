"""Leaders: the colour they show, and the dynasty their symbol shows from close by; and the
colour tiles show.

Both looks at a square weigh a figure's outline and symbol as much as its colour; a leader is
named a colour only when the steps between channels (which a white glare leaves as they were) in
the rings where this table's leaders show their colour (`Colours.rings`, learnt at calibration:
the middle of a solid figure, the rim of a pale disc) agree with that colour's examples
(`colour_agrees`); a leader put down while the game is followed, in its pixels about the centre
unlike the board beside it (`colours`), whatever the board's colour there. So is a tile, in
the rings where this table's tiles show theirs: a pale tile's small disc weighs little in either
look, and a reflection that the light followed only roughly lifts a black disc to a grey as near
a green one. A leader's dynasty is read from a close-up of the frame, by how the brightness
varies around rings about its centre (`name_dynasty`), when the calibration showed the dynasties
can be told apart from above (`dynasties_readable`).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

import cv2
import numpy as np

from vision import rings
from vision.reading import CellClass
from vision.rectify import square_transform
from vision.tuning import TUNING

if TYPE_CHECKING:
    from vision.references import References

LEADERS = tuple(cls for cls in CellClass if cls.is_leader)
TILES = tuple(cls for cls in CellClass if cls.is_tile)
_BLACK = (CellClass.LEADER_BLACK, CellClass.TILE_BLACK)


def channel_steps(colour: np.ndarray) -> np.ndarray:
    """Blue less green and green less red: what a white glare, added to every channel, leaves."""
    steps: np.ndarray = np.stack([colour[..., 0] - colour[..., 1], colour[..., 1] - colour[..., 2]], axis=-1)
    return steps


class Colours(NamedTuple):
    """Where this table's pieces of one kind (leaders, or tiles) show their colour, and what
    they show there (`learn`)."""

    rings: tuple[int, ...]  # the rings (`vision.rings`), one or more, that tell the colours apart best
    each: dict[CellClass, np.ndarray]  # each colour's (BGR) in `rings` (rings × 3): the median of its examples
    spread: float  # how far an example strays from its colour's there, in steps between channels
    # Grey levels by which a pixel about the centre must differ from the board beside it to count as
    # the piece's (`colours`; `References.unlike_board`): none where the rings alone are read
    unlike_board: float = math.inf


def learn(examples: dict[CellClass, np.ndarray]) -> Colours:
    """The colours pieces of one kind show (`examples`: each colour's examples' colour in every
    ring, examples × rings × 3), read in the rings, one alone or several side by side, whose steps
    between channels set the most pairs of colours apart by more than `told_apart` asks; of those,
    the rings that name fewest examples another colour (the colour whose median they are nearest),
    then those that set the closest two colours furthest apart against how far one example strays
    from its colour's. One ring alone can misname what the calibration showed: a pale tile's
    symbol, in the middle, changes colour as the tile lies off-centre, and the frame around it
    steadies it. The middle where fewer than two colours were shown."""
    if len(examples) < 2:
        return at_rings(examples, (0,))
    steps = {cls: channel_steps(each) for cls, each in examples.items()}
    count = next(iter(examples.values())).shape[1]

    def merit(chosen: tuple[int, ...]) -> tuple[int, int, float]:
        shown = {cls: each[:, chosen].reshape(len(each), -1) for cls, each in steps.items()}
        medians = np.stack([np.median(each, axis=0) for each in shown.values()])
        stray = float(np.mean(np.concatenate([np.linalg.norm(each - medians[k], axis=1)
                                              for k, each in enumerate(shown.values())])))
        apart = [float(np.linalg.norm(medians[i] - medians[j]))
                 for i, j in itertools.combinations(range(len(medians)), 2)]
        told = sum(distance >= TUNING.leaders.told_apart * stray for distance in apart)
        misnamed = sum(int(np.sum(np.linalg.norm(each[:, None] - medians, axis=2).argmin(axis=1) != k))
                       for k, each in enumerate(shown.values()))
        return told, -misnamed, min(apart) / max(stray, 1e-3)

    chosen = (tuple(rings) for size in range(1, count + 1) for rings in itertools.combinations(range(count), size))
    return at_rings(examples, max(chosen, key=merit))


def at_rings(examples: dict[CellClass, np.ndarray], chosen: tuple[int, ...]) -> Colours:
    """The colours pieces of one kind show in the rings `chosen` (`learn`)."""
    each = {cls: np.median(shown[:, chosen], axis=0) for cls, shown in examples.items()}
    strays = [np.linalg.norm(channel_steps(shown[:, chosen]) - channel_steps(each[cls]), axis=(1, 2))
              for cls, shown in examples.items()]
    return Colours(chosen, each, float(np.mean(np.concatenate(strays))) if strays else 0.0)


def colours(patches: np.ndarray, unlike_board: float, seen: np.ndarray | None = None) -> np.ndarray:
    """(n, regions, 3): the mean colour of each square patch (n, px, px, 3) in each ring
    (`vision.rings`), and last in its pixels about the centre further than `unlike_board` from the
    board around, as `seen` (the patches under the calibration light, or the patches themselves)
    shows them (`_unlike_board`)."""
    seen = patches if seen is None else seen
    n, px = len(patches), patches.shape[1]
    weights = np.concatenate([np.broadcast_to(rings.weights(px).reshape(1, -1, px * px), (n, rings.RINGS, px * px)),
                              _unlike_board(seen, unlike_board)[:, None]], axis=1)
    means: np.ndarray = np.einsum("nrp,npc->nrc", weights, patches.reshape(n, px * px, 3).astype(np.float32))
    return means


def _from_board(seen: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(n, px²): how far each pixel of each patch (n, px, px, 3) lies from the board its corners
    show (their median pixel: a disc put down off-centre reaches into one), in grey levels; and
    (px²) which pixels are in the middle and rim rings, about a leader's centre."""
    n, px = len(seen), seen.shape[1]
    ring = rings.weights(px).reshape(-1, px * px)
    flat = seen.reshape(n, px * px, 3).astype(np.float32)
    board = np.median(flat[:, ring[-1] > 0], axis=1)
    distance: np.ndarray = np.linalg.norm(flat - board[:, None], axis=2)
    return distance, (ring[1] + ring[2]) > 0


def board_texture(bare: np.ndarray) -> float:
    """Grey levels within which the middle and rim rings of bare squares' pictures (n, px, px, 3)
    lie from their corners' board, all but a few pixels (`TUNING.leaders.board_texture`): the
    board's own print, grain and noise under this light, which must never count as a piece.
    Infinite where no bare square was seen: then no pixel is told from the board, and the rings
    are read whole."""
    if len(bare) == 0:
        return float("inf")
    distance, band = _from_board(bare)
    return float(np.percentile(distance[:, band], TUNING.leaders.board_texture))


def _unlike_board(seen: np.ndarray, unlike_board: float) -> np.ndarray:
    """(n, px²) weights summing to 1: the pixels of each patch's middle and rim rings whose
    colour is further than `unlike_board` from its corners' (the board beside a leader), or the
    whole of those rings where none is. A pale disc's coloured rim is a pixel wide at this size and
    falls in the rim ring, which the board beside the disc mostly fills: a board whose colour
    varies from square to square (a river drawn across the land) moves that ring's colour more
    than the rim does, and the squares the calibration showed the leaders on are not those they
    are put on."""
    distance, band = _from_board(seen)
    unlike = (distance > unlike_board) & band
    chosen = np.where(unlike.any(axis=1, keepdims=True), unlike, band).astype(np.float32)
    result: np.ndarray = chosen / chosen.sum(axis=1, keepdims=True)
    return result


def shown(patches: np.ndarray, kind: Colours, seen: np.ndarray | None = None) -> np.ndarray:
    """(n, rings, 3): the mean colour of each square patch (n, px, px, 3) in the regions
    (`colours`) where pieces of `kind` show their colour; `seen`: the patches under the
    calibration light, where the piece is told from the board (the patches themselves if None)."""
    return colours(patches, kind.unlike_board, seen)[:, kind.rings]


def colour_agrees(
    cls: CellClass, colour: np.ndarray, brightness: float, tint: np.ndarray, kind: Colours, confidence: float
) -> bool:
    """Whether a leader (or a tile) of colour `cls`, read with `confidence`, shows that colour
    (`colour`: what the square shows in its `kind`'s rings, see `shown`). Both
    looks weigh a figure's outline and symbol as much as its colour, and a figure turned and
    leaning as no example was can come nearer another colour's; a glare, which adds the same to
    every channel, leaves the steps between channels as they were. The steps must be nearest
    `cls`'s examples' under the square's light, or the black piece's (a piece in a shadow the
    light does not follow closely shows little colour) if they still show a good part of
    `cls`'s own colour and, without much to spare or surely nearer the black piece's, are that
    colour dimmed rather than the black piece's. Nearer a colour the examples
    do not tell from `cls` (`told_apart`), the rings say little: the looks must then be sure with
    much to spare (every disc with a coloured rim has the same outline, and a guess between two
    rims alike is a legal move nobody made), and the colour must not lie surely nearer the other
    (`_surely`: never-tuned-on game 1148's black-framed tile, 12 times nearer the black tiles'
    colour than the green ones', was named green by the pixels at 0.96, silently)."""
    seen = channel_steps(colour)
    expected = {piece: channel_steps(brightness * tint * example) for piece, example in kind.each.items()}
    apart = {piece: float(np.linalg.norm(seen - steps)) for piece, steps in expected.items()}
    nearest = min(apart, key=apart.__getitem__)
    if nearest is cls:
        return True
    surely = TUNING.first.second_opinion
    # Sure with much to spare, and not surely nearer the colour it lies nearest (`_surely`).
    sure = confidence >= surely and _surely(apart[nearest], apart[cls]) < surely
    if not told_apart(cls, nearest, kind):
        return sure
    own = expected[cls]
    if cls in _BLACK or nearest not in _BLACK or np.linalg.norm(seen) < TUNING.leaders.pale * np.linalg.norm(own):
        return False
    if sure:
        return True
    # Without much to spare, or surely nearer the black piece's colour, `cls`'s colour dimmed (a
    # shadow scales every step alike) must fit better than the black piece's: a pale tile with a
    # dark frame shows much colour where it is black (game 493's black tile read green by both
    # looks, 0.54 and 0.66; never-tuned-on game 1231's, green to the rings at 1.0, 4.5 times nearer
    # the black tiles' colour than the green ones', silently).
    dimmed = float(np.clip(np.sum(seen * own) / max(float(np.sum(own**2)), 1e-6), TUNING.leaders.pale, 1.0))
    return float(np.sum((seen - dimmed * own) ** 2)) < float(np.sum((seen - expected[nearest]) ** 2))


def nearest_colours(colours: np.ndarray, brightness: np.ndarray, tint: np.ndarray, kind: Colours) -> list[CellClass]:
    """For each square, the colour of `kind` whose examples' steps between channels, under the
    square's light (`brightness` × `tint`), are nearest what it shows (`colours`: n × rings × 3,
    see `shown`): `colour_agrees`'s first test for many squares at once."""
    pieces = list(kind.each)
    seen = channel_steps(colours)[:, None]
    lit = brightness[:, None, None] * tint
    expected = np.stack([channel_steps(lit * kind.each[piece]) for piece in pieces], axis=1)
    return [pieces[i] for i in ((seen - expected) ** 2).sum(axis=(2, 3)).argmin(axis=1)]


def colour_shown(patch: np.ndarray, kind: Colours) -> tuple[CellClass, float] | None:
    """The colour of `kind` a square's picture (light undone) shows in its rings: the nearest
    colour's examples, with a confidence from how much nearer than the next colour's, as the
    second look's (0.5 at half as far again). None where the calibration showed fewer than two
    colours."""
    if len(kind.each) < 2:
        return None
    steps = channel_steps(shown(patch[None], kind)[0])
    (best, cls), (other, _) = sorted(((float(np.linalg.norm(steps - channel_steps(c))), piece)
                                      for piece, c in kind.each.items()), key=lambda pair: pair[0])[:2]
    return cls, _surely(best, other)


def _surely(best: float, other: float) -> float:
    """How surely a colour `best` away is the one meant rather than one `other` away, as the
    second look's confidence: 0.5 at half as far again, 0.9 (much to spare) at 1.9 times as far."""
    return min(1.0, (other / max(best, 1e-6) - 1) * 0.5 / TUNING.second.margin)


def told_apart(a: CellClass, b: CellClass, kind: Colours) -> bool:
    """Whether pieces of `kind` of colours a and b show colours that differ clearly more than one
    example strays from its colour's at calibration (`Colours.spread`)."""
    apart = float(np.linalg.norm(channel_steps(kind.each[a]) - channel_steps(kind.each[b])))
    return apart >= TUNING.leaders.told_apart * kind.spread


DYNASTY_PX = 48  # px per square when looking closely at a leader's symbol
_OFF_CENTRE = 4  # px at DYNASTY_PX: how far off-centre a leader may stand (0.08 square)
SIGNATURE = 8 * 16  # harmonics × rings: a dynasty signature's length


def leader_closeup(frame: np.ndarray, homography: np.ndarray, cell: int) -> np.ndarray:
    """A grey DYNASTY_PX picture of a square with room around it for a leader put down off-centre."""
    m = _OFF_CENTRE
    shift = np.array([[1, 0, m], [0, 1, m], [0, 0, 1]], dtype=np.float64)
    transform = shift @ square_transform(homography, cell, DYNASTY_PX)
    closeup = cv2.warpPerspective(frame, transform, (DYNASTY_PX + 2 * m, DYNASTY_PX + 2 * m))
    grey: np.ndarray = cv2.cvtColor(closeup, cv2.COLOR_BGR2GRAY) if closeup.ndim == 3 else closeup
    return grey


@functools.cache
def _polar_maps(size: int, offsets: tuple[tuple[int, int], ...]) -> tuple[np.ndarray, np.ndarray]:
    """Where to sample a closeup of side `size` for 64 angles × 16 radii about each offset centre."""
    angles = np.arange(64) * (2 * np.pi / 64)
    radii = np.arange(16) * (DYNASTY_PX * 0.42 / 16)
    centre = (size - 1) / 2
    xs = [centre + dx + np.outer(np.cos(angles), radii) for dx, _ in offsets]
    ys = [centre + dy + np.outer(np.sin(angles), radii) for _, dy in offsets]
    return np.concatenate(xs).astype(np.float32), np.concatenate(ys).astype(np.float32)


def dynasty_signatures(closeup: np.ndarray, offsets: tuple[tuple[int, int], ...] = ((0, 0),)) -> np.ndarray:
    """What a leader's symbol looks like however the leader is turned, seen about each offset
    centre: for rings around the centre, how strongly the brightness varies around the ring at
    each of its first harmonics (len(offsets) × SIGNATURE)."""
    map_x, map_y = _polar_maps(closeup.shape[0], offsets)
    polar = cv2.remap(closeup.astype(np.float32), map_x, map_y, cv2.INTER_LINEAR).reshape(len(offsets), 64, 16)
    polar = (polar - polar.mean(axis=(1, 2), keepdims=True)) / (polar.std(axis=(1, 2), keepdims=True) + 1e-3)
    harmonics = np.abs(np.fft.rfft(polar, axis=1))[:, 1:9].reshape(len(offsets), -1)
    norms = np.maximum(np.linalg.norm(harmonics, axis=1, keepdims=True), 1e-6)
    signatures: np.ndarray = (harmonics / norms).astype(np.float32)
    return signatures


_OFFSETS = tuple((dx, dy) for dy in (-_OFF_CENTRE, 0, _OFF_CENTRE) for dx in (-_OFF_CENTRE, 0, _OFF_CENTRE))


def _residuals(signatures: np.ndarray) -> np.ndarray:
    """Signatures less their mean, unit-norm: what tells one dynasty's symbol from the others'
    once the shape every leader of a colour shares is taken away."""
    residual = signatures - signatures.mean(axis=0)
    result: np.ndarray = residual / np.maximum(np.linalg.norm(residual, axis=-1, keepdims=True), 1e-6)
    return result


def _named(scores: np.ndarray, names: Sequence[str]) -> str | None:
    """The best-scoring name, when it is a clear match and clearly ahead of every other name."""
    best = int(np.argmax(scores))
    rival = max((float(s) for s, n in zip(scores, names, strict=True) if n != names[best]), default=-1.0)
    if scores[best] < TUNING.leaders.match or scores[best] - rival < TUNING.leaders.margin:
        return None
    return names[best]


def name_dynasty(closeup: np.ndarray, cls: CellClass, references: References) -> str | None:
    """The dynasty of a leader of class `cls` in a `leader_closeup`, when its symbol is clear."""
    rows = [i for i, (c, _) in enumerate(references.dynasty_keys) if c is cls]
    if len(rows) < 2:
        return None
    known = references.dynasty_signatures[rows]
    mean = known.mean(axis=0)
    seen = dynasty_signatures(closeup, _OFFSETS) - mean
    seen /= np.maximum(np.linalg.norm(seen, axis=1, keepdims=True), 1e-6)
    scores = (seen @ _residuals(known).T).max(axis=0)  # best placement per example
    return _named(scores, [references.dynasty_keys[i][1] for i in rows])


def dynasties_readable(signatures: np.ndarray, keys: Sequence[tuple[CellClass, str]]) -> bool:
    """Whether these pieces' dynasties can be told from above: each leader, compared with the
    leaders of the other colours (each elsewhere on the board), is named right or not at all, and
    most are named. Some editions' symbols are too small or too much in relief to read; naming a
    dynasty wrongly would stop the game for nothing, so then none is named."""
    colours = sorted({cls for cls, _ in keys}, key=lambda c: c.value)
    residual = np.zeros_like(signatures)
    for cls in colours:
        rows = [i for i, (c, _) in enumerate(keys) if c is cls]
        residual[rows] = _residuals(signatures[rows])
    right = 0
    for i, (cls, dynasty) in enumerate(keys):
        others = [j for j, (c, _) in enumerate(keys) if c is not cls]
        named = _named(residual[others] @ residual[i], [keys[j][1] for j in others])
        if named is not None and named != dynasty:
            return False
        right += named == dynasty
    return len(keys) > 0 and right >= len(keys) / 2
