"""The board picture as SVG, for the table's page: the screen's drawing (companion.ui.boardpic) in
the screen's colours and symbols, with its coordinates, drawn from the same `BoardView`.

SVG rather than the screen's pixels: sharp at any phone's size, a few kilobytes, and drawn without
pygame, whose font renderer must not be used from the server's thread.
"""

from __future__ import annotations

from companion.ui.boardpic import FACE_DOWN, GRID, LAND, MARK_COLOURS, RIVER, TINTS
from companion.ui.model import DYNASTY_LETTERS, BoardView, MarkKind, Square
from companion.ui.style import COLOURS, INK, PAPER, TREASURE

COLUMNS, ROWS = 16, 11
S = 40  # one square, in SVG units
GUTTER = 24  # room for the coordinates
LETTERS = "ABCDEFGHIJKLMNOP"


def rgb(colour: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*colour)


def _mix(a: tuple[int, int, int], b: tuple[int, int, int]) -> tuple[int, int, int]:
    return (a[0] + b[0]) // 2, (a[1] + b[1]) // 2, (a[2] + b[2]) // 2


def symbol(colour: str, x: float, y: float, size: float) -> str:
    """The colour's shape in white in the box at (x, y): temple ▲, farm ≈, market ●, settlement ■."""
    ink, paper = rgb(INK), rgb(PAPER)
    if colour == "red":
        return (f'<polygon points="{x + size / 2},{y} {x + size},{y + size} {x},{y + size}" fill="{paper}" '
                f'stroke="{ink}" stroke-width="1"/>')
    if colour == "blue":
        waves = "".join(f'<path d="M{x},{y + dy} q{size / 4},{-size / 6} {size / 2},0 t{size / 2},0" fill="none" '
                        f'stroke="{paper}" stroke-width="{size / 6:.1f}"/>' for dy in (size / 4, 3 * size / 4))
        return waves
    if colour == "green":
        return f'<circle cx="{x + size / 2}" cy="{y + size / 2}" r="{size / 2}" fill="{paper}" stroke="{ink}"/>'
    side = size * 0.8
    corner = (size - side) / 2
    return f'<rect x="{x + corner}" y="{y + corner}" width="{side}" height="{side}" fill="{paper}"/>'


def _square(x: int, y: int, square: Square, tint: tuple[int, int, int] | None) -> str:
    ground = RIVER if square.river else LAND
    fill = rgb(ground if tint is None else _mix(ground, tint))
    parts = [f'<rect x="{x}" y="{y}" width="{S}" height="{S}" fill="{fill}" stroke="{rgb(GRID)}"/>']
    inset = S // 8
    inner = (x + inset, y + inset, S - 2 * inset)
    if square.corner:
        parts.append(f'<rect x="{x + 2}" y="{y + 2}" width="{S - 4}" height="{S - 4}" fill="none" '
                     f'stroke="{rgb(INK)}" stroke-width="3"/>')
    if square.catastrophe:
        ix, iy, side = inner
        parts.append(f'<rect x="{ix}" y="{iy}" width="{side}" height="{side}" fill="#464646"/>'
                     f'<path d="M{ix},{iy} l{side},{side} M{ix + side},{iy} l{-side},{side}" stroke="#fa7828" '
                     'stroke-width="5"/>')
    elif square.face_down:
        ix, iy, side = inner
        parts.append(f'<rect x="{ix}" y="{iy}" width="{side}" height="{side}" fill="{rgb(FACE_DOWN)}" '
                     f'stroke="{rgb(INK)}"/>')
    elif square.tile is not None:
        ix, iy, side = inner
        edge = rgb(PAPER if square.tile == "black" else INK)
        parts.append(f'<rect x="{ix}" y="{iy}" width="{side}" height="{side}" fill="{rgb(COLOURS[square.tile])}" '
                     f'stroke="{edge}"/>')
        parts.append(symbol(square.tile, ix + side / 3, iy + side / 3, side / 3))
    if square.unification:
        parts.append(f'<circle cx="{x + S / 2}" cy="{y + S / 2}" r="{S / 2 - inset}" fill="none" '
                     f'stroke="{rgb(PAPER)}" stroke-width="5"/>')
    if square.treasure:
        d = S / 3
        tx, ty = x + S - inset - d, y + inset
        diamond = f"{tx + d / 2},{ty} {tx + d},{ty + d / 2} {tx + d / 2},{ty + d} {tx},{ty + d / 2}"
        parts.append(f'<polygon points="{diamond}" fill="{rgb(TREASURE)}" stroke="{rgb(INK)}"/>')
    if square.leader is not None:
        colour, dynasty = square.leader
        cx, cy = x + S / 2, y + S / 2
        parts.append(f'<circle cx="{cx}" cy="{cy}" r="{S * 0.45}" fill="{rgb(PAPER)}"/>'
                     f'<circle cx="{cx}" cy="{cy}" r="{S * 0.45 - 3}" fill="{rgb(COLOURS[colour])}"/>')
        parts.append(symbol(colour, cx - S * 0.15, y + S / 6, S * 0.3))
        parts.append(f'<text x="{cx}" y="{y + S * 0.85}" font-size="{S * 0.38:.0f}" text-anchor="middle" '
                     f'fill="{rgb(PAPER)}" font-weight="bold">{DYNASTY_LETTERS.get(dynasty, "?")}</text>')
    return "".join(parts)


