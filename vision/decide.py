"""What a changed square holds now, chosen among what the rules allow there.

Only the squares that changed since the agreed picture (`vision.change`) are looked at. Each is
compared, pixel by pixel under the light worked out for it, with every picture there is of what
may stand there now (`Observer.candidates`): the agreed picture of the square itself (nothing
changed after all: a glare moved, a shadow fell), its own bare board as the set-up picture showed
it, the pieces shown at calibration, and the pieces this table showed at earlier agreements
(`vision.memory`). Each picture may take a little more or less light and some glare, as the
second look of an absolute read allows (`second_look.fit_loss`), but the agreed picture itself
only as bright as the light says, give or take (`FollowTuning.still_darkest`), unless a tall
piece agreed around or a wide shadow may darken it; a square beside a piece put down
is named without its side facing that piece (its side or its shadow reaches over that side: see
`_facing`), but whether its agreed picture still fits best is judged on every pixel (the edge of a
hand held still). The class whose picture fits best
is taken when the next class fits clearly worse; a class the rules allow but of which no picture
was ever seen counts as fitting as badly as a picture may and still be known. A class the rules
exclude is never named.
The agreed picture of a square a glare burnt out, and no longer does, is no witness: it shows
the glare, not what lay there; nor is the light there known well enough for the rings alone to
name a piece without much to spare.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

import numpy as np

from vision import geometry, leaders, rings
from vision.first_look import confidence_of
from vision.light import Light, burnt
from vision.reading import CELLS, COLUMNS, ROWS, CellClass, CellReading
from vision.rectify import PX_PER_SQUARE, cells
from vision.references import References
from vision.second_look import LOOK_PX, coarse, fit_loss, fitted_brightness, nearest, shaded_fit_loss, sides
from vision.tuning import TUNING

_T = TUNING.follow
_REFERENCE = -1  # the label of the agreed picture of the square itself
_TURNED = frozenset(  # pieces that lie flat and are square: any quarter turn looks like a piece of theirs
    {CellClass.TILE_RED, CellClass.TILE_BLUE, CellClass.TILE_GREEN, CellClass.TILE_BLACK, CellClass.CATASTROPHE,
     CellClass.UNIFICATION, CellClass.FACE_DOWN}
)


@dataclass(frozen=True)
class Examples:
    """Pictures of pieces under the calibration light, at the second look's size."""

    looks: np.ndarray  # K × LOOK_PX² · 3 float32
    features: np.ndarray  # K × F: `rings.features`, in units of their usual spread (`References.scale`)
    classes: tuple[CellClass, ...]  # K
    monuments: tuple[tuple[str, str] | None, ...]  # K

    @functools.cached_property
    def norms(self) -> np.ndarray:
        """Each example's squared feature length, for distances as |a|² - 2ab + |b|²."""
        norms: np.ndarray = (self.features**2).sum(axis=1)
        return norms

    @functools.cached_property
    def codes(self) -> np.ndarray:
        """Each example's class as a number (`CODES`), for numpy to compare."""
        return np.array([CODES[cls] for cls in self.classes], dtype=np.intp)


def turned(examples: Examples) -> Examples:
    """The examples of flat square pieces also turned by a quarter, a half and three quarters:
    a tile is put down any way round."""
    side = LOOK_PX
    looks, features = [examples.looks], [examples.features]
    classes, monuments = list(examples.classes), list(examples.monuments)
    rows = [i for i, cls in enumerate(examples.classes) if cls in _TURNED]
    if rows:
        square = examples.looks[rows].reshape(len(rows), side, side, 3)
        for quarter in (1, 2, 3):
            looks.append(np.rot90(square, quarter, axes=(1, 2)).reshape(len(rows), -1))
            features.append(examples.features[rows])  # rings do not care how a piece is turned
            classes += [examples.classes[i] for i in rows]
            monuments += [examples.monuments[i] for i in rows]
    return Examples(np.concatenate(looks).astype(np.float32), np.concatenate(features), tuple(classes),
                    tuple(monuments))


@dataclass(frozen=True)
class Scene:
    """The picture now and what is known of the light on it, seen from above (same size)."""

    now: np.ndarray  # the picture now (uint8)
    agreed: np.ndarray  # the agreed picture (uint8)
    change: np.ndarray  # H×W×3: the gain of each channel from the agreed picture to now ...
    added: np.ndarray  # H×W: ... and the white light added (`change.Change`: now ≈ change · agreed + added)
    gain: np.ndarray  # H×W×3: the gain of each channel from the calibration light to now ...
    glare: np.ndarray  # H×W×3: ... and the white glare now, in grey levels

    @functools.cached_property
    def blind(self) -> np.ndarray:
        """CELLS bool: the squares a glare burnt out in both pictures: no change can be seen there."""
        glaring = (self.glare[..., 0] > TUNING.glare_clips)
        burnt = (np.minimum(self.now, self.agreed).max(axis=2) >= TUNING.clipped) & glaring
        share: np.ndarray = cells(burnt[..., None].astype(np.float32), PX_PER_SQUARE).reshape(CELLS, -1).mean(axis=1)
        return share > TUNING.washed

    @functools.cached_property
    def relit(self) -> np.ndarray:
        """H×W×3 float32: the agreed picture under the light now."""
        agreed: np.ndarray = self.agreed.astype(np.float32) * self.change + self.added[..., None]
        return agreed


class Verdict(NamedTuple):
    reading: CellReading
    unchanged: bool  # the agreed picture fits best: the square holds what was agreed
    dazzled: bool  # burnt out now: a shorter exposure may show it
    darker: bool = False  # the agreed picture fitted best, but only darker than the light says
    disputed: bool = False  # the rings were sure, with much to spare, of another piece than agreed


class _Ranked(NamedTuple):
    """One measure's choice among the classes allowed on a square."""

    cls: CellClass
    confidence: float
    unchanged: bool = False
    distance: float = float("inf")  # how far the nearest picture of `cls` lies, by this measure


