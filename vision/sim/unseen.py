"""Printings nobody tuned on: another artist's board and pieces, drawn at random from a seed.

The reader was developed on `art`'s two editions. A `Printing` is a second, independent artist
(`unseen_art` paints it, sharing no drawing or constant with `art`), randomised more widely than
those editions differ: land from sand to green-grey on paper, cardboard or linen; the river as blue
squares or drawn across the land; borders from a few millimetres to wide and busy; tiles, leaders,
treasures and monuments of other shapes, colours and finishes; pieces turned any way and put down
off-centre; tables of wood, cloth, dark, light or checked. Printings are drop-ins for the
renderer: `synthetic.render(scene, style=printing, ...)` and `SyntheticCamera(style=printing)` film
them through the same camera (`CameraPose`) with the same ground truth (`Scene`).

Also here: camera poses, table effects and an evening's light for these tables, with wider ranges
than the developed-on ones (glare spots several squares across, deep shadows, a lamp switched on).
Nothing in the reader may be tuned on these: they are the never-tuned-on split of the benchmarks.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TypeVar

import cv2
import numpy as np

from vision import geometry
from vision.reading import COLUMNS
from vision.sim import perturbations, unseen_art, unseen_pieces
from vision.sim.perturbations import Conditions, TableRanges, random_glare, random_shadow
from vision.sim.synthetic import BoardArt, CameraPose, Scene, board_to_table, pieces
from vision.sim.unseen_art import (
    BGR,
    BoardLook,
    LeaderArt,
    MonumentArt,
    Pattern,
    PieceLook,
    RiverArt,
    Surface,
    TableLook,
    Texture,
    TileArt,
    TreasureArt,
)

T = TypeVar("T")

__all__ = ["Printing", "drift", "evening", "random_conditions", "random_pose", "random_printing"]


@dataclass(frozen=True)
class Printing:
    """One printing of the game on one table. `placement` says which time the players put the
    pieces down: the same piece on the same square lies the same way for the same placement (a
    game's pieces stay put from picture to picture), differently for another."""

    seed: int
    board: BoardLook
    pieces: PieceLook
    table: TableLook
    placement: int = 0

    def put_down(self, placement: int) -> Printing:
        """The same printing with every piece put down anew."""
        return replace(self, placement=placement)

    def board_art(self, scene: Scene, px_per_square: int, viewpoint: tuple[float, float, float]) -> BoardArt:
        return _composed(self, scene, px_per_square, viewpoint)

    def table_art(self, size: tuple[int, int]) -> np.ndarray:
        return unseen_art.table_surface(self.table, size)

    def placed(self, scene: Scene, s: int) -> list[unseen_pieces.Placed]:
        """Where and how the players put each piece down."""
        looks, table = self.pieces, self.table
        placed = []
        for cell, kind in pieces(scene):
            rng = np.random.default_rng([self.seed, self.placement, cell, zlib.crc32(kind.encode())])
            row, col = divmod(cell, COLUMNS)
            square = geometry.SQUARE_MM
            if kind.startswith("monument"):  # squarely on its 2×2, turned a quarter or not
                x, y = (col + 1) * square, (row + 1) * square
                angle = 90 * int(rng.integers(4)) + rng.normal(0, table.sloppiness_deg / 2)
                room = 0.02
            elif kind.startswith("leader"):  # a figure faces any way
                x, y = (col + 0.5) * square, (row + 0.5) * square
                angle = rng.uniform(0, 360)
                room = (square - looks.leader_mm) / 2 / square + 0.05
            else:  # a tile: square to the grid, give or take the players' care
                x, y = (col + 0.5) * square, (row + 0.5) * square
                angle = 90 * int(rng.integers(4)) + float(np.clip(rng.normal(0, table.sloppiness_deg), -25, 25))
                room = (square - looks.tile_mm) / 2 / square + 0.03
            dx, dy = np.clip(rng.normal(0, table.off_centre, 2), -room, room) * square
            base = "tile-red" if kind == "treasure" else kind
            placed.append(unseen_pieces.Placed(unseen_pieces.body(looks, base, s), x + dx, y + dy, float(angle)))
            if kind == "treasure":  # anywhere on its temple, any way round
                reach = max(0.0, (looks.tile_mm - looks.treasure_mm * 1.2) / 2)
                tx, ty = rng.uniform(-reach, reach, 2)
                treasure = unseen_pieces.body(looks, "treasure", s)
                placed.append(unseen_pieces.Placed(treasure, x + dx + tx, y + dy + ty, rng.uniform(0, 360)))
        return placed

    def describe(self) -> str:
        """The printing in a line, for reports."""
        b, p, t = self.board, self.pieces, self.table
        pattern = "" if b.pattern is Pattern.PLAIN else f" {b.pattern.value}"
        return (
            f"printing {self.seed}: {b.texture.value} board, {b.river.value}, {b.border_mm:.0f} mm{pattern} border; "
            f"{p.tile.value}, {p.leader.value}, {p.treasure.value}, {p.monument.value} monuments; "
            f"on a {t.surface.value}"
        )


@lru_cache(maxsize=4)
def _composed(printing: Printing, scene: Scene, s: int, viewpoint: tuple[float, float, float]) -> BoardArt:
    """The board with its pieces (cached: a camera films the same board many times over)."""
    colour, cover = unseen_art.printed_board(printing.board, printing.table, scene.river, scene.corners, s)
    pad = unseen_art.pad_mm(printing.board)
    per_mm = s / geometry.SQUARE_MM
    placed = printing.placed(scene, s)
    art = unseen_pieces.compose(colour, placed, printing.pieces, printing.table, (pad, pad), per_mm, viewpoint)
    art.flags.writeable = False
    return BoardArt(art, cover, pad)


# --- drawing a printing at random -------------------------------------------------------------------


def _hsv(hue_deg: float, saturation: float, value: float) -> BGR:
    pixel = np.array([[[hue_deg % 360, np.clip(saturation, 0, 1), np.clip(value, 0, 1)]]], np.float32)
    b, g, r = cv2.cvtColor(pixel, cv2.COLOR_HSV2BGR)[0, 0]
    return round(float(b) * 255), round(float(g) * 255), round(float(r) * 255)


def _lab(colour: BGR) -> np.ndarray:
    pixel = np.array([[colour]], np.float32) / 255
    lab: np.ndarray = cv2.cvtColor(pixel, cv2.COLOR_BGR2Lab)[0, 0]
    return lab


def _apart(a: BGR, b: BGR) -> float:
    """How far apart two colours look (CIE76 ΔE)."""
    return float(np.linalg.norm(_lab(a) - _lab(b)))


def _pick(rng: np.random.Generator, options: Sequence[T]) -> T:
    return options[int(rng.integers(len(options)))]


def _tile_colours(rng: np.random.Generator) -> tuple[BGR, BGR, BGR, BGR]:
    """Red from orange-red to crimson, blue from cyan to navy, green from olive to teal, black from
    dark grey to navy or brown-black."""
    red = _hsv(rng.uniform(-14, 14), rng.uniform(0.6, 0.95), rng.uniform(0.5, 0.88))
    blue = _hsv(rng.uniform(185, 235), rng.uniform(0.5, 0.95), rng.uniform(0.3, 0.82))
    green = _hsv(rng.uniform(70, 175), rng.uniform(0.4, 0.85), rng.uniform(0.3, 0.7))
    black = _hsv(float(_pick(rng, (0.0, 220.0, 25.0))), rng.uniform(0, 0.45), rng.uniform(0.08, 0.28))
    return red, blue, green, black


def _near(colour: BGR, rng: np.random.Generator, spread: float = 12) -> BGR:
    b, g, r = (int(np.clip(v + rng.normal(0, spread), 0, 255)) for v in colour)
    return b, g, r


def _pale(rng: np.random.Generator) -> BGR:
    """Ivory, light grey or light wood."""
    kind = int(rng.integers(3))
    if kind == 0:
        return _hsv(rng.uniform(35, 55), rng.uniform(0.08, 0.25), rng.uniform(0.8, 0.96))
    if kind == 1:
        return _hsv(rng.uniform(0, 360), rng.uniform(0, 0.05), rng.uniform(0.62, 0.88))
    return _hsv(rng.uniform(25, 40), rng.uniform(0.25, 0.45), rng.uniform(0.7, 0.85))


def _board_look(seed: int, rng: np.random.Generator) -> BoardLook:
    t = rng.uniform(0, 1)  # 0: sand .. 1: green-grey
    hue, saturation, value = 38 + 42 * t, 0.42 - 0.3 * t, 0.86 - 0.24 * t
    land = _hsv(hue + rng.normal(0, 4), saturation + rng.normal(0, 0.04), value + rng.normal(0, 0.03))
    terrain = _hsv(hue + rng.normal(0, 15), saturation + rng.uniform(-0.1, 0.15), value + rng.uniform(-0.12, 0.05))
    water = _hsv(rng.uniform(188, 222), rng.uniform(0.3, 0.75), rng.uniform(0.5, 0.85))
    ink = int(rng.integers(3))
    grid_ink = (_mix3(land, 0.35) if ink == 0 else _hsv(rng.uniform(20, 40), 0.6, 0.35) if ink == 1
                else _hsv(40, 0.05, 0.97))
    size = int(rng.integers(3))  # narrow, medium or wide
    border_mm = rng.uniform(3, 10) if size == 0 else rng.uniform(10, 30) if size == 1 else rng.uniform(30, 60)
    border = _near(_pick(rng, ((35, 55, 85), (40, 70, 150), (90, 45, 25), (30, 30, 30), (120, 175, 205),
                                (45, 80, 45), (40, 35, 120))), rng)
    band = _hsv(rng.uniform(35, 50), rng.uniform(0.3, 0.7), rng.uniform(0.75, 0.95)) if rng.random() < 0.6 \
        else _mix3(border, 0.55)
    letters = (235, 240, 240) if sum(border) < 360 else (30, 30, 35)
    fonts = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_TRIPLEX,
             cv2.FONT_HERSHEY_SCRIPT_COMPLEX, cv2.FONT_HERSHEY_PLAIN)
    return BoardLook(
        seed=seed,
        land=land,
        terrain=terrain,
        texture=_pick(rng, tuple(Texture)),
        grain=rng.uniform(0.03, 0.14),
        hills=rng.uniform(0.2, 1.0),
        trees=0.0 if rng.random() < 0.5 else rng.uniform(0.3, 2.5),
        contours=0.0 if rng.random() < 0.5 else rng.uniform(0.05, 0.18),
        river=_pick(rng, tuple(RiverArt)),
        water=water,
        river_width=rng.uniform(0.45, 0.9),
        river_off_board=bool(rng.random() < 0.5),
        grid_ink=grid_ink,
        grid_mm=rng.uniform(0.2, 1.2),
        grid_alpha=rng.uniform(0.2, 1.0),
        border_mm=border_mm,
        border=border,
        band=band,
        pattern=_pick(rng, tuple(Pattern)),
        lettering=bool(rng.random() < 0.7),
        title=bool(rng.random() < 0.5),
        font=_pick(rng, fonts),
        letters=letters,
        start_marks=bool(rng.random() < 0.3),
        corner_mark=int(rng.integers(4)),
        edge=_hsv(rng.uniform(0, 60), rng.uniform(0, 0.4), rng.uniform(0.15, 0.8)),
    )


