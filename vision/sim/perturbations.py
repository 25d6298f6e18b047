"""What a real table does to the camera's picture: light, lamps, glare, shadows, hands, lens
and sensor. `Conditions` describes them; the functions here apply them to a rendered frame.

Lighting is computed on a coarse grid and scaled up (light varies slowly), so a full frame
costs a handful of milliseconds; sensor noise comes from a cached bank with a seeded offset.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import lru_cache

import cv2
import numpy as np

EDGES = ("top", "bottom", "left", "right")
_COARSE = 8  # the lighting grid is 1/8 of the frame


@dataclass(frozen=True)
class Hand:
    """An arm reaching into the picture from one edge of the frame."""

    edge: str = "bottom"  # where the arm enters: top, bottom, left or right
    along: float = 0.5  # where along that edge, 0..1
    reach: float = 0.5  # how far the fingertips come in, as a share of the frame across
    angle_deg: float = 0.0  # slant away from straight in
    width: float = 1.0  # 1 = an adult's arm at the default camera height
    skin: tuple[int, int, int] = (110, 145, 200)  # BGR
    sleeve: tuple[int, int, int] | None = (120, 70, 50)  # None: a bare arm

    def __post_init__(self) -> None:
        if self.edge not in EDGES:
            raise ValueError(f"a hand enters from one of {', '.join(EDGES)}, not {self.edge!r}")


@dataclass(frozen=True)
class Glare:
    """A bright reflection of a lamp on the board's varnish."""

    x: float = 0.5  # centre, as a share of the frame width
    y: float = 0.5  # ... and height
    radius: float = 0.08  # share of the frame width
    strength: float = 0.6  # 1 saturates the centre


@dataclass(frozen=True)
class Shadow:
    """A soft shadow thrown by something off the picture (a player leaning in, a mug, a lamp arm)."""

    x: float = 0.5
    y: float = 0.5
    width: float = 0.3  # share of the frame width
    height: float = 0.2  # share of the frame height
    angle_deg: float = 0.0
    darkness: float = 0.4  # 0 none .. 1 black


@dataclass(frozen=True)
class Conditions:
    """What the table does to the picture. The default is a perfect picture."""

    blur_sigma: float = 0.0  # lens blur, pixels
    noise_sigma: float = 0.0  # sensor noise, grey levels
    jpeg_quality: int | None = None  # JPEG round trip at this quality
    exposure: float = 1.0  # overall brightness gain; 1.6 is badly overexposed
    light_falloff: float = 0.0  # 0..1: how much darker the far side of the table is
    light_angle_deg: float = 0.0  # where the light comes from (0: from the left, 90: from the top)
    vignette: float = 0.0  # 0..1: darker frame corners
    lamp: float = 0.0  # -1 cool (bluish) .. +1 warm (orange) light
    glare: Glare | None = None
    shadows: tuple[Shadow, ...] = ()
    hands: tuple[Hand, ...] = ()
    board_shift_mm: tuple[float, float] = (0.0, 0.0)  # the board bumped along the table
    board_rotation_deg: float = 0.0  # ... and turned
    piece_jitter: float = 0.0  # pieces put down off-centre by up to this share of a square
    placement: int | None = None  # seed of where hands put each piece: kept from picture to picture
    poses: tuple[tuple[int, float, float, float], ...] = ()  # (square, dx, dy, degrees): pieces moved further
    notes: tuple[str, ...] = field(default=(), compare=False)  # what random_conditions chose, for reports

    def exposed(self, share: float) -> Conditions:
        """The same table seen through `share` of the exposure: the light, glare included, that
        much weaker (the sensor's noise stays as it is)."""
        glare = None if self.glare is None else replace(self.glare, strength=self.glare.strength * share)
        return replace(self, exposure=self.exposure * share, glare=glare)


# --- Hands. -------------------------------------------------------------------------------------


