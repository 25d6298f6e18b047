"""Another artist's pieces: tiles, leaders, treasures and monuments modelled as height maps.

Each piece is drawn upright and unlit (`body`), then turned and set down where the players put it,
lit by the room's light (a bevel or a gloss stays where the lamp is, whichever way the piece is
turned), seen leaning away from the camera as tall things are, and throwing its shadow onto the
squares beside it (`compose`).
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from vision.sim.unseen_art import (
    BGR,
    SQUARE,
    TILE_COLOURS,
    LeaderArt,
    MonumentArt,
    PieceLook,
    TableLook,
    TileArt,
    TreasureArt,
    blend,
    fbm,
    fixed,
    grid_xy,
    mix,
)

FLAT_MM = 6.0  # pieces up to this high throw their shadow before the tall ones are set down


# --- pieces, as height maps -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Body:
    """A piece seen from straight above, upright: its colour, how high each pixel stands (mm) and
    its coverage (0..1). Lit only once it has been turned and set down."""

    albedo: np.ndarray
    height: np.ndarray
    cover: np.ndarray
    round: bool  # a disc or a figure: its footprint, and its shadow, are round

    @property
    def top_mm(self) -> float:
        return float(self.height.max())


def _sdf_box(x: np.ndarray, y: np.ndarray, half: float, radius: float) -> np.ndarray:
    """Signed distance to a rounded square centred at 0 (negative inside)."""
    r = min(radius, half)
    qx, qy = np.abs(x) - (half - r), np.abs(y) - (half - r)
    outside = np.hypot(np.maximum(qx, 0), np.maximum(qy, 0))
    result: np.ndarray = outside + np.minimum(np.maximum(qx, qy), 0) - r
    return result


def _sdf_octagon(x: np.ndarray, y: np.ndarray, half: float) -> np.ndarray:
    ax, ay = np.abs(x), np.abs(y)
    result: np.ndarray = np.maximum(np.maximum(ax, ay), (ax + ay) / math.sqrt(2)) - half
    return result


def _profile(sdf: np.ndarray, height: float, bevel: float) -> np.ndarray:
    """A flat top `height` high whose edge rounds off over `bevel` (same units as sdf)."""
    inside = np.clip(-sdf / max(bevel, 1e-3), 0, 1)
    result: np.ndarray = height * np.sqrt(inside)
    return result


def _symbol_canvas(n: int) -> np.ndarray:
    return np.zeros((n, n), np.uint8)


Shapes = list[tuple[str, list[tuple[float, float]], float]]  # ("fill"|"line"|"ring"|"disc", points, width)


def _draw(mask: np.ndarray, shapes: Shapes, box: tuple[float, float, float]) -> None:
    """Shapes in a unit box (x0, y0, size) onto a mask: ("fill"|"line"|"ring", points, width)."""
    x0, y0, size = box
    for kind, points, width in shapes:
        pts = np.array(points, np.float64) * size + (x0, y0)
        t = max(1, round(width * size))
        if kind == "fill":
            cv2.fillPoly(mask, [fixed(pts)], 255, cv2.LINE_AA, 4)
        elif kind == "line":
            cv2.polylines(mask, [fixed(pts)], False, 255, t, cv2.LINE_AA, 4)
        else:  # a circle: centre and a point on it
            (cx, cy), (px, py) = pts
            cv2.circle(mask, (round(cx * 16), round(cy * 16)), round(math.hypot(px - cx, py - cy) * 16), 255,
                       -1 if kind == "disc" else t, cv2.LINE_AA, 4)


def _arc(
    cx: float, cy: float, rx: float, ry: float, start: float, end: float, n: int = 14
) -> list[tuple[float, float]]:
    return [(cx + rx * math.cos(math.radians(a)), cy + ry * math.sin(math.radians(a)))
            for a in np.linspace(start, end, n)]


def civilisation_symbol(colour: str, variant: int) -> Shapes:
    """Temple, farm, market and settlement, two drawings of each."""
    if colour == "red":
        if variant == 0:  # a ziggurat of three blocks
            return [("fill", [(0.18, 0.82), (0.82, 0.82), (0.82, 0.66), (0.18, 0.66)], 0),
                    ("fill", [(0.3, 0.62), (0.7, 0.62), (0.7, 0.46), (0.3, 0.46)], 0),
                    ("fill", [(0.4, 0.42), (0.6, 0.42), (0.6, 0.26), (0.4, 0.26)], 0)]
        return [("fill", [(0.15, 0.38), (0.5, 0.16), (0.85, 0.38)], 0),  # a pediment on three columns
                *[("fill", [(x, 0.42), (x + 0.1, 0.42), (x + 0.1, 0.76), (x, 0.76)], 0) for x in (0.2, 0.45, 0.7)],
                ("fill", [(0.14, 0.8), (0.86, 0.8), (0.86, 0.86), (0.14, 0.86)], 0)]
    if colour == "blue":
        if variant == 0:  # three furrows of water
            return [("line", [(0.18 + 0.1 * i, y + 0.05 * math.sin(i * 1.6)) for i in range(8)], 0.07)
                    for y in (0.3, 0.5, 0.7)]
        return [("line", [(0.5, 0.85), (0.5, 0.2)], 0.06),  # a sheaf of grain
                *[("fill", _arc(0.5 + side * 0.13, y, 0.1, 0.05, 0, 360, 10), 0)
                  for side in (-1, 1) for y in (0.3, 0.45, 0.6)]]
    if colour == "green":
        if variant == 0:  # a coin with a square hole
            return [("ring", [(0.5, 0.5), (0.82, 0.5)], 0.1),
                    ("fill", [(0.42, 0.42), (0.58, 0.42), (0.58, 0.58), (0.42, 0.58)], 0)]
        return [("fill", _arc(0.5, 0.6, 0.25, 0.22, 0, 360), 0),  # an urn
                ("fill", [(0.42, 0.2), (0.58, 0.2), (0.56, 0.42), (0.44, 0.42)], 0),
                ("line", [(0.34, 0.2), (0.66, 0.2)], 0.06)]
    if variant == 0:  # a house
        return [("fill", [(0.25, 0.5), (0.5, 0.22), (0.75, 0.5), (0.75, 0.8), (0.25, 0.8)], 0)]
    return [("fill", [(x, 0.62), (x + 0.11, 0.5), (x + 0.22, 0.62), (x + 0.22, 0.8), (x, 0.8)], 0)  # three huts
            for x in (0.14, 0.39, 0.64)]


def dynasty_symbol(dynasty: str) -> Shapes:
    """Archer, bull, pot and lion, drawn in this artist's own hand."""
    if dynasty == "archer":
        return [("line", _arc(0.36, 0.5, 0.3, 0.34, -75, 75), 0.09),
                ("line", [(0.44, 0.17), (0.44, 0.83)], 0.04),
                ("line", [(0.15, 0.5), (0.82, 0.5)], 0.07),
                ("fill", [(0.9, 0.5), (0.76, 0.4), (0.76, 0.6)], 0)]
    if dynasty == "bull":
        return [("line", _arc(0.5, 0.32, 0.32, 0.2, 10, 170), 0.1),
                ("fill", _arc(0.5, 0.62, 0.18, 0.22, 0, 360), 0)]
    if dynasty == "pot":
        return [("fill", _arc(0.5, 0.62, 0.24, 0.22, 0, 360), 0),
                ("fill", [(0.42, 0.22), (0.58, 0.22), (0.56, 0.45), (0.44, 0.45)], 0),
                ("line", [(0.34, 0.22), (0.66, 0.22)], 0.07)]
    if dynasty == "lion":
        rays = [("line", [(0.5 + 0.2 * math.cos(a), 0.5 + 0.2 * math.sin(a)),
                          (0.5 + 0.38 * math.cos(a), 0.5 + 0.38 * math.sin(a))], 0.07)
                for a in np.linspace(0, 2 * math.pi, 10, endpoint=False)]
        return [*rays, ("disc", [(0.5, 0.5), (0.68, 0.5)], 0)]
    raise ValueError(f"unknown dynasty {dynasty!r}")


