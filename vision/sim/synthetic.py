"""A synthetic camera over the table: renders a board state as the Pi camera would see it.

The board is drawn top-down (cached art plus piece sprites), then projected through a pinhole
camera (`CameraPose`) onto a wooden table. `Conditions` adds what real tables do to a picture.
Every render returns its ground truth: the scene, where the grid landed in the image, and
which pixels hands cover.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Protocol

import cv2
import numpy as np

from vision import geometry
from vision.reading import CELLS, COLUMNS, CellClass, block_cells
from vision.sim import art, perturbations
from vision.sim.perturbations import Conditions, Glare, Hand, Shadow, random_conditions, random_hand

__all__ = [
    "Artist",
    "BoardArt",
    "CameraPose",
    "CellTruth",
    "Conditions",
    "Glare",
    "Hand",
    "Rendered",
    "Scene",
    "Shadow",
    "Shot",
    "Style",
    "hand_passing",
    "pieces",
    "random_conditions",
    "random_hand",
    "random_pose",
    "random_scene",
    "render",
    "render_sequence",
    "top_down",
]

@dataclass(frozen=True, slots=True)
class CellTruth:
    """What a square really shows. Leaders carry their dynasty, monument squares their two colours."""

    cls: CellClass
    dynasty: str | None = None
    monument: tuple[str, str] | None = None


EMPTY_LAND = CellTruth(CellClass.EMPTY_LAND)
EMPTY_RIVER = CellTruth(CellClass.EMPTY_RIVER)


@dataclass(frozen=True)
class Scene:
    """The content of all 176 squares (row-major) and which of them are river.

    `corners` are the framed treasure squares printed on the board (drawn, never read)."""

    cells: tuple[CellTruth, ...]
    river: frozenset[int]
    corners: frozenset[int] = frozenset()

    def __post_init__(self) -> None:
        if len(self.cells) != CELLS:
            raise ValueError(f"a scene needs {CELLS} squares, got {len(self.cells)}")
        for cell, truth in enumerate(self.cells):
            if truth.cls is CellClass.UNKNOWN:
                raise ValueError(f"square {cell} cannot be rendered as 'unknown'")
            if truth.dynasty is not None and truth.dynasty not in art.DYNASTIES:
                raise ValueError(f"square {cell}: unknown dynasty {truth.dynasty!r}")
            if truth.cls is CellClass.MONUMENT and truth.monument is None:
                raise ValueError(f"square {cell}: a monument needs its two colours")
        _monument_blocks(self.cells)  # raises if a monument does not cover a whole 2×2

    @classmethod
    def setup(cls, board: str = "standard") -> Scene:
        """The start position: the printed rivers and a temple with its treasure on each start square."""
        river = geometry.river_cells(board)
        temples = geometry.start_temple_cells(board)
        cells = tuple(
            CellTruth(CellClass.TREASURE) if c in temples else EMPTY_RIVER if c in river else EMPTY_LAND
            for c in range(CELLS)
        )
        return cls(cells, river, geometry.corner_treasure_cells(board))

    def with_cells(self, changes: dict[int, CellTruth]) -> Scene:
        """The same board with some squares changed."""
        cells = list(self.cells)
        for cell, truth in changes.items():
            cells[cell] = truth
        return replace(self, cells=tuple(cells))


def _monument_blocks(cells: tuple[CellTruth, ...]) -> list[int]:
    """Top-left squares of the monuments; every monument square must belong to one 2×2 block."""
    claimed: set[int] = set()
    blocks = []
    for cell, truth in enumerate(cells):
        if truth.cls is not CellClass.MONUMENT or cell in claimed:
            continue
        block = block_cells(cell)
        col = cell % COLUMNS
        if (
            col == COLUMNS - 1
            or block[-1] >= CELLS
            or any(
                cells[c].cls is not CellClass.MONUMENT or cells[c].monument != truth.monument or c in claimed
                for c in block
            )
        ):
            raise ValueError(f"the monument at square {cell} does not cover a 2×2 block of squares")
        claimed.update(block)
        blocks.append(cell)
    return blocks


@dataclass(frozen=True)
class CameraPose:
    """Where the camera hangs over the table.

    The default is a Raspberry Pi HQ camera with a 6 mm lens (about 55° across) 65 cm above the
    board, looking straight down: the board fills about 80 % of the frame."""

    height_mm: float = 650.0
    tilt_deg: float = 0.0  # optical axis from vertical; >0: camera on the players' (bottom) side
    yaw_deg: float = 0.0  # camera turned about its axis; the board appears turned the other way
    offset_mm: tuple[float, float] = (0.0, 0.0)  # where the axis meets the table, from the grid centre
    hfov_deg: float = 55.0  # horizontal field of view

    def _axes(self) -> np.ndarray:
        """Columns: the camera's x, y and viewing direction in table coordinates (z into the table)."""
        t, y = math.radians(self.tilt_deg), math.radians(self.yaw_deg)
        tilt = np.array([[1, 0, 0], [0, math.cos(t), -math.sin(t)], [0, math.sin(t), math.cos(t)]])
        yaw = np.array([[math.cos(y), -math.sin(y), 0], [math.sin(y), math.cos(y), 0], [0, 0, 1]])
        axes: np.ndarray = yaw @ tilt
        return axes

    def position_mm(self) -> np.ndarray:
        """Where the lens is: table millimetres, z negative (above the table)."""
        forward = self._axes()[:, 2]
        target = np.array([*self.offset_mm, 0.0])
        centre: np.ndarray = target - forward * (self.height_mm / forward[2])
        return centre

    def table_to_image(self, size: tuple[int, int]) -> np.ndarray:
        """The 3×3 homography from table millimetres (origin under the grid centre) to pixels."""
        w, h = size
        f = (w / 2) / math.tan(math.radians(self.hfov_deg) / 2)
        k = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]])
        centre = self.position_mm()
        rotation = self._axes().T
        translation = -rotation @ centre
        homography: np.ndarray = k @ np.column_stack([rotation[:, 0], rotation[:, 1], translation])
        return homography