def decide(
    scene: Scene,
    squares: Sequence[int],
    agreed: Sequence[CellReading],
    allowed: Sequence[Collection[CellClass] | None],
    references: References,
    examples: Examples,
    min_confidence: float,
) -> list[Verdict]:
    """A verdict for each square (`squares`), given what was agreed on each and the classes the
    rules allow there (None: any class a picture was seen of).

    Two measures, as an absolute read takes them: the colour and texture of rings around the
    square's centre, which do not care how a piece is turned, compared with every picture's;
    and, for a square they do not read with much to spare, each picture's pixels under the
    light on the square (which also tells whether the agreed picture still fits). A leader is
    named a colour only when it shows that colour."""
    if not squares:
        return []
    index = np.asarray(squares)

    def at(image: np.ndarray) -> np.ndarray:
        patches: np.ndarray = cells(image if image.ndim == 3 else image[..., None], PX_PER_SQUARE)[index]
        return patches.astype(np.float32)

    gain = np.maximum(at(scene.gain), 1e-3)
    glare = at(scene.glare)
    raw = at(scene.now)
    agreed_raw = at(scene.agreed)
    before_full = at(scene.relit)
    # Ring features under the calibration light: the square now, the agreed picture of it, and its
    # own look at set-up.
    calibrated = np.stack([np.maximum(raw - glare, 0) / gain, np.maximum(before_full - glare, 0) / gain,
                           cells(references.board, PX_PER_SQUARE)[index].astype(np.float32)])
    measured = rings.features(calibrated.reshape(-1, *raw.shape[1:]), Light.unchanged(3 * len(index)))
    now_rings, agreed_rings, own_rings = (measured / references.scale).reshape(3, len(index), -1)

    def apart_from(features: np.ndarray) -> np.ndarray:
        """(n, examples): how far each square's rings lie from each picture's."""
        far: np.ndarray = np.sqrt(np.maximum(
            (features**2).sum(1)[:, None] - 2 * features @ examples.features.T + examples.norms[None, :], 0.0))
        return far

    apart = apart_from(now_rings)
    # Pieces put down off-centre, their rings also taken around where they lie (for a tile's colour).
    centred = _centred(scene, squares, agreed)
    aside = {k: i for i, k in enumerate(centred)}
    if centred:
        at_aside = np.array(list(centred))
        aside_rings = rings.features(np.maximum(np.stack(list(centred.values())) - glare[at_aside], 0)
                                     / gain[at_aside], Light.unchanged(len(centred))) / references.scale
        aside_apart = apart_from(aside_rings)
    target = coarse(raw - glare)
    exact = coarse((raw >= TUNING.clipped).astype(np.float32)) == 0
    before = coarse(before_full - glare)
    lit = coarse(gain)
    blind = scene.blind[index]
    # Squares a glare burnt out in the agreed picture and not now (the lamp went off, or a dark
    # piece put down under the reflection does not shine as the board's varnish did): that picture
    # shows the glare, not what lay there. Clipped, it is flat and colourless, and taken darker (as
    # a figure's shadow beside it may darken it) it fits a dark tile under the reflection's rest. It
    # is no witness that nothing changed: the square's own set-up look and the pieces' judge it.
    burnt_then = (burnt(agreed_raw) >= TUNING.washed) & (burnt(raw) < TUNING.washed)
    codes = examples.codes
    changed = set(squares)
    # The agreed picture fitting a square only far darker than the light says is a shadow's: one
    # a tall piece agreed around casts (a new one's are looked at below), or a wide one, a hand's
    # or somebody's leaning in, darkening the squares around too. On a square alone, nothing
    # casts it: it does not fit. (Nor is a glare's burnt-out picture fitting darker a shadow's.)
    too_dark = {cell for k, cell in enumerate(squares) if agreed[cell].cls is not CellClass.UNKNOWN
                and not burnt_then[k]
                and fitted_brightness(before[k][None], target[k], exact[k])[0] < _T.still_darkest}
    unshaded = {cell for cell in too_dark if not geometry.around(cell) & too_dark
                and not any(_casts_shadow(agreed[c].cls) for c in geometry.around(cell))}
    wide = too_dark - unshaded  # a long shadow: squares side by side darkened alike

    def judge(k: int, cell: int, put: Collection[int], shaded: bool = False, unlit: bool = False,
              leaning: Collection[int] = ()) -> Verdict:
        setup, was, told = references.setup[cell], agreed[cell].cls, allowed[cell]
        permitted = set(CODES) - {CellClass.UNKNOWN} if told is None else {*told, was} - {CellClass.UNKNOWN}
        # A temple's square was never seen bare at set-up: there other squares' bare land counts.
        own = _OWN_LOOK - {CellClass.EMPTY_LAND} if setup is CellClass.TREASURE else _OWN_LOOK
        rows = np.flatnonzero(np.isin(codes, [CODES[c] for c in permitted if c not in own]))
        extra_codes, extra_rings, extra_looks = [], [], []
        if setup in permitted:  # the square's own look at set-up: bare board, or its temple's treasure
            extra_codes.append(CODES[setup])
            extra_rings.append(own_rings[k])
            extra_looks.append(references.coarse_board[cell] * lit[k])
        if was is not CellClass.UNKNOWN and not burnt_then[k]:  # the agreed picture of the square itself
            extra_codes.append(_REFERENCE)
            extra_rings.append(agreed_rings[k])
            extra_looks.append(before[k])
        labels = np.concatenate([codes[rows], np.array(extra_codes, np.intp)])
        seen = {_CLASSES[c] for c in np.unique(labels) if c != _REFERENCE} | {was}
        unseen = told is not None and bool(set(told) - seen - {CellClass.UNKNOWN})

        def near_to(apart_k: np.ndarray, rings_k: np.ndarray) -> np.ndarray:
            """How far these rings lie from each picture allowed here, and from the extras."""
            return np.concatenate([apart_k[rows], np.linalg.norm(np.array(extra_rings) - rings_k, axis=1)
                                   if extra_rings else np.zeros(0)])

        near = near_to(apart[k], now_rings[k])
        ringed = _ranked(near, labels, was, unseen, confidence_of, _T.unseen_rings)
        # In a long shadow the light the rings are measured under is not the square's: they tell nothing.
        by_rings = _Ranked(CellClass.UNKNOWN, 0.0) if unlit else ringed
        # The pixels of the pictures nearest in rings (a few poses of each class) and of the extras.
        fitted = nearest(near[: len(rows)], labels[: len(rows)], _T.nearest)
        looks = np.concatenate([examples.looks[rows[fitted]] * lit[k],
                                np.array(extra_looks).reshape(len(extra_codes), examples.looks.shape[1])])
        picked = np.concatenate([labels[fitted], extra_codes]).astype(np.intp)
        def fit(kept: np.ndarray | None = None) -> tuple[_Ranked, _Ranked, np.ndarray]:
            """The pixels' choice with the agreed picture however dark, and without it where
            it fits only in a shadow nothing casts (with those losses)."""
            loss = (shaded_fit_loss if shaded else fit_loss)(looks, target[k], exact[k], kept)
            every = _ranked(loss, picked, was, unseen, _pixel_confidence, _T.unseen_pixels)
            if shaded or cell not in unshaded:
                return every, every, loss
            loss[-1] = np.inf
            return every, _ranked(loss, picked, was, unseen, _pixel_confidence, _T.unseen_pixels), loss

        however, pixels, loss = fit()
        kept = _away_from(cell, changed | set(leaning), {*put, *leaning})
        if kept is not None:
            away_however, away, loss = fit(kept)
            however, pixels = _away(however, away_however, was), _away(pixels, away, was)
        if by_rings.unchanged:
            # Whether the agreed picture of the square still fits is the pixels' to say: its rings
            # are no witness. A change the light was followed from (tiles a war took off in a row
            # along the board's edge, taken for a glare) makes the agreed piece under that light
            # look, ring by ring, like the board bared, whose printed pattern only the pixels see.
            # The rings name what the other pictures show.
            others = labels != _REFERENCE
            by_rings = _ranked(near[others], labels[others], was, unseen, confidence_of, _T.unseen_rings)
        spread = references.own_spread.get(by_rings.cls)
        close = spread is not None and by_rings.distance <= spread
        verdict = _verdict(by_rings, pixels, bool(blind[k]), min_confidence, was, close)
        verdict = verdict._replace(darker=however.unchanged and not pixels.unchanged)
        if cell in wide and _rings_barely(verdict, by_rings, was) and pixels.cls is not verdict.reading.cls:
            # In a long shadow the rings are measured under a light that is not the square's: a
            # piece they alone name without much to spare may be the shadow's making, or a tall
            # figure's top seen over the square beside it. Unsure, it is judged again with room
            # for the shadow. (A leader whose colour shows only in its rim, which the pixels
            # hardly see, the rings name with much to spare: it stands.)
            verdict = _unsure(verdict)
        if burnt_then[k] and _rings_alone(verdict, by_rings, pixels, was, min_confidence):
            verdict = _unsure(verdict)
        if k in aside and verdict.reading.cls in _TILES and by_rings.cls is verdict.reading.cls:
            # The rings are taken around the square's centre: a tile pushed a quarter of a square
            # aside shows the land along one side in its outer rings, which may tint them towards
            # another colour's frame (never-tuned-on games 1641 and 1723: pale tiles with a black
            # frame pushed aside on olive land, green tiles to the rings at 0.56 and 0.98, and 1641
            # took it). Taken around where the tile lies, they must name the same colour. (Taken
            # there alone, they read leaders and tiles elsewhere worse: `bench follow`.)
            i = aside[k]
            centred_on = _ranked(near_to(aside_apart[i], aside_rings[i]), labels, was, unseen, confidence_of,
                                 _T.unseen_rings)
            if centred_on.cls is not verdict.reading.cls:
                verdict = _unsure(verdict)
        if unlit and _disputed(verdict, ringed, was, min_confidence):
            # ... yet a piece the pixels alone name there is not taken where the rings, under the
            # light followed from around, name another: a piece put down is darker than that light
            # too, and a disc's colour shows in the pixels' small picture only along its rim (a
            # green one read blue, surely).
            verdict = _unsure(verdict)
        cls, confidence = verdict.reading.cls, verdict.reading.confidence
        kind = references.colours_of(cls)
        if not verdict.unchanged and kind is not None and cls in kind.each:
            # A figure turned and leaning as no picture was may come nearer another colour's
            # pictures, a tile's disc lifted by a reflection the light followed only roughly too:
            # it must show its colour (see `leaders.colour_agrees`). A leader's colour is read in its
            # pixels unlike the board beside it (`References.leader_rims`): both looks see a pale
            # disc's thin rim with the board around it, whose colour varies from square to square
            # (game 371's blue discs read green, surely). Where those pixels name another colour
            # with much to spare, the leader is not the colour read. Pixels that show no colour
            # (the black leader's) are no witness against one: on a board whose print varies
            # much, only a figure's pale middle and symbol lie far enough from it to count (game
            # 531's green octagon); whether the colour shows at all is `colour_agrees`' to say.
            colour, light = leaders.shown(np.stack([raw[k], gain[k]]), kind, calibrated[0, [k, k]])
            rim = leaders.colour_shown(calibrated[0, k], kind) if cls.is_leader else None
            other = (rim is not None and rim[0] is not cls and rim[0] is not CellClass.LEADER_BLACK
                     and rim[1] >= _SURELY)
            if other or not leaders.colour_agrees(cls, colour, 1.0, light, kind, confidence):
                verdict = _unsure(verdict)
        colours = references.colours_of(by_rings.cls)
        if verdict.reading.cls is CellClass.UNKNOWN and colours is not None and _alike(by_rings.cls, pixels.cls):
            # Both measures see a figure, or a tile, not surely of which colour (or of one it does
            # not show, above): a disc whose colour shows only in its rim weighs little in either, a
            # pale tile's frame and symbol too (worse where it lies off-centre, the board showing
            # along one side). The colour one of them names stands where the colour its kind shows
            # (`leaders.colour_shown`: a leader's in its pixels unlike the board beside it) names
            # it too, with much to spare. A leader's colour so shown stands even where neither
            # names it: those pixels are a pale disc's rim, which both weigh little (never-tuned-on
            # games 371-473 left 10 such leaders unsure; the rim named each one's colour right, at
            # all 34 looks). Not the black leader's no-colour, which a figure's pale middle shows too.
            # Where neither names it, not where one names another colour surely: the two then
            # disagree surely, and either may be wrong (never-tuned-on game 1034: a green disc with
            # a coloured rim, green to the rings at 1.0, blue by its rim at 1.0, and the game took a
            # blue leader). Nor where both name the black leader, the rings sure enough to be taken
            # alone: they see a colour all round the centre, and a black rim is dark, the hue of
            # dark pixels the light's as much as the piece's (never-tuned-on game 1782: a black disc
            # under a warm lamp, black to the rings at 0.57 and to the pixels at 0.40, blue by its
            # rim at 0.92, and the game took a blue leader). The rings leaning there less, the rim
            # stands (green discs black to both, the rings at 0.28 at most, green by their rims at
            # 1.0: games 472, 373 and 384, at 30 looks), as it does where both name another colour
            # unsurely (game 371: a blue disc green to both at 0.1-0.2, blue by its rim at 1.0).
            shown = leaders.colour_shown(calibrated[0, k], colours)
            denied = shown is not None and (
                any(m.cls is not shown[0] and m.confidence >= _SURELY for m in (by_rings, pixels))
                or (by_rings.cls is pixels.cls is CellClass.LEADER_BLACK and by_rings.confidence >= min_confidence))
            if (shown is not None and shown[0] in permitted and shown[1] >= _SURELY
                    and (shown[0] in (by_rings.cls, pixels.cls)
                         or (shown[0].is_leader and shown[0] is not CellClass.LEADER_BLACK and not denied))):
                verdict = Verdict(CellReading(shown[0], shown[1]), False, verdict.dazzled)
        if verdict.reading.cls is CellClass.UNKNOWN and _left_standing(by_rings, pixels, was):
            # The leader agreed, both measures naming it, neither surely: it still stands, as
            # unsure as they are (below `min_confidence`, an arm's test counts it as doubt). Nothing covers a
            # leader: another piece there means it was taken off first, and one both measures take
            # for it is hardly put there in the same look. In 24 never-tuned-on games, 38 such
            # looks, each the leader agreed; on tiles, which a monument covers, 4 of 30 were its quarters.
            sure = max(by_rings.confidence, pixels.confidence)
            verdict = Verdict(replace(agreed[cell], confidence=sure), False, verdict.dazzled)
        cls, confidence = verdict.reading.cls, verdict.reading.confidence
        if cls is CellClass.MONUMENT and not verdict.unchanged:
            monument = _monument(loss[: len(fitted)], rows[fitted], examples)
            verdict = verdict._replace(reading=CellReading(cls, confidence, None, monument))
        disputed = by_rings.cls not in (was, CellClass.UNKNOWN) and by_rings.confidence >= _SURELY
        return verdict._replace(disputed=disputed)

    verdicts = [judge(k, cell, ()) for k, cell in enumerate(squares)]
    # Pieces put down surely: beside them a square is named without the sides facing them, where
    # other changed squares beside it (the shadow of the same piece) made every pixel count.
    put = {cell for cell, verdict in zip(squares, verdicts, strict=True) if _new_piece(verdict, agreed[cell].cls)}
    for k, cell in enumerate(squares):
        if put and cell not in put and _facing(cell, changed, put) != _facing(cell, changed):
            verdicts[k] = judge(k, cell, put)
    # A tall piece agreed beside a square leans over it as the camera sees it (outwards, near the
    # board's edge): where a piece was taken from under its side, no picture shows the square with
    # that side over it. A square read without much to spare there is named again without the
    # sides facing it, and takes that reading where it is the surer.
    standing_by = [{c for c in geometry.beside(cell) if _casts_shadow(agreed[c].cls)} - changed for cell in squares]
    for k, cell in enumerate(squares):
        standing = standing_by[k]
        if standing and not verdicts[k].unchanged and verdicts[k].reading.confidence < _SURELY:
            again = judge(k, cell, put, leaning=standing)
            if again.reading.confidence > verdicts[k].reading.confidence:
                verdicts[k] = again
    # A figure or a monument put down surely shades the squares around it: one of them left unsure,
    # or read as a piece put down, is named again with room for a shadow on every picture
    # (`shaded_fit_loss`). The unsure one takes what it is named; the other only what was agreed
    # there (a pawn's shadow across a corner of bare land came near a plain tile by its rings).
    # So does a wide shadow, somebody leaning in: squares side by side, each fitted by its agreed
    # picture only far darker than the light followed from around them says (`too_dark`).
    tall = {cell for cell, verdict in zip(squares, verdicts, strict=True) if _tall(verdict, agreed[cell].cls)}
    for k, cell in enumerate(squares):
        was, cls = agreed[cell].cls, verdicts[k].reading.cls
        piece = put_down(cls, was)
        # A figure read in a long shadow is judged again too: the shadow may have made it.
        shaded = cell in wide or (cell not in tall and bool(geometry.around(cell) & tall))
        if not shaded or not (cls is CellClass.UNKNOWN or piece):
            continue
        again = judge(k, cell, put, shaded=True, unlit=cell in wide)
        named = again.reading.cls
        # Not what was agreed, named with little to spare without the rings, where they were sure
        # of another piece: a tile in the land's hue, a shade darker, is no shadow (never-tuned-on
        # game 1523: a green stained wooden tile, the agreed bare land at 0.62; eight games, the
        # only such look). Nor is it surely the piece: the square is unsure.
        if named is was and verdicts[k].disputed and again.reading.confidence < _SURELY:
            verdicts[k] = _unsure(verdicts[k])
        elif (named is was) if piece else (named is not CellClass.UNKNOWN):
            verdicts[k] = again
    # A monument put down leans over the squares around it as the camera sees it (outwards), its
    # coloured slope over a side or a corner of them: no picture shows a square so, and both
    # measures may come near a piece of the slope's colour, surely (bare land beside a red and blue
    # monument read a red leader at 1.0, rings and pixels, game 432). A piece read there that was
    # not agreed is unsure: judged again without the rings, with room for the monument's shadow
    # and without the sides facing it, it takes only what was agreed there.
    built = _built(squares, verdicts, agreed)
    for k, cell in enumerate(squares):
        was, verdict = agreed[cell].cls, verdicts[k]
        if (cell in built or not geometry.around(cell) & built or verdict.unchanged
                or not put_down(verdict.reading.cls, was)):
            continue
        again = judge(k, cell, put, shaded=True, unlit=True, leaning=geometry.beside(cell) & built)
        verdicts[k] = again if again.reading.cls is was else _unsure(verdict)
    # A figure or a monument put down casts its shadow on the squares around it, of whatever shape
    # (a pawn's is long and soft: no light changing smoothly across a square follows it). Both
    # measures may come near a piece there: a leader, not surely (game 432 asked about nine such
    # squares), or a green one surely, by the rings, on a greenish board (game 482). A square beside
    # one holds what was agreed where the agreed picture, each pixel made darker alike in every
    # channel (`shadowed_misfit`), fits it as closely as it fits the squares around that did not
    # change, and not much worse than the board's usual square (`FollowTuning.shadow_fit`): no
    # piece put down, and no other light, looks so.
    doubtful = [k for k, cell in enumerate(squares) if geometry.around(cell) & tall and not burnt_then[k]
                and agreed[cell].cls is not CellClass.UNKNOWN and not verdicts[k].unchanged
                and verdicts[k].reading.cls is not agreed[cell].cls]
    if doubtful:
        misfit = shadowed_misfit(scene)
        usual = _T.shadow_fit * float(np.median(np.delete(misfit, index)))
        for k in doubtful:
            still = [misfit[c] for c in geometry.around(squares[k]) - changed]
            if still and misfit[squares[k]] <= min(float(np.median(still)), usual):
                verdicts[k] = Verdict(agreed[squares[k]], True, verdicts[k].dazzled)
    # So does a tall piece left standing on the board bared beside it, where a piece was taken off
    # (a war's losing tile beside a monument), which the light followed from the taken piece's
    # picture does not undo: both measures may come near a dark piece there (game 373: a black
    # tile, silently), or near the piece taken off itself, its own agreed picture fitting best
    # (game 773: a green tile beside a red monument, surely, under a lamp turned up). A piece
    # read there is named again with room for a shadow on every picture and without the sides
    # facing the tall piece: it stands only where it is named again; bare board named so stands
    # instead; else the square is unsure.
    for k, cell in enumerate(squares):
        standing, verdict = standing_by[k], verdicts[k]
        if (not standing or burnt_then[k] or agreed[cell].cls in _BARE
                or verdict.reading.cls in (*_BARE, CellClass.UNKNOWN)):
            continue
        again = judge(k, cell, put, shaded=True, leaning=standing)
        if again.reading.cls in _BARE:
            verdicts[k] = again
        elif again.reading.cls is not verdict.reading.cls:
            verdicts[k] = _unsure(verdict)
    return verdicts


