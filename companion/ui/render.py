"""Draw a `Screen` on a pygame surface and turn touches on it back into `UiCommand`s.

Layout is relative to the window: 800×480 landscape puts the board picture left and the prompt right;
720×1280 portrait stacks header, board, prompt, buttons and help. Every touch target is at least
`MIN_TARGET` px; every text is fitted to its box (shrunk, wrapped) and the fit is recorded so tests
can prove nothing overflows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pygame

from companion.commands import MENU, UiCommand
from companion.hardware.display import Pointer

from .boardpic import LAND, board_rect, cell_at, draw_board, draw_mark
from .model import BoardView, Chip, MarkKind, Screen, Stepper, Table
from .style import (
    ACCENT,
    BACKGROUND,
    DIM,
    INK,
    PANEL,
    PAPER,
    TONES,
    draw_symbol,
    fit_paragraphs,
    fit_size,
    font,
)

MIN_TARGET = 48
LEGEND_WORDS = {
    None: "kingdom",
    MarkKind.ATTACKER: "attacker",
    MarkKind.DEFENDER: "defender",
    MarkKind.DIFFERS: "differs",
    MarkKind.REMOVE: "remove",
    MarkKind.OPTION: "choice",
}
LONG_PRESS = 0.7  # seconds a finger rests on a seat before its scores show


@dataclass(frozen=True, slots=True)
class Target:
    rect: pygame.Rect
    command: UiCommand | None  # None for the board, whose command depends on the square
    hold: UiCommand | None = None


@dataclass(frozen=True, slots=True)
class Text:
    """A text drawn, the box it had to fit in, and whether it did."""

    text: str
    rect: pygame.Rect
    box: pygame.Rect

    @property
    def fits(self) -> bool:
        return self.box.contains(self.rect)


class Renderer:
    """Draws screens; remembers the last screen's targets to answer touches.

    `draw(surface, screen)` then `hit(pos)` for a plain lookup, or feed every `Pointer` to `pointer()`
    and call `tick()` each frame, which adds long presses (a seat's hidden scores) on top.
    """

    def __init__(self) -> None:
        pygame.font.init()  # idempotent; a Renderer works on any surface, with or without a window
        self.targets: list[Target] = []
        self.texts: list[Text] = []
        self.board: pygame.Rect | None = None
        self._down: tuple[Target, float, tuple[int, int]] | None = None
        self._picture: tuple[BoardView, tuple[int, int], Any] | None = None
        self._held = False

    # -- touches -----------------------------------------------------------------------------------
    def hit(self, pos: tuple[int, int]) -> UiCommand | None:
        target = self._target_at(pos)
        return None if target is None else self._command(target, pos)

    def pointer(self, event: Pointer, now: float) -> UiCommand | None:
        """Activate on release over the same target (a finger may slide off to cancel)."""
        if event.phase == "down":
            target = self._target_at(event.pos)
            self._down = None if target is None else (target, now, event.pos)
            self._held = False
            return None
        if event.phase != "up" or self._down is None:
            return None
        target, _, pos = self._down
        self._down = None
        if self._held:
            return UiCommand.peek(None)
        return self._command(target, pos) if self._target_at(event.pos) == target else None

    def tick(self, now: float) -> UiCommand | None:
        if self._down is None or self._held:
            return None
        target, since, _ = self._down
        if target.hold is not None and now - since >= LONG_PRESS:
            self._held = True
            return target.hold
        return None

    def _target_at(self, pos: tuple[int, int]) -> Target | None:
        for target in reversed(self.targets):  # the last drawn is on top
            if target.rect.collidepoint(pos):
                return target
        return None

    def _command(self, target: Target, pos: tuple[int, int]) -> UiCommand | None:
        if target.command is not None:
            return target.command
        cell = None if self.board is None else cell_at(self.board, pos)
        return None if cell is None else UiCommand.tap(cell)

    # -- drawing -----------------------------------------------------------------------------------
    def draw(self, surface: Any, screen: Screen) -> None:
        self.targets, self.texts, self.board = [], [], None
        w, h = surface.get_size()
        portrait = h > w
        unit = min(w, h) / 480  # 1.0 on the 7" panel, 1.5 on the portrait one
        pad = round(8 * unit)
        surface.fill(BACKGROUND)

        header = pygame.Rect(0, 0, w, max(MIN_TARGET + 4, round(56 * unit)))
        self._header(surface, header, screen, unit)
        body = pygame.Rect(pad, header.bottom + pad, w - 2 * pad, h - header.bottom - 2 * pad)

        help_h = round((40 if portrait else 52) * unit) if screen.help else 0
        if portrait:
            left = body.copy()
            right = body.copy()
        else:
            if screen.board is not None:
                share = 0.5 if _columns(screen, portrait) == 3 else 0.38
            else:
                share = 0.34 if len(screen.buttons) <= 4 else 0.5
            right_w = round(w * share)
            left = pygame.Rect(body.x, body.y, body.width - right_w - pad, body.height)
            right = pygame.Rect(left.right + pad, body.y, right_w, body.height)

        if screen.board is not None:
            if portrait:
                area = pygame.Rect(body.x, body.y, body.width, body.width * 11 // 16)
            else:
                area = pygame.Rect(left.x, left.y, left.width, left.height - help_h - round(30 * unit))
            self.board = board_rect(area)
            self._board_picture(surface, self.board, screen.board)
            if screen.board.tappable:
                self.targets.append(Target(self.board, None))
            legend = pygame.Rect(self.board.x, self.board.bottom + pad // 2, self.board.width, round(24 * unit))
            self._legend(surface, legend, screen, unit)
            if portrait:
                right = pygame.Rect(body.x, legend.bottom + pad, body.width, body.bottom - legend.bottom - pad)
            else:
                left = pygame.Rect(left.x, legend.bottom + pad, left.width, left.bottom - legend.bottom - pad)

        if screen.help:
            box = left if not portrait else right
            help_rect = pygame.Rect(box.x, box.bottom - help_h, box.width, help_h)
            self._help(surface, help_rect, screen, unit)
            if portrait or screen.board is None:
                box.height -= help_h + pad
                if portrait:
                    right = box
                else:
                    left = box

        # The prompt: title, lines, table, stepper on one side (or on top); buttons below or at right.
        buttons_rect, content = self._split_buttons(screen, left, right, portrait, unit, pad)
        self._content(surface, content, screen, unit, pad)
        self._buttons(surface, buttons_rect, screen, unit, pad)

    def _board_picture(self, surface: Any, rect: pygame.Rect, board: BoardView) -> None:
        """The board is most of the drawing work (a Pi 4 is 4–6× slower): redraw it only when it changed."""
        if self._picture is None or self._picture[:2] != (board, rect.size):
            image = pygame.Surface(rect.size)
            draw_board(image, image.get_rect(), board)
            self._picture = (board, rect.size, image)
        surface.blit(self._picture[2], rect)

    def _split_buttons(
        self, screen: Screen, left: pygame.Rect, right: pygame.Rect, portrait: bool, unit: float, pad: int
    ) -> tuple[pygame.Rect, pygame.Rect]:
        count = len(screen.buttons)
        if portrait:
            row = round((64 if count <= 4 else 52) * unit)  # many choices: lower buttons, room for the prompt
            rows = -(-count // _columns(screen, portrait)) if count else 0
            if rows:  # leave the prompt at least 40 % of the room, with buttons no lower than a finger
                row = max(MIN_TARGET + 4, min(row, (right.height * 6 // 10 - (rows - 1) * pad) // rows))
            height = rows * row + max(0, rows - 1) * pad
            buttons = pygame.Rect(right.x, right.bottom - height, right.width, height)
            return buttons, pygame.Rect(right.x, right.y, right.width, right.height - height - pad)
        if screen.board is None:
            return right, left
        row = round(54 * unit)
        rows = -(-count // _columns(screen, portrait)) if count else 0
        height = rows * row + max(0, rows - 1) * pad
        buttons = pygame.Rect(right.x, right.bottom - height, right.width, height)
        return buttons, pygame.Rect(right.x, right.y, right.width, right.height - height - pad)

    def _text(self, surface: Any, text: str, box: pygame.Rect, size: int, colour: Any = PAPER,
              align: str = "left") -> None:
        size = fit_size(text, size, box.width, box.height)
        image = font(size).render(text, True, colour)
        rect = image.get_rect(center=box.center) if align == "center" else image.get_rect(midleft=box.midleft)
        surface.blit(image, rect)
        self.texts.append(Text(text, rect, box))

    def _paragraphs(self, surface: Any, lines: tuple[str, ...], box: pygame.Rect, size: int,
                    colour: Any = PAPER) -> int:
        if not lines:
            return 0
        if box.height <= 0:  # no room at all: record it, so the layout tests fail loudly
            self.texts += [Text(line, pygame.Rect(box.x, box.y, 1, 1), box) for line in lines]
            return 0
        size, wrapped = fit_paragraphs(lines, size, box.width, box.height)
        y = box.y
        for line in wrapped:
            image = font(size).render(line, True, colour)
            rect = image.get_rect(topleft=(box.x, y))
            surface.blit(image, rect)
            self.texts.append(Text(line, rect, box))
            y += font(size).get_linesize()
        return y - box.y

    def _header(self, surface: Any, rect: pygame.Rect, screen: Screen, unit: float) -> None:
        pygame.draw.rect(surface, TONES[screen.tone.value], rect)
        menu = pygame.Rect(0, 0, max(MIN_TARGET, round(96 * unit)), rect.height - 4)
        menu.midright = (rect.right - 4, rect.centery)
        self._button_face(surface, menu, "Menu", None, False, False, unit)
        self.targets.append(Target(menu, MENU))
        text_box = pygame.Rect(rect.x + round(10 * unit), rect.y, menu.left - rect.x - round(20 * unit), rect.height)
        self._text(surface, screen.status or screen.title, text_box, round(30 * unit))

    def _legend(self, surface: Any, rect: pygame.Rect, screen: Screen, unit: float) -> None:
        """One sample and one word per kind of outline or mark on the board, in a row."""
        assert screen.board is not None
        kinds: list[MarkKind | None] = [kind for kind in MarkKind if screen.board.marked(kind)]
        if screen.board.kingdoms:
            kinds.insert(0, None)
        if not kinds:
            return
        step = rect.width // len(kinds)
        for i, kind in enumerate(kinds):
            sample = pygame.Rect(rect.x + i * step, rect.y, rect.height, rect.height)
            pygame.draw.rect(surface, LAND, sample)
            if kind is None:
                pygame.draw.rect(surface, PAPER, sample, 3)
            else:
                draw_mark(surface, sample, kind)
            words = LEGEND_WORDS[kind]
            box = pygame.Rect(sample.right + 4, rect.y, step - rect.height - 8, rect.height)
            self._text(surface, words, box, round(20 * unit), DIM)

    def _help(self, surface: Any, rect: pygame.Rect, screen: Screen, unit: float) -> None:
        assert screen.help is not None
        pygame.draw.rect(surface, PANEL, rect, border_radius=6)
        inner = rect.inflate(-round(12 * unit), -round(6 * unit))
        page = f"p. {screen.help.page}" if screen.help.page is not None else ""
        if page:
            badge = pygame.Rect(0, 0, round(64 * unit), inner.height)
            badge.midright = inner.midright
            self._text(surface, page, badge, round(26 * unit), ACCENT, align="center")
            inner.width -= badge.width + 6
        self._paragraphs(surface, (screen.help.text,), inner, round(22 * unit), DIM)

    def _content(self, surface: Any, rect: pygame.Rect, screen: Screen, unit: float, pad: int) -> None:
        title = pygame.Rect(rect.x, rect.y, rect.width, round(40 * unit))
        if screen.status:  # else the title is already in the header
            self._text(surface, screen.title, title, round(34 * unit), ACCENT)
            rect = pygame.Rect(rect.x, title.bottom + pad // 2, rect.width, rect.bottom - title.bottom - pad // 2)
        stepper_h = round(100 * unit) if screen.stepper else 0
        table_h = 0
        if screen.table is not None:
            table_h = min(rect.height - stepper_h, round(36 * unit) * (len(screen.table.rows) + 1))
        text_box = pygame.Rect(rect.x, rect.y, rect.width, rect.height - stepper_h - table_h)
        used = self._paragraphs(surface, screen.lines, text_box, round(26 * unit))
        y = rect.y + used + (pad if used else 0)
        if screen.table is not None:
            table_rect = pygame.Rect(rect.x, y, rect.width, min(table_h, rect.bottom - stepper_h - y))
            self._table(surface, table_rect, screen.table, unit)
            y = table_rect.bottom + pad
        if screen.stepper is not None:
            self._stepper(surface, pygame.Rect(rect.x, rect.bottom - stepper_h, rect.width, stepper_h),
                          screen.stepper, unit)

    def _table(self, surface: Any, rect: pygame.Rect, table: Table, unit: float) -> None:
        rows = (table.header, *table.rows)
        row_h = rect.height // len(rows)
        columns = len(table.header)
        first = rect.width * 3 // 10 if columns > 2 else rect.width // 2
        other = (rect.width - first) // max(1, columns - 1)
        boxes = []
        for r, row in enumerate(rows):
            y = rect.y + r * row_h
            if r % 2 == 0 and r:
                pygame.draw.rect(surface, PANEL, (rect.x, y, rect.width, row_h))
            x = rect.x
            for c, cell in enumerate(row):
                width = first if c == 0 else other
                box = pygame.Rect(x + 2, y, width - 4, row_h)
                if table.selected == (r - 1, c):
                    pygame.draw.rect(surface, ACCENT, box, 3)
                text_box = box
                if isinstance(cell, Chip):
                    side = min(box.height * 3 // 5, box.width // 3)
                    symbol = pygame.Rect(box.x + 4, box.centery - side // 2, side, side)
                    draw_symbol(surface, cell.colour, symbol)
                    text_box = pygame.Rect(symbol.right + 6, box.y, box.right - symbol.right - 6, box.height)
                boxes.append((cell.text if isinstance(cell, Chip) else cell, text_box, r == 0))
                x += width
        # One type size for the whole table, so columns line up and no cell looks louder than another.
        sizes = {
            part: max(round(18 * unit), min((fit_size(text, round(26 * unit), box.width, box.height)
                                             for text, box, header in boxes if text and header is part),
                                            default=round(26 * unit)))
            for part in (True, False)
        }
        # Narrow headers keep their colour symbols only: all of them, so the columns look alike.
        words = all(font(sizes[True]).size(text)[0] <= box.width for text, box, header in boxes if header)
        for (text, box, header), cell in zip(boxes, (cell for row in rows for cell in row), strict=True):
            if text and (words or not header or not isinstance(cell, Chip)):
                self._text(surface, text, box, sizes[header], DIM if header else PAPER)

    def _stepper(self, surface: Any, rect: pygame.Rect, stepper: Stepper, unit: float) -> None:
        label = pygame.Rect(rect.x, rect.y, rect.width, round(30 * unit))
        self._text(surface, stepper.label, label, round(24 * unit), DIM)
        row = pygame.Rect(rect.x, label.bottom, rect.width, rect.height - label.height)
        side = max(MIN_TARGET, row.height)
        minus = pygame.Rect(row.x, row.y, side * 3 // 2, side)
        plus = pygame.Rect(row.right - side * 3 // 2, row.y, side * 3 // 2, side)
        for box, sign, delta in ((minus, "−", -1), (plus, "+", 1)):
            enabled = stepper.minimum <= stepper.value + delta <= stepper.maximum
            self._button_face(surface, box, sign, None, False, False, unit, big=True, enabled=enabled)
            self.targets.append(Target(box, stepper.step(delta)))
        value = pygame.Rect(minus.right, row.y, plus.left - minus.right, row.height)
        if stepper.colour:
            side = value.height // 2
            draw_symbol(surface, stepper.colour, pygame.Rect(value.x + 10, value.centery - side // 2, side, side))
        self._text(surface, str(stepper.value), value, round(64 * unit), ACCENT, align="center")

    def _buttons(self, surface: Any, rect: pygame.Rect, screen: Screen, unit: float, pad: int) -> None:
        count = len(screen.buttons)
        if not count:
            return
        columns = _columns(screen, portrait=surface.get_height() > surface.get_width())
        rows = -(-count // columns)
        height = min(round(64 * unit), (rect.height - (rows - 1) * pad) // rows)
        width = (rect.width - (columns - 1) * pad) // columns
        top = rect.bottom - rows * height - (rows - 1) * pad
        for i, button in enumerate(screen.buttons):
            r, c = divmod(i, columns)
            box = pygame.Rect(rect.x + c * (width + pad), top + r * (height + pad), width, height)
            self._button_face(surface, box, button.label, button.colour, button.primary, i == screen.focus, unit)
            self.targets.append(Target(box, button.command, button.hold))

    def _button_face(self, surface: Any, box: pygame.Rect, label: str, colour: str | None, primary: bool,
                     focused: bool, unit: float, *, big: bool = False, enabled: bool = True) -> None:
        fill = (70, 140, 95) if primary else (78, 86, 98)
        if not enabled:
            fill = (55, 58, 64)
        pygame.draw.rect(surface, fill, box, border_radius=8)
        pygame.draw.rect(surface, ACCENT if focused else INK, box, 4 if focused else 2, border_radius=8)
        inner = box.inflate(-16, -8)
        if colour is not None:
            side = min(inner.height * 2 // 3, round(30 * unit))
            draw_symbol(surface, colour, pygame.Rect(inner.x, inner.centery - side // 2, side, side))
            inner = pygame.Rect(inner.x + side + 8, inner.y, inner.width - side - 8, inner.height)
        size = round((56 if big else 28) * unit)
        ink = PAPER if enabled else DIM
        if " " in label and fit_size(label, size, inner.width, inner.height) < round(22 * unit):
            self._centred_lines(surface, label, inner, round(24 * unit), ink)  # two lines read better than tiny type
        else:
            self._text(surface, label, inner, size, ink, align="center" if colour is None else "left")

    def _centred_lines(self, surface: Any, text: str, box: pygame.Rect, size: int, colour: Any) -> None:
        size, lines = fit_paragraphs((text,), size, box.width, box.height)
        height = len(lines) * font(size).get_linesize()
        y = box.centery - height // 2
        for line in lines:
            image = font(size).render(line, True, colour)
            rect = image.get_rect(midtop=(box.centerx, y))
            surface.blit(image, rect)
            self.texts.append(Text(line, rect, box))
            y += font(size).get_linesize()


def _columns(screen: Screen, portrait: bool) -> int:
    """Buttons side by side: one for a few, two for more; beside a landscape board, three for very many
    (the pieces a square can show), so every row stays a finger high."""
    count = len(screen.buttons)
    return 1 if count <= 4 else 3 if count > 8 and screen.board is not None and not portrait else 2
