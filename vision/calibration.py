"""Where the board lies in the picture, and what its squares and pieces look like.

The four ArUco markers at the board's corners (vision.geometry) give a homography from image
pixels to board squares: x right, y down, (0, 0) at the grid's top-left corner, (16, 11) at its
bottom-right. Without markers the player taps the grid's four corners instead. Every read checks
the markers again (`align`), so a bumped board or camera is never read through a stale grid.

The calibration is a readable JSON file, written atomically so a power cut never leaves half a file.
"""

from __future__ import annotations

import datetime
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision import aruco, files, gate, geometry, leaders, light, monuments, picture, rectify
from vision.reading import CELLS, COLOURS, COLUMNS, ROWS, CellClass, block_cells
from vision.references import Known, Piece, References, learn

FORMAT = "tigris-companion-calibration"
VERSION = 3  # 2: the set-up board's picture, for the light on every pixel; 3: every example's picture
MOVE_TOLERANCE = 0.25  # squares: a board or camera moved further than this is told to the players
_IN_PLACE = 0.02  # squares: a marker found this near where the calibration saw it has not moved
DYNASTIES = ("archer", "bull", "pot", "lion")  # the four players' symbols
MARKER_NAMES = {0: "top-left", 1: "top-right", 2: "bottom-right", 3: "bottom-left"}
_VERIFY_BITS = 6  # a 4×4 marker plus its one-bit black border
_VERIFY_PX = 4  # px per bit when checking a marker in place
_VERIFY_NCC = 0.6  # correlation with the ideal marker below which it is looked for again


class CalibrationError(ValueError):
    """The calibration cannot be made or loaded; the message says what to do, in plain words."""


@dataclass(frozen=True)
class Calibration:
    image_size: tuple[int, int]  # (width, height) of the frames it applies to
    homography: np.ndarray  # 3×3 float64: image pixels -> board squares
    method: str  # "markers" or "corners"
    markers: Mapping[int, np.ndarray] = field(default_factory=dict)  # id -> 4×2 image corners
    board: str = "standard"
    references: References | None = None  # what squares and pieces look like
    rim: np.ndarray | None = None  # N×3 colours of the board's rim (vision.gate) with no hand over it
    # The set-up picture, small (`gate.small_image`): the rim and the table beyond it, to compare
    # the rim with after the board was bumped.
    surroundings: np.ndarray | None = None
    created: str = ""

    def grid_corners(self) -> np.ndarray:
        """The grid's corners in the image (4×2, TL, TR, BR, BL)."""
        squares = np.array([[0, 0], [COLUMNS, 0], [COLUMNS, ROWS], [0, ROWS]], dtype=np.float64)
        return to_image(self.homography, squares)

    def resized(self, image_size: tuple[int, int]) -> Calibration:
        """The same calibration for frames of another size from the same camera (same field of view)."""
        if image_size == self.image_size:
            return self
        sx, sy = self.image_size[0] / image_size[0], self.image_size[1] / image_size[1]
        scale = np.diag([sx, sy, 1.0])
        markers = {i: c / np.array([sx, sy]) for i, c in self.markers.items()}
        return replace(self, image_size=image_size, homography=self.homography @ scale, markers=markers)


def marker_squares(marker_id: int) -> np.ndarray:
    """A marker's four corners in board squares, in the order the detector reports them."""
    corners: np.ndarray = geometry.marker_corners_mm(marker_id).astype(np.float64) / geometry.SQUARE_MM
    return corners


def to_image(homography: np.ndarray, squares: np.ndarray) -> np.ndarray:
    """Board-square points -> image points."""
    inverse = np.linalg.inv(homography)
    points: np.ndarray = cv2.perspectiveTransform(squares.reshape(-1, 1, 2).astype(np.float64), inverse)
    return points.reshape(-1, 2)


