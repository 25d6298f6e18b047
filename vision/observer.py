"""The camera's eye on the board: gate, markers, warp and classifier put together.

`Observer.feed` takes every frame and answers with a `BoardReading` whose status always says
what happened: read, moving, no board, board moved, bad frame, not calibrated. No exception
escapes: a camera that hands over garbage gets a BAD_FRAME reading, not a crash at the table.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple

import cv2
import numpy as np

from vision import aruco, change, classify, decide, gate, geometry, leaders, light, monuments, rectify, rings
from vision.calibration import MARKER_NAMES, Calibration, align, to_image, to_squares
from vision.camera import Camera, CameraError, capture_exposed, exposure_problem
from vision.memory import Memory
from vision.reading import CELLS, COLUMNS, ROWS, BoardReading, CellClass, CellReading, ReadStatus
from vision.references import References
from vision.second_look import coarse
from vision.tuning import TUNING

log = logging.getLogger(__name__)

MIN_SIDE = 64  # px: smaller frames cannot show 176 squares
NEAR_MARKER = 4  # squares from a corner a hand over its marker may reach (a hand is about 3 across)


@dataclass(frozen=True)
class _Seen:
    """The board as the last successful reading saw it: what `Observer.agree` makes the reference."""

    picture: np.ndarray  # seen from above (`rectify`): board coordinates, whatever the grid
    rim: np.ndarray | None  # the rim's samples (`gate.rim_samples`) through `homography`
    homography: np.ndarray  # the grid then
    changed: tuple[int, ...] | None  # the squares that reading found changed (None: read whole)
    darker: np.ndarray | None = None  # the picture at a shorter exposure that reading took, seen from above


class _Shot(NamedTuple):
    """One picture being read: the frame, the board seen from above through the grid of the moment,
    when, and how to take it again darker (`Camera.capture_darker`)."""

    frame: np.ndarray
    top_down: np.ndarray
    homography: np.ndarray
    now: float
    darker: Callable[[], np.ndarray | None] | None
    message: str  # what the alignment had to say
    shorter: bool = False  # the shorter exposure of a moment already read (no hand: that read saw none)
    look_at: frozenset[int] = frozenset()  # squares to read whatever the comparison with the agreed picture
    dark: dict[int, bool] | None = None  # at the shorter exposure: which squares changed (`Observer._in_the_dark`)


@dataclass(frozen=True)
class _Agreed:
    """The picture the game and the players last agreed on, and what they agreed it shows."""

    seen: _Seen
    cells: tuple[CellReading, ...]
    light: light.Undone  # its light over the calibration light, pixel by pixel
    picture: change.Reference  # the picture, ready to be compared with
    tint: np.ndarray  # 3: the lamp's colour then (the light's gain of each channel, over its brightness)
    bare: np.ndarray  # CELLS bool: the squares agreed to show the bare board the set-up picture showed
    dark: _Dark | None  # the last agreed picture at a shorter exposure


class _Dark(NamedTuple):
    """A picture at a shorter exposure of a board the players agreed on, and what it showed: under
    a glare that stays where it is, a square the glare dazzles in every picture is compared with it."""

    picture: change.Reference
    cells: tuple[CellReading, ...]


class _Darker(NamedTuple):
    """What the shorter exposure read of the board, and the squares it made unsure because it read
    them as agreed where the first picture saw a change surely (not to be put back as first read)."""

    cells: tuple[CellReading, ...]
    disputed: frozenset[int]


def _agreement(seen: _Seen, cells: tuple[CellReading, ...], references: References, dark: _Dark | None = None
               ) -> _Agreed:
    """The picture `seen`, agreed to show `cells`: its light over the calibration light, measured on
    the squares agreed to show the bare board the set-up picture showed."""
    known = np.array(
        [cell.cls in _BARE and cell.cls is setup for cell, setup in zip(cells, references.setup, strict=True)]
    )
    lit = light.light(seen.picture, references.board, known)
    undone = light.undo_light(seen.picture, references.board, lit)
    return _Agreed(seen, cells, undone, change.reference(seen.picture), lit.tint, known, dark)


def frame_problem(frame: object) -> str | None:
    """Why a frame cannot be read, in words for the players; None when it can."""
    if not isinstance(frame, np.ndarray):
        return f"The camera sent {type(frame).__name__}, not a picture."
    if frame.dtype != np.uint8:
        return f"The camera picture has {frame.dtype} pixels; 8-bit colour is needed."
    if frame.ndim != 3 or frame.shape[2] != 3:
        return "The camera picture is not a colour picture (3 channels)."
    if min(frame.shape[:2]) < MIN_SIDE:
        return f"The camera picture is only {frame.shape[1]}×{frame.shape[0]} pixels: far too small."
    return exposure_problem(frame)


class Observer:
    """Reads the board from frames; keeps the calibration up to date when the board is bumped.

    still_frames: how many still frames the gate needs before a reading.
    min_confidence: squares below it are reported as unknown and listed in `low_confidence`.
    tall: squares the game says hold a monument (set by the companion as the game goes on). The
        tall piece leans outwards at the board's edge and may not be made out there; unreadable,
        those squares are reported unknown but never taken for an arm reaching in, nor is a square
        beside a monument standing as agreed, where a piece was taken from under its lean.
    face_down: squares the game says may hold a face-down tile (under a monument built or about
        to be), set by the companion; None (not told) means anywhere. Elsewhere a square that
        comes near its printed pattern under a glare is read as bare.
    candidates: for each square, the classes the rules allow there now (set by the companion);
        None (not told) means any class. A changed square is never read as a class outside them
        (or the class agreed there, which is always allowed).
    memory: the pieces this table showed at earlier agreements (`vision.memory`).

    Once the companion says what the last reading showed (`agree`), each reading compares the
    board with that picture and reads only the squares that changed (`vision.change`,
    `vision.decide`); a game's first look, with the calibration's set-up picture when the game
    says the board shows that position (`expect_setup`). Before that, and when more than half the
    board changed, the whole board is read (`vision.classify`).
    """

    def __init__(
        self,
        calibration: Calibration | None,
        *,
        still_frames: int = 3,
        min_confidence: float = TUNING.min_confidence,
        memory: Memory | None = None,
    ) -> None:
        self.gate = gate.StabilityGate(still_frames)
        self.min_confidence = min_confidence
        self.tall: frozenset[int] = frozenset()
        self.excused: frozenset[int] = frozenset()
        # Squares where the game cannot explain what was named, though the comparison saw no change
        # there: read again whatever it says (a piece lifted where the light changed, game 1302).
        self.unexplained: frozenset[int] = frozenset()
        self.face_down: frozenset[int] | None = None
        self.candidates: tuple[frozenset[CellClass], ...] | None = None
        self.calibration: Calibration | None = None
        self._rim_seen: Calibration | None = None  # the grid the calibration's rim was seen through
        self.memory = memory if memory is not None else Memory(None, calibration.created if calibration else "")
        self._dynasties: dict[int, tuple[CellClass, np.ndarray, str | None]] = {}
        self._last: _Seen | None = None
        self._agreed: _Agreed | None = None
        self._examples: tuple[tuple[int, int], decide.Examples] | None = None
        self._darker: _Shot | None = None  # the shorter exposure the reading under way took
        self._doubted: frozenset[int] = frozenset()  # squares read unsure since the last agreement
        if calibration is not None:
            self.use(calibration)

    def use(self, calibration: Calibration) -> None:
        """Read with this calibration from now on (and watch the rim it saw). Another calibration
        than the memory's (the players calibrated again) starts an empty memory and a whole read:
        pictures kept under another calibration's light are not comparable."""
        if calibration.created != self.memory.calibration:
            self.memory = Memory(self.memory.path, calibration.created)
            self.forget()
        self._rim_seen = calibration
        self._regrid(calibration)
        if calibration.rim is not None:
            places = gate.rim_places(calibration.homography, calibration.image_size)
            self.gate.watch_rim(places, calibration.rim)

    def _regrid(self, calibration: Calibration) -> None:
        """Read through this grid from now on (after a bump, the one the markers give now). The
        rim the gate watched is no longer where it was (the next agreement gives it one); `_rim`
        judges whether the calibration's rim can still be compared with."""
        self.calibration = calibration
        self._dynasties = {}
        self._examples = None
        self.gate.forget_rim()

    def agree(self, shown: Sequence[CellReading]) -> None:
        """The game and the players agreed that the board of the last successful reading shows
        `shown` (square by square; the players' corrections in it): that picture becomes the one
        to compare with, and the squares that changed since the agreement before are learnt as
        pictures of this table's pieces."""
        last, calibration = self._last, self.calibration
        if last is None or calibration is None or calibration.references is None:
            return  # nothing read yet to agree on
        if len(shown) != CELLS:
            raise ValueError(f"an agreement names {CELLS} squares, not {len(shown)}")
        cells = tuple(CellReading(c.cls, 1.0, c.dynasty, c.monument) for c in shown)
        self._doubted = frozenset()
        references = calibration.references
        before = self._agreed
        earlier = before.cells if before is not None else tuple(CellReading(c, 1.0) for c in references.setup)
        renamed = {c for c in range(CELLS) if cells[c].cls is not earlier[c].cls}
        # A darker picture shows what it showed until one of its squares is agreed to hold another
        # piece (its cells): a lamp's glare that comes and goes keeps its place.
        dark = before.dark if before is not None else None
        if last.darker is not None:
            dark = _Dark(change.reference(last.darker), cells)
        if before is not None and before.seen is last:  # the same picture, told again (a correction)
            self._agreed = replace(before, cells=cells, dark=dark)
            self._learn(sorted(renamed), cells, last.picture, before.light)
            return
        self._agreed = _agreement(last, cells, references, dark)
        self._learn(sorted(renamed | set(last.changed or ())), cells, last.picture, self._agreed.light)
        if last.rim is not None:
            size = calibration.image_size
            self.gate.watch_rim(gate.rim_places(last.homography, size), last.rim.mean(axis=1))

    def expect_setup(self, shown: Sequence[CellReading]) -> None:
        """A game starts from its set-up position (`shown`, square by square). With nothing agreed
        yet and the calibration's set-up picture showing the same pieces, that picture becomes the
        one to compare with: the first look reads only the squares that changed (the first move),
        among what the rules allow there, as every later look does. Read whole, the board is read
        with all the doubt of an absolute read (72 never-tuned-on games lost 9 moves at their first
        look, 3 with it: squares left unsure, a shadow read as a figure nobody put down)."""
        calibration = self.calibration
        if self._agreed is not None or calibration is None or calibration.references is None:
            return
        references = calibration.references
        if len(shown) != CELLS or tuple(c.cls for c in shown) != references.setup:
            return  # not the position the calibration saw: the board is read whole
        cells = tuple(CellReading(c.cls, 1.0, c.dynasty, c.monument) for c in shown)
        self._agreed = _agreement(_Seen(references.board, None, calibration.homography, None), cells, references)

    def _learn(self, squares: list[int], cells: tuple[CellReading, ...], picture: np.ndarray,
               undone: light.Undone) -> None:
        """Hand the memory these squares' pictures, under the calibration light; squares a glare
        burnt out are left out (nothing of the piece shows there)."""
        burnt = _burnt(picture)
        clear = [c for c in squares if burnt[c] < TUNING.follow.burnt_for_learning]
        if not clear:
            return
        looks = np.clip(np.rint(rectify.cells(undone.image)[clear]), 0, 255).astype(np.uint8)
        self.memory.learn(looks, [cells[c] for c in clear])
        self.memory.save_now_and_then()

    def forget(self) -> None:
        """Read the whole board again from the next picture on (a new game, a resumed one)."""
        self._agreed = None
        self._last = None
        self._doubted = frozenset()
        self.candidates = None

    def feed(self, frame: object, small: np.ndarray | None = None) -> BoardReading:
        """One frame of the stream: a reading once the board is still and clear, else why not.

        small: the camera's low-resolution frame taken with it, if it has one (cheaper gate).
        """
        now = time.time()
        problem = frame_problem(frame)
        if problem is not None:
            self.gate.reset()
            return BoardReading(ReadStatus.BAD_FRAME, time=now, message=problem)
        assert isinstance(frame, np.ndarray)
        try:
            state = self.gate.update(frame if small is None else small)
        except Exception as error:  # a broken small stream must not stop the table
            return BoardReading(ReadStatus.BAD_FRAME, time=now, message=f"The camera preview is unusable ({error}).")
        if not state.still:
            message = "A hand is over the board." if state.hand else "Waiting for the board to be still."
            return BoardReading(ReadStatus.MOVING, hands_in_view=state.hand, time=now, message=message)
        return self.read(frame)

    def watch(self, camera: Camera) -> BoardReading:
        """One step with a camera: its small frame through the gate, and once the board is still,
        a full frame read. A failing camera gives a BAD_FRAME reading with its message."""
        now = time.time()
        try:
            state = self.gate.update(camera.capture_small())
            if not state.still:
                message = "A hand is over the board." if state.hand else "Waiting for the board to be still."
                return BoardReading(ReadStatus.MOVING, hands_in_view=state.hand, time=now, message=message)
            frame = capture_exposed(camera)
        except CameraError as error:
            self.gate.reset()
            return BoardReading(ReadStatus.BAD_FRAME, time=now, message=str(error))
        return self.read(frame, darker=camera.capture_darker)

    def read(self, frame: object, darker: Callable[[], np.ndarray | None] | None = None) -> BoardReading:
        """Read a frame now, without waiting for stillness (still images, `companion read`).
        A frame with something on the board's rim is refused: "something lies over the board's edge".
        darker: takes the same picture at a shorter exposure (`Camera.capture_darker`), asked for
        when a glare saturated the sensor over squares that could not be read."""
        now = time.time()
        problem = frame_problem(frame)
        if problem is not None:
            return BoardReading(ReadStatus.BAD_FRAME, time=now, message=problem)
        assert isinstance(frame, np.ndarray)
        if self.calibration is None or self.calibration.references is None:
            return BoardReading(ReadStatus.NOT_CALIBRATED, time=now, message="Calibrate the camera first.")
        try:
            return self._read(frame, now, darker, remember=True, look_at=self._doubted | self.unexplained)
        except Exception as error:  # the last line of defence: say what broke, never crash
            return BoardReading(ReadStatus.BAD_FRAME, time=now, message=f"The picture could not be read ({error}).")

    def _rim(self, frame: np.ndarray, calibration: Calibration) -> tuple[np.ndarray, np.ndarray]:
        """The rim patches something lies on (an arm reaching in must cross the rim), and the rim's
        samples now.

        A sleeve can look like a piece to the classifier, so a covered rim alone refuses the
        reading; a strong shadow on the rim is refused too (reported in the bench), and so is a
        cup left there: the message says where to look. A lamp's reflection is not (it adds white
        light, `gate.rim_unlike`). The rim is compared with the rim at the last agreement, so it
        follows the evening's light; before one (and while the set-up picture is the one compared
        with, `expect_setup`), with the rim the calibration saw. After the board moved (more than
        `rim_moved` since that rim was seen), the rim beyond a narrow border is the table, which did
        not move with it: following, until the next agreement only what reaches over the squares
        tells an arm; before any agreement, the rim is compared with the calibration's small set-up
        picture (`gate.rim_unlike_after_move`)."""
        places = gate.rim_places(calibration.homography, calibration.image_size)
        small = gate.small_image(frame)
        samples = gate.rim_samples(small, places)
        colours = samples.mean(axis=1)
        agreed = self._agreed
        nothing = np.zeros(len(places), bool)
        if agreed is not None and agreed.seen.rim is not None:  # (the set-up picture's rim is the calibration's)
            moved = _shift(agreed.seen.homography, calibration.homography)
            if moved > TUNING.follow.rim_moved:
                return nothing, samples
            return gate.rim_unlike(colours, agreed.seen.rim.mean(axis=1), places), samples
        seen = self._rim_seen
        if seen is None or seen.rim is None:
            return nothing, samples
        then = seen.resized(calibration.image_size)
        if seen.surroundings is not None and _shift(then.homography, calibration.homography) > TUNING.follow.rim_moved:
            before = gate.rim_places(then.homography, then.image_size)
            return gate.rim_unlike_after_move(seen.surroundings, before, small, places), samples
        return gate.rim_unlike(colours, seen.rim, places), samples

    def _read(
        self, frame: np.ndarray, now: float, darker: Callable[[], np.ndarray | None] | None, *, remember: bool,
        look_at: frozenset[int] = frozenset(),
    ) -> BoardReading:
        assert self.calibration is not None and self.calibration.references is not None
        size = (frame.shape[1], frame.shape[0])
        calibration = self.calibration.resized(size)
        alignment = align(frame, calibration)
        if alignment.calibration is None:
            status = ReadStatus.BOARD_MOVED if alignment.moved else ReadStatus.NO_BOARD
            return BoardReading(status, time=now, message=alignment.message)
        if alignment.calibration is not calibration:  # the grid was made again: keep it
            self._regrid(alignment.calibration)
        homography = alignment.calibration.homography  # also where a hidden marker lies now, as calibrated
        hidden = tuple(MARKER_NAMES[i] for i, corners in calibration.markers.items()
                       if i not in alignment.markers
                       and _covered(frame, i, to_image(homography, to_squares(calibration.homography, corners))))
        if hidden and self._agreed is None:  # an arm reaching in over a corner covers its marker, not the rim
            return _covering(hidden, now)
        off_rim, rim = self._rim(frame, alignment.calibration)
        if remember:
            self._darker = None
        top_down = rectify.rectify(frame, homography)
        shot = _Shot(frame, top_down, homography, now, darker, alignment.message, shorter=not remember,
                     look_at=look_at, dark=None if remember else self._in_the_dark(top_down))
        reading = self._follow(shot, off_rim, rim, hidden) if self._agreed is not None else None
        if reading is None:
            sides = _sides(off_rim, hidden)
            if sides:
                return _on_the_rim(sides, now)
            reading = self._whole(shot)
        if reading.ok and remember:
            self._last = _Seen(shot.top_down, rim, homography, reading.changed,
                               self._darker.top_down if self._darker is not None else None)
            if reading.changed is not None:
                self._doubted |= set(reading.low_confidence)
        elif reading.ok:
            self._darker = shot
        return reading

    def _whole(self, shot: _Shot) -> BoardReading:
        """The whole board read afresh, square by square (`classify`)."""
        frame, top_down, homography, now, darker, message, *_ = shot
        assert self.calibration is not None and self.calibration.references is not None
        references = self.calibration.references
        look = classify.classify(top_down, references, self.min_confidence, face_down=self.face_down)
        cells = look.cells
        if references.dynasty_keys:
            cells = tuple(
                replace(cell, dynasty=self._dynasty(frame, homography, i, cell.cls))
                if cell.cls.is_leader
                else cell
                for i, cell in enumerate(cells)
            )
        cells = _only_what_can_be(cells, self.calibration.board)
        unsure = tuple(i for i, cell in enumerate(cells) if cell.cls is CellClass.UNKNOWN)
        obscured = set(look.obscured)
        if darker is not None and set(unsure) & set(look.dazzled):
            # A glare spot at the edge leaves squares unreadable as an arm does; a shorter
            # exposure shows them (an arm blocks the glare, and the darker picture's own read
            # refuses it).
            looked = self._darker_look(darker, cells, unsure, now)
            cells = looked.cells if looked is not None else cells
            unsure = tuple(i for i, cell in enumerate(cells) if cell.cls is CellClass.UNKNOWN)
            obscured &= set(unsure)
        # An arm is judged from what the first look could not read, so the second look's
        # guesses under a hand held still never hide it; and from monuments where the game says
        # none stands or may be built (a bare arm comes near a monument's pale quarters).
        unexpected = (
            {i for i, cell in enumerate(cells) if cell.cls is CellClass.MONUMENT} - self.face_down
            if self.face_down is not None
            else set()
        )
        arm = _reaching_in(tuple(sorted(set(unsure) | obscured | unexpected)), self.tall | self.excused)
        if arm:
            return _arm(arm, now)
        return _read_ok(cells, unsure, now, message)

    def _follow(
        self, shot: _Shot, off_rim: np.ndarray, rim: np.ndarray, covered: tuple[str, ...] = (), afresh: bool = False
    ) -> BoardReading | None:
        """The board compared with the agreed picture: only the squares that changed are read,
        among what the rules allow there. None when more than half the board changed (not a
        move: the board is to be read whole).

        off_rim: the rim patches unlike the agreed rim (`rim`: its samples now); not those whose
        printed pattern shows as it did under another light (`gate.pattern_kept`: somebody
        leaning in shades them). Something lying on the rim that covers no square (a cup, a box lid, a tile
        rack moved beside a narrow border) does not stop the reading; with squares along that
        edge unlike their agreed pictures and read as something else, or with little to spare, it
        is an arm reaching in (fingers come near a pale tile, a sleeve near a dark one), and the
        reading is refused. covered: the corners whose marker is hidden (not by a glare), whose
        edges count as unlike; a square near one that changed at all refuses the reading.
        afresh: the light is measured afresh on the bare board (`_light_now`), as it is before a
        reading is refused as an arm reaching in."""
        frame, top_down, homography, now, darker, message, *_ = shot
        assert self.calibration is not None and self.calibration.references is not None
        agreed = self._agreed
        assert agreed is not None
        seen = change.compare(top_down, agreed.picture)
        if agreed.seen.rim is not None:
            off_rim = off_rim & ~gate.pattern_kept(rim, agreed.seen.rim)
        sides = _sides(off_rim, covered)
        burnt, then = _burnt(top_down), agreed.picture.burnt
        compared = {int(c) for c in np.flatnonzero(seen.changed)}
        # At the shorter exposure, also the squares burnt out in the agreed picture that changed since
        # the last agreed picture at that exposure: compared with a burnt-out agreed picture, a piece
        # put down there may not show (never-tuned-on game 812: a lamp burnt out 134–144 squares in
        # both pictures, and a blue tile put down among them was never read).
        in_the_dark = {c for c, changed in (shot.dark or {}).items() if changed and then[c] >= TUNING.washed}
        flagged = sorted(compared | shot.look_at | in_the_dark)
        if len(flagged) > CELLS // 2:
            return None
        near = tuple(c for c in flagged if any(_near(c, corner) for corner in covered))
        if near:  # a hand over the marker reaches onto the squares beside it; a cup there does not
            return _covering(covered, now, near)
        washed = {c for c in flagged if burnt[c] >= TUNING.washed}
        washed_then = {c for c in flagged if then[c] >= TUNING.washed}
        # At the shorter exposure, where a square is burnt out in one of the two pictures only,
        # the reflection's change could not be measured (see `_light_now`).
        unmeasured = (shot.shorter and washed_then != washed) or afresh
        gain, glare = self._light_now(top_down, seen, flagged, unmeasured)
        # Nor on a changed square burnt out in the agreed picture and not at all now: a reflection
        # a square or two across went, too small for the smooth change measured over the board to
        # follow. There alone the light is measured afresh (elsewhere the agreed light holds: the
        # fresh measurement, from the bare squares around, is the rougher where a square has few).
        went = {c for c in flagged if then[c] >= TUNING.washed and burnt[c] < TUNING.dazzled}
        if went:  # ... and its fringe, where it glared without burning the square out
            glared = rectify.cells(agreed.light.glare[..., None]).reshape(CELLS, -1).mean(axis=1)
            went |= {c for c in flagged if burnt[c] < TUNING.dazzled and glared[c] > TUNING.first.glare_doubt
                     and geometry.around(c) & went}
        if went and not unmeasured:
            fresh = self._light_now(top_down, seen, flagged, True)
            at = _pixels_of(went, top_down.shape[0] // ROWS)
            gain[at], glare[at] = fresh[0][at], fresh[1][at]
        scene = decide.Scene(top_down, agreed.seen.picture, seen.gain, seen.glare, gain, glare)
        # Where a glare burnt the square out in both pictures nothing shows a change (see below).
        blind = {int(c) for c in np.flatnonzero(scene.blind | (burnt >= TUNING.dazzled))}
        verdicts = decide.decide(
            scene, flagged, agreed.cells, _in_blocks(self._allowed(), set(flagged) | blind, agreed.cells),
            self.calibration.references, self._pictures(), self.min_confidence,
        )
        # Squares a glare burnt out, now or in the agreed picture (a lamp switched on or off): doubt
        # there tells nothing of an arm (a lamp throws its reflection over the squares at the
        # edge as well as anywhere).
        hidden = washed | washed_then
        cells = list(agreed.cells)
        changed = []
        dazzled = set()
        seen_changed = set()  # squares this picture read surely as holding something else
        alike = set()  # squares unlike their agreed picture, yet read as the piece agreed there
        faint = set()  # ... of those, the ones read so without much to spare
        doubted = frozenset() if shot.shorter else self._doubted
        for cell, verdict in zip(flagged, verdicts, strict=True):
            reading, was = verdict.reading, agreed.cells[cell]
            # A square read unsure since the agreement is named what was agreed only surely: the
            # same board, a picture later, may come out just sure enough of it (never-tuned-on game
            # 702: a green disc at the board's edge, unsure, then the bare land at 0.7, and the
            # game went on without the leader).
            if (cell in doubted and (verdict.unchanged or _same(reading, was))
                    and reading.confidence < TUNING.first.second_opinion):
                reading = CellReading(CellClass.UNKNOWN, 0.0)
            elif verdict.unchanged:
                continue
            # Not where this picture is burnt out and the agreed one not at all (a lamp switched
            # on): what is read there comes from the few pixels the glare left, and the darker
            # picture, compared with a clear agreed picture, tells surely whether it changed. Nor
            # where both are (`verdict.dazzled`): fewer pixels yet are left (game 554's burnt-out
            # bare land came near a pale unification tile, surely; the darker picture saw the land).
            lamp_on = cell in washed and then[cell] < TUNING.dazzled
            if (reading.cls is not was.cls and reading.confidence >= TUNING.first.second_opinion
                    and not (lamp_on or verdict.dazzled)):
                seen_changed.add(cell)
            if cell in washed and reading.cls is not was.cls:
                # What the pixels a glare left fit is no new piece (a burnt-out patch comes near a
                # pale monument): unsure, and a shorter exposure may show it.
                reading = CellReading(CellClass.UNKNOWN, 0.0)
                dazzled.add(cell)
            if reading.cls.is_leader and self.calibration.references.dynasty_keys:
                reading = replace(reading, dynasty=self._dynasty(frame, homography, cell, reading.cls))
            # The same piece nudged or turned, or under a new glare, is what was agreed (and as
            # the players named it): a change is another class, or another player's leader.
            if _same(reading, was):
                alike |= {cell} if not verdict.darker else set()
                faint |= {cell} if reading.confidence < TUNING.first.second_opinion else set()
                continue
            changed.append(cell)
            cells[cell] = reading
            dazzled |= {cell} if verdict.dazzled else set()
        building = self._building()
        under = _under_new_monuments(cells, changed, alike, building)
        for cell in under:
            cells[cell] = CellReading(CellClass.UNKNOWN, 0.0)
        changed = sorted(changed + under)
        checked = _only_what_can_be(tuple(cells), self.calibration.board, building)
        unchanged = set(range(CELLS)) - set(changed)
        cells = [agreed.cells[c] if c in unchanged else checked[c] for c in range(CELLS)]
        cells = _monuments_named(cells, changed, agreed.cells, scene, self.calibration.references)
        # Unlike their agreed pictures: the squares flagged but those the agreed picture still fits
        # best (a neighbour's piece overhanging a corner, a shadow, a glare that moved), if only
        # darker than the light says (not taken as unchanged, but nothing laid over it either) ...
        # (Not the squares read again only because they were unsure before: their doubt is no arm's.)
        held = doubted - compared
        unlike = {c for c, verdict in zip(flagged, verdicts, strict=True)
                  if not (verdict.unchanged or verdict.darker) and c not in held}
        # At the shorter exposure, compared with the agreed picture at the full one, the squares
        # under a lamp's reflection are unlike it whatever lies there; the last agreed picture at
        # the shorter exposure tells of an arm over them (never-tuned-on game 1291: a reflection
        # that burnt out 20 squares at the top edge in the agreed picture, and the shorter exposure
        # refused as an arm at every look, while a blue tile was put down among them).
        if shot.shorter and shot.dark is not None:
            unlike -= {c for c, changed in shot.dark.items() if not changed}
        # ... and of those, the ones read as something else than agreed with little to spare, or
        # not read at all, or read as agreed less than surely enough (a piece put down and read
        # surely, or one nudged and read as itself, or bare board where a glare went, is no doubt).
        # A figure or a monument put down shades and leans over the squares around it: doubt
        # there is no arm's when the piece itself is read surely.
        shaded = {n for c in changed if (cells[c].cls.is_leader or cells[c].cls is CellClass.MONUMENT)
                  and cells[c].confidence >= TUNING.first.second_opinion for n in geometry.around(c)}
        doubtful = {c for c, verdict in zip(flagged, verdicts, strict=True)
                    if c in unlike and c not in hidden | shaded
                    and _doubted(verdict.reading, agreed.cells[c].cls, self.min_confidence)}
        # The squares named, the players are asked about them when the same refusal comes look after
        # look, and a patch they see nothing over is read through (never-tuned-on game 1184 stalled:
        # a shadow's edge over the top rim, a leader put down below it read not surely enough).
        along = tuple(c for c in sorted(doubtful - self.excused) if set(sides) & _EDGES[c])
        if along:
            return _on_the_rim(sides, now, along)
        # A monument standing as agreed leans over the squares beside it as the camera sees it
        # (outwards, near the board's edge): where a piece was taken from under its side, no
        # picture shows the square as it is now, and it may be left unsure (a war took a row of
        # river tiles from beside one at the edge). That doubt is the monument's, not an arm's.
        # Not so on bare board agreed there: its agreed picture shows the lean, and an arm over it
        # fits none. (Doubt on an edge whose rim something lies over was refused above.)
        standing = self.tall - set(changed)
        under_lean = {c for c in doubtful if agreed.cells[c].cls not in _BARE and geometry.beside(c) & standing}
        unsure = tuple(c for c in changed if cells[c].cls is CellClass.UNKNOWN)
        arm = _arm_in(set(flagged) - held - self.tall - self.excused, unlike, doubtful - under_lean)
        if arm and not afresh:
            # A shadow that lifted from a plain board (game 453's linen) is a change of light the
            # comparison cannot follow there: its print is too faint to tell a brightness from a
            # glare (`change.light_change`), so the squares under it are read under the light
            # followed from the agreed picture, a shadow's, and a bare one fits nothing well. The
            # bare board shows the light now: measured there afresh, every square is read surely,
            # and as no other piece than this look saw surely. An arm's squares are not: they fit
            # nothing well under any light, or come near pieces nobody put down. Bare board where
            # a piece was taken off this look need only have read sure enough: it is the square's
            # own printed pattern, which no arm shows (never-tuned-on game 1722: a pawn taken off
            # at the top edge after a war, its square bare land at 0.73, the square its shadow had
            # darkened brighter, refused at three looks; bare land at 1.0 under the light afresh).
            vouched = {c: cells[c] for c in changed if cells[c].confidence >= TUNING.first.second_opinion
                           or (cells[c].cls in _BARE and cells[c].confidence >= self.min_confidence)}
            relit = self._follow(shot, off_rim, rim, covered, afresh=True)
            if relit is not None and relit.ok and not relit.low_confidence and all(
                    c in vouched and _same(relit.cells[c], vouched[c]) for c in relit.changed or ()):
                return relit
        if arm:
            return _arm(arm, now)
        # Where a glare burnt the square out in both pictures nothing shows a change, and where it
        # burnt out part of one a pale piece may not show: a shorter exposure may show one;
        # failing that the square holds what was agreed. But where a new reflection burnt it out
        # all but wholly and the shorter exposure taken cannot be read, it shows nothing, of a
        # piece put down or of the bare board agreed, and the players are asked (never-tuned-on
        # game 1291: a pale tile with a green frame put down under a lamp's new reflection, the
        # shorter exposure refused as an arm reaching in, and the square kept as bare land).
        looked: _Darker | None = None
        unseen: set[int] = set()
        if darker is not None and (dazzled & set(unsure) or blind - set(changed)):
            looked = self._darker_look(darker, tuple(cells), tuple(sorted(set(unsure) | blind)), now,
                                       seen_changed, washed_then)
            if looked is None:
                unseen = {c for c in blind if burnt[c] >= TUNING.second.burnt_out and then[c] < TUNING.dazzled}
        if looked is not None or unseen:
            again = list(looked.cells if looked is not None else cells)
            disputed = looked.disputed if looked is not None else frozenset()
            # Where the glare left most of a square and the first look read it, what the shorter
            # exposure cannot read (a dark piece at half the light) stays as first read; but not
            # what was agreed there, read without much to spare though the square changed
            # (never-tuned-on game 1463: a black tile under a lamp's glare, bare land to both of
            # the first picture's measures at 0.85; the game went on without it).
            # Not where the shorter exposure read the square, as something else than the first look
            # named surely (never-tuned-on game 1624: a stained black tile, a dark catastrophe to
            # the first look's rings at 1.0, its pixels leaning to the tile; the black tile agreed,
            # unchanged, at the shorter exposure; the game took the catastrophe).
            for c in blind - set(unsure) - faint - disputed:
                if again[c].cls is CellClass.UNKNOWN and burnt[c] < TUNING.washed:
                    again[c] = cells[c]
            for c in unseen:
                again[c] = CellReading(CellClass.UNKNOWN, 0.0)
            changed = sorted(c for c in set(changed) | blind if not _same(again[c], agreed.cells[c]))
            cells = again
            unsure = tuple(c for c in changed if cells[c].cls is CellClass.UNKNOWN)
        return replace(_read_ok(tuple(cells), unsure, now, message), changed=tuple(changed))

    def _light_now(
        self, top_down: np.ndarray, seen: change.Change, flagged: list[int], unmeasured: bool = False
    ) -> tuple[np.ndarray, np.ndarray]:
        """The light now over the calibration light (each channel's gain, and the white glare):
        the agreed picture's light, changed as `seen` measured; or, when a lamp's reflection came
        or went (a white light changing by more than `glare_doubt`, which the agreed picture's
        light tells little of where it was burnt out), measured afresh on the squares agreed to
        be bare. So too when a reflection's change is `unmeasured`: at the shorter exposure, where
        a square is burnt out in one of the two pictures only (nothing is measured on clipped pixels),
        and on a changed square burnt out in the agreed picture and not at all now."""
        assert self.calibration is not None and self.calibration.references is not None
        agreed = self._agreed
        assert agreed is not None
        if float(np.abs(seen.glare).max()) <= TUNING.first.glare_doubt and not unmeasured:
            lit = agreed.light
            gain = lit.brightness[..., None] * agreed.tint * seen.gain
            return gain, (lit.glare[..., None] * seen.gain + seen.glare[..., None])
        references = self.calibration.references
        # A square that changed may hold a new piece: bare only if its pattern still says so. Where
        # the reflection was, every square changed, and the light there is measured on them.
        known, maybe = agreed.bare.copy(), np.zeros(CELLS, bool)
        known[flagged], maybe[flagged] = False, agreed.bare[flagged]
        measured = light.light(top_down, references.board, known, maybe)
        now = light.undo_light(top_down, references.board, measured)
        return now.brightness[..., None] * measured.tint, np.repeat(now.glare[..., None], 3, axis=2)

    def _allowed(self) -> Sequence[Collection[CellClass] | None]:
        """What may stand on each square, as the companion told (None: anything)."""
        told = self.candidates
        if told is None:
            return (None,) * CELLS
        if len(told) != CELLS:
            log.warning("the candidates name %d squares, not %d: not used", len(told), CELLS)
            return (None,) * CELLS
        return told

    def _building(self) -> frozenset[int]:
        """The squares the game says a monument may be built on now (none agreed to stand there)."""
        agreed = self._agreed
        if agreed is None:
            return frozenset()
        return frozenset(c for c, allowed in enumerate(self._allowed()) if allowed is not None
                         and CellClass.MONUMENT in allowed and agreed.cells[c].cls is not CellClass.MONUMENT)

    def _pictures(self) -> decide.Examples:
        """The pictures of pieces to compare changed squares with: the calibration's and the
        memory's, each flat piece also turned by quarters (made again when the memory learns)."""
        assert self.calibration is not None and self.calibration.references is not None
        references = self.calibration.references
        key = (id(self.memory), self.memory.version)
        if self._examples is None or self._examples[0] != key:
            looks, features = [references.coarse_looks], [references.prototypes]
            if len(self.memory):
                learnt = self.memory.looks.astype(np.float32)
                looks.append(coarse(learnt))
                features.append(rings.features(learnt, light.Light.unchanged(len(learnt))))
            examples = decide.Examples(
                np.concatenate(looks),
                np.concatenate(features) / references.scale,
                references.classes + self.memory.classes,
                references.monuments + self.memory.monuments,
            )
            self._examples = (key, decide.turned(examples))
        return self._examples[1]

    def _darker_look(
        self,
        darker: Callable[[], np.ndarray | None],
        cells: tuple[CellReading, ...],
        unsure: tuple[int, ...],
        now: float,
        seen_changed: Collection[int] = (),
        burnt_then: Collection[int] = (),
    ) -> _Darker | None:
        """The squares a glare made unreadable, read again from a shorter exposure, where the
        glare no longer saturates the sensor, and those of them it read as something else than
        the first picture did, surely, now unsure; None when the picture taken cannot be read (the
        camera failed, a hand came in), and the first reading stands. seen_changed: squares the
        first picture read surely as holding something else than agreed; burnt_then: squares the
        agreed picture was burnt out on."""
        try:
            frame = darker()
        except CameraError:
            return None
        if frame is None:  # a camera whose exposure cannot be set: the first reading is all there is
            return _Darker(cells, frozenset())
        if frame_problem(frame) is not None:
            return None
        # Compared with an agreed picture burnt out there, a change may not show: of the squares the
        # first picture saw change, those are read among what may stand there whatever the comparison.
        look_at = frozenset(set(seen_changed) & set(unsure) & set(burnt_then))
        again = self._read(frame, now, None, remember=False, look_at=look_at)
        if not again.ok or self._darker is None:
            return None
        assert self.calibration is not None
        seen = _only_what_can_be(tuple(again.cells[i] if i in unsure else cell for i, cell in enumerate(cells)),
                                 self.calibration.board, self._building())
        kept = self._same_in_the_dark(self._darker.dark, unsure)
        read = [kept.get(i, cell) for i, cell in enumerate(seen)]
        # A square the first picture saw change surely and this one sees as agreed: one of them
        # is wrong (this one compares with an agreed picture a glare may have burnt out there),
        # and keeping what was agreed would be a move nobody is told about.
        disputed = frozenset(set(seen_changed) & set(unsure) - set(again.changed or ()))
        for i in disputed:
            read[i] = CellReading(CellClass.UNKNOWN, 0.0)
        if self._agreed is not None:
            agreed = self._agreed.cells
            # Nor where this picture reads a piece put down surely and its comparison with the
            # agreed picture at this exposure kept the square: the two, under the light followed
            # between them, may not tell a pale piece from the pale board in the dim (never-tuned-on
            # game 744: a pale tile with a red frame on linen, a red tile at 1.0 to this picture's
            # read, unchanged to the comparison, and the tile was never taken).
            for i in kept:
                if (decide.put_down(again.cells[i].cls, agreed[i].cls)
                        and again.cells[i].confidence >= TUNING.first.second_opinion):
                    read[i] = CellReading(CellClass.UNKNOWN, 0.0)
            # So too a square the two pictures of one moment name as two different pieces put down:
            # taking the first would be a move nobody made (never-tuned-on game 642: a black tile
            # under a lamp's reflection, a red tile to the first picture's rings at 1.0, its pixels
            # seeing none; a black tile at the shorter exposure).
            for i in set(again.changed or ()) - set(unsure):
                first, second, was = cells[i].cls, again.cells[i].cls, agreed[i].cls
                if first is not second and decide.put_down(first, was) and decide.put_down(second, was):
                    read[i] = CellReading(CellClass.UNKNOWN, 0.0)
        return _Darker(tuple(read), disputed)

    def _same_in_the_dark(self, seen: dict[int, bool] | None, squares: Collection[int]) -> dict[int, CellReading]:
        """Of these squares, those the shorter exposure shows unchanged since the last agreed
        picture at that exposure (`seen`: `_in_the_dark`), with what was agreed there: a glare that
        stays where it is dazzles them alike in every picture."""
        agreed = self._agreed
        if agreed is None or seen is None:
            return {}
        return {c: agreed.cells[c] for c in squares if c in seen and not seen[c]}

    def _in_the_dark(self, darker: np.ndarray) -> dict[int, bool] | None:
        """Whether each square the shorter exposure tells of changed since the last agreed picture at
        that exposure: those agreed to hold the same since, and not burnt out in either picture
        (nothing shows a change there). None: no picture at that exposure was agreed on."""
        agreed = self._agreed
        if agreed is None or agreed.dark is None:
            return None
        then = agreed.dark
        seen = change.compare(darker, then.picture)
        burnt = np.maximum(_burnt(darker), then.picture.burnt)
        return {c: bool(seen.changed[c]) for c in range(CELLS)
                if burnt[c] < TUNING.washed and _same(then.cells[c], agreed.cells[c])}

    def _dynasty(self, frame: np.ndarray, homography: np.ndarray, cell: int, cls: CellClass) -> str | None:
        """The dynasty of the leader on a square: looked at closely once, then remembered while the
        same leader stands there looking the same (most leaders stay put for many turns)."""
        assert self.calibration is not None and self.calibration.references is not None
        closeup = leaders.leader_closeup(frame, homography, cell)
        known = self._dynasties.get(cell)
        same = known is not None and float(np.abs(known[1] - closeup).mean()) < TUNING.leaders.same_leader
        if known is not None and known[0] is cls and same:
            return known[2]
        dynasty = leaders.name_dynasty(closeup, cls, self.calibration.references)
        self._dynasties[cell] = (cls, closeup.astype(np.float32), dynasty)
        return dynasty


_BARE = (CellClass.EMPTY_LAND, CellClass.EMPTY_RIVER)


def _sides(unlike: np.ndarray, hidden: tuple[str, ...]) -> tuple[str, ...]:
    """The board's edges something lies on: where rim patches are `unlike` their own, and beside
    a `hidden` marker (a shadow or a cup over the card beside the board, as well as a hand: a hand
    there changes squares near it)."""
    corners = {side for name in hidden for side in name.split("-")}
    covered = set(gate.rim_sides(unlike)) | corners
    return tuple(side for side in ("top", "right", "bottom", "left") if side in covered)


def _same(a: CellReading, b: CellReading) -> bool:
    """Whether two readings name the same piece (the same player's, where both name one)."""
    return a.cls is b.cls and (None in (a.dynasty, b.dynasty) or a.dynasty == b.dynasty)


def _shift(before: np.ndarray, now: np.ndarray) -> float:
    """How far (in squares) the grid moved from one homography to the other, at its corners."""
    corners = np.array([[0, 0], [COLUMNS, 0], [COLUMNS, ROWS], [0, ROWS]], np.float64).reshape(-1, 1, 2)
    seen = cv2.perspectiveTransform(cv2.perspectiveTransform(corners, np.linalg.inv(now)), before)
    return float(np.abs(seen - corners).max())


def _burnt(top_down: np.ndarray) -> np.ndarray:
    """The share of each square's pixels a glare burnt out (some channel clipped): CELLS."""
    return light.burnt(rectify.cells(top_down))


def _pixels_of(squares: Collection[int], px: int) -> np.ndarray:
    """Which pixels of a picture seen from above (`px` a square) belong to `squares`."""
    chosen = np.zeros(CELLS, bool)
    chosen[list(squares)] = True
    pixels: np.ndarray = chosen.reshape(ROWS, COLUMNS).repeat(px, axis=0).repeat(px, axis=1)
    return pixels


def _glaring(frame: np.ndarray, corners: np.ndarray) -> bool:
    """Whether a glare burnt out the part of the frame within these corners (a marker's): a
    marker a glare hides is not one a hand covers."""
    (x0, y0), (x1, y1) = np.floor(corners.min(axis=0)).astype(int), np.ceil(corners.max(axis=0)).astype(int)
    patch = frame[max(y0, 0) : max(y1, 0), max(x0, 0) : max(x1, 0)]
    return patch.size > 0 and float(np.mean(patch.max(axis=2) >= TUNING.clipped)) >= TUNING.washed


def _covered(frame: np.ndarray, marker_id: int, corners: np.ndarray) -> bool:
    """Whether something covers a marker that was not found where it lies (these corners): not
    when a glare burnt it out, nor when its pattern still shows (a reflection beside the card
    washed out its white edge, which the detector needs)."""
    return not _glaring(frame, corners) and aruco.shows(frame, marker_id, corners) < TUNING.marker_shown


def _near(cell: int, corner: str) -> bool:
    """Whether a square lies within NEAR_MARKER squares of a corner of the grid ("top-left" ...),
    where a hand over that corner's marker reaches."""
    row, col = divmod(cell, COLUMNS)
    vertical, horizontal = corner.split("-")
    return (row if vertical == "top" else ROWS - 1 - row) < NEAR_MARKER and (
        col if horizontal == "left" else COLUMNS - 1 - col) < NEAR_MARKER


def _edges(cell: int) -> frozenset[str]:
    """The board's edges a square lies on (a corner square on two)."""
    row, col = divmod(cell, COLUMNS)
    return frozenset(side for side, on in (("top", row == 0), ("bottom", row == ROWS - 1), ("left", col == 0),
                                           ("right", col == COLUMNS - 1)) if on)


_EDGES = tuple(_edges(cell) for cell in range(CELLS))


def _hand(message: str, now: float, squares: tuple[int, ...] = ()) -> BoardReading:
    """A reading refused: something, perhaps a hand, lies over the board (`squares`: where)."""
    return BoardReading(ReadStatus.MOVING, board_found=True, hands_in_view=True, time=now, message=message,
                        low_confidence=squares)


def _covering(markers: tuple[str, ...], now: float, squares: tuple[int, ...] = ()) -> BoardReading:
    return _hand(f"Something covers the {' and '.join(markers)} marker: a hand over the board?", now, squares)


def _on_the_rim(sides: tuple[str, ...], now: float, squares: tuple[int, ...] = ()) -> BoardReading:
    return _hand(f"Something lies over the board's {' and '.join(sides)} edge: a hand, a cup, a deep shadow?", now,
                 squares)


def _arm(squares: tuple[int, ...], now: float) -> BoardReading:
    return _hand("Something reaches in over the edge of the board: a hand?", now, squares)


def _read_ok(cells: tuple[CellReading, ...], unsure: tuple[int, ...], now: float, message: str) -> BoardReading:
    if unsure:
        message = f"{len(unsure)} square(s) could not be read with confidence. {message}".strip()
    return BoardReading(ReadStatus.OK, cells=cells, board_found=True, time=now, message=message,
                        low_confidence=unsure)


def _reaching_in(unsure: tuple[int, ...], tall: frozenset[int] = frozenset()) -> tuple[int, ...]:
    """The unreadable squares that form a patch coming in from the grid's edge, as an arm does:
    two or more joined squares, one of them on the edge (squares under a monument left out)."""
    found: set[int] = set()
    for group in _joined(set(unsure) - tall):
        on_edge = any(c // COLUMNS in (0, ROWS - 1) or c % COLUMNS in (0, COLUMNS - 1) for c in group)
        if len(group) >= 2 and on_edge:
            found |= group
    return tuple(sorted(found))


def _arm_in(flagged: set[int], unlike: set[int], doubtful: set[int]) -> tuple[int, ...]:
    """The squares that make a patch coming in from the grid's edge, as an arm held still over
    the board does: two or more squares unlike their agreed pictures, joined, some of them read
    with little to spare; or two or more read with little to spare, joined to the edge through
    squares that changed (the squares at the edge under a sleeve may still fit their agreed
    pictures under the light followed from around them). Whatever pieces its squares come near
    (fingers come near a pale tile, a bare arm near bare land), an arm spreads from the edge over
    squares that fit nothing well; a piece put down or taken at the edge, or a monument built
    there, fits its picture."""
    found: set[int] = set()
    for group in _joined(flagged & unlike):
        if len(group) >= 2 and any(_EDGES[c] for c in group) and group & doubtful:
            found |= group
    for group in _joined(flagged):
        if len(group & doubtful) >= 2 and any(_EDGES[c] for c in group):
            found |= group & (unlike | doubtful)
    return tuple(sorted(found))


def _doubted(reading: CellReading, was: CellClass, min_confidence: float) -> bool:
    """Whether a changed square's reading leaves doubt: another class than agreed with little to
    spare, unsure, or the class agreed named less than sure enough (bare board agreed, both
    measures leaning there: `decide._verdict`)."""
    if reading.confidence >= TUNING.first.second_opinion:
        return False
    return reading.cls is not was or reading.confidence < min_confidence


def _joined(squares: set[int]) -> list[set[int]]:
    """The squares in groups joined side by side."""
    left, groups = set(squares), []
    while left:
        group, todo = set(), [min(left)]
        while todo:
            cell = todo.pop()
            group.add(cell)
            todo.extend(geometry.beside(cell) & (left - group))
        left -= group
        groups.append(group)
    return groups


# Blue tiles go on the river, every other tile and every leader on land; the board's river is printed.
_ON_RIVER = frozenset({CellClass.EMPTY_RIVER, CellClass.TILE_BLUE})
_ON_LAND = frozenset(
    {CellClass.EMPTY_LAND, CellClass.TILE_RED, CellClass.TILE_GREEN, CellClass.TILE_BLACK, CellClass.TREASURE}
    | {cls for cls in CellClass if cls.is_leader}
)


_QUADS = tuple(frozenset(block) for top in range(CELLS) if (block := geometry.block(top)))


_IN_BLOCKS = frozenset({CellClass.MONUMENT, CellClass.FACE_DOWN})


def _in_blocks(
    allowed: Sequence[Collection[CellClass] | None], changing: set[int], agreed: Sequence[CellReading]
) -> Sequence[Collection[CellClass] | None]:
    """What may stand on each square, but no new monument or face-down tile where no 2×2 block
    holds the square whose four squares may have changed (`changing`) and may each hold one: a
    monument covers a block, and the four tiles beneath turn face down together. (No picture of
    a face-down tile is ever shown, so it would otherwise count as a rival to whatever such a
    square shows: bare land in the shadow of a leader beside it.) Nor a face-down tile where bare
    board was agreed: a tile would have to be put down there and turned over before the monument
    covering it in one look, and the camera reads still boards (a bare square a little changed,
    fitting its agreed picture best, was doubted against that rival); nor where a leader was
    agreed, which would have to be taken off first as well."""
    def building(c: int) -> bool:
        told = allowed[c]
        return told is None or bool(_IN_BLOCKS & set(told))

    blocks = {c for quad in _QUADS if quad <= changing and all(map(building, quad)) for c in quad}

    def narrowed(c: int, told: Collection[CellClass] | None) -> Collection[CellClass] | None:
        if told is None:
            return None
        gone = set() if c in blocks else set(_IN_BLOCKS)
        if agreed[c].cls in _BARE or agreed[c].cls.is_leader:
            gone.add(CellClass.FACE_DOWN)
        return frozenset(told) - gone if gone & set(told) else told

    return [narrowed(c, told) for c, told in enumerate(allowed)]


def _monument_blocks(monument: list[bool]) -> list[tuple[int, int, int, int]]:
    """The monuments a board's monument squares make: each piece covers a 2×2 block of its own.
    Squares that no such set of blocks covers exactly, and every monument square joined to them,
    belong to none: a sleeve or hand read as a monument spreads over a shape no pieces make."""
    blocks: list[tuple[int, int, int, int]] = []
    for group in _joined({c for c in range(CELLS) if monument[c]}):
        # In reading order, the first square not yet covered can only be a block's top-left one,
        # so the covering, if there is one, is found in one pass and is the only one.
        found, uncovered = [], set(group)
        while uncovered:
            block = geometry.block(min(uncovered))
            if block is None or not uncovered.issuperset(block):
                break
            found.append(block)
            uncovered -= set(block)
        else:
            blocks += found
    return blocks


def _under_new_monuments(
    cells: Sequence[CellReading], changed: Sequence[int], alike: Collection[int], building: frozenset[int]
) -> list[int]:
    """Where the game says a monument may be built now (`building`), the quarters of a block with a
    monument quarter just read that changed from their agreed picture yet were read as the tile
    agreed there (`alike`): they are to be left unread, the monument's for `_fourth_quarters` to
    fill, or doubted with the rest of the block. A monument covers all four of its tiles, but its
    quarter over a tile of its own colour (a temple under a red monument) may be read as that tile;
    kept as it, that quarter was never doubted, and the players, asked only of the others, left it
    a sure tile under the monument (never-tuned-on game 413: a red tile at the board's corner read
    under a red/green monument in 48 looks, to the game's end). Not the quarters of a block beside
    a monument read whole, its quarters in that block all that block has of it: leaning out over a
    square beside it, that monument changed the square's picture, and the tile there is still read
    (never-tuned-on game 1197: a red tile beside a monument built at the board's edge, unsure)."""
    new = set(changed)
    built = {c for c in new if cells[c].cls is CellClass.MONUMENT}
    whole = [quad for quad in _QUADS if quad & built and all(cells[c].cls is CellClass.MONUMENT for c in quad)]
    kept: list[int] = []
    for quad in _QUADS:
        beside = any(quad & built <= other for other in whole if other != quad)
        if quad <= building and quad & built and not beside:
            kept += [c for c in sorted(quad) if c in alike and cells[c].cls.is_tile and c not in kept]
    return kept


def _fourth_quarters(cells: tuple[CellReading, ...], building: frozenset[int] = frozenset()) -> tuple[CellReading, ...]:
    """A monument three of whose quarters are read, with the same colours named on at least
    `named_quarters` of them, stands whole: its fourth quarter, unread, is that monument's too (a
    tall piece leaning out at the rim of the picture may show one quarter too little to be sure of).
    Where the game says a monument may be built now (`building`), two quarters read are enough,
    named or not (the game knows which monument, or asks): leaning out at the picture's rim, a
    monument's top hides the two quarters beyond it.

    Blocks with more quarters read are taken first, and no square is filled into a block sharing
    a square with one taken: a piece covers its own block only. (Beside a monument read whole or
    nearly, two unread squares in its shadow would otherwise make a second block with two of its
    quarters, and the six squares, which no set of pieces covers, would all be doubted.)"""
    whole = []
    for quad in _QUADS:
        read = [c for c in quad if cells[c].cls is CellClass.MONUMENT]
        unread = [c for c in quad if cells[c].cls is CellClass.UNKNOWN]
        names = {cells[c].monument for c in read} - {None}
        named = sum(cells[c].monument is not None for c in read)
        enough, told = (3, TUNING.named_quarters) if not quad <= building else (2, 0)
        if len(read) == 4 or (len(read) >= enough and len(read) + len(unread) == 4 and len(names) <= 1
                              and named >= told):
            whole.append((quad, read, unread, next(iter(names), None)))
    filled, taken = list(cells), set[int]()
    for quad, read, unread, colours in sorted(whole, key=lambda found: -len(found[1])):
        if quad & taken:
            continue
        taken |= quad
        confidence = min(cells[c].confidence for c in read)
        for c in unread:
            filled[c] = CellReading(CellClass.MONUMENT, confidence, None, colours)
    return tuple(filled)


def _monuments_named(
    cells: list[CellReading], changed: Sequence[int], agreed: Sequence[CellReading], scene: decide.Scene,
    references: References,
) -> list[CellReading]:
    """A monument put down now, named by the colours of its block (the light undone) among the
    monuments that may stand there: of the colour of the tiles it stands on, and none standing
    elsewhere. Where its quarters' pictures did not name it, the block's colours do; where they
    named another monument than the block's colours, neither stands and the game asks which (a
    never-tuned-on game's four quarters all named red/black for a red/blue monument, whose block's
    colours were nearest red/blue: the game took the wrong monument without a question)."""
    blocks = [block for block in _monument_blocks([cell.cls is CellClass.MONUMENT for cell in cells])
              if set(block) & set(changed)]
    if not blocks:
        return cells
    patches = rectify.cells(np.maximum(scene.now - scene.glare, 0.0) / np.maximum(scene.gain, 1e-3))
    for block in blocks:
        tiles = {colour for c in block if (colour := agreed[c].cls.colour) and agreed[c].cls.is_tile}
        elsewhere = {cell.monument for c, cell in enumerate(agreed) if cell.monument and c not in block}
        named = monuments.name(patches[list(block)], monuments.that_may_stand(tiles, elsewhere), references)
        quarters = {frozenset(m) if m else None for m in (cells[c].monument for c in block)}
        if named is not None and quarters != {frozenset(named)}:
            for c in block:
                cells[c] = replace(cells[c], monument=named if quarters == {None} else None)
    return cells


def _only_what_can_be(
    cells: tuple[CellReading, ...], board: str, building: frozenset[int] = frozenset()
) -> tuple[CellReading, ...]:
    """Readings no board can show become unknown: a blue tile or bare river on land, a leader, any
    other tile or bare land on the river, monument squares that 2×2 pieces cannot cover
    exactly or whose colours too few quarters show (and a square those make three quarters of a
    block with), a treasure away from the printed start squares
    (treasures never move). A monument's colours stand only where its four quarters agree; one
    whose fourth quarter alone is unread stands whole (`_fourth_quarters`).

    building: the squares the game says a monument may be built on now. There four quarters read
    as a monument stand with no colour named (a printing's monument not shown at set-up): a hand
    held still comes near a monument's pale quarters too, but seldom on just those squares, and
    which monument it is the game knows or asks."""
    cells = _fourth_quarters(cells, building)
    blocks = [
        block
        for block in _monument_blocks([cell.cls is CellClass.MONUMENT for cell in cells])
        if sum(cells[c].monument is not None for c in block) >= TUNING.named_quarters or set(block) <= building
    ]
    whole = {c for block in blocks for c in block}
    # Three quarters of a monument no whole piece explains: the fourth square is as doubtful.
    stray = {c for c, cell in enumerate(cells) if cell.cls is CellClass.MONUMENT and c not in whole}
    beside = {c for quad in _QUADS if len(stray & quad) == 3 for c in quad - stray}
    # One piece covers the four squares: its colours are named only when all four quarters agree.
    named: dict[int, tuple[str, str] | None] = {}
    for block in blocks:
        names = {frozenset(m) if m else None for m in (cells[c].monument for c in block)}
        for c in block:
            named[c] = cells[block[0]].monument if len(names) == 1 else None
    starts, rivers = geometry.start_temple_cells(board), geometry.river_cells(board)
    return tuple(
        CellReading(CellClass.UNKNOWN, 0.0)
        if (cell.cls is CellClass.MONUMENT and i not in whole)
        or i in beside
        or (cell.cls is CellClass.TREASURE and i not in starts)
        or (cell.cls in _ON_LAND if i in rivers else cell.cls in _ON_RIVER)
        else replace(cell, monument=named[i])
        if cell.cls is CellClass.MONUMENT
        else cell
        for i, cell in enumerate(cells)
    )
