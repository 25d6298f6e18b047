"""How another artist prints the game: the looks of a printing, its board and its table.

Nothing here or in `unseen_pieces` shares a constant or a drawing with `art`: the board is printed
from procedural textures (paper, cardboard or linen grain, a painted landscape, a river printed as
blue squares or drawn across the land, a border from a few millimetres to wide and busy), and the
marker cards lie where README's Calibration section puts them, overhanging a narrow border onto
the table. `unseen` draws the looks at random; this module only paints.

Units: board millimetres (origin at the grid's top-left corner) and `s` pixels per square.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from vision import geometry
from vision.aruco import marker_image
from vision.reading import COLUMNS, ROWS

BGR = tuple[int, int, int]
SQUARE = geometry.SQUARE_MM
TILE_COLOURS = ("red", "blue", "green", "black")


class Texture(enum.Enum):
    PAPER = "paper"
    CARDBOARD = "cardboard"
    LINEN = "linen"


class RiverArt(enum.Enum):
    SQUARES = "river printed as blue squares"
    DRAWN = "river drawn across land-coloured squares"


class Pattern(enum.Enum):
    PLAIN = "plain"
    MEANDER = "meander"
    CHECKS = "checks"
    STRIPES = "stripes"
    ZIGZAG = "zigzag"


class TileArt(enum.Enum):
    SOLID = "solid tiles"
    FRAMED = "pale tiles with a coloured frame"
    TOKEN = "pale tiles with a coloured disc"
    STAINED = "stained wooden tiles"


class LeaderArt(enum.Enum):
    RIM = "pale discs with a coloured rim"
    DISC = "coloured discs"
    PAWN = "coloured pawns"
    OCTAGON = "coloured octagons"


class TreasureArt(enum.Enum):
    CUBE = "cubes"
    GEM = "gems"
    COIN = "coins"
    PYRAMID = "pyramids"


class MonumentArt(enum.Enum):
    STEPPED = "stepped"
    TOWER = "towers"
    PYRAMID = "pyramids"


class Surface(enum.Enum):
    WOOD = "wooden table"
    CLOTH = "tablecloth"
    DARK = "dark table"
    LIGHT = "light table"
    CHECKED = "checked tablecloth"


@dataclass(frozen=True)
class BoardLook:
    """The printed board."""

    seed: int
    land: BGR
    terrain: BGR  # the landscape's second tint (hills, fields)
    texture: Texture
    grain: float  # how strongly the paper's grain shows, 0..~0.15
    hills: float  # how much the landscape tint wanders, 0..1
    trees: float  # printed tree dots per square, 0..~3
    contours: float  # darkness of printed contour lines, 0..~0.2
    river: RiverArt
    water: BGR
    river_width: float  # a drawn river's width, share of a square
    river_off_board: bool  # a drawn river runs on across the border where it meets the grid's edge
    grid_ink: BGR
    grid_mm: float
    grid_alpha: float
    border_mm: float  # grid edge to board edge
    border: BGR
    band: BGR  # the border's pattern colour
    pattern: Pattern
    lettering: bool  # column letters and row numbers in the border
    title: bool
    font: int
    letters: BGR
    start_marks: bool  # the start temples' squares carry a printed mark
    corner_mark: int  # how the corner treasure squares are printed: 0..3
    edge: BGR  # the cut edge of the cardboard


@dataclass(frozen=True)
class PieceLook:
    """The tiles, leaders, treasures and monuments of the printing."""

    seed: int
    tiles: tuple[BGR, BGR, BGR, BGR]  # red, blue, green, black
    leaders: tuple[BGR, BGR, BGR, BGR]
    tile: TileArt
    tile_base: BGR  # the pale tiles' colour
    ink: BGR  # symbols on solid tiles
    symbols: int  # which of two drawings of the civilisation symbols
    tile_mm: float
    rounding: float  # corner radius, share of the tile's half side
    thickness_mm: float
    bevel_mm: float
    gloss: float
    wear: float
    surface: float  # texture amplitude of the pieces' faces
    back: BGR  # face-down tiles
    back_pattern: int
    catastrophe: BGR
    catastrophe_ink: BGR
    catastrophe_design: int
    unification: BGR
    unification_design: int
    treasure: TreasureArt
    treasure_colour: BGR
    treasure_mm: float
    treasure_height_mm: float
    leader: LeaderArt
    leader_base: BGR  # the pale part of a leader (its field, or the symbol's ink)
    dynasty_ink: BGR
    leader_mm: float
    leader_height_mm: float
    monument: MonumentArt
    monument_height_mm: float


@dataclass(frozen=True)
class TableLook:
    """The table, the room's light and the players' hands."""

    seed: int
    surface: Surface
    colour: BGR
    second: BGR
    card: BGR  # the marker cards' paper
    light_azimuth_deg: float  # where the room's main light comes from (0: from the left)
    light_elevation_deg: float
    shadow: float  # darkness of the pieces' shadows, 0..1
    sloppiness_deg: float  # how far from square the players put tiles down
    off_centre: float  # ... and how far off-centre, share of a square


# --- small drawing helpers ---------------------------------------------------------------------------


def fbm(shape: tuple[int, int], scale_px: float, rng: np.random.Generator, octaves: int = 4) -> np.ndarray:
    """Fractal noise, about -1..1: `octaves` layers of smooth noise, each twice as fine and half as strong."""
    h, w = shape
    out: np.ndarray = np.zeros((h, w), np.float32)
    amplitude, total = 1.0, 0.0
    for octave in range(octaves):
        cell = scale_px / 2**octave
        layer: np.ndarray
        if cell < 1.5:
            layer = rng.standard_normal((h, w)).astype(np.float32)
        else:
            grid = rng.standard_normal((int(h / cell) + 3, int(w / cell) + 3)).astype(np.float32)
            big = cv2.resize(grid, (int(grid.shape[1] * cell), int(grid.shape[0] * cell)),
                             interpolation=cv2.INTER_CUBIC)
            y, x = (int(v) for v in rng.integers(0, int(cell) + 1, 2))
            layer = big[y : y + h, x : x + w]
        out += np.float32(amplitude) * layer
        total += amplitude
        amplitude *= 0.5
    result: np.ndarray = out / total
    return result


def fixed(points: np.ndarray) -> np.ndarray:
    return np.round(np.asarray(points, np.float64) * 16).astype(np.int32)


def blend(image: np.ndarray, mask: np.ndarray, colour: BGR | np.ndarray, alpha: float = 1.0) -> None:
    """Paints `colour` over a float image where `mask` (float 0..1 or uint8) says, in place."""
    m = mask.astype(np.float32) / (255.0 if mask.dtype == np.uint8 else 1.0) * alpha
    image *= 1 - m[..., None]
    image += m[..., None] * np.asarray(colour, np.float32)


def mix(a: BGR, b: BGR, t: float) -> BGR:
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t), round(a[2] + (b[2] - a[2]) * t))


def grid_xy(h: int, w: int, n: float, x0: float = 0.0, y0: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Pixel centres in units of `n` pixels from (x0, y0)."""
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    return (xs + 0.5 - x0) / n, (ys + 0.5 - y0) / n