def _centred(scene: Scene, squares: Sequence[int], agreed: Sequence[CellReading]) -> dict[int, np.ndarray]:
    """{k: px×px×3 float32}: of the squares (by index in `squares`), those where a piece put down
    on bare board lies off-centre, cut around where it lies (`decide`'s second opinion on a tile's
    colour): where the square differs from its agreed bare picture under the light now, over
    much of the square (a neighbour's side reaching over it is not); not where a reflection burnt
    that picture out in part (it differs from it where the reflection went)."""
    px, m = PX_PER_SQUARE, _T.recentre_px
    out: dict[int, np.ndarray] = {}
    put = [k for k, cell in enumerate(squares) if agreed[cell].cls in _BARE]
    if not put:
        return out
    now = np.pad(scene.now.astype(np.float32), ((m, m), (m, m), (0, 0)), mode="edge")
    before = np.pad(scene.relit, ((m, m), (m, m), (0, 0)), mode="edge")
    glared = np.pad(scene.agreed.max(axis=2) >= TUNING.clipped, m, mode="edge")
    side = px + 2 * m
    grid = np.arange(side, dtype=np.float32) - (side - 1) / 2
    for k in put:
        row, col = divmod(squares[k], COLUMNS)
        y, x = row * px, col * px
        if glared[y : y + side, x : x + side].any():
            continue
        window = now[y : y + side, x : x + side]
        differs = np.abs(window - before[y : y + side, x : x + side]).sum(axis=2)
        strong = differs > _T.recentre_differs
        if strong[m : m + px, m : m + px].mean() < _T.recentre_covers:
            continue
        weight = strong.astype(np.float32)
        dy = int(np.clip(np.rint((weight.sum(axis=1) @ grid) / weight.sum()), -m, m))
        dx = int(np.clip(np.rint((weight.sum(axis=0) @ grid) / weight.sum()), -m, m))
        if dy or dx:
            out[k] = window[m + dy : m + dy + px, m + dx : m + dx + px]
    return out


