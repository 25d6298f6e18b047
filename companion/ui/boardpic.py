"""The board picture: 16×11 squares drawn from a `BoardView`, kingdoms tinted and numbered, marks on squares.

Every colour is drawn with its symbol (temple ▲, farm ≈, market ●, settlement ■), leaders with their
colour symbol and their dynasty's letter, marks with distinct shapes, so nothing depends on telling
red from green.
"""

from __future__ import annotations

from typing import Any

import pygame

from .model import DYNASTY_LETTERS, BoardView, MarkKind, Square
from .style import COLOURS, INK, PAPER, TREASURE, draw_symbol, font

COLUMNS, ROWS = 16, 11

LAND = (214, 200, 160)
RIVER = (125, 175, 215)
GRID = (150, 140, 115)
KINGDOM = (255, 255, 255)
# Each kingdom's squares take one of these tints (and its number), so neighbouring kingdoms are told
# apart at a glance; the hues differ in lightness too, for colour-blind eyes.
TINTS = ((246, 170, 160), (170, 220, 160), (200, 180, 240), (245, 215, 120), (150, 215, 225), (235, 175, 215),
         (205, 205, 205), (215, 190, 150))
FACE_DOWN = (120, 110, 95)
MARK_COLOURS = {
    MarkKind.ATTACKER: (255, 140, 0),
    MarkKind.DEFENDER: (0, 220, 255),
    MarkKind.DIFFERS: (255, 0, 200),
    MarkKind.REMOVE: (255, 255, 255),
    MarkKind.OPTION: (255, 235, 0),
    MarkKind.LAST: (255, 255, 255),
}