def _mix3(colour: BGR, factor: float) -> BGR:
    b, g, r = (round(v * factor) for v in colour)
    return b, g, r


def _piece_look(seed: int, rng: np.random.Generator) -> PieceLook:
    tiles = _tile_colours(rng)
    leaders = tuple(_near(c, rng, 8) for c in tiles)
    art = _pick(rng, tuple(TileArt))
    leader = _pick(rng, tuple(LeaderArt))
    treasure = _pick(rng, tuple(TreasureArt))
    catastrophe = _pick(rng, (_hsv(340, 0.3, 0.9), _hsv(45, 0.15, 0.85), _hsv(280, 0.3, 0.75), _hsv(355, 0.7, 0.35),
                              _hsv(0, 0.05, 0.3), _hsv(25, 0.7, 0.85)))
    dark = sum(catastrophe) < 330
    return PieceLook(
        seed=seed,
        tiles=tiles,
        leaders=(leaders[0], leaders[1], leaders[2], leaders[3]),
        tile=art,
        tile_base=_pale(rng),
        ink=_hsv(rng.uniform(30, 55), rng.uniform(0, 0.5), rng.uniform(0.8, 1.0)),
        symbols=int(rng.integers(2)),
        tile_mm=rng.uniform(24, 29),
        rounding=rng.uniform(0, 0.35),
        thickness_mm=rng.uniform(1.5, 4),
        bevel_mm=rng.uniform(0.3, 1.5),
        gloss=rng.uniform(0, 0.5),
        wear=rng.uniform(0, 0.5),
        surface=rng.uniform(0.01, 0.08),
        back=_hsv(rng.uniform(0, 360), rng.uniform(0.2, 0.6), rng.uniform(0.3, 0.6)),
        back_pattern=int(rng.integers(3)),
        catastrophe=_near(catastrophe, rng, 8),
        catastrophe_ink=(235, 235, 240) if dark else _hsv(rng.uniform(0, 30), 0.7, 0.25),
        catastrophe_design=int(rng.integers(3)),
        unification=_pale(rng) if rng.random() < 0.6 else _hsv(rng.uniform(40, 50), 0.6, 0.85),
        unification_design=int(rng.integers(3)),
        treasure=treasure,
        treasure_colour=_near(_pick(rng, ((40, 180, 230), (60, 220, 240), (70, 150, 50), (215, 230, 235),
                                          (30, 120, 200))), rng, 10),
        treasure_mm=rng.uniform(8, 14),
        treasure_height_mm=rng.uniform(2, 4) if treasure is TreasureArt.COIN else rng.uniform(5, 12),
        leader=leader,
        leader_base=_pale(rng),
        dynasty_ink=_hsv(rng.uniform(0, 360), rng.uniform(0, 0.3), rng.uniform(0.05, 0.25)),
        leader_mm=rng.uniform(20, 27),
        leader_height_mm=rng.uniform(18, 32) if leader is LeaderArt.PAWN else rng.uniform(3, 6),
        monument=_pick(rng, tuple(MonumentArt)),
        monument_height_mm=rng.uniform(25, 45),
    )


