"""Picture files are measured from their headers before they are decoded."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import picture


def huge_png(width: int, height: int) -> bytes:
    """A small PNG whose header claims `width`×`height` (its checksum made right), as a crafted file would."""
    ok, data = cv2.imencode(".png", np.zeros((8, 8, 3), np.uint8))
    assert ok
    raw = bytearray(data.tobytes())
    raw[16:24] = struct.pack(">II", width, height)
    raw[29:33] = struct.pack(">I", zlib.crc32(bytes(raw[12:29])))
    return bytes(raw)


@pytest.mark.parametrize("suffix", [".png", ".jpg"])
def test_the_size_is_read_from_the_header(suffix: str) -> None:
    ok, data = cv2.imencode(suffix, np.zeros((37, 53, 3), np.uint8))
    assert ok
    assert picture.dimensions(data.tobytes()) == (53, 37)


def test_a_picture_too_large_is_refused_without_decoding(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cv2, "imdecode", lambda *_: pytest.fail("decoded"))
    with pytest.raises(picture.PictureError, match="20000×20000 pixels"):
        picture.decode(huge_png(20000, 20000))


def test_a_file_too_large_is_refused_before_it_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    big = tmp_path / "big.jpg"
    with big.open("wb") as file:
        file.truncate(picture.MAX_FILE_BYTES + 1)  # sparse: no disk used
    monkeypatch.setattr(Path, "read_bytes", lambda _: pytest.fail("read"))
    with pytest.raises(picture.PictureError, match="larger than 64 MB"):
        picture.read(big)


@pytest.mark.parametrize("data", [b"", b"\xff\xd8", b"\xff\xd8\xff\xc0\x00", b"GIF89a", b"\x89PNG\r\n\x1a\n"])
def test_cut_or_foreign_files_are_refused_in_words(data: bytes) -> None:
    with pytest.raises(picture.PictureError, match=r"PNG or JPEG|damaged"):
        picture.decode(data)