def shadowed_misfit(scene: Scene) -> np.ndarray:
    """CELLS: how far each square's pixels lie from the agreed picture under the light now, each
    pixel taken as much darker as fits it best, alike in every channel, down to the darkest a
    shadow leaves (`SecondLookTuning.shade_room`): in grey levels, all but the odd pixel along a
    shadow's edge (the 90th percentile)."""
    now = scene.now.astype(np.float32)
    then = scene.relit
    darkest = TUNING.second.shade_room[0]
    shade = np.clip((now * then).sum(axis=2) / np.maximum((then * then).sum(axis=2), 1e-6), darkest, 1.0)
    apart = np.linalg.norm(now - shade[..., None] * then, axis=2)
    per_square = cells(apart[..., None], PX_PER_SQUARE).reshape(CELLS, -1)
    misfit: np.ndarray = np.percentile(per_square, 90, axis=1)
    return misfit


def _built(squares: Sequence[int], verdicts: Sequence[Verdict], agreed: Sequence[CellReading]) -> set[int]:
    """The squares of the monuments put down: 2×2 blocks of changed squares, none of them agreed a
    monument, each read a monument or unsure, one at least a monument surely. (Squares under a
    standing monument's lean may be read its quarters: they make no block of their own.)"""
    read = dict(zip(squares, verdicts, strict=True))
    built: set[int] = set()
    for top in squares:
        block = geometry.block(top)
        if block is None or any(cell not in read or agreed[cell].cls is CellClass.MONUMENT
                                or read[cell].reading.cls not in (CellClass.MONUMENT, CellClass.UNKNOWN)
                                for cell in block):
            continue
        if any(_tall(read[cell], agreed[cell].cls) for cell in block):
            built |= set(block)
    return built