def _faces(p: PieceLook) -> dict[str, BGR]:
    """The colour each kind of piece shows most of, from above."""
    pale = p.tile in (TileArt.FRAMED, TileArt.TOKEN)
    faces = {f"tile-{c}": p.tile_base if pale else p.tiles[i] for i, c in enumerate(unseen_art.TILE_COLOURS)}
    faces |= {"catastrophe": p.catastrophe, "unification": p.unification}
    return faces


def _legible(board: BoardLook, p: PieceLook) -> bool:
    """A real printing is designed so that players tell its pieces apart at a glance: every two
    kinds differ clearly in colour (or, for pale tiles, in the coloured frame or disc), and no
    piece melts into the board it lies on."""
    colours = list(p.tiles)
    if any(_apart(a, b) < 22 for i, a in enumerate(colours) for b in colours[i + 1 :]):
        return False
    if any(_apart(a, b) < 22 for i, a in enumerate(p.leaders) for b in p.leaders[i + 1 :]):
        return False
    faces = _faces(p)
    if any(_apart(f, g) < 18 for i, f in enumerate(faces.values()) for g in list(faces.values())[i + 1 :] if f != g):
        return False
    grounds = (board.land, board.water)
    if any(_apart(f, g) < 18 for f in faces.values() for g in grounds):
        return False
    if _apart(p.back, board.land) < 15 or _apart(p.treasure_colour, faces["tile-red"]) < 25:
        return False
    if p.leader in (LeaderArt.RIM, LeaderArt.OCTAGON) and _apart(p.leader_base, board.land) < 15:
        return False
    return not (p.leader is not LeaderArt.RIM and any(_apart(c, g) < 18 for c in p.leaders for g in grounds))