def _ink(albedo: np.ndarray, shapes: Shapes,
         box: tuple[float, float, float], colour: BGR) -> np.ndarray:
    mask = _symbol_canvas(albedo.shape[0])
    _draw(mask, shapes, box)
    blend(albedo, mask, colour)
    return mask


def _face(look: PieceLook, colour: BGR, n: int, rng: np.random.Generator, stained: bool = False) -> np.ndarray:
    """A piece's face: its colour with the printing's surface texture (or the grain of stained wood)."""
    face = np.empty((n, n, 3), np.float32)
    face[:] = colour
    if stained:  # long growth rings, and fibres along them
        _, y = grid_xy(n, n, n / 5)
        grain = np.sin(2 * y + 1.5 * fbm((n, n), n / 2, rng, 2))
        fibres = cv2.GaussianBlur(rng.standard_normal((n, n)).astype(np.float32), (0, 0), sigmaX=n / 10, sigmaY=0.6)
        face *= (1 + 0.06 * grain + 0.4 * fibres)[..., None]
    else:
        face *= (1 + look.surface * fbm((n, n), n / 6, rng, 3))[..., None]
    return face


def _worn(albedo: np.ndarray, sdf: np.ndarray, look: PieceLook, n: int, rng: np.random.Generator) -> None:
    """Chipped edges show the pale core of the cardboard or wood."""
    if look.wear <= 0:
        return
    near = np.clip(1 + sdf / (0.035 * n), 0, 1)  # 1 at the edge, 0 a little way in
    chips = cv2.GaussianBlur((rng.random((n, n)) < look.wear * 0.3).astype(np.float32), (0, 0), 0.8)
    blend(albedo, np.clip(near * chips * 2, 0, 1), (205, 215, 222), 0.7)


