"""Pictures from files, measured before they are decoded.

A PNG of 20000×20000 pixels is about a megabyte on disk and 1.2 GB once decoded, more than a 2 GB
Pi can spare. So the file's size is checked before it is read, and the picture's width and height
are read from its header (PNG's IHDR chunk, JPEG's start-of-frame segment) before OpenCV decodes
it. Reading the header ourselves was chosen over cv2.IMREAD_REDUCED_*: OpenCV decodes a PNG whole
before shrinking it, so the memory would be spent all the same, and a reduced picture is not the
picture asked for.
"""

from __future__ import annotations

import base64
import binascii
import struct
from pathlib import Path

import cv2
import numpy as np

# Twice the largest Raspberry Pi camera still (Camera Module 3: 4608×2592, HQ: 4056×3040): 75 MB
# once decoded as BGR.
MAX_PIXELS = 25_000_000
MAX_FILE_BYTES = 64 * 1024 * 1024
_PNG = b"\x89PNG\r\n\x1a\n"
# JPEG start-of-frame markers (baseline, progressive, lossless, arithmetic), which carry the size.
_SOF = frozenset({0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF})


class PictureError(ValueError):
    """A picture that cannot or must not be decoded; the message says why, in plain words."""


def dimensions(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG or JPEG header, or None when `data` is neither."""
    if data.startswith(_PNG) and len(data) >= 24 and data[12:16] == b"IHDR":
        width, height = struct.unpack(">II", data[16:24])
        return int(width), int(height)
    if not data.startswith(b"\xff\xd8"):
        return None
    at = 2
    while at + 4 <= len(data):
        if data[at] != 0xFF:
            return None
        marker = data[at + 1]
        if marker == 0xFF:  # fill byte before a marker
            at += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # markers without a length
            at += 2
            continue
        (length,) = struct.unpack(">H", data[at + 2 : at + 4])
        if marker in _SOF:
            if at + 9 > len(data):
                return None
            height, width = struct.unpack(">HH", data[at + 5 : at + 9])
            return int(width), int(height)
        if marker == 0xDA or length < 2:  # the pixels start before any size was given
            return None
        at += 2 + length
    return None


def decode(data: bytes, what: str = "The picture") -> np.ndarray:
    """A PNG or JPEG in memory as a BGR frame, refused before decoding when it is too large."""
    size = dimensions(data)
    if size is None:
        raise PictureError(f"{what} is not a PNG or JPEG picture.")
    width, height = size
    if width == 0 or height == 0:
        raise PictureError(f"{what} says it is {width}×{height} pixels: it is damaged.")
    if width * height > MAX_PIXELS:
        raise PictureError(f"{what} is {width}×{height} pixels, more than this companion reads "
                           f"({MAX_PIXELS // 1_000_000} million pixels): take or save it smaller.")
    try:
        image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    except cv2.error:
        image = None
    if image is None:
        raise PictureError(f"{what} cannot be decoded: is the file damaged?")
    result: np.ndarray = image
    return result


def to_text(image: np.ndarray) -> str:
    """A picture as PNG in base64: how pictures are kept inside a JSON file."""
    ok, data = cv2.imencode(".png", image)
    if not ok:
        raise ValueError("the picture could not be encoded")
    return base64.b64encode(data.tobytes()).decode("ascii")


def from_text(text: str, what: str = "The picture") -> np.ndarray:
    """A picture kept by `to_text`, as a BGR frame."""
    try:
        data = base64.b64decode(text, validate=True)
    except binascii.Error:
        raise PictureError(f"{what} is not written as a picture should be: it is damaged.") from None
    return decode(data, what)


def read(path: str | Path) -> np.ndarray:
    """A picture file as a BGR frame; PictureError says why not (missing, too big, not a picture)."""
    source = Path(path)
    try:
        if source.stat().st_size > MAX_FILE_BYTES:
            raise PictureError(f"{source} is larger than {MAX_FILE_BYTES // 2**20} MB: too large for a picture "
                               "of the board.")
        data = source.read_bytes()
    except OSError as error:
        raise PictureError(f"{source} cannot be read ({error.strerror or error}).") from None
    return decode(data, str(source))