def to_squares(homography: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Image points -> board-square points."""
    squares: np.ndarray = cv2.perspectiveTransform(points.reshape(-1, 1, 2).astype(np.float64), homography)
    return squares.reshape(-1, 2)


def _gray(frame: np.ndarray) -> np.ndarray:
    if frame.ndim == 3:
        gray: np.ndarray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        return gray
    return frame


def find_markers(frame: np.ndarray) -> dict[int, np.ndarray]:
    """Our corner markers in a frame: id -> 4×2 image corners.

    Looks on a half-size image first (four times cheaper), then at full size for markers that
    were too small to be found there.
    """
    gray = _gray(frame)
    found: dict[int, np.ndarray] = {}
    if min(gray.shape) >= 800:
        half = cv2.resize(gray, (gray.shape[1] // 2, gray.shape[0] // 2), interpolation=cv2.INTER_AREA)
        for marker in aruco.detect(half):
            if marker.id in MARKER_NAMES:
                found[marker.id] = _refined(gray, marker.corners * 2 + 0.5)
    if len(found) < len(MARKER_NAMES):
        for marker in aruco.detect(gray):
            if marker.id in MARKER_NAMES and marker.id not in found:
                found[marker.id] = _refined(gray, marker.corners)
    return found


def _refined(gray: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """Corners found on a downscaled image, brought to full-resolution accuracy."""
    points = corners.astype(np.float32).reshape(-1, 1, 2)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.05)
    cv2.cornerSubPix(gray, points, (5, 5), (-1, -1), criteria)
    return points.reshape(4, 2).astype(np.float64)


def homography_from_markers(markers: Mapping[int, np.ndarray]) -> np.ndarray:
    """Image -> squares from three or four markers (twelve or sixteen known points)."""
    if len(markers) < 3:
        raise CalibrationError(_missing_markers_message(markers))
    image = np.concatenate([markers[i] for i in sorted(markers)]).astype(np.float64)
    squares = np.concatenate([marker_squares(i) for i in sorted(markers)])
    homography, _ = cv2.findHomography(image, squares, 0)
    if homography is None:
        raise CalibrationError("The markers were found but lie in an impossible shape: check they are flat.")
    result: np.ndarray = homography
    return result


def _missing_markers_message(markers: Mapping[int, np.ndarray]) -> str:
    missing = [name for i, name in MARKER_NAMES.items() if i not in markers]
    return (
        f"Only {len(markers)} of the 4 corner markers are in view (missing: {', '.join(missing)}). "
        "Make sure all four marker cards lie at the board's corners, uncovered and inside the picture."
    )


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def from_markers(frame: np.ndarray, board: str = "standard") -> Calibration:
    """Calibrate from a frame showing at least three of the four markers."""
    _check_frame(frame)
    markers = find_markers(frame)
    if len(markers) < 3:
        raise CalibrationError(_missing_markers_message(markers))
    height, width = frame.shape[:2]
    return Calibration(
        image_size=(width, height),
        homography=homography_from_markers(markers),
        method="markers",
        markers=markers,
        board=board,
        created=_now(),
    )


def from_corners(
    image_size: tuple[int, int], corners: Sequence[Sequence[float]], board: str = "standard"
) -> Calibration:
    """Calibrate from the grid's four corners tapped on the screen (image px: TL, TR, BR, BL)."""
    points = np.asarray(corners, dtype=np.float64)
    if points.shape != (4, 2) or not np.all(np.isfinite(points)):
        raise CalibrationError("Tap exactly four corners of the grid: top-left, top-right, bottom-right, bottom-left.")
    # The four taps must go round the grid clockwise as a convex shape, or the grid would be folded.
    edges = np.roll(points, -1, axis=0) - points
    turns = edges[:, 0] * np.roll(edges, -1, axis=0)[:, 1] - edges[:, 1] * np.roll(edges, -1, axis=0)[:, 0]
    if not np.all(turns > 0):
        raise CalibrationError(
            "Those four corners do not go round the grid: tap top-left, top-right, bottom-right, then bottom-left."
        )
    squares = np.array([[0, 0], [COLUMNS, 0], [COLUMNS, ROWS], [0, ROWS]], dtype=np.float64)
    homography = cv2.getPerspectiveTransform(points.astype(np.float32), squares.astype(np.float32))
    return Calibration(
        image_size=(int(image_size[0]), int(image_size[1])),
        homography=homography.astype(np.float64),
        method="corners",
        board=board,
        created=_now(),
    )


_GREY = 2.0  # grey levels: the mean spread between a pixel's channels below which a picture has no colour


def _check_frame(frame: object) -> None:
    if not isinstance(frame, np.ndarray) or frame.dtype != np.uint8 or frame.ndim not in (2, 3):
        raise CalibrationError("The camera picture is not an 8-bit image.")
    if min(frame.shape[:2]) < 64:
        raise CalibrationError("The camera picture is too small to find the board.")


def _check_colour(frame: np.ndarray) -> None:
    """The looks of the pieces are learnt in colour: a greyscale picture would teach them wrong."""
    sample = frame[:: max(1, frame.shape[0] // 128), :: max(1, frame.shape[1] // 128)].astype(np.int16)
    if frame.ndim == 2 or frame.shape[2] != 3 or float((sample.max(axis=2) - sample.min(axis=2)).mean()) < _GREY:
        raise CalibrationError("The picture has no colour (it is greyscale): red temples and black settlements "
                               "would look alike. Take it with a colour camera, or save it in colour.")


# --- every read: is the board still where the calibration says? -----------------------------


@dataclass(frozen=True)
class Alignment:
    calibration: Calibration | None  # the calibration to read with (updated after a move), or None
    markers: tuple[int, ...]  # ids of the markers seen in this frame
    moved: bool  # the board moved by more than MOVE_TOLERANCE (or moved, and cannot be found again)
    message: str  # for the players; empty when all is well

    @property
    def ok(self) -> bool:
        return self.calibration is not None

    @property
    def found(self) -> int:
        return len(self.markers)


def _patch_transform(corners: np.ndarray) -> np.ndarray:
    side = _VERIFY_BITS * _VERIFY_PX
    target = np.array([[0, 0], [side, 0], [side, side], [0, side]], dtype=np.float32)
    transform: np.ndarray = cv2.getPerspectiveTransform(corners.astype(np.float32), target)
    return transform


def _ideal(marker_id: int) -> np.ndarray:
    return aruco.marker_image(marker_id, _VERIFY_BITS * _VERIFY_PX).astype(np.float32)


_IDEALS: dict[int, np.ndarray] = {}


def marker_in_place(frame: np.ndarray, marker_id: int, corners: np.ndarray) -> bool:
    """Whether the marker is still exactly where it was: one tiny warp and a correlation."""
    side = _VERIFY_BITS * _VERIFY_PX
    patch = _gray(cv2.warpPerspective(frame, _patch_transform(corners), (side, side), flags=cv2.INTER_LINEAR))
    if marker_id not in _IDEALS:
        _IDEALS[marker_id] = _ideal(marker_id)
    ideal = _IDEALS[marker_id]
    patch = patch.astype(np.float32)
    spread = float(patch.std())
    if spread < 8.0:  # covered, black or washed out
        return False
    ncc = float(((patch - patch.mean()) * (ideal - ideal.mean())).mean() / (spread * ideal.std()))
    return ncc >= _VERIFY_NCC


_SEARCH_HALF = 80.0  # px across a marker's diagonal from which it is searched for at half size


def _search(frame: np.ndarray, corners: np.ndarray, reach: float) -> list[aruco.Marker]:
    """Look for markers in a window around where one used to be: their corners, refined."""
    centre = corners.mean(axis=0)
    size = float(np.linalg.norm(corners[0] - corners[2]))
    half = size * reach
    h, w = frame.shape[:2]
    x0, y0 = max(0, int(centre[0] - half)), max(0, int(centre[1] - half))
    x1, y1 = min(w, int(centre[0] + half)), min(h, int(centre[1] + half))
    if x1 - x0 < 16 or y1 - y0 < 16:
        return []
    offset = np.array([x0, y0], dtype=np.float32)
    # Only the window in grey: a whole 2028×1520 frame costs several times as much.
    window = np.ascontiguousarray(_gray(frame[y0:y1, x0:x1]))

    def full() -> list[aruco.Marker]:
        return list(aruco.detect(window))

    def halved() -> list[aruco.Marker]:
        smaller = cv2.resize(window, ((x1 - x0) // 2, (y1 - y0) // 2), interpolation=cv2.INTER_AREA)
        return [aruco.Marker(m.id, m.corners * 2 + 0.5) for m in aruco.detect(smaller)]

    # A big marker is found as surely at half size, four times sooner. A blurred small one may be
    # found only there: halving sharpens its edges to ArUco's few-pixel thresholds.
    first, second = (halved, full) if size >= _SEARCH_HALF else (full, halved)
    return [aruco.Marker(m.id, _refined(window, m.corners) + offset) for m in first() or second()]


def align(frame: np.ndarray, calibration: Calibration) -> Alignment:
    """Check the markers against the calibration; re-calibrate from them if the board moved.

    Markers still in place are confirmed with a cheap correlation; the others are searched for
    near their old place, then in the whole frame. With three or more markers found the grid is
    always taken from them; with fewer, the stored grid is used only if every marker in view is
    still in place and at least two are (a rigid board cannot turn about two fixed points).
    """
    if calibration.method != "markers" or not calibration.markers:
        return Alignment(calibration, (), False, "Calibrated from tapped corners: the board's position is not checked.")
    in_place = {i: corners for i, corners in calibration.markers.items() if marker_in_place(frame, i, corners)}
    if len(in_place) == len(MARKER_NAMES):
        return Alignment(calibration, tuple(sorted(in_place)), False, "")
    seen = dict(in_place)
    for i, corners in calibration.markers.items():
        if i in seen:
            continue
        for marker in _search(frame, corners, reach=2.5):
            if marker.id in MARKER_NAMES and marker.id not in seen:
                seen[marker.id] = marker.corners
    if len(seen) < 3:
        for marker_id, corners in find_markers(frame).items():
            seen.setdefault(marker_id, corners)
    return _judge(calibration, seen)


def _judge(calibration: Calibration, seen: dict[int, np.ndarray]) -> Alignment:
    """The grid to read with, from the markers found. Where every marker in view is where the
    calibration saw it, the calibration's own grid (made from all four); otherwise the grid is
    made again from the markers, three or more, or not read at all: never through a grid that
    has shifted, however little."""
    shifts = {
        i: float(np.abs(to_squares(calibration.homography, corners) - to_squares(calibration.homography, before)).max())
        for i, corners in seen.items()
        if (before := calibration.markers.get(i)) is not None
    }
    moved = any(shift > MOVE_TOLERANCE for shift in shifts.values())
    shifted = len(shifts) < len(seen) or any(shift > _IN_PLACE for shift in shifts.values())
    ids = tuple(sorted(seen))
    hidden = [MARKER_NAMES[i] for i in MARKER_NAMES if i not in seen]
    hidden_text = f" The {' and '.join(hidden)} marker is hidden." if hidden else ""
    if not seen:
        return Alignment(None, (), False, "No board marker is in view: is the board under the camera?")
    if not shifted and len(seen) >= 2:  # a rigid board cannot turn about two fixed points
        return Alignment(calibration, ids, False, hidden_text.strip())
    if len(seen) >= 3:
        homography = homography_from_markers(seen)
        # A hidden marker is where the new grid puts it: that is where it is looked for next.
        markers = {i: seen[i] if i in seen else to_image(homography, marker_squares(i)) for i in MARKER_NAMES}
        updated = replace(calibration, homography=homography, markers=markers)
        if moved:
            return Alignment(updated, ids, True, "The board moved; the grid was found again." + hidden_text)
        return Alignment(updated, ids, False, hidden_text.strip())
    if shifted:
        return Alignment(
            None,
            ids,
            True,
            "The board or camera moved and the markers are hidden: uncover the corner markers.",
        )
    return Alignment(None, ids, False, "Too few board markers are in view." + hidden_text)


# --- the JSON file ------------------------------------------------------------------------


def to_json(calibration: Calibration) -> str:
    data = {
        "format": FORMAT,
        "version": VERSION,
        "created": calibration.created,
        "method": calibration.method,
        "board": calibration.board,
        "image_size": list(calibration.image_size),
        "homography": [[float(v) for v in row] for row in calibration.homography],
        "markers": {
            MARKER_NAMES[i]: [[round(float(v), 3) for v in point] for point in corners]
            for i, corners in sorted(calibration.markers.items())
        },
        "rim_colours": None if calibration.rim is None else np.round(calibration.rim, 1).tolist(),
        "references": None if calibration.references is None else calibration.references.to_json(),
        "surroundings": None if calibration.surroundings is None else picture.to_text(calibration.surroundings),
    }
    # One line per list of numbers (a marker corner, a homography row, an example's features).
    return re.sub(r"\[[-+\d.eE,\s]*\]", lambda m: " ".join(m.group().split()), json.dumps(data, indent=1))


def from_json(text: str, source: str = "the calibration") -> Calibration:
    damaged = f"{source} is damaged or not a calibration file"
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise CalibrationError(f"{damaged} ({error.msg}, line {error.lineno}). {_AGAIN}") from None
    except RecursionError:
        raise CalibrationError(f"{damaged} (its values are nested too deeply). {_AGAIN}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CalibrationError(f"{damaged}. {_AGAIN}")
    if data.get("version") != VERSION:
        raise CalibrationError(f"{source} was written by another version of the companion. {_AGAIN}")
    try:
        calibration = _from_dict(data)
    except picture.PictureError as error:
        raise CalibrationError(f"{damaged}: {error} {_AGAIN}") from None
    # Whatever a damaged file holds, the loader says so in words (its values are the player's to
    # inspect, any type at any depth).
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, OverflowError, RecursionError,
            cv2.error) as error:
        raise CalibrationError(f"{damaged} (bad or missing {_clip(str(error))}). {_AGAIN}") from None
    if np.linalg.cond(calibration.homography) > _SINGULAR:
        raise CalibrationError(f"{damaged} (its grid is flat: the homography cannot be inverted). {_AGAIN}")
    return calibration


_SINGULAR = 1e9  # a real grid's homography has a condition number near 1e3
_MAX_SIDE = 20_000  # px: no camera frame is larger


def _from_dict(data: dict[str, Any]) -> Calibration:
    ids = {name: i for i, name in MARKER_NAMES.items()}
    homography = np.array(data["homography"], dtype=np.float64)
    if homography.shape != (3, 3) or not np.all(np.isfinite(homography)):
        raise ValueError("homography")
    corners = data["markers"]
    if not isinstance(corners, dict):
        raise ValueError("markers")
    markers = {ids[name]: np.array(c, dtype=np.float64).reshape(4, 2) for name, c in corners.items()}
    if not all(np.all(np.isfinite(c)) for c in markers.values()):
        raise ValueError("markers")
    sides = data["image_size"]
    if not isinstance(sides, list) or len(sides) != 2 or not all(isinstance(v, int) for v in sides):
        raise ValueError("image_size")
    width, height = sides
    if not (0 < width <= _MAX_SIDE and 0 < height <= _MAX_SIDE):
        raise ValueError("image_size")
    method = str(data["method"])
    if method not in ("markers", "corners"):
        raise ValueError("method")
    references = data.get("references")
    rim = data.get("rim_colours")
    rim_colours = None if rim is None else np.array(rim, dtype=np.float32).reshape(-1, 3)
    if rim_colours is not None and not np.all(np.isfinite(rim_colours)):
        raise ValueError("rim_colours")
    surroundings = data.get("surroundings")  # not in files written before it was kept
    what = "The calibration's picture of the board"
    small = None if surroundings is None else picture.from_text(str(surroundings), what)
    if small is not None and small.shape[1] != gate.WIDTH:
        raise ValueError("surroundings")
    board = data.get("board", "standard")
    if board not in ("standard", "alternate"):
        raise ValueError("board")
    return Calibration(
        image_size=(width, height),
        homography=homography,
        method=method,
        markers=markers,
        board=str(board),
        references=None if references is None else References.from_json(references),
        rim=rim_colours,
        surroundings=small,
        created=_clip(str(data.get("created", ""))),
    )


def _clip(text: str, limit: int = 80) -> str:
    """A value from a file, short enough to repeat in a message."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


_AGAIN = "Run `companion calibrate` again."


def save(calibration: Calibration, path: str | Path) -> None:
    """Write the file atomically: a temporary file, flushed to disk, then renamed over the old one."""
    files.write_atomic(path, to_json(calibration).encode("utf-8"))


MAX_FILE_BYTES = 16 * 1024 * 1024  # a calibration is about 3 MB


def load(path: str | Path) -> Calibration:
    target = Path(path)
    try:
        if target.stat().st_size > MAX_FILE_BYTES:
            raise CalibrationError(f"The calibration file {target} is larger than {MAX_FILE_BYTES // 2**20} MB: "
                                   f"it is not one this companion wrote. {_AGAIN}")
        text = target.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CalibrationError(f"There is no calibration file at {target}. {_AGAIN}") from None
    except UnicodeDecodeError:
        raise CalibrationError(f"The calibration file {target} is not text: it is damaged. {_AGAIN}") from None
    except OSError as error:
        raise CalibrationError(f"The calibration file {target} cannot be read ({error.strerror or error}). "
                               f"{_AGAIN}") from None
    return from_json(text, source=f"The calibration file {target}")


# --- learning what the board and the pieces look like --------------------------------------


def setup_position(board: str = "standard") -> tuple[Piece, ...]:
    """What every square holds at the start: a temple with its treasure, river, or empty land."""
    rivers, temples = geometry.river_cells(board), geometry.start_temple_cells(board)
    return tuple(
        Piece(
            CellClass.TREASURE if c in temples else CellClass.EMPTY_RIVER if c in rivers else CellClass.EMPTY_LAND
        )
        for c in range(CELLS)
    )


_NUDGES = (-0.07, 0.0, 0.07)  # squares: pieces are put down off-centre ...
_TURNS = (-8.0, 0.0, 8.0)  # degrees: ... and a little turned
_ROUND = tuple(range(30, 360, 30))  # degrees: ... and a leader turned all the way round
_LEANS = (-0.1, 0.0, 0.1)  # squares: how far a tall piece seems to move, seen from another angle
# ... and a figure, leaning out up to a quarter of a square at the rim of a tilted camera's picture
_FAR_LEANS = (-0.24, -0.12, 0.0, 0.12, 0.24)


def _examples(
    frame: np.ndarray, homography: np.ndarray, named: Mapping[int, Known], board: np.ndarray | None
) -> tuple[list[np.ndarray], list[np.ndarray], list[Known], list[bool], np.ndarray]:
    """Patches of the named squares: each piece also nudged and turned as players put them down.
    board: the set-up board seen from above, to allow for the light having changed since (None:
    this is the set-up). Also the frame seen from above."""
    px = rectify.PX_PER_SQUARE
    top_down = rectify.rectify(frame, homography)
    lit = light.Light.unchanged() if board is None else light.light(top_down, board)
    patches: list[np.ndarray] = []
    lights: list[np.ndarray] = []
    known: list[Known] = []
    nudged: list[bool] = []
    for cell, piece in sorted(named.items()):
        # Empty squares do not move. A monument sits squarely on its four tiles, but it is tall:
        # away from the middle of the picture its top leans outwards.
        if piece.cls in (CellClass.EMPTY_LAND, CellClass.EMPTY_RIVER):
            poses = [(0.0, 0.0, 0.0)]
        elif piece.cls is CellClass.MONUMENT:
            poses = [(x, y, 0.0) for x in _LEANS for y in _LEANS]
        else:
            poses = [(x, y, t) for x in _NUDGES for y in _NUDGES for t in _TURNS]
        if piece.cls.is_leader:  # put down facing any way, seen from anywhere
            poses += [(0.0, 0.0, t) for t in _ROUND]
            poses += [(x, y, 0.0) for x in _FAR_LEANS for y in _FAR_LEANS if (x, y) != (0.0, 0.0)]
        for dx, dy, turn in poses:
            transform = rectify.square_transform(homography, cell, px, dx, dy, turn)
            patches.append(rectify.square(frame, transform, px))
            lights.append(np.concatenate([lit.gain[cell], lit.glare[cell]]))
            known.append(piece)
            nudged.append((dx, dy, turn) != (0.0, 0.0, 0.0))
    return patches, lights, known, nudged, top_down


def calibrate(
    setup_frame: np.ndarray,
    pieces: Sequence[tuple[np.ndarray, Mapping[int, Known]]] = (),
    board: str = "standard",
    corners: Sequence[Sequence[float]] | None = None,
) -> Calibration:
    """The whole calibration: the grid from the markers (or from tapped `corners`), then the look
    of the set-up position and of the pieces the player showed, square by square."""
    _check_frame(setup_frame)
    _check_colour(setup_frame)
    height, width = setup_frame.shape[:2]
    calibration = from_markers(setup_frame, board) if corners is None else from_corners((width, height), corners, board)
    setup = dict(enumerate(setup_position(board)))
    patches, lights, known, nudged, board_image = _examples(setup_frame, calibration.homography, setup, None)
    signatures: list[np.ndarray] = []
    shown: list[tuple[CellClass, str]] = []  # (leader class, dynasty) of each leader shown
    for frame, named in pieces:
        _check_frame(frame)
        _check_colour(frame)
        alignment = align(frame, calibration.resized((frame.shape[1], frame.shape[0])))
        if alignment.calibration is None:
            raise CalibrationError(f"The pieces could not be seen: {alignment.message}")
        if any(not 0 <= cell < CELLS for cell in named):
            raise CalibrationError("A piece was named on a square that is not on the board.")
        more = _examples(frame, alignment.calibration.homography, named, board_image)
        patches += more[0]
        lights += more[1]
        known += more[2]
        nudged += more[3]
        for cell, piece in sorted(named.items()):
            if piece.dynasty is not None:
                closeup = leaders.leader_closeup(frame, alignment.calibration.homography, cell)
                signatures.append(leaders.dynasty_signatures(closeup)[0])
                shown.append((piece.cls, piece.dynasty))
    measured = np.array(lights, dtype=np.float32)
    lit = light.Light(measured[:, :3], measured[:, 3:])
    references = learn(board_image, setup_position(board), np.array(patches), lit, known, nudged)
    if shown and leaders.dynasties_readable(np.array(signatures), shown):
        references = replace(references, dynasty_signatures=np.array(signatures), dynasty_keys=tuple(shown))
    small = gate.small_image(setup_frame)
    rim = gate.rim_colours(small, gate.rim_places(calibration.homography, (width, height)))
    return replace(calibration, references=references, rim=rim, surroundings=small)


_SPOTS = ((0, 0), (10, 15), (5, 7), (0, 15), (10, 0))  # (row, column): far apart, so each piece is seen
# from several angles (a tall piece leans outwards at the edge of the picture) and under several lights


def pieces_layout(board: str = "standard") -> dict[int, Piece]:
    """Where to lay the pieces for the "show me your pieces" step: the six monuments, every leader
    of every dynasty, the unification tile, and tiles and catastrophes where they stand in play and
    at three places each, far apart: blue tiles on the river, the others on land; a catastrophe on
    either. The ten temples are lifted off: their squares, hidden at set-up, show the bare board
    (with a corner's printed frame), as they do once a war or a catastrophe takes a temple away."""
    rivers, temples = geometry.river_cells(board), geometry.start_temple_cells(board)
    land = [c for c in range(CELLS) if c not in rivers and c not in temples]
    layout: dict[int, Piece] = {c: Piece(CellClass.EMPTY_LAND) for c in sorted(temples)}
    pairs = monuments.MONUMENTS
    for cell in land:
        block = block_cells(cell)
        if len(layout) == len(temples) + 4 * len(pairs):
            break
        if cell % COLUMNS < COLUMNS - 1 and all(c in land and c not in layout for c in block):
            pair = pairs[(len(layout) - len(temples)) // 4]
            layout.update({c: Piece(CellClass.MONUMENT, monument=pair) for c in block})

    def nearest_free(spot: tuple[int, int], cells: Sequence[int]) -> int:
        free = [c for c in cells if c not in layout]
        return min(free, key=lambda c: ((c // COLUMNS - spot[0]) ** 2 + (c % COLUMNS - spot[1]) ** 2, c))

    spread = [(CellClass[f"TILE_{colour.upper()}"], land) for colour in COLOURS if colour != "blue"]
    spread.append((CellClass.TILE_BLUE, sorted(rivers)))
    for turn, (cls, cells) in enumerate(spread):
        for k in range(3):
            layout[nearest_free(_SPOTS[(turn + k) % len(_SPOTS)], cells)] = Piece(cls)
    layout[nearest_free(_SPOTS[2], sorted(rivers))] = Piece(CellClass.CATASTROPHE)
    # No face-down tile: in play they only ever lie under a monument, and a land square in a
    # shadow looks much like one.
    singles = [Piece(cls) for cls in (CellClass.CATASTROPHE, CellClass.UNIFICATION)]
    singles += [
        Piece(CellClass[f"LEADER_{colour.upper()}"], dynasty=dynasty)
        for dynasty in DYNASTIES
        for colour in COLOURS
    ]
    # Each as far as can be from the pieces already laid: the leaders of one colour end up all
    # over the board, seen from every side (a figure leans outwards at the edge of the picture).
    for piece in singles:
        free = [c for c in land if c not in layout]
        laid = np.array([divmod(c, COLUMNS) for c in layout])
        room = [float(np.min(np.abs(laid - divmod(c, COLUMNS)).sum(axis=1))) for c in free]
        layout[free[int(np.argmax(room))]] = piece
    return layout
