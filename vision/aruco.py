"""ArUco markers on both OpenCV APIs.

OpenCV 4.6 (Debian 12 and Raspberry Pi OS Bookworm apt) has only the free functions
`drawMarker` / `detectMarkers`; 4.7 moved detection into `cv2.aruco.ArucoDetector` and
5.0 removed the free `detectMarkers`. Everything else in `vision` goes through this module.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Protocol, cast

import cv2
import numpy as np

DICTIONARY = cv2.aruco.DICT_4X4_50
_CELLS = 6  # a marker's cells each way: its 4×4 bits inside a black border one cell wide
_CELL_PX = 6  # px a cell where a marker is looked at (`shows`)
# One marker per board corner, as the camera sees the board with its title edge at the top.
CORNER_IDS = {"top-left": 0, "top-right": 1, "bottom-right": 2, "bottom-left": 3}


@dataclass(frozen=True)
class Marker:
    id: int
    corners: np.ndarray  # 4×2 float32, clockwise from the marker's own top-left


class _LegacyAruco(Protocol):
    """The free functions of OpenCV 4.6's `cv2.aruco`, which the stubs of newer OpenCV no longer list."""

    def drawMarker(self, dictionary: cv2.aruco.Dictionary, id: int, sidePixels: int) -> np.ndarray: ...

    def DetectorParameters_create(self) -> cv2.aruco.DetectorParameters: ...

    def detectMarkers(
        self, image: np.ndarray, dictionary: cv2.aruco.Dictionary, *, parameters: cv2.aruco.DetectorParameters
    ) -> tuple[Sequence[np.ndarray], np.ndarray | None, Sequence[np.ndarray]]: ...


def _legacy() -> _LegacyAruco:
    """`cv2.aruco` as OpenCV 4.6 has it: call only where the newer API is missing."""
    return cast(_LegacyAruco, cv2.aruco)


def _dictionary() -> cv2.aruco.Dictionary:
    return cv2.aruco.getPredefinedDictionary(DICTIONARY)


def marker_image(marker_id: int, side_px: int) -> np.ndarray:
    """The marker as a side_px × side_px uint8 image (black and white, no quiet zone)."""
    if hasattr(cv2.aruco, "generateImageMarker"):
        image: np.ndarray = cv2.aruco.generateImageMarker(_dictionary(), marker_id, side_px)
    else:
        image = _legacy().drawMarker(_dictionary(), marker_id, side_px)
    return image


def detect(gray: np.ndarray) -> list[Marker]:
    """Every marker of our dictionary found in a grayscale image."""
    corners: Sequence[np.ndarray]
    ids: np.ndarray | None
    if hasattr(cv2.aruco, "ArucoDetector"):
        detector = cv2.aruco.ArucoDetector(_dictionary(), cv2.aruco.DetectorParameters())
        corners, ids, _ = detector.detectMarkers(gray)
    else:
        legacy = _legacy()
        parameters = legacy.DetectorParameters_create()
        corners, ids, _ = legacy.detectMarkers(gray, _dictionary(), parameters=parameters)
    if ids is None:
        return []
    return [
        Marker(int(i), np.asarray(c, dtype=np.float32).reshape(4, 2))
        for i, c in zip(ids.ravel(), corners, strict=True)
    ]


def _smooth_away() -> np.ndarray:
    """The matrix that takes away from a marker's _CELLS × _CELLS cell values (raveled) what a
    smooth quadratic surface over it explains, least squares: a glare's or a shadow's light across
    the card."""
    y, x = np.mgrid[0:_CELLS, 0:_CELLS].reshape(2, -1) / (_CELLS - 1) - 0.5
    surface = np.stack([np.ones_like(x), x, y, x * x, y * y, x * y], axis=1)
    away: np.ndarray = np.eye(_CELLS * _CELLS) - surface @ np.linalg.pinv(surface)
    return away


_SMOOTH_AWAY = _smooth_away()


@cache
def _pattern(marker_id: int) -> np.ndarray:
    """The marker's cells, white +1 and black -1, beyond any smooth surface (`_SMOOTH_AWAY`)."""
    cells = np.where(marker_image(marker_id, _CELLS) > 127, 1.0, -1.0).ravel()
    pattern: np.ndarray = _SMOOTH_AWAY @ cells
    pattern.setflags(write=False)
    return pattern


def shows(image: np.ndarray, marker_id: int, corners: np.ndarray) -> float:
    """How plainly the marker's own pattern shows within these corners of an image (grey or BGR;
    clockwise from the marker's top-left, as `detect` gives them), where the detector did not find
    it: the correlation of its cells with the pattern, beyond what a smooth light across it
    explains. 1: the pattern itself, under any such light; about 0: a hand, or another marker."""
    side = _CELLS * _CELL_PX
    square = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32)
    transform = cv2.getPerspectiveTransform(corners.astype(np.float32), square)
    patch = cv2.warpPerspective(image, transform, (side, side), flags=cv2.INTER_LINEAR)
    if patch.ndim == 3:
        patch = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY)
    # Each cell's middle: its edges blur into its neighbours'.
    middle = slice(_CELL_PX // 4, _CELL_PX - _CELL_PX // 4)
    cells = patch.reshape(_CELLS, _CELL_PX, _CELLS, _CELL_PX)[:, middle, :, middle].mean(axis=(1, 3)).ravel()
    left = _SMOOTH_AWAY @ cells
    pattern = _pattern(marker_id)
    spread = float(np.linalg.norm(left) * np.linalg.norm(pattern))
    return float(left @ pattern) / spread if spread > 0 else 0.0
