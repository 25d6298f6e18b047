"""The printable marker sheet: the right markers at the right size, and the shipped file up to date."""

from __future__ import annotations

import struct
from pathlib import Path

import cv2
import numpy as np

from vision import aruco, geometry, marker_sheet

ASSET = Path(__file__).resolve().parents[2] / "assets" / "markers-a4-300dpi.png"


def _png_chunks(data: bytes) -> dict[bytes, bytes]:
    chunks, at = {}, 8
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind = data[at + 4 : at + 8]
        chunks[kind] = data[at + 8 : at + 8 + length]
        at += 12 + length
    return chunks


def test_the_sheet_is_a4_at_300_dpi_with_the_four_corner_markers():
    page = marker_sheet.sheet()
    assert page.shape == (3508, 2480)  # 297 × 210 mm at 300 dpi
    assert set(np.unique(page)) <= {0, 255}  # black and white only, so it prints crisply
    found = {m.id: m.corners for m in aruco.detect(page)}
    assert sorted(found) == [0, 1, 2, 3]
    for corners in found.values():
        sides = np.linalg.norm(corners - np.roll(corners, 1, axis=0), axis=1)
        side_mm = sides.mean() / marker_sheet.PX_PER_MM
        assert abs(side_mm - geometry.MARKER_SIDE_MM) < 0.3  # detected corners sit half a pixel inside
    top = [found[0], found[1]]
    assert top[0][:, 1].mean() < found[3][:, 1].mean()  # marker 0 above marker 3, as on the board
    assert top[0][:, 0].mean() < top[1][:, 0].mean()


def test_the_markers_are_upright_on_the_sheet():
    for marker in aruco.detect(marker_sheet.sheet()):
        tl, tr, _, bl = marker.corners
        assert tl[0] < tr[0] and tl[1] < bl[1]  # their own top-left corner is at the top left


def test_the_scale_bar_is_100_mm_long():
    page = marker_sheet.sheet()
    y = marker_sheet._px(283 + 1)  # through the middle of the bar
    row = page[y]
    dark = np.flatnonzero(row == 0)
    length_mm = (dark.max() - dark.min()) / marker_sheet.PX_PER_MM
    assert abs(length_mm - marker_sheet.SCALE_BAR_MM) < 0.5


def test_written_file_is_small_one_bit_and_says_300_dpi(tmp_path):
    out = marker_sheet.write(tmp_path / "sheet.png")
    data = out.read_bytes()
    assert len(data) < 300_000
    chunks = _png_chunks(data)
    assert chunks[b"IHDR"][8] == 1  # bit depth 1
    x, y, unit = struct.unpack(">IIB", chunks[b"pHYs"])
    assert (x, y, unit) == (11811, 11811, 1)  # 300 dpi in pixels per metre
    assert np.array_equal(cv2.imread(str(out), cv2.IMREAD_GRAYSCALE), marker_sheet.sheet())


def test_the_shipped_sheet_is_the_generated_one():
    shipped = cv2.imread(str(ASSET), cv2.IMREAD_GRAYSCALE)
    assert shipped is not None, f"{ASSET} is missing: run python -m vision.marker_sheet {ASSET}"
    generated = marker_sheet.sheet()
    assert shipped.shape == generated.shape
    # Text is drawn by different fonts in OpenCV 4 and 5; what matters is where the markers are.
    shipped_markers = {m.id: m.corners for m in aruco.detect(shipped)}
    generated_markers = {m.id: m.corners for m in aruco.detect(generated)}
    assert sorted(shipped_markers) == sorted(generated_markers) == [0, 1, 2, 3]
    for marker_id, corners in generated_markers.items():
        assert np.abs(shipped_markers[marker_id] - corners).max() < 1


def test_command_line(tmp_path, capsys):
    assert marker_sheet.main([str(tmp_path / "out.png")]) == 0
    assert "100 mm" in capsys.readouterr().out
    assert marker_sheet.main([]) == 2
    assert marker_sheet.main([str(tmp_path / "no" / "such" / "dir.png")]) == 1
    assert "Cannot write" in capsys.readouterr().err
