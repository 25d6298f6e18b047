"""Colours, fonts, colour symbols and text that fits its box."""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import pygame

INK = (16, 16, 18)
PAPER = (245, 245, 240)
BACKGROUND = (28, 31, 36)
PANEL = (44, 49, 57)
DIM = (185, 190, 198)
ACCENT = (250, 205, 40)
TONES = {"info": (60, 90, 130), "prompt": (40, 120, 80), "warning": (170, 110, 0), "error": (170, 40, 40)}
COLOURS = {"red": (205, 45, 40), "blue": (35, 105, 205), "green": (30, 150, 65), "black": (15, 15, 15)}

TREASURE = (250, 205, 40)
# The smallest capital letter a player must read, in pixels on the 7" 800×480 panel (about 3 mm, read
# from a chair); screens at other sizes scale it with the panel.
READABLE = 16


@lru_cache(maxsize=64)
def font(size: int) -> Any:
    """pygame's built-in font (no files to ship); cached per size."""
    return pygame.font.Font(None, max(4, size))


@lru_cache(maxsize=64)
def cap_height(size: int) -> int:
    """How tall a capital letter is drawn at `size`, in pixels: what a reader sees as the type's size."""
    return int(font(size).metrics("H")[0][3])


@lru_cache(maxsize=8)
def readable(px: int) -> int:
    """The smallest font size whose capitals are at least `px` tall (measured on this machine's font)."""
    size = px
    while cap_height(size) < px:
        size += 1
    return size


def draw_symbol(surface: Any, colour: str, rect: pygame.Rect, *, on_tile: bool = False) -> None:
    """The colour's shape in `rect`: temple ▲, farm ≈, market ●, settlement ■, in white.

    Off the board (`on_tile=False`) the shape sits on a small tile of its colour, as on the board,
    so it reads on any background.
    """
    if not on_tile:
        side = min(rect.width, rect.height)
        tile = pygame.Rect(0, 0, side, side)
        tile.center = rect.center
        pygame.draw.rect(surface, COLOURS[colour], tile, border_radius=max(1, side // 6))
        pygame.draw.rect(surface, PAPER, tile, 1, border_radius=max(1, side // 6))
        rect = tile.inflate(-side // 3, -side // 3)
    r = rect
    if colour == "red":
        points = [(r.centerx, r.top), (r.right, r.bottom), (r.left, r.bottom)]
        pygame.draw.polygon(surface, PAPER, points)
        pygame.draw.polygon(surface, INK, points, 1)
    elif colour == "blue":
        width = max(2, r.height // 5)
        for y in (r.top + r.height // 4, r.top + 3 * r.height // 4):
            wave = [(r.left + i * r.width / 12, y + math.sin(i * math.pi / 3) * r.height / 8) for i in range(13)]
            pygame.draw.lines(surface, PAPER, False, wave, width)
    elif colour == "green":
        radius = min(r.width, r.height) // 2
        pygame.draw.circle(surface, PAPER, r.center, radius)
        pygame.draw.circle(surface, INK, r.center, radius, 1)
    else:
        side = min(r.width, r.height) * 4 // 5
        box = pygame.Rect(0, 0, side, side)
        box.center = r.center
        pygame.draw.rect(surface, PAPER, box)


def wrap(text: str, size: int, width: int) -> list[str]:
    """Words of `text` in lines no wider than `width` (a single too-long word stays on its own line)."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split(" "):
            candidate = f"{line} {word}" if line else word
            if line and font(size).size(candidate)[0] > width:
                lines.append(line)
                line = word
            else:
                line = candidate
        lines.append(line)
    return lines


def fit_size(text: str, size: int, width: int, height: int, floor: int) -> int:
    """The largest font size ≤ `size`, and not below `floor`, at which one line of `text` fits width × height."""
    while size > floor:
        w, h = font(size).size(text)
        if w <= width and h <= height:
            break
        size -= 1
    return size


def fit_paragraphs(lines: tuple[str, ...], size: int, width: int, height: int,
                   floor: int) -> tuple[int, list[str]]:
    """The largest size ≤ `size`, and not below `floor`, at which the wrapped lines fit the box, and those lines."""
    while True:
        wrapped = [out for line in lines for out in wrap(line, size, width)]
        fits = _lines_height(len(wrapped), size) <= height
        if (fits and all(font(size).size(line)[0] <= width for line in wrapped)) or size <= floor:
            return size, wrapped
        size -= 1


def wrapped_height(lines: tuple[str, ...], size: int, width: int) -> int:
    """The height `lines` take wrapped to `width` at `size`."""
    return _lines_height(sum(len(wrap(line, size, width)) for line in lines), size)


def _lines_height(count: int, size: int) -> int:
    """`count` lines one under the other: the last is as tall as its letters, which may pass the line step."""
    step, tall = int(font(size).get_linesize()), int(font(size).get_height())
    return count * step + max(0, tall - step) if count else 0