def _monument(x: int, y: int, colours: tuple[str, str]) -> str:
    """Standing in the middle of its 2×2: a block split into its two colours."""
    left, top = x + S / 2, y + S / 2
    halves = "".join(f'<rect x="{left + i * S / 2}" y="{top}" width="{S / 2}" height="{S}" fill="{rgb(COLOURS[c])}"/>'
                     + symbol(c, left + i * S / 2 + S / 8, top + S / 4, S / 4) for i, c in enumerate(colours))
    return halves + (f'<rect x="{left}" y="{top}" width="{S}" height="{S}" fill="none" stroke="{rgb(PAPER)}" '
                     'stroke-width="2"/>')


def _mark(x: int, y: int, kind: MarkKind) -> str:
    colour = rgb(MARK_COLOURS[kind])
    if kind is MarkKind.ATTACKER:
        return f'<rect x="{x + 2}" y="{y + 2}" width="{S - 4}" height="{S - 4}" fill="none" stroke="{colour}" ' \
               'stroke-width="5"/>'
    if kind is MarkKind.DEFENDER:
        a = S // 3
        return (f'<path d="M{x + 2},{y + 2 + a} v{-a} h{a} M{x + S - 2 - a},{y + 2} h{a} v{a} '
                f'M{x + 2},{y + S - 2 - a} v{a} h{a} M{x + S - 2 - a},{y + S - 2} h{a} v{-a}" fill="none" '
                f'stroke="{colour}" stroke-width="5"/>')
    return (f'<circle cx="{x + S / 2}" cy="{y + S / 2}" r="{S * 0.7}" fill="none" stroke="{rgb(INK)}" '
            f'stroke-width="8"/><circle cx="{x + S / 2}" cy="{y + S / 2}" r="{S * 0.7}" fill="none" '
            f'stroke="{colour}" stroke-width="4"/>')


def _outline(x0: int, y0: int, cells: frozenset[int]) -> str:
    """The kingdom's border: each edge of its squares that no other square of it shares."""
    path = []
    for cell in cells:
        col, row = cell % COLUMNS, cell // COLUMNS
        x, y = x0 + col * S, y0 + row * S
        if row == 0 or cell - COLUMNS not in cells:
            path.append(f"M{x},{y}h{S}")
        if row == ROWS - 1 or cell + COLUMNS not in cells:
            path.append(f"M{x},{y + S}h{S}")
        if col == 0 or cell - 1 not in cells:
            path.append(f"M{x},{y}v{S}")
        if col == COLUMNS - 1 or cell + 1 not in cells:
            path.append(f"M{x + S},{y}v{S}")
    return f'<path d="{"".join(path)}" fill="none" stroke="#ffffff" stroke-width="4"/>'


def board_svg(board: BoardView) -> str:
    """The whole picture: squares, kingdoms tinted, outlined and numbered, monuments, marks, coordinates."""
    x0, y0 = GUTTER, GUTTER
    width, height = x0 + COLUMNS * S + 2, y0 + ROWS * S + 2
    tint = {cell: TINTS[i % len(TINTS)] for i, kingdom in enumerate(board.kingdoms) for cell in kingdom}
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" role="img" '
             'aria-label="The board" font-family="sans-serif">']
    for c in range(COLUMNS):
        parts.append(f'<text x="{x0 + c * S + S / 2}" y="{y0 - 6}" font-size="16" text-anchor="middle" '
                     f'fill="#b9bec6">{LETTERS[c]}</text>')
    for r in range(ROWS):
        parts.append(f'<text x="{x0 - 4}" y="{y0 + r * S + S / 2 + 6}" font-size="16" text-anchor="end" '
                     f'fill="#b9bec6">{r + 1}</text>')
    for index, square in enumerate(board.squares):
        parts.append(_square(x0 + index % COLUMNS * S, y0 + index // COLUMNS * S, square, tint.get(index)))
    for index, square in enumerate(board.squares):
        if square.monument is not None:
            parts.append(_monument(x0 + index % COLUMNS * S, y0 + index // COLUMNS * S, square.monument))
    for i, kingdom in enumerate(board.kingdoms):
        parts.append(_outline(x0, y0, kingdom))
        first = min(kingdom)
        cx, cy = x0 + first % COLUMNS * S + 11, y0 + first // COLUMNS * S + 11
        parts.append(f'<circle cx="{cx}" cy="{cy}" r="10" fill="{rgb(TINTS[i % len(TINTS)])}" stroke="{rgb(INK)}" '
                     f'stroke-width="2"/><text x="{cx}" y="{cy + 5}" font-size="14" text-anchor="middle" '
                     f'fill="{rgb(INK)}">{i + 1}</text>')
    for mark in board.marks:
        parts.append(_mark(x0 + mark.cell % COLUMNS * S, y0 + mark.cell // COLUMNS * S, mark.kind))
    parts.append(f'<rect x="{x0}" y="{y0}" width="{COLUMNS * S}" height="{ROWS * S}" fill="none" '
                 f'stroke="{rgb(INK)}" stroke-width="2"/></svg>')
    return "".join(parts)