def _left_standing(by_rings: _Ranked, pixels: _Ranked, was: CellClass) -> bool:
    """Whether both measures name the leader agreed on a square."""
    return was.is_leader and by_rings.cls is was and pixels.cls is was


def put_down(cls: CellClass, was: CellClass) -> bool:
    """Whether a class read on a square names a piece put down there: not bare board, not
    unsure, not what was agreed."""
    return cls not in _BARE and cls is not CellClass.UNKNOWN and cls is not was


def _unsure(verdict: Verdict) -> Verdict:
    """The square unsure, as dazzled as the verdict said."""
    return Verdict(CellReading(CellClass.UNKNOWN, 0.0), False, verdict.dazzled)


def _disputed(verdict: Verdict, by_rings: _Ranked, was: CellClass, min_confidence: float) -> bool:
    """Whether a verdict names a piece put down (not bare board, not what was agreed) and the
    rings are sure enough of another piece."""
    named, ringed = verdict.reading.cls, by_rings.cls
    return (not verdict.unchanged and put_down(named, was) and put_down(ringed, named)
            and by_rings.confidence >= min_confidence)


def _ringed(verdict: Verdict, by_rings: _Ranked, was: CellClass) -> bool:
    """Whether a verdict names a piece put down (not bare board, not what was agreed) that the
    rings chose."""
    named = verdict.reading.cls
    return not verdict.unchanged and named is by_rings.cls and put_down(named, was)


