"""The camera's eye on the board: gate, markers, warp and classifier put together.

`Observer.feed` takes every frame and answers with a `BoardReading` whose status always says
what happened: read, moving, no board, board moved, bad frame, not calibrated. No exception
escapes: a camera that hands over garbage gets a BAD_FRAME reading, not a crash at the table.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from vision import classify, gate, geometry, rectify
from vision.calibration import MARKER_NAMES, Calibration, align
from vision.camera import Camera, CameraError
from vision.reading import CELLS, COLUMNS, ROWS, BoardReading, CellClass, CellReading, ReadStatus, block_cells

MIN_SIDE = 64  # px: smaller frames cannot show 176 squares
DARK = 12.0  # mean grey level under which the picture is black
BURNT = 0.6  # share of saturated pixels over which the picture is overexposed


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
    sample = frame[:: max(1, frame.shape[0] // 64), :: max(1, frame.shape[1] // 64)]
    if float(sample.mean()) < DARK:
        return "The picture is black: is the lens covered or the light off?"
    if float(np.mean(sample.min(axis=2) >= 250)) > BURNT:
        return "The picture is washed out: too much light on the board or the camera is overexposed."
    return None


class Observer:
    """Reads the board from frames; keeps the calibration up to date when the board is bumped.

    still_frames: how many still frames the gate needs before a reading.
    min_confidence: squares below it are reported as unknown and listed in `low_confidence`.
    tall: squares the game says hold a monument (set by the companion as the game goes on). The
        tall piece leans outwards at the board's edge and may not be made out there; unreadable,
        those squares are reported unknown but never taken for an arm reaching in.
    face_down: squares the game says may hold a face-down tile (under a monument built or about
        to be), set by the companion; None (not told) means anywhere. Elsewhere a square that
        comes near its printed pattern under a glare is read as bare.
    candidates: for each square, every class the rules allow there at the next look, set by the
        companion; None (not told) means any class. Not used by the reading yet.
    """

    def __init__(
        self,
        calibration: Calibration | None,
        *,
        still_frames: int = 3,
        min_confidence: float = classify.MIN_CONFIDENCE,
    ) -> None:
        self.gate = gate.StabilityGate(still_frames)
        self.min_confidence = min_confidence
        self.tall: frozenset[int] = frozenset()
        self.excused: frozenset[int] = frozenset()
        self.face_down: frozenset[int] | None = None
        self.candidates: tuple[frozenset[CellClass], ...] | None = None
        self.calibration: Calibration | None = None
        self._dynasties: dict[int, tuple[CellClass, np.ndarray, str | None]] = {}
        if calibration is not None:
            self.use(calibration)

    def use(self, calibration: Calibration) -> None:
        """Read with this calibration from now on (and watch the rim it saw)."""
        self.calibration = calibration
        self._dynasties = {}
        if calibration.rim is not None:
            places = gate.rim_places(calibration.homography, calibration.image_size)
            self.gate.watch_rim(places, calibration.rim)

    def agree(self, shown: Sequence[CellReading]) -> None:
        """The game agreed with the board of the last reading: `shown` is what each square shows.
        Every read is still absolute: nothing is kept of it yet."""

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
            frame = camera.capture()
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
            return self._read(frame, now, darker)
        except Exception as error:  # the last line of defence: say what broke, never crash
            return BoardReading(ReadStatus.BAD_FRAME, time=now, message=f"The picture could not be read ({error}).")

    def _rim_covered(self, frame: np.ndarray, calibration: Calibration) -> tuple[str, ...]:
        """The board's edges something lies on: an arm reaching in must cross one.

        A sleeve can look like a piece to the classifier, so a covered rim alone refuses the
        reading; a strong shadow or glare spot on the rim is refused too (reported in the bench),
        and so is a cup left there: the message says where to look."""
        if self.calibration is None or self.calibration.rim is None:
            return ()
        places = gate.rim_places(calibration.homography, calibration.image_size)
        colours = gate.rim_colours(gate.small_image(frame), places)
        return gate.rim_sides(gate.rim_unlike(colours, self.calibration.rim, places))

    def _read(self, frame: np.ndarray, now: float, darker: Callable[[], np.ndarray | None] | None) -> BoardReading:
        assert self.calibration is not None and self.calibration.references is not None
        size = (frame.shape[1], frame.shape[0])
        calibration = self.calibration.resized(size)
        alignment = align(frame, calibration)
        if alignment.calibration is None:
            status = ReadStatus.BOARD_MOVED if alignment.moved else ReadStatus.NO_BOARD
            return BoardReading(status, time=now, message=alignment.message)
        if alignment.calibration is not calibration:  # the grid was made again: keep it
            self.use(replace(alignment.calibration, rim=self.calibration.rim))
        hidden = [MARKER_NAMES[i] for i in calibration.markers if i not in alignment.markers]
        if hidden:  # an arm reaching in over a corner covers its marker, not the rim
            return BoardReading(
                ReadStatus.MOVING,
                board_found=True,
                hands_in_view=True,
                time=now,
                message=f"Something covers the {' and '.join(hidden)} marker: a hand over the board?",
            )
        sides = self._rim_covered(frame, alignment.calibration)
        if sides:
            return BoardReading(
                ReadStatus.MOVING,
                board_found=True,
                hands_in_view=True,
                time=now,
                message=f"Something lies over the board's {' and '.join(sides)} edge: a hand, a cup, a deep shadow?",
            )
        top_down = rectify.rectify(frame, alignment.calibration.homography)
        references = self.calibration.references
        look = classify.classify(top_down, references, self.min_confidence, face_down=self.face_down)
        cells = look.cells
        if references.dynasty_keys:
            cells = tuple(
                replace(cell, dynasty=self._dynasty(frame, alignment.calibration.homography, i, cell.cls))
                if cell.cls.is_leader
                else cell
                for i, cell in enumerate(cells)
            )
        cells = _only_what_can_be(cells, self.calibration.board)
        unsure = tuple(i for i, cell in enumerate(cells) if cell.cls is CellClass.UNKNOWN)
        # An arm is judged from what the first look could not read, so the second look's
        # guesses under a hand held still never hide it; and from monuments where the game says
        # none stands or may be built (a bare arm comes near a monument's pale quarters).
        unexpected = (
            {i for i, cell in enumerate(cells) if cell.cls is CellClass.MONUMENT} - self.face_down
            if self.face_down is not None
            else set()
        )
        arm = _reaching_in(tuple(sorted(set(unsure) | set(look.obscured) | unexpected)), self.tall | self.excused)
        if arm:
            return BoardReading(
                ReadStatus.MOVING,
                board_found=True,
                hands_in_view=True,
                time=now,
                message="Something reaches in over the edge of the board: a hand?",
                low_confidence=arm,
            )
        if darker is not None and set(unsure) & set(look.dazzled):
            cells = self._darker_look(darker, cells, unsure, now)
            unsure = tuple(i for i, cell in enumerate(cells) if cell.cls is CellClass.UNKNOWN)
        message = alignment.message
        if unsure:
            message = f"{len(unsure)} square(s) could not be read with confidence. {message}".strip()
        return BoardReading(
            ReadStatus.OK,
            cells=cells,
            board_found=True,
            time=now,
            message=message,
            low_confidence=unsure,
        )

    def _darker_look(
        self,
        darker: Callable[[], np.ndarray | None],
        cells: tuple[CellReading, ...],
        unsure: tuple[int, ...],
        now: float,
    ) -> tuple[CellReading, ...]:
        """The squares a glare made unreadable, read again from a shorter exposure, where the
        glare no longer saturates the sensor. Whatever goes wrong with that picture (the camera
        cannot take it, a hand came in), the first reading stands."""
        try:
            frame = darker()
        except CameraError:
            return cells
        if frame is None or frame_problem(frame) is not None:
            return cells
        again = self._read(frame, now, None)
        if not again.ok:
            return cells
        assert self.calibration is not None
        seen = tuple(again.cells[i] if i in unsure else cell for i, cell in enumerate(cells))
        return _only_what_can_be(seen, self.calibration.board)

    def _dynasty(self, frame: np.ndarray, homography: np.ndarray, cell: int, cls: CellClass) -> str | None:
        """The dynasty of the leader on a square: looked at closely once, then remembered while the
        same leader stands there looking the same (most leaders stay put for many turns)."""
        assert self.calibration is not None and self.calibration.references is not None
        closeup = classify.leader_closeup(frame, homography, cell)
        known = self._dynasties.get(cell)
        if known is not None and known[0] is cls and float(np.abs(known[1] - closeup).mean()) < _SAME_LEADER:
            return known[2]
        dynasty = classify.name_dynasty(closeup, cls, self.calibration.references)
        self._dynasties[cell] = (cls, closeup.astype(np.float32), dynasty)
        return dynasty


_SAME_LEADER = 4.0  # grey levels: mean change of a leader's close-up that is only noise and light


def _reaching_in(unsure: tuple[int, ...], tall: frozenset[int] = frozenset()) -> tuple[int, ...]:
    """The unreadable squares that form a patch coming in from the grid's edge, as an arm does:
    two or more joined squares, one of them on the edge (squares under a monument left out)."""
    found: set[int] = set()
    for group in _joined(set(unsure) - tall):
        on_edge = any(c // COLUMNS in (0, ROWS - 1) or c % COLUMNS in (0, COLUMNS - 1) for c in group)
        if len(group) >= 2 and on_edge:
            found |= group
    return tuple(sorted(found))


def _joined(squares: set[int]) -> list[set[int]]:
    """The squares in groups joined side by side."""
    left, groups = set(squares), []
    while left:
        group, todo = set(), [min(left)]
        while todo:
            cell = todo.pop()
            group.add(cell)
            row, col = divmod(cell, COLUMNS)
            for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1)):
                if 0 <= r < ROWS and 0 <= c < COLUMNS and r * COLUMNS + c in left - group:
                    todo.append(r * COLUMNS + c)
        left -= group
        groups.append(group)
    return groups


# Blue tiles go on the river, every other tile and every leader on land; the board's river is printed.
_ON_RIVER = frozenset({CellClass.EMPTY_RIVER, CellClass.TILE_BLUE})
_ON_LAND = frozenset(
    {CellClass.EMPTY_LAND, CellClass.TILE_RED, CellClass.TILE_GREEN, CellClass.TILE_BLACK, CellClass.TREASURE}
    | {cls for cls in CellClass if cls.is_leader}
)


def _block(top: int) -> tuple[int, int, int, int] | None:
    """The 2×2 block of squares whose top-left one is `top`, if the board has room for it."""
    if top % COLUMNS == COLUMNS - 1 or top >= CELLS - COLUMNS:
        return None
    return block_cells(top)


_QUADS = tuple(frozenset(block) for top in range(CELLS) if (block := _block(top)))


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
            block = _block(min(uncovered))
            if block is None or not uncovered.issuperset(block):
                break
            found.append(block)
            uncovered -= set(block)
        else:
            blocks += found
    return blocks


# A monument's colours show on its quarters: on 177 monuments under the benchmark's light none had
# fewer than two quarters whose colours were named, while a hand read as a monument names none.
_NAMED_QUARTERS = 2


def _fourth_quarters(cells: tuple[CellReading, ...]) -> tuple[CellReading, ...]:
    """A monument three of whose quarters are read, with the same colours named on at least
    _NAMED_QUARTERS of them, stands whole: its fourth quarter, unread, is that monument's too (a
    tall piece leaning out at the rim of the picture may show one quarter too little to be sure of)."""
    filled = list(cells)
    for quad in _QUADS:
        read = [c for c in quad if cells[c].cls is CellClass.MONUMENT]
        unread = [c for c in quad if cells[c].cls is CellClass.UNKNOWN]
        names = {cells[c].monument for c in read} - {None}
        named = sum(cells[c].monument is not None for c in read)
        if len(read) == 3 and len(unread) == 1 and len(names) == 1 and named >= _NAMED_QUARTERS:
            confidence = min(cells[c].confidence for c in read)
            filled[unread[0]] = CellReading(CellClass.MONUMENT, confidence, None, names.pop())
    return tuple(filled)


def _only_what_can_be(cells: tuple[CellReading, ...], board: str) -> tuple[CellReading, ...]:
    """Readings no board can show become unknown: a blue tile or bare river on land, a leader, any
    other tile or bare land on the river, monument squares that 2×2 pieces cannot cover
    exactly or whose colours too few quarters show (and a square those make three quarters of a
    block with), a treasure away from the printed start squares
    (treasures never move). A monument's colours stand only where its four quarters agree; one
    whose fourth quarter alone is unread stands whole (`_fourth_quarters`)."""
    cells = _fourth_quarters(cells)
    blocks = [
        block
        for block in _monument_blocks([cell.cls is CellClass.MONUMENT for cell in cells])
        if sum(cells[c].monument is not None for c in block) >= _NAMED_QUARTERS
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