@dataclass(frozen=True)
class Rendered:
    frame: np.ndarray  # BGR uint8, H×W×3
    grid_corners: np.ndarray  # 4×2 float32 image coordinates of the grid's corners: TL, TR, BR, BL
    hand_mask: np.ndarray  # bool H×W, True where hands or arms cover the picture
    scene: Scene
    board_to_image: np.ndarray = field(repr=False)  # 3×3 homography: board millimetres → pixels
    marker_corners: dict[int, np.ndarray] = field(repr=False, default_factory=dict)  # id → 4×2, as detect() orders


def board_to_table(conditions: Conditions) -> np.ndarray:
    """3×3: board millimetres (origin at the grid's top-left) → table millimetres (origin at the
    grid centre before any bump)."""
    a = math.radians(conditions.board_rotation_deg)
    c, s = math.cos(a), math.sin(a)
    cx, cy = geometry.GRID_WIDTH_MM / 2, geometry.GRID_HEIGHT_MM / 2
    dx, dy = conditions.board_shift_mm
    return np.array([[c, -s, dx - (c * cx - s * cy)], [s, c, dy - (s * cx + c * cy)], [0, 0, 1]])


def _project(homography: np.ndarray, points: np.ndarray) -> np.ndarray:
    projected: np.ndarray = cv2.perspectiveTransform(points.reshape(-1, 1, 2).astype(np.float64), homography)
    return projected.reshape(-1, 2).astype(np.float32)


def _sprite_kind(truth: CellTruth) -> str | None:
    cls = truth.cls
    if cls in (CellClass.EMPTY_LAND, CellClass.EMPTY_RIVER, CellClass.MONUMENT):
        return None
    if cls.is_tile:
        return f"tile-{cls.colour}"
    if cls.is_leader:
        return f"leader-{cls.colour}" + (f"-{truth.dynasty}" if truth.dynasty else "")
    return {
        CellClass.FACE_DOWN: "face-down",
        CellClass.CATASTROPHE: "catastrophe",
        CellClass.TREASURE: "treasure",
        CellClass.UNIFICATION: "unification",
    }[cls]