@lru_cache(maxsize=256)
def body(look: PieceLook, kind: str, s: int) -> Body:
    """A piece of the printing, upright and unlit (cached). Kinds as `synthetic.piece_kinds` names
    them; `treasure` is the treasure alone (it stands on a temple tile)."""
    per_mm = s / SQUARE
    rng = np.random.default_rng([look.seed, zlib.crc32(kind.encode()), s])
    parts = kind.split("-")
    if parts[0] == "monument":
        return _monument(look, (parts[1], parts[2]), s, rng)
    if parts[0] == "leader":
        return _leader(look, parts[1], parts[2] if len(parts) > 2 else None, s, rng)
    if kind == "treasure":
        return _treasure(look, per_mm, rng)
    n = round(look.tile_mm * per_mm) + 2
    x, y = grid_xy(n, n, 1.0, n / 2, n / 2)
    half = look.tile_mm * per_mm / 2
    sdf = _sdf_box(x, y, half, look.rounding * half)
    cover = np.clip(0.5 - sdf, 0, 1).astype(np.float32)
    height = _profile(sdf, look.thickness_mm, look.bevel_mm * per_mm).astype(np.float32)
    box = (n * 0.16, n * 0.16, n * 0.68)
    if parts[0] == "tile":
        colour = look.tiles[TILE_COLOURS.index(parts[1])]
        symbol = civilisation_symbol(parts[1], look.symbols)
        if look.tile in (TileArt.SOLID, TileArt.STAINED):
            albedo = _face(look, colour, n, rng, stained=look.tile is TileArt.STAINED)
            ink = mix(colour, (20, 20, 25), 0.6) if look.tile is TileArt.STAINED else look.ink
            mask = _ink(albedo, symbol, box, ink)
        elif look.tile is TileArt.FRAMED:
            albedo = _face(look, look.tile_base, n, rng)
            frame = ((sdf > -0.2 * half) & (sdf < -0.08 * half)).astype(np.float32)
            blend(albedo, cv2.GaussianBlur(frame, (0, 0), 0.5), colour)
            mask = _ink(albedo, symbol, (n * 0.24, n * 0.24, n * 0.52), colour)
        else:  # a coloured disc on a pale tile, the symbol pale on the disc
            albedo = _face(look, look.tile_base, n, rng)
            disc = np.clip(0.5 - (np.hypot(x, y) - 0.62 * half), 0, 1)
            blend(albedo, disc, colour)
            mask = _ink(albedo, symbol, (n * 0.3, n * 0.3, n * 0.4), look.tile_base)
        height += 0.3 * mask.astype(np.float32) / 255 * (cover > 0.5)  # the symbol is embossed
    elif kind == "face-down":
        albedo = _face(look, look.back, n, rng)
        ink = mix(look.back, (235, 235, 235), 0.3)
        if look.back_pattern == 0:
            _ink(albedo, [("line", [(0.1, 0.1), (0.9, 0.1), (0.9, 0.9), (0.1, 0.9), (0.1, 0.1)], 0.04)],
                 (0, 0, n), ink)
        elif look.back_pattern == 1:
            _ink(albedo, [("ring", [(0.5, 0.5), (0.78, 0.5)], 0.06)], (0, 0, n), ink)
        else:
            _ink(albedo, [("line", [(a, 0.1), (a + 0.3, 0.9)], 0.03) for a in (0.1, 0.3, 0.5)], (0, 0, n), ink)
    elif kind == "catastrophe":
        albedo = _face(look, look.catastrophe, n, rng)
        if look.catastrophe_design == 0:  # a crack
            crack = [(0.2, 0.15), (0.45, 0.4), (0.35, 0.55), (0.62, 0.7), (0.55, 0.86)]
            _ink(albedo, [("line", crack, 0.09), ("line", [(0.45, 0.4), (0.78, 0.3)], 0.06)], box, look.catastrophe_ink)
        elif look.catastrophe_design == 1:  # a cross
            _ink(albedo, [("line", [(0.15, 0.15), (0.85, 0.85)], 0.14), ("line", [(0.85, 0.15), (0.15, 0.85)], 0.14)],
                 box, look.catastrophe_ink)
        else:  # a skull
            _ink(albedo, [("disc", [(0.5, 0.42), (0.82, 0.42)], 0),
                          ("fill", [(0.34, 0.62), (0.66, 0.62), (0.62, 0.86), (0.38, 0.86)], 0)], box,
                 look.catastrophe_ink)
            _ink(albedo, [("disc", [(0.38, 0.42), (0.47, 0.42)], 0), ("disc", [(0.62, 0.42), (0.71, 0.42)], 0)],
                 box, look.catastrophe)
    elif kind == "unification":
        albedo = _face(look, look.unification, n, rng)
        if look.unification_design == 0:  # four dots in the four colours
            for colour, (cx, cy) in zip(look.tiles, ((0.5, 0.22), (0.78, 0.5), (0.5, 0.78), (0.22, 0.5)), strict=True):
                _ink(albedo, [("disc", [(cx, cy), (cx + 0.13, cy)], 0)], box, colour)
        elif look.unification_design == 1:  # two rings linked
            ink = mix(look.unification, (30, 20, 10), 0.7)
            _ink(albedo, [("ring", [(0.36, 0.5), (0.6, 0.5)], 0.08), ("ring", [(0.64, 0.5), (0.88, 0.5)], 0.08)],
                 box, ink)
        else:  # halves in two colours
            ink = mix(look.unification, (40, 150, 200), 0.8)
            _ink(albedo, [("fill", [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0)], 0)], (0, 0, n), ink)
    else:
        raise ValueError(f"no piece {kind!r}")
    _worn(albedo, sdf, look, n, rng)
    return Body(albedo, height, cover, round=False)