def board_rect(area: pygame.Rect) -> pygame.Rect:
    """The largest whole-pixel 16:11 board that fits `area`, centred."""
    cell = max(1, min(area.width // COLUMNS, area.height // ROWS))
    rect = pygame.Rect(0, 0, cell * COLUMNS, cell * ROWS)
    rect.center = area.center
    return rect


def cell_at(rect: pygame.Rect, pos: tuple[int, int]) -> int | None:
    if not rect.collidepoint(pos):
        return None
    cell = rect.width // COLUMNS
    return (pos[1] - rect.y) // cell * COLUMNS + (pos[0] - rect.x) // cell


def square_rect(rect: pygame.Rect, index: int) -> pygame.Rect:
    cell = rect.width // COLUMNS
    return pygame.Rect(rect.x + index % COLUMNS * cell, rect.y + index // COLUMNS * cell, cell, cell)


def draw_board(surface: Any, rect: pygame.Rect, board: BoardView) -> None:
    size = rect.width // COLUMNS
    tint = {cell: TINTS[i % len(TINTS)] for i, kingdom in enumerate(board.kingdoms) for cell in kingdom}
    for index, square in enumerate(board.squares):
        _draw_square(surface, square_rect(rect, index), square, tint.get(index))
    for index, square in enumerate(board.squares):
        if square.monument is not None:
            _draw_monument(surface, square_rect(rect, index), square.monument)
    for i, kingdom in enumerate(board.kingdoms):
        _outline(surface, rect, kingdom, KINGDOM, max(2, size // 10))
        _number(surface, square_rect(rect, min(kingdom)), i + 1, TINTS[i % len(TINTS)])
    for mark in board.marks:
        draw_mark(surface, square_rect(rect, mark.cell), mark.kind)
    pygame.draw.rect(surface, INK, rect, 2)


def _number(surface: Any, r: pygame.Rect, number: int, tint: tuple[int, int, int]) -> None:
    """The kingdom's number on a disc of its tint, over the top-left corner of its first square."""
    radius = max(6, r.width * 3 // 10)
    centre = (r.x + radius - 1, r.y + radius - 1)
    pygame.draw.circle(surface, tint, centre, radius)
    pygame.draw.circle(surface, INK, centre, radius, 2)
    digits = font(radius * 2 + 4).render(str(number), True, INK)
    surface.blit(digits, digits.get_rect(center=centre))


def _mix(a: tuple[int, int, int], b: tuple[int, int, int]) -> tuple[int, int, int]:
    return (a[0] + b[0]) // 2, (a[1] + b[1]) // 2, (a[2] + b[2]) // 2


def _draw_square(surface: Any, r: pygame.Rect, square: Square, tint: tuple[int, int, int] | None = None) -> None:
    ground = RIVER if square.river else LAND
    pygame.draw.rect(surface, ground if tint is None else _mix(ground, tint), r)
    pygame.draw.rect(surface, GRID, r, 1)
    inner = r.inflate(-max(2, r.width // 8), -max(2, r.width // 8))
    if square.corner:
        pygame.draw.rect(surface, INK, r.inflate(-2, -2), max(2, r.width // 12))
    if square.catastrophe:
        pygame.draw.rect(surface, (70, 70, 70), inner)
        pygame.draw.line(surface, (250, 120, 40), inner.topleft, inner.bottomright, max(2, r.width // 8))
        pygame.draw.line(surface, (250, 120, 40), inner.topright, inner.bottomleft, max(2, r.width // 8))
    elif square.face_down:
        pygame.draw.rect(surface, FACE_DOWN, inner)
        pygame.draw.rect(surface, INK, inner, 1)
    elif square.tile is not None:
        pygame.draw.rect(surface, COLOURS[square.tile], inner)
        pygame.draw.rect(surface, PAPER if square.tile == "black" else INK, inner, 1)
        draw_symbol(surface, square.tile, inner.inflate(-inner.width // 3, -inner.height // 3), on_tile=True)
    if square.unification:
        pygame.draw.circle(surface, PAPER, inner.center, inner.width // 2, max(2, r.width // 8))
    if square.treasure:
        d = max(4, r.width // 3)
        t = pygame.Rect(inner.right - d, inner.y, d, d)
        pygame.draw.polygon(surface, TREASURE, [t.midtop, t.midright, t.midbottom, t.midleft])
        pygame.draw.polygon(surface, INK, [t.midtop, t.midright, t.midbottom, t.midleft], 1)
    if square.leader is not None:
        _draw_leader(surface, r, *square.leader)


def _draw_leader(surface: Any, r: pygame.Rect, colour: str, dynasty: str) -> None:
    radius = r.width * 9 // 20
    pygame.draw.circle(surface, PAPER, r.center, radius)
    pygame.draw.circle(surface, COLOURS[colour], r.center, radius - max(2, r.width // 14))
    symbol = pygame.Rect(0, 0, r.width * 3 // 10, r.width * 3 // 10)
    symbol.midtop = (r.centerx, r.y + r.height // 6)
    draw_symbol(surface, colour, symbol, on_tile=True)
    letter = font(max(8, r.height * 9 // 20)).render(DYNASTY_LETTERS.get(dynasty, "?"), True, PAPER)
    surface.blit(letter, letter.get_rect(midbottom=(r.centerx, r.bottom - r.height // 8)))


def _draw_monument(surface: Any, r: pygame.Rect, colours: tuple[str, str]) -> None:
    # The monument stands in the middle of its 2×2: a block split into its two colours.
    m = pygame.Rect(0, 0, r.width, r.height)
    m.center = r.bottomright
    left, right = m.copy(), m.copy()
    left.width = right.width = m.width // 2
    right.x = left.right
    for half, colour in zip((left, right), colours, strict=True):
        pygame.draw.rect(surface, COLOURS[colour], half)
        draw_symbol(surface, colour, half.inflate(-half.width // 4, -half.height // 2), on_tile=True)
    pygame.draw.rect(surface, PAPER, m, 2)


def draw_mark(surface: Any, r: pygame.Rect, kind: MarkKind) -> None:
    colour = MARK_COLOURS[kind]
    width = max(3, r.width // 8)
    if kind is MarkKind.ATTACKER:  # a solid frame
        pygame.draw.rect(surface, colour, r, width)
    elif kind is MarkKind.DEFENDER:  # four corner brackets
        arm = r.width // 3
        for (x, y), (dx, dy) in zip(
            (r.topleft, r.topright, r.bottomleft, r.bottomright), ((1, 1), (-1, 1), (1, -1), (-1, -1)), strict=True
        ):
            x, y = x - (dx < 0), y - (dy < 0)
            pygame.draw.line(surface, colour, (x, y), (x + dx * arm, y), width)
            pygame.draw.line(surface, colour, (x, y), (x, y + dy * arm), width)
    elif kind is MarkKind.DIFFERS:  # frame plus a question mark
        pygame.draw.rect(surface, colour, r, width)
        q = font(max(8, r.height * 2 // 3)).render("?", True, colour)
        surface.blit(q, q.get_rect(center=r.center))
    elif kind is MarkKind.REMOVE:  # a big cross, outlined so it shows on every colour
        a, b = r.inflate(-width, -width).topleft, r.inflate(-width, -width).bottomright
        c, d = r.inflate(-width, -width).topright, r.inflate(-width, -width).bottomleft
        for line_width, ink in ((width + 4, INK), (width, colour)):
            pygame.draw.line(surface, ink, a, b, line_width)
            pygame.draw.line(surface, ink, c, d, line_width)
    elif kind is MarkKind.LAST:  # a ring round the square, black and white so it shows on every colour
        pygame.draw.circle(surface, INK, r.center, r.width * 3 // 4, width + 4)
        pygame.draw.circle(surface, colour, r.center, r.width * 3 // 4 - 2, width)
    else:  # an option: a ring
        pygame.draw.circle(surface, INK, r.center, r.width // 2, width + 2)
        pygame.draw.circle(surface, colour, r.center, r.width // 2 - 1, width)


def _outline(surface: Any, rect: pygame.Rect, cells: frozenset[int], colour: tuple[int, int, int], width: int) -> None:
    for index in cells:
        r = square_rect(rect, index)
        col, row = index % COLUMNS, index // COLUMNS
        if row == 0 or index - COLUMNS not in cells:
            pygame.draw.line(surface, colour, r.topleft, (r.right - 1, r.top), width)
        if row == ROWS - 1 or index + COLUMNS not in cells:
            pygame.draw.line(surface, colour, (r.left, r.bottom - 1), (r.right - 1, r.bottom - 1), width)
        if col == 0 or index - 1 not in cells:
            pygame.draw.line(surface, colour, r.topleft, (r.left, r.bottom - 1), width)
        if col == COLUMNS - 1 or index + 1 not in cells:
            pygame.draw.line(surface, colour, (r.right - 1, r.top), (r.right - 1, r.bottom - 1), width)