def _paste(image: np.ndarray, sprite: art.Sprite, x: int, y: int) -> None:
    """Blends a sprite in with its top-left corner at (x, y); what falls off the image is cut."""
    h, w = sprite.alpha.shape
    x0, y0 = max(0, x), max(0, y)
    x1, y1 = min(image.shape[1], x + w), min(image.shape[0], y + h)
    if x1 <= x0 or y1 <= y0:
        return
    bgr = sprite.bgr[y0 - y : y1 - y, x0 - x : x1 - x]
    alpha = sprite.alpha[y0 - y : y1 - y, x0 - x : x1 - x]
    region = image[y0:y1, x0:x1]
    region[:] = cv2.blendLinear(bgr, region, alpha, 1 - alpha)


def pieces(scene: Scene) -> list[tuple[int, str]]:
    """Every piece on the board as (square, kind): `tile-red`, `face-down`, `catastrophe`,
    `treasure`, `unification`, `leader-red-archer` (or `leader-red`), and `monument-red-blue` on
    the top-left square of its 2×2."""
    found = [(cell, kind) for cell, truth in enumerate(scene.cells) if (kind := _sprite_kind(truth)) is not None]
    for cell in _monument_blocks(scene.cells):
        colours = scene.cells[cell].monument
        assert colours is not None
        found.append((cell, f"monument-{colours[0]}-{colours[1]}"))
    return found


@dataclass(frozen=True)
class BoardArt:
    """The board seen from straight above as an artist draws it, border, marker cards and pieces
    included: colour premultiplied by coverage, so that what lies outside the board (a marker card
    overhanging a narrow border, the board's shadow) falls on the table."""

    colour: np.ndarray  # H×W×3 uint8, premultiplied
    cover: np.ndarray  # H×W uint8, 255 = covered
    margin_mm: float  # the grid's top-left corner lies this far from the art's top-left edge


class Artist(Protocol):
    """Another artist's printing of the game (`vision.sim.unseen.Printing`): it draws the board and
    the table; the camera, the light and the hands stay the renderer's."""

    def board_art(self, scene: Scene, px_per_square: int, viewpoint: tuple[float, float, float]) -> BoardArt: ...

    def table_art(self, size: tuple[int, int]) -> np.ndarray: ...


Style = str | Artist  # "classic" or "modern" (art's two editions), or another artist's printing


