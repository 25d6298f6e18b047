"""Board art and piece sprites for the synthetic camera, drawn once and cached.

Everything here is top-down, at a chosen number of pixels per square. The board is drawn
like a printed board (paper grain, mottled land, rippled river, grid lines, a border with
coordinates) so that a reader cannot get away with matching flat colours. Two piece styles:
*classic* (solid-coloured tiles with a light symbol, round leader discs with a dynasty symbol)
and *modern* (grey relief tiles told apart by a thin coloured frame and a coloured symbol,
leaders as coloured figures seen from above).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from vision import geometry
from vision.aruco import marker_image
from vision.reading import COLUMNS, ROWS

STYLES = ("classic", "modern")
DYNASTIES = ("archer", "bull", "pot", "lion")
DYNASTY_COLOURS = ("red", "blue", "green", "black")  # the colours of tiles and leaders

# BGR. The printed board and the piece colours of each edition.
TILE_COLOURS = {
    "classic": {"red": (48, 45, 178), "blue": (160, 98, 30), "green": (62, 132, 48), "black": (40, 38, 36)},
    "modern": {"red": (40, 40, 200), "blue": (190, 120, 20), "green": (60, 160, 40), "black": (30, 30, 30)},
}
LAND = {"classic": (128, 176, 205), "modern": (120, 165, 190)}
RIVER = {"classic": (196, 164, 104), "modern": (185, 150, 80)}
BORDER = {"classic": (60, 92, 120), "modern": (52, 70, 92)}


@dataclass(frozen=True)
class Sprite:
    """A piece seen from above: colour and coverage (float32 0..1), drop shadow included."""

    bgr: np.ndarray
    alpha: np.ndarray


def _frozen(image: np.ndarray) -> np.ndarray:
    image.flags.writeable = False  # cached art is shared between renders
    return image


def _smooth_noise(shape: tuple[int, int], cells: int, rng: np.random.Generator) -> np.ndarray:
    """Low-frequency noise in -1..1, `cells` blobs across the longer side."""
    h, w = shape
    gh = max(2, round(cells * h / max(h, w)))
    gw = max(2, round(cells * w / max(h, w)))
    coarse = rng.uniform(-1, 1, (gh, gw)).astype(np.float32)
    return cv2.resize(coarse, (w, h), interpolation=cv2.INTER_CUBIC)


def _grain(shape: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    return rng.normal(0, 1, shape).astype(np.float32)


def _paint(colour: tuple[int, int, int], variation: np.ndarray) -> np.ndarray:
    """A colour modulated by a brightness variation (float, about -1..1)."""
    base = np.array(colour, dtype=np.float32)
    out = base[None, None, :] * (1 + 0.1 * variation[..., None])
    return out


@lru_cache(maxsize=12)
def board_art(
    river: frozenset[int], corners: frozenset[int], style: str, px_per_square: int, markers: bool = False
) -> np.ndarray:
    """The printed board, border included, without pieces; with the marker cards laid at the
    grid's corners if `markers` (cached, read-only)."""
    if markers:
        return _frozen(_add_markers(board_art(river, corners, style, px_per_square), px_per_square))
    return _printed_board(river, corners, style, px_per_square)


