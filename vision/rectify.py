"""Warp the camera frame straight to a small top-down image of the grid.

One remap from the full frame to twice `px` pixels per square, averaged down: the cost grows with
the output, not the input, so a 16×11 grid at 16 px per square costs a fraction of warping the
frame. The classifier averages whole regions of each square, which also averages away the aliasing
of sampling a large frame sparsely.
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

from vision.reading import COLUMNS, ROWS

PX_PER_SQUARE = 16
SUPERSAMPLE = 2  # warp at 2× and average down: one sample per pixel would keep all the sensor noise


def top_down_transform(homography: np.ndarray, px: int = PX_PER_SQUARE) -> np.ndarray:
    """Image pixels -> top-down pixels, given image pixels -> board squares."""
    scale = np.diag([float(px), float(px), 1.0])
    transform: np.ndarray = scale @ homography
    return transform


def rectify(frame: np.ndarray, homography: np.ndarray, px: int = PX_PER_SQUARE) -> np.ndarray:
    """The grid seen from above: (ROWS·px) × (COLUMNS·px), same channels as the frame."""
    fine: np.ndarray = cv2.remap(
        frame, *_maps(np.asarray(homography, np.float64).tobytes(), px * SUPERSAMPLE), cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
    top_down: np.ndarray = cv2.resize(fine, (COLUMNS * px, ROWS * px), interpolation=cv2.INTER_AREA)
    return top_down


@functools.lru_cache(maxsize=4)
def _maps(homography: bytes, px: int) -> tuple[np.ndarray, np.ndarray]:
    """Where each top-down pixel comes from in the frame, in OpenCV's fixed-point form: worked out
    once per position of the board, after which each picture costs half a `warpPerspective`."""
    m = np.linalg.inv(top_down_transform(np.frombuffer(homography, np.float64).reshape(3, 3), px))
    # A row of columns and a column of rows, broadcast: a quarter of the work of a 3 × pixels product.
    u = np.arange(COLUMNS * px, dtype=np.float64)[None, :]
    v = np.arange(ROWS * px, dtype=np.float64)[:, None]
    w = m[2, 0] * u + m[2, 1] * v + m[2, 2]
    map_x = ((m[0, 0] * u + m[0, 1] * v + m[0, 2]) / w).astype(np.float32)
    map_y = ((m[1, 0] * u + m[1, 1] * v + m[1, 2]) / w).astype(np.float32)
    fixed: tuple[np.ndarray, np.ndarray] = cv2.convertMaps(map_x, map_y, cv2.CV_16SC2)
    return fixed


def square(frame: np.ndarray, transform: np.ndarray, px: int) -> np.ndarray:
    """A px×px picture of one square, given image -> that picture (`square_transform`), sampled
    as finely as `rectify` samples the whole grid."""
    scale = np.diag([float(SUPERSAMPLE), float(SUPERSAMPLE), 1.0])
    fine = cv2.warpPerspective(frame, scale @ transform, (px * SUPERSAMPLE, px * SUPERSAMPLE), flags=cv2.INTER_LINEAR)
    patch: np.ndarray = cv2.resize(fine, (px, px), interpolation=cv2.INTER_AREA)
    return patch


def cells(top_down: np.ndarray, px: int = PX_PER_SQUARE) -> np.ndarray:
    """The top-down image as one px×px patch per square: (ROWS·COLUMNS, px, px, channels), row-major."""
    channels = top_down.shape[2] if top_down.ndim == 3 else 1
    grid = top_down.reshape(ROWS, px, COLUMNS, px, channels)
    patches: np.ndarray = grid.transpose(0, 2, 1, 3, 4).reshape(ROWS * COLUMNS, px, px, channels)
    return patches


def square_transform(
    homography: np.ndarray, cell: int, px: int, dx: float = 0.0, dy: float = 0.0, turn: float = 0.0
) -> np.ndarray:
    """Image -> a px×px picture of one square, nudged by (dx, dy) squares and turned by `turn`
    degrees about its centre (to learn pieces put down carelessly, or to look closely at one)."""
    row, col = divmod(cell, COLUMNS)
    a = np.radians(turn)
    rotate = np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]])
    centre = np.array([[1, 0, col + 0.5 + dx], [0, 1, row + 0.5 + dy], [0, 0, 1]])
    to_squares = centre @ rotate @ np.array([[1 / px, 0, -0.5], [0, 1 / px, -0.5], [0, 0, 1]])
    transform: np.ndarray = np.linalg.inv(to_squares) @ homography
    return transform