def _hand_outline(hand: Hand, size: tuple[int, int]) -> tuple[np.ndarray, list[tuple[np.ndarray, int]], float]:
    """The arm polygon and the finger strokes, in pixels, and the arm's width in pixels."""
    w, h = size
    arm = 0.1 * w * hand.width
    inward = {"top": (0.0, 1.0), "bottom": (0.0, -1.0), "left": (1.0, 0.0), "right": (-1.0, 0.0)}[hand.edge]
    a = math.radians(hand.angle_deg)
    dx = inward[0] * math.cos(a) - inward[1] * math.sin(a)
    dy = inward[0] * math.sin(a) + inward[1] * math.cos(a)
    across = h if hand.edge in ("top", "bottom") else w
    edge_point = {
        "top": (hand.along * w, 0.0),
        "bottom": (hand.along * w, float(h)),
        "left": (0.0, hand.along * h),
        "right": (float(w), hand.along * h),
    }[hand.edge]
    direction = np.array([dx, dy])
    normal = np.array([-dy, dx])
    # The fingertips are `reach` into the frame; the arm starts well outside it.
    wrist = np.array(edge_point) + direction * (hand.reach * across - 1.2 * arm)
    start = np.array(edge_point) - direction * 2 * arm
    polygon = np.array(
        [
            start - normal * arm * 0.6,
            wrist - normal * arm * 0.42,
            wrist + direction * arm * 0.15 - normal * arm * 0.55,
            wrist + direction * arm * 0.65 - normal * arm * 0.5,
            wrist + direction * arm * 0.75 + normal * arm * 0.5,
            wrist + direction * arm * 0.15 + normal * arm * 0.55,
            wrist + normal * arm * 0.42,
            start + normal * arm * 0.6,
        ]
    )
    fingers = []
    thickness = max(2, round(arm * 0.17))
    for offset, length in ((-0.36, 0.45), (-0.12, 0.55), (0.12, 0.52), (0.34, 0.4)):
        base = wrist + direction * arm * 0.65 + normal * arm * offset
        fingers.append((np.array([base, base + direction * arm * length]), thickness))
    thumb = wrist + direction * arm * 0.2 + normal * arm * 0.5
    fingers.append((np.array([thumb, thumb + (direction + normal) * arm * 0.3]), round(thickness * 1.2)))
    return polygon, fingers, arm