def _printed_board(river: frozenset[int], corners: frozenset[int], style: str, px_per_square: int) -> np.ndarray:
    _check_style(style)
    s = px_per_square
    m = round(geometry.MARGIN_MM / geometry.SQUARE_MM * s)
    gw, gh = COLUMNS * s, ROWS * s
    h, w = gh + 2 * m, gw + 2 * m
    rng = np.random.default_rng(1234)  # the same print every time
    mottle = _smooth_noise((h, w), 24, rng) * 0.6 + _smooth_noise((h, w), 90, rng) * 0.3
    grain = _grain((h, w), rng)
    land = _paint(LAND[style], mottle + 0.25 * grain)
    # Faint printed terrain lines wandering over the land, as on the real board's art.
    terrain = _smooth_noise((h, w), 14, rng)
    lines = np.abs(np.sin(terrain * 9)) < 0.06
    land[lines] *= 0.88
    water = _paint(RIVER[style], 0.7 * mottle + 0.25 * grain)
    # Ripples: bright wavy streaks that follow the paper, so river squares are not flat either.
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    ripple = np.sin((yy + 3 * np.sin(xx / (0.21 * s))) / (0.09 * s)) * np.sin(xx / (0.37 * s) + yy / (0.8 * s))
    water += (np.clip(ripple, 0.55, 1.0) - 0.55)[..., None] * np.array([60, 45, 25], np.float32)

    image = np.empty((h, w, 3), np.float32)
    image[:] = land
    river_mask = np.zeros((h, w), bool)
    for cell in river:
        r, c = divmod(cell, COLUMNS)
        river_mask[m + r * s : m + (r + 1) * s, m + c * s : m + (c + 1) * s] = True
    image[river_mask] = water[river_mask]

    # The border: a darker printed frame with the column letters and row numbers.
    frame = _paint(BORDER[style], mottle + 0.3 * grain)
    border_mask = np.ones((h, w), bool)
    border_mask[m:-m, m:-m] = False
    image[border_mask] = frame[border_mask]
    out = np.clip(image, 0, 255).astype(np.uint8)

    ink = tuple(int(0.45 * v) for v in LAND[style])
    line = max(1, s // 40)
    for c in range(COLUMNS + 1):
        cv2.line(out, (m + c * s, m), (m + c * s, m + gh), ink, line, cv2.LINE_AA)
    for r in range(ROWS + 1):
        cv2.line(out, (m, m + r * s), (m + gw, m + r * s), ink, line, cv2.LINE_AA)
    cv2.rectangle(out, (m - line, m - line), (m + gw + line, m + gh + line), ink, 2 * line, cv2.LINE_AA)
    for cell in corners:  # the framed treasure corners are printed with a double frame
        r, c = divmod(cell, COLUMNS)
        for inset in (0.08, 0.14):
            d = round(inset * s)
            x0, y0 = m + c * s + d, m + r * s + d
            cv2.rectangle(out, (x0, y0), (x0 + s - 2 * d, y0 + s - 2 * d), ink, line, cv2.LINE_AA)

    label = (200, 225, 235)
    scale = s / 110
    for c in range(COLUMNS):
        text = chr(ord("A") + c)
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, max(1, s // 40))
        x = m + c * s + (s - tw) // 2
        # Letters sit beside the marker cards, which cover the border's corners only.
        cv2.putText(
            out,
            text,
            (x, m - max(2, m // 4)),
            cv2.FONT_HERSHEY_SIMPLEX,
            scale,
            label,
            max(1, s // 40),
            cv2.LINE_AA,
        )
        cv2.putText(
            out,
            text,
            (x, m + gh + th + max(2, m // 4)),
            cv2.FONT_HERSHEY_SIMPLEX,
            scale,
            label,
            max(1, s // 40),
            cv2.LINE_AA,
        )
    for r in range(ROWS):
        text = str(r + 1)
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, max(1, s // 40))
        y = m + r * s + (s + th) // 2
        cv2.putText(
            out,
            text,
            ((m - tw) // 2, y),
            cv2.FONT_HERSHEY_SIMPLEX,
            scale,
            label,
            max(1, s // 40),
            cv2.LINE_AA,
        )
        cv2.putText(
            out,
            text,
            (m + gw + (m - tw) // 2, y),
            cv2.FONT_HERSHEY_SIMPLEX,
            scale,
            label,
            max(1, s // 40),
            cv2.LINE_AA,
        )
    return _frozen(out)


def _add_markers(board: np.ndarray, px_per_square: int) -> np.ndarray:
    """A copy of the board with the four marker cards laid at the grid corners."""
    out = board.copy()
    per_mm = px_per_square / geometry.SQUARE_MM
    card = round(geometry.MARKER_CARD_MM * per_mm)
    side = round(geometry.MARKER_SIDE_MM * per_mm)
    for marker_id in geometry.MARKER_IDS:
        cx, cy = (geometry.marker_centre_mm(marker_id) + geometry.MARGIN_MM) * per_mm
        x0, y0 = round(cx - card / 2), round(cy - card / 2)
        out[max(0, y0) : y0 + card, max(0, x0) : x0 + card] = (236, 240, 240)
        mx, my = round(cx - side / 2), round(cy - side / 2)
        out[my : my + side, mx : mx + side] = cv2.cvtColor(_marker(marker_id, side), cv2.COLOR_GRAY2BGR)
    return out


@lru_cache(maxsize=8)
def _marker(marker_id: int, side: int) -> np.ndarray:
    return _frozen(marker_image(marker_id, side))


def _check_style(style: str) -> None:
    if style not in STYLES:
        raise ValueError(f"unknown piece style {style!r}: choose one of {', '.join(STYLES)}")


# --- Symbols, drawn in a unit box (0..1) scaled to the piece. -------------------------------


def _pts(points: list[tuple[float, float]], x0: float, y0: float, size: float) -> np.ndarray:
    return np.array([[round((x0 + px * size) * 16), round((y0 + py * size) * 16)] for px, py in points], np.int32)


def _poly(
    img: np.ndarray,
    points: list[tuple[float, float]],
    box: tuple[float, float, float],
    colour: tuple[int, int, int],
    thickness: int = -1,
) -> None:
    """A polygon in unit-box coordinates; thickness -1 fills it. Sub-pixel precision via shift=4."""
    x0, y0, size = box
    p = _pts(points, x0, y0, size)
    if thickness < 0:
        cv2.fillPoly(img, [p], colour, cv2.LINE_AA, shift=4)
    else:
        cv2.polylines(img, [p], True, colour, thickness, cv2.LINE_AA, shift=4)


def _circle(
    img: np.ndarray,
    centre: tuple[float, float],
    radius: float,
    box: tuple[float, float, float],
    colour: tuple[int, int, int],
    thickness: int = -1,
) -> None:
    x0, y0, size = box
    c = (round((x0 + centre[0] * size) * 16), round((y0 + centre[1] * size) * 16))
    cv2.circle(img, c, round(radius * size * 16), colour, thickness, cv2.LINE_AA, shift=4)


def _arc(
    img: np.ndarray,
    centre: tuple[float, float],
    axes: tuple[float, float],
    start: float,
    end: float,
    box: tuple[float, float, float],
    colour: tuple[int, int, int],
    thickness: int,
) -> None:
    x0, y0, size = box
    c = (round((x0 + centre[0] * size) * 16), round((y0 + centre[1] * size) * 16))
    a = (round(axes[0] * size * 16), round(axes[1] * size * 16))
    cv2.ellipse(img, c, a, 0, start, end, colour, thickness, cv2.LINE_AA, shift=4)


def draw_tile_symbol(img: np.ndarray, colour: str, box: tuple[float, float, float], ink: tuple[int, int, int]) -> None:
    """The symbol of a civilization tile: temple, farm, market or settlement."""
    t = max(1, round(box[2] * 0.07))
    if colour == "red":  # a stepped temple
        _poly(
            img,
            [
                (0.2, 0.8),
                (0.8, 0.8),
                (0.8, 0.62),
                (0.68, 0.62),
                (0.68, 0.44),
                (0.58, 0.44),
                (0.58, 0.22),
                (0.42, 0.22),
                (0.42, 0.44),
                (0.32, 0.44),
                (0.32, 0.62),
                (0.2, 0.62),
            ],
            box,
            ink,
        )
    elif colour == "blue":  # a farm: three furrows of grain
        for x in (0.3, 0.5, 0.7):
            _poly(img, [(x, 0.22), (x + 0.07, 0.4), (x + 0.02, 0.8), (x - 0.02, 0.8), (x - 0.07, 0.4)], box, ink)
    elif colour == "green":  # a market: a pair of scales
        _poly(img, [(0.48, 0.2), (0.52, 0.2), (0.52, 0.78), (0.48, 0.78)], box, ink)
        _poly(img, [(0.2, 0.3), (0.8, 0.3)], box, ink, t)
        _arc(img, (0.27, 0.52), (0.14, 0.1), 0, 180, box, ink, -1)
        _arc(img, (0.73, 0.52), (0.14, 0.1), 0, 180, box, ink, -1)
        _poly(img, [(0.32, 0.8), (0.68, 0.8), (0.6, 0.74), (0.4, 0.74)], box, ink)
    else:  # a settlement: a house
        _poly(
            img,
            [(0.22, 0.5), (0.5, 0.2), (0.78, 0.5), (0.7, 0.5), (0.7, 0.8), (0.3, 0.8), (0.3, 0.5)],
            box,
            ink,
        )


def draw_dynasty(img: np.ndarray, dynasty: str, box: tuple[float, float, float], ink: tuple[int, int, int]) -> None:
    """A dynasty's symbol: archer, bull, pot or lion."""
    t = max(1, round(box[2] * 0.08))
    if dynasty == "archer":  # a drawn bow with its arrow
        _arc(img, (0.42, 0.5), (0.22, 0.32), -90, 90, box, ink, t)
        _poly(img, [(0.42, 0.18), (0.42, 0.82)], box, ink, max(1, t // 2))
        _poly(img, [(0.2, 0.5), (0.8, 0.5)], box, ink, t)
        _poly(img, [(0.86, 0.5), (0.72, 0.41), (0.72, 0.59)], box, ink)
    elif dynasty == "bull":  # a head with horns
        _circle(img, (0.5, 0.58), 0.2, box, ink)
        _arc(img, (0.5, 0.38), (0.3, 0.18), 180, 360, box, ink, t)
    elif dynasty == "pot":  # an amphora
        _poly(
            img,
            [
                (0.42, 0.2),
                (0.58, 0.2),
                (0.56, 0.32),
                (0.72, 0.48),
                (0.66, 0.74),
                (0.56, 0.82),
                (0.44, 0.82),
                (0.34, 0.74),
                (0.28, 0.48),
                (0.44, 0.32),
            ],
            box,
            ink,
        )
    elif dynasty == "lion":  # a maned head
        n = 12
        star = []
        for i in range(2 * n):
            radius = 0.34 if i % 2 == 0 else 0.24
            angle = np.pi * i / n
            star.append((0.5 + radius * np.cos(angle), 0.5 + radius * np.sin(angle)))
        _poly(img, star, box, ink)
        _circle(img, (0.5, 0.5), 0.15, box, tuple(int(255 - v) for v in ink))  # type: ignore[arg-type]
    else:
        raise ValueError(f"unknown dynasty {dynasty!r}: choose one of {', '.join(DYNASTIES)}")


# --- Sprites. ---------------------------------------------------------------------------------


def _canvas(size: int) -> tuple[np.ndarray, np.ndarray]:
    return np.zeros((size, size, 3), np.uint8), np.zeros((size, size), np.uint8)


def _with_shadow(bgr: np.ndarray, cover: np.ndarray, size: int) -> Sprite:
    """Adds the soft shadow a piece throws on the board below and to the right of it."""
    shift = max(1, size // 30)
    shadow = np.zeros_like(cover)
    shadow[shift:, shift:] = cover[:-shift, :-shift]
    k = max(3, (size // 25) | 1)
    shadow = cv2.GaussianBlur(shadow, (k, k), 0)
    piece = cover.astype(np.float32) / 255
    shade = shadow.astype(np.float32) / 255 * 0.45
    alpha = piece + (1 - piece) * shade
    colour = bgr.astype(np.float32) * piece[..., None]  # shadow colour is black
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(alpha[..., None] > 0, colour / np.maximum(alpha, 1e-6)[..., None], 0)
    return Sprite(_frozen(np.clip(out, 0, 255).astype(np.uint8)), _frozen(alpha.astype(np.float32)))


def _relief(bgr: np.ndarray, height: np.ndarray, strength: float = 1.0) -> np.ndarray:
    """Lights a piece from the top-left: slopes facing the light brighter, the others darker.
    `height` is any map (uint8 masks add up: 255 per step)."""
    size = bgr.shape[0]
    blurred = cv2.GaussianBlur(height.astype(np.float32) / 255, (0, 0), max(1.0, size / 50))
    gy, gx = np.gradient(blurred)
    light = -(gx + gy) * size * 0.35 * strength
    out = bgr.astype(np.float32) * (1 + np.clip(light, -0.35, 0.35)[..., None])
    lit: np.ndarray = np.clip(out, 0, 255).astype(np.uint8)
    return lit


def _tile_base(size: int, colour: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray, float]:
    bgr, cover = _canvas(size)
    inset = 0.06 * size
    pts = np.array([[inset, inset], [size - inset, inset], [size - inset, size - inset], [inset, size - inset]])
    cv2.fillPoly(cover, [np.round(pts * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)
    bgr[:] = colour
    return bgr, cover, inset


def _lighter(colour: tuple[int, int, int], amount: float) -> tuple[int, int, int]:
    return tuple(int(v + (255 - v) * amount) for v in colour)  # type: ignore[return-value]


def _tile(style: str, colour: str, size: int) -> tuple[np.ndarray, np.ndarray]:
    rgb = TILE_COLOURS[style][colour]
    inner = (0.06 * size, 0.06 * size, 0.88 * size)
    if style == "classic":
        bgr, cover, _ = _tile_base(size, rgb)
        draw_tile_symbol(bgr, colour, inner, _lighter(rgb, 0.55))
        return _relief(bgr, cover), cover
    # modern: a grey tile with the symbol raised in relief, coloured only by a thin frame and the symbol
    bgr, cover, inset = _tile_base(size, (150, 152, 150))
    raised = np.zeros_like(cover)
    d = round(inset + 0.05 * size)
    cv2.rectangle(bgr, (d, d), (size - d, size - d), rgb, max(1, round(0.04 * size)), cv2.LINE_AA)
    symbol_box = (0.2 * size, 0.2 * size, 0.6 * size)
    draw_tile_symbol(raised, colour, symbol_box, (255, 255, 255))
    draw_tile_symbol(bgr, colour, symbol_box, _lighter(rgb, 0.1))
    height = cover.astype(np.float32) + 0.3 * raised.astype(np.float32)
    return _relief(bgr, height), cover


def _face_down(style: str, size: int) -> tuple[np.ndarray, np.ndarray]:
    back = (92, 122, 150) if style == "classic" else (118, 120, 122)
    bgr, cover, inset = _tile_base(size, back)
    ink = _lighter(back, 0.3)
    d = round(inset + 0.12 * size)
    cv2.rectangle(bgr, (d, d), (size - d, size - d), ink, max(1, size // 30), cv2.LINE_AA)
    cv2.line(bgr, (d, d), (size - d, size - d), ink, max(1, size // 30), cv2.LINE_AA)
    cv2.line(bgr, (size - d, d), (d, size - d), ink, max(1, size // 30), cv2.LINE_AA)
    return _relief(bgr, cover), cover


def _catastrophe(style: str, size: int) -> tuple[np.ndarray, np.ndarray]:
    back = (150, 160, 215) if style == "classic" else (135, 138, 140)
    ink = (20, 30, 120) if style == "classic" else (30, 90, 230)
    bgr, cover, _ = _tile_base(size, back)
    box = (0.1 * size, 0.1 * size, 0.8 * size)
    _poly(
        bgr,
        [
            (0.5, 0.1),
            (0.62, 0.38),
            (0.9, 0.3),
            (0.7, 0.55),
            (0.88, 0.86),
            (0.55, 0.7),
            (0.3, 0.9),
            (0.36, 0.6),
            (0.1, 0.45),
            (0.4, 0.38),
        ],
        box,
        ink,
    )
    return _relief(bgr, cover), cover


def _treasure(style: str, size: int) -> tuple[np.ndarray, np.ndarray]:
    bgr, cover = _tile(style, "red", size)
    bgr = bgr.copy()
    gold = (40, 185, 235)
    c = size / 2 - 0.03 * size
    half = 0.2 * size
    d = 0.07 * size  # the cube's sides, seen a little from the top-left
    top = np.array([[c - half, c - half], [c + half, c - half], [c + half, c + half], [c - half, c + half]])
    right = np.array(
        [
            [c + half, c - half],
            [c + half + d, c - half + d],
            [c + half + d, c + half + d],
            [c + half, c + half],
        ]
    )
    below = np.array(
        [
            [c - half, c + half],
            [c + half, c + half],
            [c + half + d, c + half + d],
            [c - half + d, c + half + d],
        ]
    )
    cv2.fillPoly(bgr, [np.round(right * 16).astype(np.int32)], (25, 120, 175), cv2.LINE_AA, shift=4)
    cv2.fillPoly(bgr, [np.round(below * 16).astype(np.int32)], (15, 90, 140), cv2.LINE_AA, shift=4)
    cv2.fillPoly(bgr, [np.round(top * 16).astype(np.int32)], gold, cv2.LINE_AA, shift=4)
    cv2.polylines(
        bgr,
        [np.round(top * 16).astype(np.int32)],
        True,
        (30, 140, 190),
        max(1, size // 45),
        cv2.LINE_AA,
        shift=4,
    )
    return bgr, cover


def _unification(style: str, size: int) -> tuple[np.ndarray, np.ndarray]:
    back = (215, 225, 228) if style == "classic" else (170, 172, 170)
    ink = (120, 70, 30) if style == "classic" else (180, 60, 160)
    bgr, cover, _ = _tile_base(size, back)
    t = max(1, size // 14)
    box = (0.0, 0.0, float(size))
    _circle(bgr, (0.38, 0.5), 0.18, box, ink, t)  # two linked rings
    _circle(bgr, (0.62, 0.5), 0.18, box, ink, t)
    return _relief(bgr, cover), cover


def _leader(style: str, colour: str, dynasty: str | None, size: int) -> tuple[np.ndarray, np.ndarray]:
    rgb = TILE_COLOURS[style][colour]
    bgr, cover = _canvas(size)
    box = (0.0, 0.0, float(size))
    if style == "classic":  # a flat disc in the leader's colour, the dynasty symbol on a light field
        _circle(cover, (0.5, 0.5), 0.42, box, (255,))  # type: ignore[arg-type]
        _circle(bgr, (0.5, 0.5), 0.42, box, rgb)
        _circle(bgr, (0.5, 0.5), 0.3, box, (215, 228, 232))
        if dynasty is not None:
            draw_dynasty(bgr, dynasty, (0.24 * size, 0.24 * size, 0.52 * size), rgb)
        return _relief(bgr, cover), cover
    # modern: a figure on a round base seen from above — head, cloak and a round shield on its
    # back showing the dynasty
    _circle(cover, (0.5, 0.5), 0.44, box, (255,))  # type: ignore[arg-type]
    _circle(bgr, (0.5, 0.5), 0.44, box, (70, 70, 72))
    body = [(0.16, 0.6), (0.28, 0.3), (0.72, 0.3), (0.84, 0.6), (0.72, 0.8), (0.28, 0.8)]
    figure = np.zeros_like(cover)
    _poly(figure, body, box, (255, 255, 255))
    _circle(figure, (0.5, 0.3), 0.13, box, (255, 255, 255))
    _poly(bgr, body, box, rgb)
    _circle(bgr, (0.5, 0.3), 0.13, box, _lighter(rgb, 0.15))
    if dynasty is not None:
        _circle(bgr, (0.5, 0.58), 0.2, box, (200, 214, 220))
        draw_dynasty(bgr, dynasty, (0.32 * size, 0.4 * size, 0.36 * size), rgb)
    return _relief(bgr, cover.astype(np.float32) + 0.6 * figure.astype(np.float32)), cover


def _monument(style: str, colours: tuple[str, str], size: int) -> tuple[np.ndarray, np.ndarray]:
    """A stepped monument over 2×2 squares: the first colour below, the second on top."""
    a, b = (TILE_COLOURS[style][c] for c in colours)
    bgr, cover = _canvas(size)
    box = (0.0, 0.0, float(size))
    height = np.zeros((size, size), np.float32)
    steps = ((0.06, a), (0.2, b), (0.32, _lighter(a, 0.2)), (0.42, _lighter(b, 0.3)))
    for inset, colour in steps:  # a stepped tower: each step smaller and higher
        square = [(inset, inset), (1 - inset, inset), (1 - inset, 1 - inset), (inset, 1 - inset)]
        step = np.zeros((size, size), np.uint8)
        _poly(step, square, box, (255, 255, 255))
        _poly(bgr, square, box, colour)
        height += step
    cover = (height > 0).astype(np.uint8) * 255
    return _relief(bgr, height, 1.2), cover


# How high each piece stands, as the camera's parallax sees it (mm; for tall pieces about half
# their height, since the camera sees their whole side from base to top).
_HEIGHTS_MM = {
    "classic": {"tile": 2.0, "leader": 3.0, "treasure": 6.0, "monument": 12.0},
    "modern": {"tile": 3.0, "leader": 15.0, "treasure": 7.0, "monument": 16.0},
}


def height_mm(style: str, kind: str) -> float:
    """How far a piece (a sprite kind) stands above the board, for parallax."""
    heights = _HEIGHTS_MM[style]
    return heights.get(kind.split("-")[0], heights["tile"])


@lru_cache(maxsize=512)
def sprite(style: str, kind: str, px_per_square: int) -> Sprite:
    """A piece sprite, cached. kind: `tile-red`, `face-down`, `catastrophe`, `treasure`,
    `unification`, `leader-red-archer` (or `leader-red` without a visible dynasty),
    `monument-red-blue` (two squares wide)."""
    _check_style(style)
    size = px_per_square
    parts = kind.split("-")
    if parts[0] == "tile":
        bgr, cover = _tile(style, parts[1], size)
    elif kind == "face-down":
        bgr, cover = _face_down(style, size)
    elif kind == "catastrophe":
        bgr, cover = _catastrophe(style, size)
    elif kind == "treasure":
        bgr, cover = _treasure(style, size)
    elif kind == "unification":
        bgr, cover = _unification(style, size)
    elif parts[0] == "leader":
        bgr, cover = _leader(style, parts[1], parts[2] if len(parts) > 2 else None, size)
    elif parts[0] == "monument":
        size = 2 * px_per_square
        bgr, cover = _monument(style, (parts[1], parts[2]), size)
    else:
        raise ValueError(f"no sprite for {kind!r}")
    return _with_shadow(bgr, cover, size)


@lru_cache(maxsize=1024)
def turned(style: str, kind: str, px_per_square: int, angle: int) -> Sprite:
    """A piece sprite turned by `angle` degrees about its centre, on a canvas grown just enough
    to hold its corners (cached: hands put pieces down at a few angles over and over)."""
    base = sprite(style, kind, px_per_square)
    if angle % 360 == 0:
        return base
    size = base.alpha.shape[0]
    a = np.radians(angle)
    round_piece = kind.startswith("leader")  # a disc loses only its empty corners
    spread = 0.0 if round_piece else size * (abs(np.sin(a)) + abs(np.cos(a)) - 1) / 2
    pad = int(np.ceil(spread))
    out = (size + 2 * pad, size + 2 * pad)
    turn = cv2.getRotationMatrix2D((size / 2 - 0.5, size / 2 - 0.5), angle, 1.0)
    turn[:, 2] += pad
    bgr = cv2.warpAffine(base.bgr, turn, out, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    alpha = cv2.warpAffine(base.alpha, turn, out, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    return Sprite(_frozen(bgr), _frozen(alpha))