def _treasure(look: PieceLook, per_mm: float, rng: np.random.Generator) -> Body:
    n = round(look.treasure_mm * 1.2 * per_mm) + 2
    x, y = grid_xy(n, n, 1.0, n / 2, n / 2)
    half = look.treasure_mm * per_mm / 2
    h = look.treasure_height_mm
    shape = look.treasure
    if shape is TreasureArt.CUBE:
        sdf = _sdf_box(x, y, half, 0.12 * half)
        height = _profile(sdf, h, 0.1 * half)
    elif shape is TreasureArt.GEM:
        sdf = _sdf_octagon(x, y, half)
        height = h * np.clip(-sdf / (0.6 * half), 0, 1) ** 0.5
    elif shape is TreasureArt.COIN:
        sdf = np.hypot(x, y) - half
        height = _profile(sdf, h, 0.15 * half)
    else:
        sdf = _sdf_box(x, y, half, 0.0)
        height = h * np.clip(1 - np.maximum(np.abs(x), np.abs(y)) / half, 0, 1)
    albedo = _face(look, look.treasure_colour, n, rng)
    cover = np.clip(0.5 - sdf, 0, 1).astype(np.float32)
    return Body(albedo, height.astype(np.float32), cover, round=shape is TreasureArt.COIN)


def _leader(look: PieceLook, colour_name: str, dynasty: str | None, s: int, rng: np.random.Generator) -> Body:
    per_mm = s / SQUARE
    colour = look.leaders[TILE_COLOURS.index(colour_name)]
    n = round(look.leader_mm * per_mm) + 2
    x, y = grid_xy(n, n, 1.0, n / 2, n / 2)
    r = look.leader_mm * per_mm / 2
    d = np.hypot(x, y)
    art = look.leader
    symbol = dynasty_symbol(dynasty) if dynasty is not None else []
    sdf = _sdf_octagon(x, y, r) if art is LeaderArt.OCTAGON else d - r
    cover = np.clip(0.5 - sdf, 0, 1).astype(np.float32)
    h = look.leader_height_mm
    if art is LeaderArt.PAWN:  # a round base, a body and a head, seen from above
        base = _profile(sdf, 3.0, 0.08 * r)
        trunk = np.where(d < 0.7 * r, 3.0 + (0.72 * h - 3.0) * np.sqrt(np.clip(1 - (d / (0.7 * r)) ** 2, 0, 1)), 0)
        head = np.where(d < 0.36 * r, 0.72 * h + 0.28 * h * np.sqrt(np.clip(1 - (d / (0.36 * r)) ** 2, 0, 1)), 0)
        height = np.maximum(np.maximum(base, trunk), head)
        albedo = _face(look, mix(colour, (0, 0, 0), 0.15), n, rng)
        blend(albedo, np.clip(0.5 - (d - 0.7 * r), 0, 1), colour)
        blend(albedo, np.clip(0.5 - (d - 0.36 * r), 0, 1), mix(colour, (255, 255, 255), 0.12))
        if symbol:
            _ink(albedo, symbol, (n / 2 - 0.3 * r, n / 2 - 0.3 * r, 0.6 * r), look.dynasty_ink)
    else:
        height = _profile(sdf, h, 0.12 * r)
        if art is LeaderArt.RIM:  # a pale disc; the colour shows only in its rim
            albedo = _face(look, look.leader_base, n, rng)
            blend(albedo, np.clip(0.5 + (d - 0.78 * r), 0, 1) * cover, colour)
            if symbol:
                _ink(albedo, symbol, (n / 2 - 0.55 * r, n / 2 - 0.55 * r, 1.1 * r), look.dynasty_ink)
        elif art is LeaderArt.DISC:
            albedo = _face(look, colour, n, rng)
            if symbol:
                _ink(albedo, symbol, (n / 2 - 0.6 * r, n / 2 - 0.6 * r, 1.2 * r), look.leader_base)
        else:  # an octagon in the colour, the symbol in the colour on a pale middle
            albedo = _face(look, colour, n, rng)
            blend(albedo, np.clip(0.5 - (d - 0.55 * r), 0, 1), look.leader_base)
            if symbol:
                _ink(albedo, symbol, (n / 2 - 0.42 * r, n / 2 - 0.42 * r, 0.84 * r), colour)
    _worn(albedo, sdf, look, n, rng)
    return Body(albedo, height.astype(np.float32), cover, round=art is not LeaderArt.OCTAGON)