# --- the printed board ---------------------------------------------------------------------------------


def pad_mm(look: BoardLook) -> float:
    """How far the top-down art reaches beyond the grid: the border, the marker cards that overhang
    a narrow one, and room for the board's shadow on the table."""
    return max(look.border_mm, geometry.MARKER_CARD_MM) + 10.0


def _board_name(river: frozenset[int]) -> str:
    return next((b for b in geometry.BOARDS if geometry.river_cells(b) == river), "standard")


@lru_cache(maxsize=6)
def printed_board(
    look: BoardLook, table: TableLook, river: frozenset[int], corners: frozenset[int], s: int
) -> tuple[np.ndarray, np.ndarray]:
    """The board as printed, its marker cards laid on it, and its shadow on the table: float32 BGR
    (premultiplied) and 8-bit coverage over the whole art (read-only, cached)."""
    per_mm = s / SQUARE
    pad = pad_mm(look)
    h = round((geometry.GRID_HEIGHT_MM + 2 * pad) * per_mm)
    w = round((geometry.GRID_WIDTH_MM + 2 * pad) * per_mm)
    o = pad * per_mm  # the grid's top-left corner, in pixels
    rng = np.random.default_rng(look.seed)
    image = _land(look, (h, w), s, rng)
    board, edge = _border(image, look, o, s, rng)
    if look.river is RiverArt.SQUARES:
        _river_squares(image, look, river, o, s, rng)
    else:  # drawn after the border: it may flow on across it
        _river_drawn(image, look, river, o, s, rng)
    temples = geometry.start_temple_cells(_board_name(river))
    _square_marks(image, look, temples, corners, o, s)
    _grid_lines(image, look, o, s)
    image[edge] = np.asarray(look.edge, np.float32)
    alpha = board.copy()
    _board_shadow(image, alpha, board, table, per_mm)
    _cards(image, alpha, table, o, per_mm, rng)
    cover: np.ndarray = np.round(np.clip(alpha, 0, 1) * 255).astype(np.uint8)
    image.flags.writeable = cover.flags.writeable = False
    return image, cover