def _rings_barely(verdict: Verdict, by_rings: _Ranked, was: CellClass) -> bool:
    """Whether a verdict names a piece put down that the rings chose without much to spare."""
    return _ringed(verdict, by_rings, was) and by_rings.confidence < _SURELY


def _rings_alone(verdict: Verdict, by_rings: _Ranked, pixels: _Ranked, was: CellClass, min_confidence: float) -> bool:
    """Whether a verdict names a piece put down that the rings chose, the pixels not surely: no
    piece to take where the agreed picture is burnt out. There the light the rings are measured
    under is followed from a picture that shows nothing of the square, or measured afresh on the
    bare squares around, which underrates a reflection at its heart. The pixels' fit takes more or
    less light; the rings take it as given, and a piece put down under the reflection looks
    lighter to them than it is: a black tile was a catastrophe at 1.0 at the shorter exposure,
    the pixels leaning there at 0.34 (never-tuned-on game 641, silently). So too with little to
    spare: a pawn's shadow on the bare land beside it came near a red tile, 0.51 by the rings and
    0.16 by the pixels (game 432)."""
    return _ringed(verdict, by_rings, was) and pixels.confidence < min_confidence


def _tall(verdict: Verdict, was: CellClass) -> bool:
    """Whether a verdict names a figure or a monument put down surely."""
    return _put_surely(verdict, was) and _casts_shadow(verdict.reading.cls)


def _casts_shadow(cls: CellClass) -> bool:
    return cls.is_leader or cls is CellClass.MONUMENT


_SURELY = TUNING.first.second_opinion  # a confidence with much to spare
_CLASSES = tuple(CellClass)
CODES = {cls: i for i, cls in enumerate(_CLASSES)}
# Classes whose only picture is the square's own (bare board has its printed pattern; a treasure
# stands on its own temple): other squares' pictures of them are not taken.
_OWN_LOOK = frozenset({CellClass.EMPTY_LAND, CellClass.EMPTY_RIVER, CellClass.TREASURE})
_BARE = _OWN_LOOK - {CellClass.TREASURE}
_TILES = frozenset({CellClass.TILE_RED, CellClass.TILE_BLUE, CellClass.TILE_GREEN, CellClass.TILE_BLACK})


_SIDES = sides()


def _facing(cell: int, changed: Collection[int], put: Collection[int] = ()) -> tuple[int, ...]:
    """The sides of a square (0 top, 1 right, 2 bottom, 3 left) that a piece put down beside it
    reaches over: its one side facing a changed square; or, with changed squares on several
    sides, those of them facing one or two squares where a piece was surely put down (`put`: its
    shadow or a war's gap changes the squares around it too). None (empty) where a piece put down
    is on no side, or on three or four: among changed squares all round, a hand's, every pixel
    counts."""
    beside = _sides_of(cell)
    facing = tuple(side for side, other in enumerate(beside) if other in changed)
    if len(facing) == 1:
        return facing
    pieces = tuple(side for side in facing if beside[side] in put)
    return pieces if 1 <= len(pieces) <= 2 else ()