def _monument(look: PieceLook, colours: tuple[str, str], s: int, rng: np.random.Generator) -> Body:
    per_mm = s / SQUARE
    a, b = (look.tiles[TILE_COLOURS.index(c)] for c in colours)
    n = round(1.9 * s)
    x, y = grid_xy(n, n, 1.0, n / 2, n / 2)
    half = 0.92 * s
    h = look.monument_height_mm
    art = look.monument
    sdf = _sdf_box(x, y, half, 0.04 * half)
    albedo = _face(look, a, n, rng)
    if art is MonumentArt.STEPPED:
        height = np.zeros((n, n), np.float32)
        for step, inset in enumerate((0.0, 0.3, 0.55)):
            inner = _sdf_box(x, y, half * (1 - inset), 0.05 * half)
            height = np.maximum(height, _profile(inner, h * (step + 1) / 3, 0.6 * per_mm))
            if step:
                blend(albedo, np.clip(0.5 - inner, 0, 1), b if step == 2 else mix(a, b, 0.5))
    elif art is MonumentArt.TOWER:
        d = np.hypot(x, y)
        height = np.maximum(_profile(sdf, 0.35 * h, 0.6 * per_mm), _profile(d - 0.55 * half, h, 0.15 * half))
        blend(albedo, np.clip(0.5 - (d - 0.55 * half), 0, 1), b)
    else:
        height = h * np.clip(1 - np.maximum(np.abs(x), np.abs(y)) / half, 0, 1)
        blend(albedo, (height > 0.5 * h).astype(np.float32), b)
    cover = np.clip(0.5 - sdf, 0, 1).astype(np.float32)
    _worn(albedo, sdf, look, n, rng)
    return Body(albedo, height.astype(np.float32), cover, round=False)