def top_down(
    scene: Scene,
    style: str = "classic",
    px_per_square: int = 48,
    *,
    markers: bool = False,
    jitter: float = 0.0,
    seed: int = 0,
    viewpoint: tuple[float, float, float] | None = None,
    placement: int | None = None,
    poses: tuple[tuple[int, float, float, float], ...] = (),
) -> np.ndarray:
    """A clean top-down picture of the whole board, border included: the grid's top-left corner
    is at (MARGIN_MM / SQUARE_MM × px_per_square) pixels from each edge.

    `jitter` > 0 places pieces as hands do: off-centre and turned by up to that share of a square
    (and about 100 × jitter degrees); leaders then face any way. `viewpoint` is the camera's
    position in board millimetres (x, y, height over the board): a camera sees the tops of tall
    pieces pushed away from the point below it, so each piece is drawn shifted accordingly.
    `placement`: where hands put each piece is drawn from this seed, the square and the piece,
    so a piece stays put from one picture to the next (None: drawn afresh from `seed`). `poses`:
    (square, dx, dy, degrees) moves and turns the piece on that square further (a piece nudged,
    a tile turned), dx and dy in shares of a square."""
    if px_per_square < 8:
        raise ValueError("a board picture needs at least 8 pixels per square")
    image = art.board_art(scene.river, scene.corners, style, px_per_square, markers).copy()
    m = round(geometry.MARGIN_MM / geometry.SQUARE_MM * px_per_square)
    rng = np.random.default_rng(seed)
    per_mm = px_per_square / geometry.SQUARE_MM
    moves = {cell: (dx, dy, turn) for cell, dx, dy, turn in poses}
    for cell, kind in pieces(scene):
        row, col = divmod(cell, COLUMNS)
        x, y = m + col * px_per_square, m + row * px_per_square
        sprite = art.sprite(style, kind, px_per_square)
        lean_x, lean_y = 0.0, 0.0
        if viewpoint is not None:
            height = art.height_mm(style, kind)
            size_mm = sprite.alpha.shape[0] / per_mm
            centre_x, centre_y = (
                col * geometry.SQUARE_MM + size_mm / 2,
                row * geometry.SQUARE_MM + size_mm / 2,
            )
            lean = height / (viewpoint[2] - height) * per_mm
            lean_x, lean_y = (centre_x - viewpoint[0]) * lean, (centre_y - viewpoint[1]) * lean
        moved = moves.get(cell)
        if jitter > 0 or moved is not None:  # put down by hand: off-centre, a little turned; leaders face any way
            leader = kind.startswith("leader")
            dx = dy = angle = 0.0
            step = 30 if leader else 2  # turned sprites are cached at these steps (degrees)
            if jitter > 0:
                hand = rng if placement is None else np.random.default_rng([placement, cell, zlib.crc32(kind.encode())])
                dx, dy = hand.uniform(-jitter, jitter, 2) * px_per_square
                angle = hand.uniform(0, 360) if leader else hand.uniform(-100, 100) * jitter
            if moved is not None:
                dx, dy, angle, step = dx + moved[0] * px_per_square, dy + moved[1] * px_per_square, angle + moved[2], 1
            sprite = art.turned(style, kind, px_per_square, step * round(angle / step) % 360)
            pad = (sprite.alpha.shape[0] - art.sprite(style, kind, px_per_square).alpha.shape[0]) // 2
            x, y = x - pad + round(dx), y - pad + round(dy)
        _paste(image, sprite, x + round(lean_x), y + round(lean_y))
    return image