def _table_look(seed: int, rng: np.random.Generator) -> TableLook:
    surface = _pick(rng, tuple(Surface))
    if surface is Surface.WOOD:
        colour = _hsv(rng.uniform(22, 38), rng.uniform(0.4, 0.65), rng.uniform(0.3, 0.8))
        second = _mix3(colour, rng.uniform(0.65, 0.85))
    elif surface is Surface.CLOTH:
        colour = _hsv(rng.uniform(0, 360), rng.uniform(0.25, 0.7), rng.uniform(0.3, 0.8))
        second = colour
    elif surface is Surface.DARK:
        colour = _hsv(rng.uniform(0, 360), rng.uniform(0, 0.2), rng.uniform(0.06, 0.2))
        second = colour
    elif surface is Surface.LIGHT:
        colour = _hsv(rng.uniform(20, 60), rng.uniform(0, 0.12), rng.uniform(0.78, 0.95))
        second = colour
    else:
        colour = _hsv(float(_pick(rng, (0.0, 220.0, 120.0, 30.0))), rng.uniform(0.5, 0.8), rng.uniform(0.4, 0.7))
        second = _hsv(45, 0.05, 0.93)
    card = _pick(rng, ((242, 244, 244), _hsv(45, 0.1, 0.95), _hsv(0, 0, 0.86)))
    return TableLook(
        seed=seed,
        surface=surface,
        colour=colour,
        second=second,
        card=card,
        light_azimuth_deg=rng.uniform(0, 360),
        light_elevation_deg=rng.uniform(35, 75),
        shadow=rng.uniform(0.2, 0.6),
        sloppiness_deg=rng.uniform(1, 10),
        off_centre=rng.uniform(0.02, 0.08),
    )