# --- setting pieces down in the room's light ----------------------------------------------------------


@dataclass(frozen=True)
class Placed:
    """A piece where the players put it: centre in board mm, turned by `angle` degrees."""

    body: Body
    x: float
    y: float
    angle: float


def _light(table: TableLook) -> np.ndarray:
    az, el = math.radians(table.light_azimuth_deg), math.radians(table.light_elevation_deg)
    # Towards the light: from the left at azimuth 0, x right, y down the board, z up to the camera.
    return np.array([-math.cos(el) * math.cos(az), -math.cos(el) * math.sin(az), math.sin(el)], np.float32)


def _turned(
    piece: Placed, origin: tuple[float, float], per_mm: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int]:
    """The body turned and moved into the art's pixels: albedo, height, cover and the top-left of the
    region they cover."""
    b = piece.body
    n = b.cover.shape[0]
    cx, cy = (piece.x + origin[0]) * per_mm - 0.5, (piece.y + origin[1]) * per_mm - 0.5
    reach = math.ceil(n * 0.75) + 2
    x0, y0 = math.floor(cx) - reach, math.floor(cy) - reach
    size = 2 * reach + 1
    turn = cv2.getRotationMatrix2D((n / 2 - 0.5, n / 2 - 0.5), -piece.angle, 1.0)
    turn[0, 2] += cx - x0 - (n / 2 - 0.5)
    turn[1, 2] += cy - y0 - (n / 2 - 0.5)
    cover = cv2.warpAffine(b.cover, turn, (size, size), flags=cv2.INTER_LINEAR)
    # Only the region the piece covers is worth turning, lighting and laying.
    bx, by, bw, bh = cv2.boundingRect((cover > 0.002).astype(np.uint8))
    turn[:, 2] -= (bx, by)
    box = (bw, bh)
    albedo = cv2.warpAffine(b.albedo, turn, box, flags=cv2.INTER_LINEAR)
    height = cv2.warpAffine(b.height, turn, box, flags=cv2.INTER_LINEAR)
    return albedo, height, cover[by : by + bh, bx : bx + bw], x0 + bx, y0 + by


def _lit(albedo: np.ndarray, height: np.ndarray, light: np.ndarray, gloss: float, per_mm: float) -> np.ndarray:
    """Lambert shading of the height map by the room's light, plus a specular glint."""
    gy, gx = np.gradient(cv2.GaussianBlur(height, (0, 0), 0.7) * per_mm)
    norm = np.sqrt(gx * gx + gy * gy + 1)
    nx, ny, nz = -gx / norm, -gy / norm, 1 / norm
    lambert = np.clip(nx * light[0] + ny * light[1] + nz * light[2], 0, 1) / max(0.2, float(light[2]))
    shade = 0.4 + 0.6 * np.clip(lambert, 0, 1.5)
    half = light + np.array([0, 0, 1], np.float32)
    half /= np.linalg.norm(half)
    glint = gloss * 255 * np.clip(nx * half[0] + ny * half[1] + nz * half[2], 0, 1) ** 60
    result: np.ndarray = albedo * shade[..., None] + glint[..., None]
    return result


def _paste(canvas: np.ndarray, piece: Placed, origin: tuple[float, float], per_mm: float, light: np.ndarray,
           gloss: float, viewpoint: tuple[float, float, float] | None) -> None:
    albedo, height, cover, x0, y0 = _turned(piece, origin, per_mm)
    colour = _lit(albedo, height, light, gloss, per_mm)
    top = piece.body.top_mm
    lean = (0.0, 0.0)
    if viewpoint is not None and top > 1.0:  # the camera sees a tall piece's top pushed away from it
        k = 0.6 * top / max(1.0, viewpoint[2] - top) * per_mm
        lean = ((piece.x - viewpoint[0]) * k, (piece.y - viewpoint[1]) * k)
    steps = min(8, math.ceil(math.hypot(*lean) / 1.5))  # a side every pixel and a half is enough
    weight = max(1e-6, float(cover.sum()))
    side = (colour * cover[..., None]).sum(axis=(0, 1)) / weight * 0.55  # the sides, in their own shade
    for i in range(steps + 1):  # the sides from the foot up, then the top
        t = i / max(1, steps)
        dx, dy = round(lean[0] * t), round(lean[1] * t)
        _over(canvas, cover, colour if i == steps else side, x0 + dx, y0 + dy)