def _land(look: BoardLook, shape: tuple[int, int], s: int, rng: np.random.Generator) -> np.ndarray:
    h, w = shape
    hills = fbm(shape, 4 * s, rng, 3)
    fields = fbm(shape, 0.8 * s, rng, 3)
    t = np.clip(0.5 + look.hills * (0.7 * hills + 0.3 * fields), 0, 1)
    land = np.asarray(look.land, np.float32)
    tint = np.asarray(look.terrain, np.float32)
    image = land + (tint - land) * t[..., None]
    if look.texture is Texture.PAPER:
        grain = 0.6 * fbm(shape, 2.0, rng, 2) + 0.4 * fbm(shape, 0.3 * s, rng, 2)
    elif look.texture is Texture.CARDBOARD:
        grain = 0.5 * fbm(shape, 0.25 * s, rng, 3) + 0.5 * rng.standard_normal(shape).astype(np.float32)
        specks = rng.random(shape) < 0.004
        grain[specks] -= 4.0
    else:  # linen: an embossed weave catching the light
        x, y = grid_xy(h, w, max(2.0, s / 22))
        grain = 0.8 * np.sin(np.pi * x) * np.sin(np.pi * y) + 0.3 * fbm(shape, 1.5, rng, 1)
    image *= (1 + look.grain * grain)[..., None]
    if look.contours > 0:
        level = fbm(shape, 3 * s, rng, 2) * 7
        lines = np.abs(level - np.round(level)) < 0.05
        image[lines] *= 1 - look.contours
    if look.trees > 0:
        count = int(look.trees * COLUMNS * ROWS * (h * w) / ((COLUMNS * s) * (ROWS * s)))
        dark = mix(look.terrain, (0, 0, 0), 0.45)
        canvas = np.zeros(shape, np.uint8)
        for _ in range(count):
            cx, cy = rng.uniform(0, w), rng.uniform(0, h)
            r = rng.uniform(0.03, 0.07) * s
            cv2.circle(canvas, (round(cx * 16), round(cy * 16)), round(r * 16), 255, -1, cv2.LINE_AA, 4)
        blend(image, canvas, dark, 0.45)
    result: np.ndarray = image
    return result


def _cell_box(cell: int, o: float, s: int) -> tuple[int, int, int, int]:
    r, c = divmod(cell, COLUMNS)
    return round(o + c * s), round(o + r * s), round(o + (c + 1) * s), round(o + (r + 1) * s)


def _water(look: BoardLook, shape: tuple[int, int], s: int, rng: np.random.Generator) -> np.ndarray:
    """Water: the printing's blue with streaks that follow no square."""
    h, w = shape
    flow = fbm(shape, 1.2 * s, rng, 3)
    x, y = grid_xy(h, w, s / 5)
    streaks = np.sin(2.3 * x + 0.7 * y + 5 * flow)
    water = np.asarray(look.water, np.float32)
    image = water * (1 + 0.08 * flow + 0.05 * streaks)[..., None]
    result: np.ndarray = image
    return result


