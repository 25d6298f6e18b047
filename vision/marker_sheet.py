"""The printable calibration sheet: four marker cards for the board's corners, on A4 at 300 dpi.

    python -m vision.marker_sheet assets/markers-a4-300dpi.png

Print at actual size (100 %, not "fit to page"), check the scale bar measures 100 mm, cut the
cards out along the dashed lines and lay each on the board's border, inner corner touching the
grid's outer corner, as vision.geometry describes.
"""

from __future__ import annotations

import struct
import sys
import zlib
from pathlib import Path

import cv2
import numpy as np

from vision import geometry
from vision.aruco import marker_image

DPI = 300
A4_MM = (210.0, 297.0)
PX_PER_MM = DPI / 25.4
CORNER_NAMES = {
    0: "TOP-LEFT (by A1)",
    1: "TOP-RIGHT (by P1)",
    2: "BOTTOM-RIGHT (by P11)",
    3: "BOTTOM-LEFT (by A11)",
}
SCALE_BAR_MM = 100
_FONT = cv2.FONT_HERSHEY_SIMPLEX
_BLACK, _WHITE = 0, 255


def _px(mm: float) -> int:
    return round(mm * PX_PER_MM)


def _text(sheet: np.ndarray, text: str, x_mm: float, y_mm: float, height_mm: float, bold: bool = False) -> None:
    scale = _px(height_mm) / 22  # Hershey simplex capitals are about 22 px tall at scale 1
    thickness = max(2, round(scale * (2.6 if bold else 1.6)))
    cv2.putText(sheet, text, (_px(x_mm), _px(y_mm)), _FONT, scale, _BLACK, thickness, cv2.LINE_8)


def _dashed_square(sheet: np.ndarray, x_mm: float, y_mm: float, side_mm: float) -> None:
    """A cut line: dashes 3 mm long round the card, plus crop marks reaching out from its corners."""
    x0, y0, x1, y1 = _px(x_mm), _px(y_mm), _px(x_mm + side_mm), _px(y_mm + side_mm)
    dash, gap = _px(3), _px(2)
    for a, b, fixed, horizontal in (
        (x0, x1, y0, True),
        (x0, x1, y1, True),
        (y0, y1, x0, False),
        (y0, y1, x1, False),
    ):
        for start in range(a, b, dash + gap):
            end = min(b, start + dash)
            p, q = ((start, fixed), (end, fixed)) if horizontal else ((fixed, start), (fixed, end))
            cv2.line(sheet, p, q, _BLACK, 2, cv2.LINE_8)
    reach = _px(6)
    for cx, cy in ((x0, y0), (x1, y0), (x1, y1), (x0, y1)):
        sx = -1 if cx == x0 else 1
        sy = -1 if cy == y0 else 1
        cv2.line(sheet, (cx + sx * _px(1), cy), (cx + sx * reach, cy), _BLACK, 2, cv2.LINE_8)
        cv2.line(sheet, (cx, cy + sy * _px(1)), (cx, cy + sy * reach), _BLACK, 2, cv2.LINE_8)


def _card(sheet: np.ndarray, marker_id: int, x_mm: float, y_mm: float) -> None:
    """One card: white quiet zone with the marker centred, its cut line and its label below."""
    card, side = geometry.MARKER_CARD_MM, geometry.MARKER_SIDE_MM
    inset = (card - side) / 2
    size = _px(side)
    mx, my = _px(x_mm + inset), _px(y_mm + inset)
    sheet[my : my + size, mx : mx + size] = marker_image(marker_id, size)
    _dashed_square(sheet, x_mm, y_mm, card)
    _text(sheet, f"Marker {marker_id}", x_mm, y_mm + card + 9, 4.2, bold=True)
    _text(sheet, CORNER_NAMES[marker_id], x_mm, y_mm + card + 16, 3.2)


def _board_diagram(sheet: np.ndarray, x_mm: float, y_mm: float, width_mm: float) -> None:
    """Where the cards go: the board seen from above, title edge at the top."""
    scale = width_mm / geometry.BOARD_WIDTH_MM

    def at(bx: float, by: float) -> tuple[int, int]:  # board mm -> sheet px
        return _px(x_mm + (bx + geometry.MARGIN_MM) * scale), _px(y_mm + (by + geometry.MARGIN_MM) * scale)

    board = geometry.board_corners_mm()
    cv2.rectangle(sheet, at(*board[0]), at(*board[2]), _BLACK, 3, cv2.LINE_8)
    grid = geometry.grid_corners_mm()
    for c in range(17):
        x = c * geometry.SQUARE_MM
        cv2.line(sheet, at(x, 0), at(x, grid[2][1]), _BLACK, 1, cv2.LINE_8)
    for r in range(12):
        y = r * geometry.SQUARE_MM
        cv2.line(sheet, at(0, y), at(grid[2][0], y), _BLACK, 1, cv2.LINE_8)
    for marker_id in geometry.MARKER_IDS:
        half = geometry.MARKER_CARD_MM / 2
        centre = geometry.marker_centre_mm(marker_id)
        cv2.rectangle(sheet, at(*(centre - half)), at(*(centre + half)), _BLACK, -1, cv2.LINE_8)
        tx, ty = at(*centre)
        label_scale = _px(2.6) / 22
        cv2.putText(sheet, str(marker_id), (tx - _px(1), ty + _px(1.3)), _FONT, label_scale, _WHITE, 2, cv2.LINE_8)
    _text(sheet, "TITLE EDGE", x_mm + width_mm / 2 - 12, y_mm - 2, 3.2)