def draw_hands(frame: np.ndarray, hands: tuple[Hand, ...]) -> np.ndarray:
    """Paints the hands over the frame in place; returns where they are (bool mask)."""
    h, w = frame.shape[:2]
    covered = np.zeros((h, w), np.uint8)
    for hand in hands:
        polygon, fingers, arm = _hand_outline(hand, (w, h))
        # Draw on a canvas just big enough for this hand, clipped to the frame.
        points = np.concatenate([polygon, *(stroke for stroke, _ in fingers)])
        reach = max(t for _, t in fingers)
        x, y = max(0, int(points[:, 0].min()) - reach), max(0, int(points[:, 1].min()) - reach)
        x1, y1 = min(w, int(points[:, 0].max()) + reach + 1), min(h, int(points[:, 1].max()) + reach + 1)
        if x1 <= x or y1 <= y:
            continue
        bw, bh = x1 - x, y1 - y
        canvas = np.zeros((bh, bw), np.uint8)
        cv2.fillPoly(canvas, [_fixed(polygon - (x, y))], 255, cv2.LINE_8, shift=4)
        for stroke, thickness in fingers:
            p0, p1 = (tuple(int(v) for v in np.round(p - (x, y))) for p in stroke)
            cv2.line(canvas, p0, p1, 255, thickness, cv2.LINE_8)
            cv2.circle(canvas, p1, thickness // 2, 255, -1, cv2.LINE_8)
        if not canvas.any():
            continue
        # Round like a limb: brighter along the middle, darker at the sides.
        small = cv2.resize(canvas, (max(1, bw // 4), max(1, bh // 4)), interpolation=cv2.INTER_AREA)
        roundness = cv2.GaussianBlur(small.astype(np.float32) / 255, (0, 0), max(1.0, arm / 16))
        shade_small = np.clip((0.55 + 0.5 * roundness) * 128, 0, 255).astype(np.uint8)  # 128 = unchanged
        shade = cv2.resize(shade_small, (bw, bh), interpolation=cv2.INTER_LINEAR)
        colour = np.empty((bh, bw, 3), np.uint8)
        colour[:] = hand.skin
        if hand.sleeve is not None:  # the sleeve ends a hand's length behind the wrist
            start, wrist = (polygon[0] + polygon[-1]) / 2, (polygon[1] + polygon[-2]) / 2
            along = (wrist - start) / max(1e-6, float(np.linalg.norm(wrist - start)))
            cuff = wrist - along * arm * 1.3
            across = np.array([-along[1], along[0]]) * arm
            sleeve = np.array([start - across, cuff - across, cuff + across, start + across]) - (x, y)
            cv2.fillPoly(colour, [_fixed(sleeve)], hand.sleeve, cv2.LINE_8, shift=4)
        painted = cv2.multiply(colour, cv2.merge([shade, shade, shade]), scale=1 / 128)
        region = frame[y : y + bh, x : x + bw]
        cv2.copyTo(painted, canvas, region)
        cv2.bitwise_or(covered[y : y + bh, x : x + bw], canvas, covered[y : y + bh, x : x + bw])
    mask: np.ndarray = covered > 0
    return mask


def _fixed(points: np.ndarray) -> np.ndarray:
    """Points in OpenCV's 4-bit fixed point, for sub-pixel drawing."""
    return np.round(points * 16).astype(np.int32)


# --- Light. -------------------------------------------------------------------------------------


def _light(
    conditions: Conditions, size: tuple[int, int], hand_mask: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray | None]:
    """Per-pixel gain (H×W×3 uint8, 128 = unchanged) and added glare (H×W×3 uint8, None without
    glare), computed on a coarse grid and scaled up."""
    w, h = size
    cw, ch = max(2, w // _COARSE), max(2, h // _COARSE)
    yy, xx = np.mgrid[0:ch, 0:cw].astype(np.float32)
    u, v = (xx + 0.5) / cw - 0.5, (yy + 0.5) / ch - 0.5  # -0.5..0.5 across the frame
    gain = np.full((ch, cw), conditions.exposure, np.float32)
    if conditions.light_falloff:
        a = math.radians(conditions.light_angle_deg)
        away = u * math.cos(a) + v * math.sin(a)  # -0.7..0.7 from the light to the far side
        gain *= 1 - conditions.light_falloff * (away + 0.7) / 1.4
    if conditions.vignette:
        gain *= 1 - conditions.vignette * (u * u + v * v) / 0.5
    if conditions.shadows or (hand_mask is not None and hand_mask.any()):
        shade = np.zeros((ch, cw), np.float32)
        for shadow in conditions.shadows:
            axes = (max(1, round(shadow.width * cw / 2)), max(1, round(shadow.height * ch / 2)))
            blob = np.zeros((ch, cw), np.float32)
            cv2.ellipse(
                blob,
                (round(shadow.x * cw), round(shadow.y * ch)),
                axes,
                shadow.angle_deg,
                0,
                360,
                shadow.darkness,
                -1,
            )
            shade = np.maximum(shade, cv2.GaussianBlur(blob, (0, 0), max(1.0, min(axes) / 2)))
        if hand_mask is not None and hand_mask.any():
            # Hands hover a few cm over the board: their shadow falls offset and soft.
            # Nearest sampling is enough: the shadow is blurred far more than the sampling step.
            small = cv2.resize(hand_mask.view(np.uint8), (cw, ch), interpolation=cv2.INTER_NEAREST).astype(np.float32)
            shift = np.array([[1, 0, cw * 0.025], [0, 1, ch * 0.035]], np.float32)
            moved = cv2.warpAffine(small, shift, (cw, ch))
            shade = np.maximum(shade, 0.45 * cv2.GaussianBlur(moved, (0, 0), max(1.0, cw / 120)))
        gain *= 1 - shade
    tint = np.array([1.0, 1.0, 1.0], np.float32)
    if conditions.lamp > 0:  # warm: less blue, a little more red
        tint += conditions.lamp * np.array([-0.3, -0.08, 0.08], np.float32)
    elif conditions.lamp < 0:  # cool: more blue, less red
        tint += -conditions.lamp * np.array([0.12, 0.0, -0.18], np.float32)
    gain3 = np.clip(gain[..., None] * tint * 128, 0, 255).astype(np.uint8)
    full_glare = None
    if conditions.glare is not None:
        g = conditions.glare
        r2 = ((xx + 0.5) / cw - g.x) ** 2 + (((yy + 0.5) / ch - g.y) * h / w) ** 2  # in frame widths
        glare = np.clip(255 * g.strength * np.exp(-r2 / (2 * (g.radius / 2) ** 2)), 0, 255).astype(np.uint8)
        full_glare = cv2.resize(cv2.merge([glare, glare, glare]), (w, h), interpolation=cv2.INTER_LINEAR)
    full_gain: np.ndarray = cv2.resize(gain3, (w, h), interpolation=cv2.INTER_LINEAR)
    return full_gain, full_glare


@lru_cache(maxsize=2)
def _noise_bank(size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Gaussian noise (σ = 16) a little larger than the frame, split into its positive and negative
    parts as uint8 so that adding it is two saturating uint8 operations (read-only, cached)."""
    w, h = size
    noise = np.random.default_rng(7).normal(0, 16, (h + 64, w + 64, 3)).astype(np.float32)
    positive = np.clip(noise, 0, 255).astype(np.uint8)
    negative = np.clip(-noise, 0, 255).astype(np.uint8)
    positive.flags.writeable = negative.flags.writeable = False
    return positive, negative


def _add_noise(frame: np.ndarray, sigma: float, rng: np.random.Generator) -> np.ndarray:
    h, w = frame.shape[:2]
    dx, dy = (int(v) for v in rng.integers(0, 64, 2))
    positive, negative = (bank[dy : dy + h, dx : dx + w] for bank in _noise_bank((w, h)))
    scale = sigma / 16
    out = cv2.add(frame, cv2.convertScaleAbs(positive, alpha=scale))
    return cv2.subtract(out, cv2.convertScaleAbs(negative, alpha=scale))


def apply(
    frame: np.ndarray, conditions: Conditions, hand_mask: np.ndarray | None, rng: np.random.Generator
) -> np.ndarray:
    """Light, lens, sensor and compression, in the order a camera applies them."""
    h, w = frame.shape[:2]
    lit = (
        conditions.exposure != 1
        or conditions.light_falloff
        or conditions.vignette
        or conditions.lamp
        or conditions.glare is not None
        or conditions.shadows
        or (hand_mask is not None and hand_mask.any())
    )
    out = frame
    if lit:
        gain, glare = _light(conditions, (w, h), hand_mask)
        out = cv2.multiply(out, gain, scale=1 / 128)
        if glare is not None:
            out = cv2.add(out, glare)
    if conditions.blur_sigma > 0:
        out = cv2.GaussianBlur(out, (0, 0), conditions.blur_sigma)
    if conditions.noise_sigma > 0:
        out = _add_noise(out, conditions.noise_sigma, rng)
    if conditions.jpeg_quality is not None:
        ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(conditions.jpeg_quality)])
        if not ok:
            raise RuntimeError("OpenCV could not encode a JPEG")
        decoded = cv2.imdecode(data, cv2.IMREAD_COLOR)
        if decoded is None:
            raise RuntimeError("OpenCV could not decode its own JPEG")
        out = decoded
    return out


# --- Drawing conditions at random, for benchmarks. -------------------------------------------------


def random_hand(rng: np.random.Generator, reach: float | None = None) -> Hand:
    skins = ((110, 145, 200), (80, 115, 170), (60, 85, 130), (140, 170, 220), (45, 65, 100))
    sleeves = ((120, 70, 50), (40, 40, 40), (200, 200, 205), (60, 60, 150), (70, 120, 70), None)
    return Hand(
        edge=str(rng.choice(["bottom", "bottom", "top", "left", "right"])),
        along=float(rng.uniform(0.15, 0.85)),
        reach=float(rng.uniform(0.2, 0.65)) if reach is None else reach,
        angle_deg=float(rng.uniform(-30, 30)),
        width=float(rng.uniform(0.8, 1.2)),
        skin=skins[int(rng.integers(len(skins)))],
        sleeve=sleeves[int(rng.integers(len(sleeves)))],
    )


Range = tuple[float, float]


@dataclass(frozen=True)
class TableRanges:
    """How widely `random_conditions` draws a table: for each effect how often it happens and
    between what it lies. The defaults are the developed-on tables; `vision.sim.unseen` draws
    wider ones."""

    glare: float = 0.3
    glare_at: Range = (0.2, 0.8)  # share of the frame, across and down
    glare_radius: Range = (0.04, 0.12)  # share of the frame's width
    glare_strength: Range = (0.25, 0.7)
    shadow: float = 0.35
    shadows: int = 2  # up to this many at once
    shadow_width: Range = (0.15, 0.5)
    shadow_height: Range = (0.1, 0.4)
    shadow_darkness: Range = (0.2, 0.5)
    bump: float = 0.25
    bump_mm: float = 15.0
    bump_deg: float = 3.0
    blur: float = 0.6
    blur_sigma: Range = (0.4, 1.8)
    noise: float = 0.8
    noise_sigma: Range = (1.5, 7.0)
    jpeg: float = 0.35  # Pi frames are raw; webcams send JPEG
    jpeg_quality: tuple[int, int] = (60, 96)
    exposure: Range = (0.7, 1.3)
    uneven: float = 0.6
    falloff: Range = (0.05, 0.4)
    vignette: float = 0.5
    vignette_strength: Range = (0.05, 0.3)
    lamp: float = 0.5
    lamp_strength: Range = (0.3, 1.0)
    jitter: Range | None = (0.01, 0.08)  # pieces put down off-centre; None: the artist places them


def random_glare(rng: np.random.Generator, ranges: TableRanges) -> Glare:
    return Glare(
        float(rng.uniform(*ranges.glare_at)),
        float(rng.uniform(*ranges.glare_at)),
        float(rng.uniform(*ranges.glare_radius)),
        float(rng.uniform(*ranges.glare_strength)),
    )


def random_shadow(rng: np.random.Generator, ranges: TableRanges) -> Shadow:
    return Shadow(
        float(rng.uniform(0, 1)),
        float(rng.uniform(0, 1)),
        float(rng.uniform(*ranges.shadow_width)),
        float(rng.uniform(*ranges.shadow_height)),
        float(rng.uniform(0, 180)),
        float(rng.uniform(*ranges.shadow_darkness)),
    )


def random_conditions(
    rng: np.random.Generator, *, hands: bool = False, bump: bool = True, ranges: TableRanges = TableRanges()
) -> Conditions:
    """A plausible table: each perturbation drawn independently, most of them mild, some strong.
    Hands only when asked for (a reader must refuse frames with hands rather than read them)."""
    notes = []
    r = ranges

    def maybe(p: float, name: str) -> bool:
        chosen = bool(rng.random() < p)
        if chosen:
            notes.append(name)
        return chosen

    glare = random_glare(rng, r) if maybe(r.glare, "glare") else None
    shadows: tuple[Shadow, ...] = ()
    if maybe(r.shadow, "shadow"):
        shadows = tuple(random_shadow(rng, r) for _ in range(int(rng.integers(1, r.shadows + 1))))
    shift, turn = (0.0, 0.0), 0.0
    if bump and maybe(r.bump, "bump"):
        shift = (float(rng.uniform(-r.bump_mm, r.bump_mm)), float(rng.uniform(-r.bump_mm, r.bump_mm)))
        turn = float(rng.uniform(-r.bump_deg, r.bump_deg))
    return Conditions(
        blur_sigma=float(rng.uniform(*r.blur_sigma)) if maybe(r.blur, "blur") else 0.0,
        noise_sigma=float(rng.uniform(*r.noise_sigma)) if maybe(r.noise, "noise") else 0.0,
        jpeg_quality=int(rng.integers(*r.jpeg_quality)) if maybe(r.jpeg, "jpeg") else None,
        exposure=float(rng.uniform(*r.exposure)),
        light_falloff=float(rng.uniform(*r.falloff)) if maybe(r.uneven, "uneven light") else 0.0,
        light_angle_deg=float(rng.uniform(0, 360)),
        vignette=float(rng.uniform(*r.vignette_strength)) if maybe(r.vignette, "vignette") else 0.0,
        lamp=float(rng.choice([-1, 1]) * rng.uniform(*r.lamp_strength)) if maybe(r.lamp, "lamp") else 0.0,
        glare=glare,
        shadows=shadows,
        hands=tuple(random_hand(rng) for _ in range(int(rng.integers(1, 3)))) if hands and maybe(1, "hands") else (),
        board_shift_mm=shift,
        board_rotation_deg=turn,
        piece_jitter=float(rng.uniform(*r.jitter)) if r.jitter is not None else 0.0,
        notes=tuple(notes),
    )
