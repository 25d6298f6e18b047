"""ArUco markers on both OpenCV APIs.

OpenCV 4.6 (Debian 12 and Raspberry Pi OS Bookworm apt) has only the free functions
`drawMarker` / `detectMarkers`; 4.7 moved detection into `cv2.aruco.ArucoDetector` and
5.0 removed the free `detectMarkers`. Everything else in `vision` goes through this module.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, cast

import cv2
import numpy as np

DICTIONARY = cv2.aruco.DICT_4X4_50
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