def random_printing(seed: int) -> Printing:
    """The printing of this seed (the same every time)."""
    rng = np.random.default_rng([seed, 0x5EE])
    board = _board_look(seed, rng)
    first = looks = _piece_look(seed, rng)
    for _ in range(200):  # redraw the colours, not the designs, until a player could tell the pieces apart
        if _legible(board, looks):
            break
        looks = replace(_piece_look(seed, rng), **{name: getattr(first, name) for name in _DESIGNS})
    return Printing(seed, board, looks, _table_look(seed, rng))


# What a printing's pieces are like, apart from their colours: kept while colours are redrawn, so
# that legibility never favours one design over another.
_DESIGNS = ("tile", "symbols", "tile_mm", "rounding", "thickness_mm", "bevel_mm", "back_pattern", "catastrophe_design",
            "unification_design", "treasure", "treasure_mm", "treasure_height_mm", "leader", "leader_mm",
            "leader_height_mm", "monument", "monument_height_mm")


# --- the camera, the light and the evening at such a table ------------------------------------------


def random_pose(rng: np.random.Generator, printing: Printing, size: tuple[int, int] = (2028, 1520)) -> CameraPose:
    """A camera hung anywhere that sees the whole board, its marker cards and room for a bump:
    higher or lower, tilted further, turned, even from the other side of the table."""
    reach_mm = max(printing.board.border_mm, geometry.MARKER_CARD_MM) + 20
    w, h = geometry.GRID_WIDTH_MM, geometry.GRID_HEIGHT_MM
    reach = np.array([[-reach_mm, -reach_mm], [w + reach_mm, -reach_mm], [w + reach_mm, h + reach_mm],
                      [-reach_mm, h + reach_mm]], np.float64)
    for _ in range(300):
        pose = CameraPose(
            height_mm=float(rng.uniform(560, 820)),
            tilt_deg=float(rng.uniform(0, 20)),
            yaw_deg=float(180 * int(rng.integers(2)) + rng.uniform(-15, 15)),
            offset_mm=(float(rng.uniform(-40, 40)), float(rng.uniform(-40, 40))),
            hfov_deg=float(rng.uniform(50, 66)),
        )
        homography = pose.table_to_image(size) @ board_to_table(Conditions())
        corners = cv2.perspectiveTransform(reach.reshape(-1, 1, 2), homography).reshape(-1, 2)
        if corners[:, 0].min() > 0 and corners[:, 1].min() > 0 and corners[:, 0].max() < size[0] \
                and corners[:, 1].max() < size[1]:
            return pose
    return CameraPose(height_mm=820, hfov_deg=66)