@lru_cache(maxsize=4)
def _table(size: tuple[int, int]) -> np.ndarray:
    """A wooden table top filling the frame (cached, read-only). Drawn once at a fixed size and
    scaled, so that every frame size sees the same table."""
    w, h = size
    base_w, base_h = 1024, 768
    rng = np.random.default_rng(99)
    yy, xx = np.mgrid[0:base_h, 0:base_w].astype(np.float32)
    wobble = cv2.resize(rng.uniform(-1, 1, (8, 8)).astype(np.float32), (base_w, base_h), interpolation=cv2.INTER_CUBIC)
    rings = np.sin((yy * 0.9 + xx * 0.15) / 3.5 + 6 * wobble)
    grain = cv2.resize(rng.normal(0, 1, (base_h // 4, base_w)).astype(np.float32), (base_w, base_h))
    shade = 1 + 0.08 * rings + 0.05 * grain
    table = np.clip(np.array([60, 95, 140], np.float32)[None, None, :] * shade[..., None], 0, 255).astype(np.uint8)
    out: np.ndarray = cv2.resize(table, (w, h), interpolation=cv2.INTER_AREA if w < base_w else cv2.INTER_LINEAR)
    out.flags.writeable = False
    return out


_ART_SCALES = (32, 48, 64, 96, 128, 160)  # few sizes, so that every pose finds its art cached


def _art_scale(homography: np.ndarray) -> int:
    """Pixels per square for the top-down art: the smallest cached size at least about what the
    camera sees at the board's centre (the warp then shrinks it a little, never enlarges much)."""
    centre = np.array([[geometry.GRID_WIDTH_MM / 2, geometry.GRID_HEIGHT_MM / 2]], np.float32)
    pts = centre + np.array([[0, 0], [geometry.SQUARE_MM, 0], [0, geometry.SQUARE_MM]], np.float32)
    p = _project(homography, pts)
    seen = max(float(np.linalg.norm(p[1] - p[0])), float(np.linalg.norm(p[2] - p[0])))
    return next((s for s in _ART_SCALES if s >= 0.95 * seen), _ART_SCALES[-1])


def render(
    scene: Scene,
    *,
    style: Style = "classic",
    size: tuple[int, int] = (2028, 1520),
    pose: CameraPose | None = None,
    conditions: Conditions | None = None,
    seed: int = 0,
) -> Rendered:
    """The frame a camera at `pose` would capture of `scene` under `conditions`."""
    pose = pose or CameraPose()
    conditions = conditions or Conditions()
    w, h = size
    if w < 64 or h < 48:
        raise ValueError(f"a frame of {w}×{h} pixels is too small to render")
    board_to_image = pose.table_to_image(size) @ board_to_table(conditions)
    pps = _art_scale(board_to_image)
    to_board = np.linalg.inv(board_to_table(conditions))
    lens = pose.position_mm()
    bx, by, bw = to_board @ np.array([lens[0], lens[1], 1.0])
    viewpoint = (float(bx / bw), float(by / bw), float(-lens[2]))
    per_mm = pps / geometry.SQUARE_MM
    if isinstance(style, str):
        jitter = conditions.piece_jitter
        board = top_down(scene, style, pps, markers=True, jitter=jitter, seed=seed, viewpoint=viewpoint,
                         placement=conditions.placement, poses=conditions.poses)
        frame = _table(size).copy()
        offset = geometry.MARGIN_MM * per_mm - 0.5  # board mm → art pixel centres
        art_to_board = np.array([[1 / per_mm, 0, -offset / per_mm], [0, 1 / per_mm, -offset / per_mm], [0, 0, 1]])
        cv2.warpPerspective(
            board,
            board_to_image @ art_to_board,
            size,
            dst=frame,
            flags=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_TRANSPARENT,
        )
    else:
        frame = _lay(style.board_art(scene, pps, viewpoint), style.table_art(size), board_to_image, per_mm)

    rng = np.random.default_rng(seed)
    hand_mask = perturbations.draw_hands(frame, conditions.hands)
    frame = perturbations.apply(frame, conditions, hand_mask, rng)
    markers = {i: _project(board_to_image, c) for i, c in geometry.all_marker_corners_mm().items()}
    return Rendered(
        frame=frame,
        grid_corners=_project(board_to_image, geometry.grid_corners_mm()),
        hand_mask=hand_mask,
        scene=scene,
        board_to_image=board_to_image,
        marker_corners=markers,
    )


def _lay(board: BoardArt, table: np.ndarray, board_to_image: np.ndarray, per_mm: float) -> np.ndarray:
    """Another artist's board laid on its table, seen through the camera."""
    offset = board.margin_mm * per_mm - 0.5
    art_to_board = np.array([[1 / per_mm, 0, -offset / per_mm], [0, 1 / per_mm, -offset / per_mm], [0, 0, 1]])
    to_frame = board_to_image @ art_to_board
    size = (table.shape[1], table.shape[0])
    colour = cv2.warpPerspective(board.colour, to_frame, size, flags=cv2.INTER_LINEAR)
    cover = cv2.warpPerspective(board.cover, to_frame, size, flags=cv2.INTER_LINEAR)
    bare = cv2.cvtColor(cv2.bitwise_not(cover), cv2.COLOR_GRAY2BGR)
    frame: np.ndarray = cv2.add(cv2.multiply(table, bare, scale=1 / 255), colour)
    return frame


def random_scene(rng: np.random.Generator, board: str = "standard", pieces: int = 50) -> Scene:
    """A busy board for vision tests: about `pieces` pieces of every kind where they could stand
    (blue tiles on the river, the rest on land, a monument or two). Not a legal game position —
    benchmarks take those from the rules engine — but every class the reader must tell apart."""
    scene = Scene.setup(board)
    cells = list(scene.cells)
    free = [c for c in range(CELLS) if cells[c].cls in (CellClass.EMPTY_LAND, CellClass.EMPTY_RIVER)]
    for _ in range(int(rng.integers(0, 3))):  # monuments need a free 2×2 of land
        corner = int(rng.choice(free))
        block = block_cells(corner)
        if (
            corner % COLUMNS < COLUMNS - 1
            and block[-1] < CELLS
            and all(cells[c].cls is CellClass.EMPTY_LAND for c in block)
        ):
            colours = tuple(str(c) for c in rng.choice(art.DYNASTY_COLOURS, 2, replace=False))
            for c in block:
                cells[c] = CellTruth(CellClass.MONUMENT, monument=(colours[0], colours[1]))
    land_kinds = [
        *(CellTruth(CellClass[f"TILE_{c.upper()}"]) for c in ("red", "green", "black")),
        *(CellTruth(CellClass[f"LEADER_{c.upper()}"], dynasty=d) for c in art.DYNASTY_COLOURS for d in art.DYNASTIES),
        CellTruth(CellClass.FACE_DOWN),
        CellTruth(CellClass.CATASTROPHE),
        CellTruth(CellClass.UNIFICATION),
    ]
    weights = np.array([6, 4, 4, *[0.4] * 16, 1, 1, 0.3])
    order = rng.permutation([c for c in range(CELLS) if cells[c].cls in (CellClass.EMPTY_LAND, CellClass.EMPTY_RIVER)])
    for cell in order[:pieces]:
        if cells[cell].cls is CellClass.EMPTY_RIVER:
            cells[cell] = CellTruth(CellClass.TILE_BLUE) if rng.random() < 0.85 else CellTruth(CellClass.CATASTROPHE)
        else:
            cells[cell] = land_kinds[int(rng.choice(len(land_kinds), p=weights / weights.sum()))]
    return replace(scene, cells=tuple(cells))


def random_pose(rng: np.random.Generator, size: tuple[int, int] = (2028, 1520)) -> CameraPose:
    """A camera hung a little differently, with the whole board and its markers still in view."""
    for _ in range(100):
        pose = CameraPose(
            height_mm=float(rng.uniform(600, 720)),
            tilt_deg=float(rng.uniform(0, 12)),
            yaw_deg=float(rng.uniform(-6, 6)),
            offset_mm=(float(rng.uniform(-20, 20)), float(rng.uniform(-20, 20))),
            hfov_deg=float(rng.uniform(52, 60)),
        )
        # Room for a bump: the board's corners, 20 mm further out, must stay inside the frame.
        reach = geometry.board_corners_mm() + np.array([[-20, -20], [20, -20], [20, 20], [-20, 20]], np.float32)
        corners = _project(pose.table_to_image(size) @ board_to_table(Conditions()), reach)
        w, h = size
        if corners[:, 0].min() > 0 and corners[:, 1].min() > 0 and corners[:, 0].max() < w and corners[:, 1].max() < h:
            return pose
    return CameraPose()


Shot = tuple[Scene, Conditions]  # one frame of a sequence: what is on the board, what is over it


def hand_passing(
    before: Scene,
    after: Scene | None = None,
    *,
    rng: np.random.Generator,
    still: int = 4,
    moving: int = 8,
    base: Conditions | None = None,
) -> list[Shot]:
    """A hand reaching in over `moving` frames and leaving again, between `still` quiet frames on
    each side. The board shows `before` until the hand is furthest in, then `after` (a piece
    placed, moved or taken) — what the stability gate sees when a player makes a move."""
    base = base or Conditions()
    after = before if after is None else after
    hand = random_hand(rng, reach=0.0)
    deepest = float(rng.uniform(0.45, 0.7))
    shots: list[Shot] = [(before, base)] * still
    for i in range(moving):
        phase = (i + 1) / (moving + 1)  # 0..1, in then out
        reach = deepest * math.sin(math.pi * phase)
        scene = before if phase < 0.5 else after
        shots.append((scene, replace(base, hands=(replace(hand, reach=reach),))))
    shots += [(after, base)] * still
    return shots


def render_sequence(
    shots: list[Shot],
    *,
    style: Style = "classic",
    size: tuple[int, int] = (2028, 1520),
    pose: CameraPose | None = None,
    seed: int = 0,
) -> list[Rendered]:
    """Renders frame after frame; the sensor noise differs per frame, as on a real camera."""
    return [
        render(scene, style=style, size=size, pose=pose, conditions=conditions, seed=seed + i)
        for i, (scene, conditions) in enumerate(shots)
    ]