def _scale_bar(sheet: np.ndarray, x_mm: float, y_mm: float) -> None:
    x0, x1, y = _px(x_mm), _px(x_mm + SCALE_BAR_MM), _px(y_mm)
    cv2.rectangle(sheet, (x0, y), (x1, y + _px(2)), _BLACK, -1, cv2.LINE_8)
    for mm in range(0, SCALE_BAR_MM + 1, 10):
        x = _px(x_mm + mm)
        cv2.line(sheet, (x, y - _px(3 if mm % 50 == 0 else 1.5)), (x, y), _BLACK, 3, cv2.LINE_8)
        _text(sheet, str(mm), x_mm + mm - (1 if mm < 10 else 2), y_mm - 4.5, 2.4)
    _text(
        sheet,
        "This bar must measure exactly 100 mm. If not, print again at 100 % (actual size).",
        x_mm,
        y_mm + 8,
        3.0,
    )


def sheet() -> np.ndarray:
    """The whole A4 page as a grayscale uint8 image (black and white only)."""
    w, h = _px(A4_MM[0]), _px(A4_MM[1])
    page = np.full((h, w), _WHITE, np.uint8)
    _text(page, "Tigris & Euphrates companion: calibration markers", 15, 22, 5.5, bold=True)
    lines = [
        "1. Print this page at 100 % (actual size, not 'fit to page'). Check the scale bar below.",
        "2. Cut out the four cards along the dashed lines. Keep the white border round each marker.",
        "3. Lay each card on the board's border at its corner, upright (the page's top towards the",
        "   board's title edge), its inner corner touching the outer corner of the playing grid.",
        f"   Markers: ArUco 4x4 (DICT_4X4_50), {geometry.MARKER_SIDE_MM:.0f} mm; cards "
        f"{geometry.MARKER_CARD_MM:.0f} mm; board squares assumed {geometry.SQUARE_MM:.0f} mm.",
    ]
    for i, line in enumerate(lines):
        _text(page, line, 15, 33 + 6.5 * i, 3.1)
    card = geometry.MARKER_CARD_MM
    left, right = 35.0, A4_MM[0] - 35.0 - card
    for marker_id, (x, y) in zip(
        geometry.MARKER_IDS, ((left, 72), (right, 72), (right, 134), (left, 134)), strict=True
    ):
        _card(page, marker_id, x, y)
    _board_diagram(page, 60, 207, 90)
    _scale_bar(page, 55, 283)
    # OpenCV 5 draws text anti-aliased whatever the line type: keep the page pure black and white.
    return np.where(page < 128, _BLACK, _WHITE).astype(np.uint8)


def _with_dpi(png: bytes, dpi: int) -> bytes:
    """Adds a pHYs chunk so that viewers and printers know the page is `dpi` dots per inch."""
    per_metre = round(dpi / 0.0254)
    body = b"pHYs" + struct.pack(">IIB", per_metre, per_metre, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    ihdr_end = 8 + 4 + 4 + 13 + 4  # signature, then IHDR: length, type, 13 bytes of data, CRC
    return png[:ihdr_end] + chunk + png[ihdr_end:]


def write(path: str | Path) -> Path:
    """Writes the sheet as a 1-bit PNG at 300 dpi."""
    ok, data = cv2.imencode(".png", sheet(), [cv2.IMWRITE_PNG_BILEVEL, 1, cv2.IMWRITE_PNG_COMPRESSION, 9])
    if not ok:
        raise RuntimeError("OpenCV could not encode the marker sheet as PNG")
    out = Path(path)
    out.write_bytes(_with_dpi(data.tobytes(), DPI))
    return out


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m vision.marker_sheet OUT.png", file=sys.stderr)
        return 2
    try:
        out = write(args[0])
    except OSError as error:
        print(f"Cannot write the marker sheet to {args[0]}: {error.strerror or error}", file=sys.stderr)
        return 1
    print(f"Wrote {out} (A4 at {DPI} dpi). Print it at 100 % and check the 100 mm scale bar.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