def _river_squares(
    image: np.ndarray, look: BoardLook, river: frozenset[int], o: float, s: int, rng: np.random.Generator
) -> None:
    water = _water(look, image.shape[:2], s, rng)
    mask = np.zeros(image.shape[:2], np.uint8)
    for cell in river:
        x0, y0, x1, y1 = _cell_box(cell, o, s)
        mask[y0:y1, x0:x1] = 255
    image[mask > 0] = water[mask > 0]
    # Little crests of waves, drawn as short arcs in a lighter blue.
    light = mix(look.water, (255, 255, 255), 0.35)
    crests = np.zeros(image.shape[:2], np.uint8)
    for cell in river:
        x0, y0, _, _ = _cell_box(cell, o, s)
        for _ in range(int(rng.integers(1, 4))):
            cx, cy = x0 + rng.uniform(0.15, 0.85) * s, y0 + rng.uniform(0.15, 0.85) * s
            axes = (round(rng.uniform(0.06, 0.14) * s * 16), round(rng.uniform(0.03, 0.06) * s * 16))
            cv2.ellipse(crests, (round(cx * 16), round(cy * 16)), axes, 0, 200, 340, 255,
                        max(1, s // 40), cv2.LINE_AA, 4)
    crests[mask == 0] = 0
    blend(image, crests, light, 0.6)


def _river_drawn(
    image: np.ndarray, look: BoardLook, river: frozenset[int], o: float, s: int, rng: np.random.Generator
) -> None:
    """A river painted across the river squares: a winding band through their middles, with banks."""
    h, w = image.shape[:2]
    band = np.zeros((h, w), np.uint8)
    allowed = np.zeros((h, w), np.uint8)
    width = look.river_width * s
    centre = {c: (o + (c % COLUMNS + 0.5) * s, o + (c // COLUMNS + 0.5) * s) for c in river}
    for cell, (cx, cy) in centre.items():
        cv2.circle(band, (round(cx * 16), round(cy * 16)), round(width / 2 * 16), 255, -1, cv2.LINE_AA, 4)
        for step in (1, COLUMNS):
            other = cell + step
            if other in river and (step == COLUMNS or other % COLUMNS):
                ox, oy = centre[other]
                cv2.line(band, (round(cx * 16), round(cy * 16)), (round(ox * 16), round(oy * 16)), 255,
                         max(1, round(width)), cv2.LINE_AA, 4)
        x0, y0, x1, y1 = _cell_box(cell, o, s)
        d = round(0.04 * s)
        allowed[max(0, y0 - d) : y1 + d, max(0, x0 - d) : x1 + d] = 255
        row, col = divmod(cell, COLUMNS)
        sides = ((-1, 0, col == 0), (1, 0, col == COLUMNS - 1), (0, -1, row == 0), (0, 1, row == ROWS - 1))
        for dx, dy, on_edge in sides:
            # Where the river meets the grid's edge head on, it flows on across the border.
            along = (cell - COLUMNS, cell + COLUMNS) if dx else (cell - 1, cell + 1)
            inward = cell - dx - dy * COLUMNS
            if not (look.river_off_board and on_edge and inward in river) or any(c in river for c in along):
                continue
            fx, fy = cx + dx * (o + s), cy + dy * (o + s)
            cv2.line(band, (round(cx * 16), round(cy * 16)), (round(fx * 16), round(fy * 16)), 255,
                     max(1, round(width)), cv2.LINE_AA, 4)
            (lx, hx), (ly, hy) = sorted((cx, fx)), sorted((cy, fy))
            if dx:
                allowed[max(0, round(cy - s / 2)) : round(cy + s / 2), max(0, round(lx)) : round(hx)] = 255
            else:
                allowed[max(0, round(ly)) : round(hy), max(0, round(cx - s / 2)) : round(cx + s / 2)] = 255
    soft = cv2.GaussianBlur(band.astype(np.float32) / 255, (0, 0), 0.08 * s)
    wobble = 0.22 * fbm((h, w), 0.5 * s, rng, 2)
    water_mask = np.clip((soft + wobble - 0.5) * 6 + 0.5, 0, 1) * (allowed > 0)
    bank = np.clip(1 - np.abs(soft + wobble - 0.5) * 9, 0, 1) * (allowed > 0)
    blend(image, water_mask, _water(look, (h, w), s, rng))
    blend(image, bank, mix(look.water, (30, 40, 40), 0.45), 0.55)


def _square_marks(
    image: np.ndarray, look: BoardLook, temples: frozenset[int], corners: frozenset[int], o: float, s: int
) -> None:
    ink = mix(look.grid_ink, look.land, 0.2)
    marks = np.zeros(image.shape[:2], np.uint8)
    if look.start_marks:  # a faint outline where a temple starts
        for cell in temples:
            x0, y0, _, _ = _cell_box(cell, o, s)
            pts = np.array([[0.3, 0.7], [0.3, 0.45], [0.5, 0.28], [0.7, 0.45], [0.7, 0.7]]) * s + (x0, y0)
            cv2.polylines(marks, [fixed(pts)], True, 150, max(1, s // 30), cv2.LINE_AA, 4)
    for cell in corners:
        x0, y0, x1, y1 = _cell_box(cell, o, s)
        if look.corner_mark == 0:  # a double frame
            for inset in (0.07, 0.13):
                d = inset * s
                box = np.array([[x0 + d, y0 + d], [x1 - d, y0 + d], [x1 - d, y1 - d], [x0 + d, y1 - d]])
                cv2.polylines(marks, [fixed(box)], True, 255, max(1, s // 36), cv2.LINE_AA, 4)
        elif look.corner_mark == 1:  # four corner triangles
            for cx, cy, sx, sy in ((x0, y0, 1, 1), (x1, y0, -1, 1), (x1, y1, -1, -1), (x0, y1, 1, -1)):
                tri = np.array([[cx, cy], [cx + sx * 0.25 * s, cy], [cx, cy + sy * 0.25 * s]])
                cv2.fillPoly(marks, [fixed(tri)], 255, cv2.LINE_AA, 4)
        elif look.corner_mark == 2:  # a tinted square
            marks[y0:y1, x0:x1] = np.maximum(marks[y0:y1, x0:x1], 70)
        else:  # a small treasure chest printed in the corner
            box = np.array([[0.08, 0.08], [0.3, 0.08], [0.3, 0.26], [0.08, 0.26]]) * s + (x0, y0)
            cv2.fillPoly(marks, [fixed(box)], 255, cv2.LINE_AA, 4)
    blend(image, marks, ink, 0.7)


def _grid_lines(image: np.ndarray, look: BoardLook, o: float, s: int) -> None:
    lines = np.zeros(image.shape[:2], np.uint8)
    t = max(1, round(look.grid_mm * s / SQUARE))
    gw, gh = COLUMNS * s, ROWS * s
    for c in range(COLUMNS + 1):
        x = o + c * s
        cv2.line(lines, (round(x * 16), round(o * 16)), (round(x * 16), round((o + gh) * 16)), 255, t, cv2.LINE_AA, 4)
    for r in range(ROWS + 1):
        y = o + r * s
        cv2.line(lines, (round(o * 16), round(y * 16)), (round((o + gw) * 16), round(y * 16)), 255, t, cv2.LINE_AA, 4)
    blend(image, lines, look.grid_ink, look.grid_alpha)


_MEANDER = np.array(  # one repeat of a Greek key, 6 × 5 cells
    [
        [1, 1, 1, 1, 1, 0],
        [0, 0, 0, 0, 1, 0],
        [1, 1, 1, 0, 1, 0],
        [1, 0, 0, 0, 1, 0],
        [1, 1, 1, 1, 1, 0],
    ],
    np.uint8,
)


def _border(
    image: np.ndarray, look: BoardLook, o: float, s: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Paints the border (pattern, lettering, title); returns the board's coverage and where its
    cut edge shows, a thin line all round."""
    h, w = image.shape[:2]
    per_mm = s / SQUARE
    b = look.border_mm * per_mm
    gw, gh = COLUMNS * s, ROWS * s
    x, y = grid_xy(h, w, 1.0)
    # Distance outwards from the grid and the position along the nearest side (pixels).
    out_x = np.maximum(o - x, x - (o + gw))
    out_y = np.maximum(o - y, y - (o + gh))
    outside = np.maximum(out_x, out_y)
    along = np.where(out_y >= out_x, x, y)
    board = np.clip(b - outside + 0.5, 0, 1).astype(np.float32)
    in_border = (outside > 0) & (board > 0)
    paint = np.asarray(look.border, np.float32) * (1 + 0.07 * fbm((h, w), 0.6 * s, rng, 3))[..., None]
    image[in_border] = paint[in_border]
    band_mm = 0.45 * look.border_mm
    if look.pattern is not Pattern.PLAIN and look.border_mm >= 8:
        lo, hi = (look.border_mm - band_mm) / 2 * per_mm, (look.border_mm + band_mm) / 2 * per_mm
        v = (outside - lo) / max(1.0, hi - lo)  # 0..1 across the band
        u = along / max(1.0, hi - lo)  # along the band, in band widths
        inside = (v >= 0) & (v < 1)
        if look.pattern is Pattern.MEANDER:
            cols = np.floor(u * 5).astype(int) % 6  # the key's cells are a fifth of the band wide
            rows = np.clip(np.floor(v * 5), 0, 4).astype(int)
            mark = inside & (_MEANDER[rows, cols] > 0)
        elif look.pattern is Pattern.CHECKS:
            mark = inside & ((np.floor(u * 2) + np.floor(v * 2)) % 2 == 0)
        elif look.pattern is Pattern.STRIPES:
            mark = inside & (((u + v) % 1) < 0.5)
        else:
            mark = inside & (np.abs(np.abs((u % 1) - 0.5) * 2 - v) < 0.18)
        image[mark & in_border] = np.asarray(look.band, np.float32)
    ink = np.zeros((h, w), np.uint8)
    if look.lettering and look.border_mm >= 9:
        _lettering(ink, look, o, s)
    if look.title and look.border_mm >= 20:
        text = "TIGRIS & EUPHRATES"
        scale = look.border_mm * 0.45 * per_mm / 22
        thick = max(1, round(scale * 2))
        (tw, th), _ = cv2.getTextSize(text, look.font, scale, thick)
        cv2.putText(ink, text, (round(o + gw / 2 - tw / 2), round(o + gh + b / 2 + th / 2)), look.font, scale,
                    255, thick, cv2.LINE_AA)
    blend(image, ink, look.letters)
    edge = (board > 0) & (outside > b - max(1.5, 0.8 * per_mm))
    return board, edge


def _lettering(ink: np.ndarray, look: BoardLook, o: float, s: int) -> None:
    """Column letters and row numbers, in the middle of the border."""
    per_mm = s / SQUARE
    b = look.border_mm * per_mm
    gw, gh = COLUMNS * s, ROWS * s
    scale = min(b * 0.5, 0.4 * s) / 22
    thick = max(1, round(scale * 1.6))
    labels = [(chr(ord("A") + c), o + (c + 0.5) * s, y) for c in range(COLUMNS) for y in (o - b / 2, o + gh + b / 2)]
    labels += [(str(r + 1), x, o + (r + 0.5) * s) for r in range(ROWS) for x in (o - b / 2, o + gw + b / 2)]
    for text, cx, cy in labels:
        (tw, th), _ = cv2.getTextSize(text, look.font, scale, thick)
        cv2.putText(ink, text, (round(cx - tw / 2), round(cy + th / 2)), look.font, scale, 255, thick, cv2.LINE_AA)


def _board_shadow(image: np.ndarray, alpha: np.ndarray, board: np.ndarray, table: TableLook, per_mm: float) -> None:
    """The board is a few millimetres thick: it throws a soft shadow on the table away from the light."""
    a = math.radians(table.light_azimuth_deg)
    shift = 3.0 * per_mm
    move = np.array([[1, 0, -math.cos(a) * shift], [0, 1, -math.sin(a) * shift]], np.float32)
    cast = cv2.warpAffine(board, move, (board.shape[1], board.shape[0]))
    cast = cv2.GaussianBlur(cast, (0, 0), 2.0 * per_mm) * 0.6 * table.shadow
    shade = np.clip(cast * (1 - board), 0, 1)
    # Premultiplied: the art's colour there is black, its coverage the shadow's darkness.
    image *= board[..., None]
    alpha[:] = board + shade


def _cards(
    image: np.ndarray, alpha: np.ndarray, table: TableLook, o: float, per_mm: float, rng: np.random.Generator
) -> None:
    """The four marker cards, where README's Calibration section lays them; on a narrow border they
    overhang onto the table."""
    card = geometry.MARKER_CARD_MM * per_mm
    side = round(geometry.MARKER_SIDE_MM * per_mm)
    ink = np.float32(rng.uniform(15, 45))  # toner is never quite black
    for marker_id in geometry.MARKER_IDS:
        cx, cy = (geometry.marker_centre_mm(marker_id) * per_mm + o).tolist()
        x0, y0 = round(cx - card / 2), round(cy - card / 2)
        x1, y1 = round(cx + card / 2), round(cy + card / 2)
        image[y0:y1, x0:x1] = np.asarray(table.card, np.float32) * (
            1 + 0.03 * rng.standard_normal((y1 - y0, x1 - x0, 1)).astype(np.float32))
        alpha[y0:y1, x0:x1] = 1.0
        # The marker itself, sampled exactly where the geometry puts its corners.
        corners = geometry.marker_corners_mm(marker_id) * per_mm + o - 0.5
        source = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32) - 0.5
        warp = cv2.getPerspectiveTransform(source, corners.astype(np.float32))
        pattern = marker_image(marker_id, side).astype(np.float32) / 255
        cover = np.ones_like(pattern)
        roi = (slice(y0, y1), slice(x0, x1))
        shifted = warp.copy()
        shifted[0] -= shifted[2] * x0
        shifted[1] -= shifted[2] * y0
        seen = cv2.warpPerspective(pattern, shifted, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
        where = cv2.warpPerspective(cover, shifted, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
        paper = image[roi]
        dark = (1 - seen) * where
        paper *= 1 - dark[..., None]
        paper += (dark * ink)[..., None]


# --- the table -----------------------------------------------------------------------------------------


@lru_cache(maxsize=4)
def table_surface(look: TableLook, size: tuple[int, int]) -> np.ndarray:
    """The table top filling the frame (cached, read-only); drawn at one size and scaled, so that
    every frame size sees the same table."""
    w, h = size
    base = (1024, 768)
    shape = (base[1], base[0])
    rng = np.random.default_rng(look.seed)
    colour, second = np.asarray(look.colour, np.float32), np.asarray(look.second, np.float32)
    x, y = grid_xy(base[1], base[0], 1.0)
    if look.surface is Surface.WOOD:
        a = rng.uniform(0, np.pi)
        along = x * np.cos(a) + y * np.sin(a)
        across = -x * np.sin(a) + y * np.cos(a)
        warp = fbm(shape, 160, rng, 3) * 40
        rings = np.sin((across + warp) / rng.uniform(8, 20))
        planks = (np.floor(across / rng.uniform(90, 200)) % 2) * 0.08
        streaks = cv2.GaussianBlur(rng.standard_normal(shape).astype(np.float32), (0, 0), 1)
        t = np.clip(0.5 + 0.25 * rings + 0.2 * fbm(shape, 30, rng, 2) + planks, 0, 1)
        image = colour + (second - colour) * t[..., None]
        image *= (1 + 0.04 * streaks * (1 + np.cos(along / 300)))[..., None]
    elif look.surface is Surface.CLOTH:
        weave = np.sin(np.pi * x / 1.5) * np.sin(np.pi * y / 1.5)
        folds = fbm(shape, 250, rng, 2)
        image = colour * (1 + 0.06 * weave + 0.12 * folds)[..., None]
    elif look.surface is Surface.CHECKED:
        cell = rng.uniform(25, 70)
        a = rng.uniform(-0.3, 0.3)
        u, v = (x * np.cos(a) + y * np.sin(a)) / cell, (-x * np.sin(a) + y * np.cos(a)) / cell
        stripes = ((np.floor(u) % 2) + (np.floor(v) % 2)) / 2
        image = colour + (second - colour) * stripes[..., None]
        image *= (1 + 0.05 * np.sin(np.pi * x / 1.2) * np.sin(np.pi * y / 1.2)
                  + 0.1 * fbm(shape, 250, rng, 2))[..., None]
    else:  # a plain dark or light top, a little mottled
        image = colour * (1 + 0.02 * fbm(shape, 60, rng, 3) + 0.015 * rng.standard_normal(shape))[..., None]
    table = np.clip(image, 0, 255).astype(np.uint8)
    out: np.ndarray = cv2.resize(table, (w, h), interpolation=cv2.INTER_AREA if w < base[0] else cv2.INTER_LINEAR)
    out.flags.writeable = False
    return out