def _sides_of(cell: int) -> tuple[int, int, int, int]:
    """The squares beyond a square's top, right, bottom and left sides; -1 past the board's edge."""
    row, column = divmod(cell, COLUMNS)
    return (cell - COLUMNS if row > 0 else -1, cell + 1 if column < COLUMNS - 1 else -1,
            cell + COLUMNS if row < ROWS - 1 else -1, cell - 1 if column > 0 else -1)


def _away_from(cell: int, changed: Collection[int], put: Collection[int] = ()) -> np.ndarray | None:
    """The pixels of a square but those along the sides a piece put down beside it, its side or
    its shadow, reaches over (`_facing`); None (all pixels) where there are none."""
    facing = _facing(cell, changed, put)
    if not facing:
        return None
    kept: np.ndarray = np.logical_not(_SIDES[list(facing)].any(axis=0))
    return kept


def _new_piece(verdict: Verdict, was: CellClass) -> bool:
    """Whether a verdict names a piece put down surely (not bare board, not what was agreed).
    Not a monument: its quarters are each other's neighbours, and one named without the sides
    facing the others was left unsure (a developed game's monument, asked about)."""
    return _put_surely(verdict, was) and verdict.reading.cls not in (*_BARE, CellClass.UNKNOWN, CellClass.MONUMENT)


def _put_surely(verdict: Verdict, was: CellClass) -> bool:
    """Whether a verdict names something else than was agreed, with much to spare."""
    return not verdict.unchanged and verdict.reading.cls is not was and verdict.reading.confidence >= _SURELY


def _away(every: _Ranked, away: _Ranked, was: CellClass) -> _Ranked:
    """The pixels' choice on a square with a piece put down beside it, from the fit of `every`
    pixel and of those `away` from the side that piece reaches over. The pixels away from it
    name the class, as surely as every pixel does where both name it (the side left out may
    have been the piece's own: a frame's colour); whether the agreed picture itself still fits
    best is judged on every pixel, as a hand's edge must be (two pictures of the same bare
    square fit alike without it)."""
    surely = max(every.confidence, away.confidence) if every.cls is away.cls else away.confidence
    return away._replace(confidence=surely, unchanged=every.unchanged and away.cls is was)


def _pixel_confidence(best: float, other: float) -> float:
    """As the second look's: 0.5 when the next class fits `margin` worse, less when the best fits
    badly at all."""
    second = TUNING.second
    gap = min(1.0, (other / max(best, 1e-6) - 1) * 0.5 / second.margin)
    return max(0.0, gap) * min(1.0, second.far / max(best, 1e-6))


def _ranked(
    apart: np.ndarray,
    labels: np.ndarray,
    was: CellClass,
    unseen: bool,
    confidence: Callable[[Any, Any], Any],
    unknown: float,
) -> _Ranked:
    """The class nearest by one measure (`apart`, one value per picture, `labels` its class; the
    agreed picture counting for the agreed class) and a confidence from the next class's
    distance; a class allowed but never seen counts as `unknown` away."""
    reference = labels == _REFERENCE
    best = np.full(len(_CLASSES), np.inf, np.float32)
    np.minimum.at(best, np.where(reference, CODES[was], labels), apart)
    first, second = (int(i) for i in np.argsort(best, kind="stable")[:2])
    rival = min(float(best[second]), unknown) if unseen else float(best[second])
    unchanged = bool(reference.any()) and first == CODES[was] and float(apart[reference].min()) <= best[first]
    return _Ranked(_CLASSES[first], float(confidence(float(best[first]), rival)), unchanged, float(best[first]))