# The table effects of these tables: wider than the developed-on ones (TableRanges' defaults).
WIDER = TableRanges(
    glare=0.45, glare_at=(0.15, 0.85), glare_radius=(0.04, 0.2), glare_strength=(0.3, 1.0),  # a square: ~0.04
    shadow=0.45, shadows=3, shadow_width=(0.1, 0.6), shadow_height=(0.08, 0.5), shadow_darkness=(0.15, 0.6),
    bump_mm=20.0, bump_deg=4.0, blur_sigma=(0.3, 2.2), noise=0.85, noise_sigma=(1.0, 9.0), jpeg=0.4,
    jpeg_quality=(50, 96), exposure=(0.6, 1.4), uneven=0.7, falloff=(0.05, 0.5), vignette_strength=(0.05, 0.4),
    lamp=0.6, lamp_strength=(0.2, 1.0), jitter=None,
)


def random_conditions(rng: np.random.Generator, *, hands: bool = False, bump: bool = True) -> Conditions:
    """A table's picture with wider ranges than the developed-on ones. Hands only when asked for."""
    return perturbations.random_conditions(rng, hands=hands, bump=bump, ranges=WIDER)


def evening(rng: np.random.Generator) -> Conditions:
    """The light a table starts the evening in (and is calibrated under): a camera's noise and
    blur, the room's unevenness and colour; no glare, no shadow yet."""
    return Conditions(
        blur_sigma=float(rng.uniform(0, 1.2)),
        noise_sigma=float(rng.uniform(1, 5)),
        exposure=float(rng.uniform(0.85, 1.15)),
        light_falloff=float(rng.uniform(0, 0.35)),
        light_angle_deg=float(rng.uniform(0, 360)),
        vignette=float(rng.uniform(0, 0.25)),
        lamp=float(rng.uniform(-0.5, 0.5)) if rng.random() < 0.5 else 0.0,
    )


def game_table(seed: int, size: tuple[int, int] = (2028, 1520)) -> tuple[Printing, CameraPose, Conditions]:
    """The table of the game of this seed (`companion bench game --split unseen`): its printing,
    where its camera hangs and the evening's light, the same every time."""
    printing = random_printing(seed)
    rng = np.random.default_rng([seed, 1])
    return printing, random_pose(rng, printing, size), evening(rng)


def drift(conditions: Conditions, rng: np.random.Generator) -> Conditions:
    """The light a little later: it drifts between pictures; now and then a lamp is switched on
    (a warm light and its glare, which stays where it is) or off again, and somebody's shadow falls
    across the board or goes."""
    exposure = float(np.clip(conditions.exposure * math.exp(rng.normal(0, 0.02)), 0.6, 1.4))
    lamp = float(np.clip(conditions.lamp + rng.normal(0, 0.04), -1, 1))
    falloff = float(np.clip(conditions.light_falloff + rng.normal(0, 0.01), 0, 0.5))
    glare = conditions.glare
    if rng.random() < 0.04:
        if glare is None:  # a lamp switched on
            glare, lamp, exposure = random_glare(rng, WIDER), min(1.0, lamp + 0.3), min(1.4, exposure * 1.15)
        else:  # ... and off again
            glare, lamp, exposure = None, max(-1.0, lamp - 0.3), max(0.6, exposure / 1.15)
    shadows = conditions.shadows
    if shadows and rng.random() < 0.3:
        shadows = ()
    elif not shadows and rng.random() < 0.08:
        shadows = (random_shadow(rng, WIDER),)
    return replace(conditions, exposure=exposure, lamp=lamp, light_falloff=falloff, glare=glare, shadows=shadows)