def _over(canvas: np.ndarray, cover: np.ndarray, colour: np.ndarray, x0: int, y0: int) -> None:
    h, w = cover.shape
    cx0, cy0 = max(0, x0), max(0, y0)
    cx1, cy1 = min(canvas.shape[1], x0 + w), min(canvas.shape[0], y0 + h)
    if cx1 <= cx0 or cy1 <= cy0:
        return
    a = cover[cy0 - y0 : cy1 - y0, cx0 - x0 : cx1 - x0, None]
    region = canvas[cy0:cy1, cx0:cx1]
    paint = colour[cy0 - y0 : cy1 - y0, cx0 - x0 : cx1 - x0] if colour.ndim == 3 else colour
    region *= 1 - a
    region += a * paint


_SHADE = 4  # shadows are drawn at a quarter of the art's resolution: they are soft anyway


def _shadows(canvas: np.ndarray, pieces: list[Placed], origin: tuple[float, float], per_mm: float,
             table: TableLook) -> None:
    """Each piece's shadow away from the room's light, as long as the piece is tall, blurred more the
    further it falls: a monument's or a pawn's darkens the squares beside it."""
    if not pieces:
        return
    h, w = canvas.shape[:2]
    small = np.zeros((h // _SHADE + 1, w // _SHADE + 1), np.float32)
    q = per_mm / _SHADE
    az, el = math.radians(table.light_azimuth_deg), math.radians(table.light_elevation_deg)
    away = np.array([math.cos(az), math.sin(az)]) / math.tan(el)  # mm of shadow per mm of height
    for piece in pieces:
        b = piece.body
        half = b.cover.shape[0] / 2 / per_mm * 0.9
        if b.round:
            ring = [(half * math.cos(t), half * math.sin(t)) for t in np.linspace(0, 2 * math.pi, 16, endpoint=False)]
        else:
            a = math.radians(piece.angle)
            ring = [(half * (u * math.cos(a) - v * math.sin(a)), half * (u * math.sin(a) + v * math.cos(a)))
                    for u, v in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
        foot = np.array(ring) + np.array([piece.x, piece.y])
        tip = foot + away * b.top_mm
        hull = cv2.convexHull(((np.concatenate([foot, tip]) + origin) * q * 16).astype(np.int32))
        layer = np.zeros_like(small)
        cv2.fillConvexPoly(layer, hull, 1.0, cv2.LINE_AA, 4)
        blur = max(0.6, 0.15 * b.top_mm * q)
        small = np.maximum(small, cv2.GaussianBlur(layer, (0, 0), blur))
    shade = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    canvas *= (1 - table.shadow * np.clip(shade, 0, 1))[..., None]


def compose(
    board: np.ndarray,
    pieces: list[Placed],
    look: PieceLook,
    table: TableLook,
    origin: tuple[float, float],
    per_mm: float,
    viewpoint: tuple[float, float, float] | None,
) -> np.ndarray:
    """The pieces set down on the printed board (float BGR in, 8-bit BGR out), flat ones first:
    every piece's shadow falls on what lies lower than it."""
    canvas = board.copy()
    light = _light(table)
    flat = [p for p in pieces if p.body.top_mm <= FLAT_MM]
    tall = [p for p in pieces if p.body.top_mm > FLAT_MM]
    _shadows(canvas, flat, origin, per_mm, table)
    for piece in flat:
        _paste(canvas, piece, origin, per_mm, light, look.gloss, viewpoint)
    _shadows(canvas, tall, origin, per_mm, table)
    for piece in sorted(tall, key=lambda p: p.body.top_mm):
        _paste(canvas, piece, origin, per_mm, light, look.gloss, viewpoint)
    out: np.ndarray = cv2.convertScaleAbs(canvas)  # saturating: a glint may pass 255
    return out