def _verdict(by_rings: _Ranked, pixels: _Ranked, blind: bool, min_confidence: float, was: CellClass,
             close: bool = False) -> Verdict:
    """As an absolute read decides (`was`: the class agreed on the square): the agreed picture
    fitting best pixel by pixel means nothing changed; else the rings' choice when they have much
    to spare, the pixels' when those are sure, the rings' when they are sure enough and the pixels
    do not lean to the other kind of piece (a leader for a tile); but never when both are sure of
    different classes (a changed square is read as a move: a guess there is
    a move nobody made). `close`: the rings' choice lies as near as this table's own pictures of
    it lie to one another (`References.own_spread`)."""
    if blind:  # what is left of the pattern is clipped: only pixels not clipped tell anything
        by_rings = _Ranked(CellClass.UNKNOWN, 0.0)
    if (was is CellClass.TREASURE and by_rings.cls is CellClass.TILE_RED and by_rings.confidence >= _SURELY
            and not (pixels.unchanged and pixels.confidence >= by_rings.confidence)):
        # A treasure is small: the pixels, each one's misfit capped, hardly see it taken off its
        # temple, and the agreed picture with it may still fit best; the rings, which see its colour
        # go from all round the centre, are sure the temple is bare (game 513 listed "take the
        # treasure from O9" as owed at every one of 74 looks after it was taken: rings 1.0, the
        # agreed picture 0.76). Not where the agreed picture fits at least as surely: a treasure
        # lying at its tile's corner shows little in the rings (game 534: rings 0.90, the agreed
        # picture 1.0, and the game was told the treasure had gone).
        pixels = _Ranked(CellClass.UNKNOWN, 0.0)
    if pixels.unchanged and pixels.confidence >= min_confidence and not (
            pixels.confidence < _SURELY <= by_rings.confidence and by_rings.cls is not was):
        # ... but with little to spare, not against rings sure of another piece: a stained wooden
        # tile in the land's hue, a shade darker, fits the bare square's picture under a light
        # followed a little darker too (never-tuned-on game 1523: a green tile put down, the
        # agreed bare land at 0.6, the rings sure of the tile at 1.0, and the move went unseen;
        # in nine such games the only such look). The two then disagree surely (below).
        return Verdict(CellReading(pixels.cls, pixels.confidence), True, blind)
    if was in _BARE and pixels.cls is was and by_rings.cls is was and by_rings.confidence >= _SURELY:
        # Bare board agreed, the pixels leaning to its printed pattern and the rings sure of it:
        # still bare, a shadow or a lamp's change the light was followed through only roughly (the
        # pixels, fitting a little worse, come near some piece too). As sure as the pixels are:
        # below `min_confidence`, it is still doubt for an arm's test (`Observer._follow`). In 23
        # never-tuned-on games (pale tiles in six), 42 such looks, every one on bare board.
        return Verdict(CellReading(was, pixels.confidence), False, blind)
    if (by_rings.cls is was and not by_rings.unchanged and was not in _BARE and pixels.cls in _BARE
            and pixels.confidence < min_confidence):
        # The rings see a piece of the class agreed, but not the very piece: other pictures of it
        # come nearer than the square's own agreed picture does, under the light followed from it.
        # Where the pixels lean to the bare board, the piece may have been taken off: the rings say
        # nothing (a war's losing tile beside a monument, in its shadow, stayed agreed at 33 looks,
        # owed at each: game 484). Where the pixels are sure enough of it, the two disagree (below).
        by_rings = _Ranked(CellClass.UNKNOWN, 0.0)
    taken_off = was not in _BARE and pixels.cls is by_rings.cls and by_rings.confidence >= _SURELY
    if by_rings.cls in _BARE and not taken_off:
        # Bare board shows its own printed pattern, which only pixels tell: a bare arm or a
        # plain piece in the board's colours comes near its rings. Where a piece was agreed, the
        # rings are sure of bare board and the pixels lean there too, the piece was taken off (a
        # war's losing tiles under a changed light).
        by_rings = _Ranked(CellClass.UNKNOWN, 0.0)
    elif (pixels.cls in _BARE or pixels.cls is was) and pixels.confidence >= _SURELY > by_rings.confidence:
        # ... and a square whose own printed pattern fits far better than any piece's picture
        # is bare, whatever the rings, which cannot see the pattern, lean to. So a square the
        # pictures of the piece agreed there fit far better than any other holds it still: the
        # rings, not sure with much to spare of another piece, were measured under a light
        # followed only roughly (never-tuned-on game 451's wooden tiles, a catastrophe to the
        # rings at 0.55-0.83, asked about at three moves; in 24 such games, 58 such looks, each
        # on the piece agreed).
        by_rings = _Ranked(CellClass.UNKNOWN, 0.0)
    sure = by_rings.confidence >= min_confidence and pixels.confidence >= min_confidence
    # A leader's or a tile's colour: the rings see it all round a figure or a tile however it is
    # turned, and along a disc's thin rim, which is a pixel wide in the pixels' small picture
    # (where the quarter-turned pictures of a tile turned halfway fit no colour well).
    colour = _alike(by_rings.cls, pixels.cls) and by_rings.confidence >= _SURELY
    if sure and by_rings.cls is not pixels.cls and not colour:  # each sure of another class: neither is
        return Verdict(CellReading(CellClass.UNKNOWN, 0.0), False, blind)
    # The rings' choice never where the pixels see the other kind of piece of that colour: a disc
    # or a figure and a plain tile of one colour show that colour all round the centre alike, and
    # the rings, even with much to spare, may take the one for the other; the shape, a tile's
    # corners, is the pixels' (a red pawn, with its shadow and lean, was a red tile to the rings at
    # 1.0 and a red leader to the pixels: game 492, silently). Nor, without much to spare, where
    # the pixels see the other kind in any colour. Yet where the rings lie as near the piece they
    # name as this table's own pictures of it lie to one another, a lean of the pixels, not sure,
    # is no witness: a solid tile and a flat figure of one colour differ only about the square's
    # corners, which a piece put down off-centre, or the board's pattern under a figure's picture
    # taken on another square, blurs in the pixels' small picture (in ten never-tuned-on games,
    # 30 such squares, the rings right at 29; the other, game 492's pawn, lay 2.2 times further
    # from the red tiles' pictures than those lie from one another).
    other_kind = _shapes_differ(by_rings.cls, pixels.cls)
    same_colour = other_kind and by_rings.cls.colour == pixels.cls.colour
    if by_rings.confidence >= _SURELY and not (same_colour and not close):
        chosen = by_rings
    elif pixels.confidence >= min_confidence:
        chosen = pixels
    elif by_rings.confidence >= min_confidence and not other_kind and not (
            by_rings.cls is CellClass.CATASTROPHE and pixels.cls is not CellClass.CATASTROPHE):
        # Not a catastrophe, which takes what lies under it away: the rings alone, with little to
        # spare, are no witness of one against pixels leaning to another piece (never-tuned-on
        # game 1553: a pale red-framed tile put down off-centre, a pale pink catastrophe to the
        # rings at 0.64, a tile to the pixels; silently, at move 40).
        chosen = by_rings
    else:
        return Verdict(CellReading(CellClass.UNKNOWN, max(by_rings.confidence, pixels.confidence)), False, blind)
    return Verdict(CellReading(chosen.cls, chosen.confidence), False, blind)


def _shapes_differ(a: CellClass, b: CellClass) -> bool:
    """Whether one class is a leader and the other a tile."""
    return (a.is_leader and b.is_tile) or (a.is_tile and b.is_leader)


def _alike(a: CellClass, b: CellClass) -> bool:
    """Whether two classes are pieces of one kind, leaders or tiles, of whatever colours."""
    return (a.is_leader and b.is_leader) or (a.is_tile and b.is_tile)


def _monument(loss: np.ndarray, rows: np.ndarray, examples: Examples) -> tuple[str, str] | None:
    """The colours of the monument whose pictures fit best, when every other monument's fit
    clearly worse (`loss`: of the examples `rows`)."""
    fits: dict[tuple[str, str], float] = {}
    for value, row in zip(loss, rows, strict=True):
        colours = examples.monuments[row]
        if colours is not None:
            fits[colours] = min(fits.get(colours, np.inf), float(value))
    if not fits:
        return None
    ranked = sorted(fits, key=fits.__getitem__)
    if len(ranked) > 1 and fits[ranked[1]] < TUNING.first.named * fits[ranked[0]]:
        return None
    return ranked[0]
