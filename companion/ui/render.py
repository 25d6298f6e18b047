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

from .boardpic import COLUMNS, LAND, ROWS, board_rect, cell_at, draw_board, draw_mark
from .model import DYNASTY_LETTERS, BoardView, Cell, Chip, Code, MarkKind, Screen, Stepper, Strip, Table
from .style import (
    ACCENT,
    BACKGROUND,
    COLOURS,
    DIM,
    INK,
    PANEL,
    PAPER,
    READABLE,
    TONES,
    TREASURE,
    cap_height,
    draw_symbol,
    fit_paragraphs,
    fit_size,
    font,
    readable,
    wrapped_height,
)

MIN_TARGET = 48
LEGEND_WORDS = {
    MarkKind.LAST: "last move",
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
    cap: int  # the height of its capital letters, in pixels: how big it reads

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
        self.floor = readable(READABLE)

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
        self.floor = readable(round(READABLE * unit))  # no text a player reads is drawn smaller
        pad = round(8 * unit)
        surface.fill(BACKGROUND)

        header = pygame.Rect(0, 0, w, max(MIN_TARGET + 4, round(52 * unit)))
        self._header(surface, header, screen, unit)
        body = pygame.Rect(pad, header.bottom + pad, w - 2 * pad, h - header.bottom - 2 * pad)
        if portrait:
            self._portrait(surface, body, screen, unit, pad)
        elif screen.board is not None:
            self._landscape_board(surface, body, screen, unit, pad)
        else:
            self._landscape_text(surface, body, screen, unit, pad)

    def _portrait(self, surface: Any, body: pygame.Rect, screen: Screen, unit: float, pad: int) -> None:
        """Header, board, legend, prompt, strip, buttons and help, top to bottom."""
        if screen.help:
            body.height -= self._help(surface, body, screen, unit) + pad
        if screen.board is not None:
            high = body.width * (11 if screen.board.zoom is None else 6) // 16  # close up, a few rows do
            # The words come first: the board gives up to a quarter of its height for what would not fit.
            below = self._button_block(screen, body, portrait=True, unit=unit, pad=pad).height + 2 * pad
            short = self._content_need(screen, body.width, unit, pad) - (
                body.height - high - self._legend_height(screen, unit) - below)
            high -= max(0, min(short, high // 4))
            area = pygame.Rect(body.x, body.y, body.width, high)
            legend = self._board(surface, area, screen.board, unit)
            legend_h = self._legend(surface, pygame.Rect(body.x, legend, body.width, body.height), screen, unit)
            top = legend + legend_h + pad
            body = pygame.Rect(body.x, top, body.width, body.bottom - top)
        buttons = self._button_block(screen, body, portrait=True, unit=unit, pad=pad)
        self._buttons(surface, buttons, screen, unit, pad)
        self._content(surface, pygame.Rect(body.x, body.y, body.width, buttons.y - pad - body.y), screen, unit, pad)

    def _landscape_board(self, surface: Any, body: pygame.Rect, screen: Screen, unit: float, pad: int) -> None:
        """The board with its legend and the rule below it on the left; the prompt and buttons on the right."""
        assert screen.board is not None
        right_w = round(body.width * (0.56 if _columns(screen, False) == 3 else 0.43))
        left = pygame.Rect(body.x, body.y, body.width - right_w - pad, body.height)
        right = pygame.Rect(left.right + pad, body.y, right_w, body.height)
        if screen.help:
            left.height -= self._help(surface, left, screen, unit) + pad
        legend_h = self._legend_height(screen, unit)
        area = pygame.Rect(left.x, left.y, left.width, left.height - legend_h - (pad // 2 if legend_h else 0))
        bottom = self._board(surface, area, screen.board, unit)
        self._legend(surface, pygame.Rect(left.x, bottom + pad // 2, left.width, legend_h), screen, unit)
        buttons = self._button_block(screen, right, portrait=False, unit=unit, pad=pad)
        self._buttons(surface, buttons, screen, unit, pad)
        self._content(surface, pygame.Rect(right.x, right.y, right.width, buttons.y - pad - right.y), screen, unit,
                      pad)

    def _landscape_text(self, surface: Any, body: pygame.Rect, screen: Screen, unit: float, pad: int) -> None:
        """No board: a message uses the whole width with its buttons in a row below; a screen of many
        choices, a table or a number to enter keeps its buttons in a column at the right."""
        if screen.help:
            body.height -= self._help(surface, body, screen, unit) + pad
        if len(screen.buttons) <= 2 and screen.stepper is None:
            row = round(64 * unit)
            width = min(body.width // 2, round(300 * unit)) * max(1, len(screen.buttons)) + \
                pad * (len(screen.buttons) - 1)
            buttons = pygame.Rect(body.right - width, body.bottom - row, width, row)
            self._buttons(surface, buttons, screen, unit, pad, columns=max(1, len(screen.buttons)))
            self._content(surface, pygame.Rect(body.x, body.y, body.width, buttons.y - pad - body.y), screen,
                          unit, pad, grow=screen.table is None)
            return
        share = 0.34 if len(screen.buttons) <= 4 else 0.5
        right_w = round(body.width * share)
        left = pygame.Rect(body.x, body.y, body.width - right_w - pad, body.height)
        self._buttons(surface, pygame.Rect(left.right + pad, body.y, right_w, body.height), screen, unit, pad)
        self._content(surface, left, screen, unit, pad)

    def _button_block(self, screen: Screen, box: pygame.Rect, *, portrait: bool, unit: float,
                      pad: int) -> pygame.Rect:
        """The buttons' share at the bottom of `box`: rows a finger high, the prompt above keeps at least 40 %."""
        count = len(screen.buttons)
        if not count:
            return pygame.Rect(box.x, box.bottom, box.width, 0)
        rows = -(-count // _columns(screen, portrait))
        row = round((52 if count <= 4 else 46) * unit) if portrait else max(MIN_TARGET + 4, round(54 * unit))
        row = max(MIN_TARGET + 4, min(row, (box.height * 6 // 10 - (rows - 1) * pad) // rows))
        height = rows * row + (rows - 1) * pad
        return pygame.Rect(box.x, box.bottom - height, box.width, height)

    def _board(self, surface: Any, area: pygame.Rect, board: BoardView, unit: float) -> int:
        """The board picture with its coordinates (A–P above, 1–11 at the left) in `area`; returns its bottom.

        A zoomed board shows the squares round `board.zoom` at least a finger wide."""
        size = self.floor
        gutter_x = max(font(size).size(str(n))[0] for n in range(1, ROWS + 1)) + round(4 * unit)
        gutter_y = font(size).get_linesize()
        inner = pygame.Rect(area.x + gutter_x, area.y + gutter_y, area.width - gutter_x, area.height - gutter_y)
        if board.zoom is None:
            self.board = shown = board_rect(inner)
            first_col, first_row, cols, rows = 0, 0, COLUMNS, ROWS
        else:
            cell = max(round(MIN_TARGET * 1.1), min(inner.width // COLUMNS, inner.height // ROWS))
            cols, rows = min(COLUMNS, inner.width // cell), min(ROWS, inner.height // cell)
            col, row = board.zoom % COLUMNS, board.zoom // COLUMNS
            first_col = max(0, min(COLUMNS - cols, col - cols // 2))
            first_row = max(0, min(ROWS - rows, row - rows // 2))
            shown = pygame.Rect(0, 0, cols * cell, rows * cell)
            shown.center = inner.center
            self.board = pygame.Rect(shown.x - first_col * cell, shown.y - first_row * cell,
                                     COLUMNS * cell, ROWS * cell)
        self._board_picture(surface, self.board, shown, board)
        if board.tappable:
            self.targets.append(Target(shown, None))
        cell = self.board.width // COLUMNS
        for c in range(first_col, first_col + cols):
            box = pygame.Rect(self.board.x + c * cell, shown.y - gutter_y, cell, gutter_y)
            self._text(surface, chr(ord("A") + c), box, size, DIM, align="center")
        for r in range(first_row, first_row + rows):  # a number may stand a little taller than its row
            box = pygame.Rect(shown.x - gutter_x, 0, gutter_x - round(4 * unit), max(cell, gutter_y))
            box.centery = self.board.y + r * cell + cell // 2
            self._text(surface, str(r + 1), box, size, DIM, align="right")
        return int(shown.bottom)

    def _board_picture(self, surface: Any, rect: pygame.Rect, shown: pygame.Rect, board: BoardView) -> None:
        """The board is most of the drawing work (a Pi 4 is 4–6× slower): redraw it only when it changed."""
        if self._picture is None or self._picture[:2] != (board, rect.size):
            image = pygame.Surface(rect.size)
            draw_board(image, image.get_rect(), board)
            self._picture = (board, rect.size, image)
        surface.blit(self._picture[2], shown, area=shown.move(-rect.x, -rect.y))

    def _text(self, surface: Any, text: str, box: pygame.Rect, size: int, colour: Any = PAPER,
              align: str = "left") -> None:
        size = fit_size(text, max(size, self.floor), box.width, box.height, self.floor)
        image = font(size).render(text, True, colour)
        if align == "center":
            rect = image.get_rect(center=box.center)
        elif align == "right":
            rect = image.get_rect(midright=box.midright)
        else:
            rect = image.get_rect(midleft=box.midleft)
        surface.blit(image, rect)
        self.texts.append(Text(text, rect, box, cap_height(size)))

    def _paragraphs(self, surface: Any, lines: tuple[str, ...], box: pygame.Rect, size: int,
                    colour: Any = PAPER) -> int:
        if not lines:
            return 0
        if box.height <= 0:  # no room at all: record it, so the layout tests fail loudly
            self.texts += [Text(line, pygame.Rect(box.x, box.y, 1, 1), box, 0) for line in lines]
            return 0
        size, wrapped = fit_paragraphs(lines, max(size, self.floor), box.width, box.height, self.floor)
        y = box.y
        for line in wrapped:
            image = font(size).render(line, True, colour)
            rect = image.get_rect(topleft=(box.x, y))
            surface.blit(image, rect)
            self.texts.append(Text(line, rect, box, cap_height(size)))
            y += font(size).get_linesize()
        return y - box.y

    def _header(self, surface: Any, rect: pygame.Rect, screen: Screen, unit: float) -> None:
        pygame.draw.rect(surface, TONES[screen.tone.value], rect)
        menu = pygame.Rect(0, 0, max(MIN_TARGET, round(96 * unit)), rect.height - 4)
        menu.midright = (rect.right - 4, rect.centery)
        self._button_face(surface, menu, "Menu", None, False, False, unit)
        self.targets.append(Target(menu, MENU))
        text_box = pygame.Rect(rect.x + round(10 * unit), rect.y, menu.left - rect.x - round(20 * unit), rect.height)
        words = screen.status or screen.title
        if font(self.floor).size(words)[0] <= text_box.width:
            self._text(surface, words, text_box, round(34 * unit))
            return
        height = wrapped_height((words,), self.floor, text_box.width)  # two lines rather than type too small
        box = pygame.Rect(text_box.x, text_box.centery - height // 2, text_box.width, height)
        self._paragraphs(surface, (words,), box, self.floor)

    def _legend_height(self, screen: Screen, unit: float) -> int:
        marked = screen.board is not None and any(screen.board.marked(kind) for kind in MarkKind)
        return font(self.floor).get_linesize() + round(4 * unit) if marked else 0

    def _legend(self, surface: Any, rect: pygame.Rect, screen: Screen, unit: float) -> int:
        """One sample and one word per kind of mark on the board, in a row; returns its height."""
        assert screen.board is not None
        kinds = [kind for kind in MarkKind if screen.board.marked(kind)]
        if not kinds:
            return 0
        rect = pygame.Rect(rect.x, rect.y, rect.width, self._legend_height(screen, unit))
        step = rect.width // len(kinds)
        for i, kind in enumerate(kinds):
            sample = pygame.Rect(rect.x + i * step, rect.y, rect.height, rect.height)
            pygame.draw.rect(surface, LAND, sample)
            draw_mark(surface, sample.inflate(-rect.height // 3, -rect.height // 3) if kind is MarkKind.LAST
                      else sample, kind)
            box = pygame.Rect(sample.right + 4, rect.y, step - rect.height - 8, rect.height)
            self._text(surface, LEGEND_WORDS[kind], box, self.floor, DIM)
        return int(rect.height)

    def _help(self, surface: Any, box: pygame.Rect, screen: Screen, unit: float) -> int:
        """The rule reminder at the bottom of `box`, as tall as its words need; returns its height."""
        assert screen.help is not None
        page = f"p. {screen.help.page}" if screen.help.page is not None else ""
        badge_w = round(64 * unit) if page else 0
        margin_x, margin_y = round(12 * unit), round(6 * unit)
        width = box.width - 2 * margin_x - (badge_w + 6 if page else 0)
        height = wrapped_height((screen.help.text,), self.floor, width) + 2 * margin_y
        rect = pygame.Rect(box.x, box.bottom - height, box.width, height)
        pygame.draw.rect(surface, PANEL, rect, border_radius=6)
        inner = rect.inflate(-2 * margin_x, -2 * margin_y)
        if page:
            badge = pygame.Rect(0, 0, badge_w, inner.height)
            badge.midright = inner.midright
            self._text(surface, page, badge, round(26 * unit), ACCENT, align="center")
            inner.width -= badge.width + 6
        self._paragraphs(surface, (screen.help.text,), inner, self.floor, DIM)
        return height

    def _content(self, surface: Any, rect: pygame.Rect, screen: Screen, unit: float, pad: int, *,
                 grow: bool = False) -> None:
        """Title, lines, what a tap asked or the move log, the player strip, the table and the stepper, in
        that order down `rect`. With `grow`, a short message is set larger, to be read from further away."""
        line_h = font(self.floor).get_linesize()
        if screen.status:  # else the title is already in the header; a long one takes two lines
            size = round(34 * unit) if font(round(34 * unit)).size(screen.title)[0] <= rect.width else self.floor
            title = pygame.Rect(rect.x, rect.y, rect.width, wrapped_height((screen.title,), size, rect.width))
            self._paragraphs(surface, (screen.title,), title, size, ACCENT)
            rect = pygame.Rect(rect.x, title.bottom + pad // 2, rect.width, rect.bottom - title.bottom - pad // 2)
        stepper_h = round(88 * unit) if screen.stepper else 0
        strip_h = self._strip_height(screen.strip, unit)
        table_h = 0
        if screen.table is not None:
            table_h = min(rect.height - stepper_h, (line_h + round(12 * unit)) * (len(screen.table.rows) + 1))
        notes = screen.detail or screen.log
        room = rect.height - stepper_h - table_h - strip_h - (pad if strip_h else 0)
        size = self.floor
        if grow:  # as large as fits, up to half as large again
            size = max(self.floor, min(round(self.floor * 1.5),
                                       fit_paragraphs(screen.lines, round(self.floor * 1.5), rect.width, room,
                                                      self.floor)[0]))
        lines_h = min(room, wrapped_height(screen.lines, size, rect.width)) if screen.lines else 0
        notes_room = room - lines_h - (pad if lines_h else 0)
        if notes and notes_room >= line_h:
            shown = self._notes(screen, rect.width, notes_room)
            box = pygame.Rect(rect.x, rect.y + room - wrapped_height(shown, self.floor, rect.width - 2 * pad) - pad,
                              rect.width, 0)
            box.height = rect.y + room - box.y
            lines_h = min(lines_h, box.y - rect.y - pad)
            self._notes_panel(surface, box, shown, bool(screen.detail), pad)
        self._paragraphs(surface, screen.lines, pygame.Rect(rect.x, rect.y, rect.width, lines_h or room), size)
        if screen.codes:
            top = rect.y + lines_h + pad
            self._codes(surface, pygame.Rect(rect.x, top, rect.width, rect.y + room - top), screen.codes, pad)
        y = rect.y + room + (pad if strip_h else 0)
        if screen.strip is not None:
            self._strip(surface, pygame.Rect(rect.x, y, rect.width, strip_h), screen.strip, unit)
            y += strip_h
        if screen.table is not None:
            self._table(surface, pygame.Rect(rect.x, y, rect.width, table_h), screen.table, unit)
        if screen.stepper is not None:
            self._stepper(surface, pygame.Rect(rect.x, rect.bottom - stepper_h, rect.width, stepper_h),
                          screen.stepper, unit)

    def _content_need(self, screen: Screen, width: int, unit: float, pad: int) -> int:
        """The height `_content` needs for everything but the move log (which shows what fits)."""
        line_h = font(self.floor).get_linesize()
        need = 0
        if screen.status:
            size = round(34 * unit) if font(round(34 * unit)).size(screen.title)[0] <= width else self.floor
            need += wrapped_height((screen.title,), size, width) + pad // 2
        if screen.lines:
            need += wrapped_height(screen.lines, self.floor, width)
        if screen.strip is not None:
            need += self._strip_height(screen.strip, unit) + pad
        if screen.table is not None:
            need += (line_h + round(12 * unit)) * (len(screen.table.rows) + 1)
        return need + (round(88 * unit) if screen.stepper else 0)

    def _codes(self, surface: Any, rect: pygame.Rect, codes: tuple[Code, ...], pad: int) -> None:
        """QR codes as large as fit, in the rows and columns that make them largest, each above its label."""
        line_h = font(self.floor).get_linesize()
        label_h = 2 * line_h  # "Anna" over "(archer)"
        columns = max(range(1, len(codes) + 1),
                      key=lambda c: min(rect.width // c - pad, rect.height // -(-len(codes) // c) - label_h - pad))
        cell_w, cell_h = rect.width // columns, rect.height // -(-len(codes) // columns)
        side = max(0, min(cell_w - pad, cell_h - label_h - pad))
        for index, code in enumerate(codes):
            cell = pygame.Rect(rect.x + index % columns * cell_w, rect.y + index // columns * cell_h, cell_w, cell_h)
            box = pygame.Rect(0, 0, side, side)
            box.midtop = (cell.centerx, cell.y)
            self._code(surface, box, code.text)
            name, _, more = code.label.partition(" (")
            for row, words in enumerate((name, f"({more}" if more else "")):
                if words:
                    self._text(surface, words, pygame.Rect(cell.x, box.bottom + pad // 2 + row * line_h, cell_w,
                                                           line_h), self.floor, align="center")

    def _code(self, surface: Any, box: pygame.Rect, text: str) -> None:
        """One QR code (segno works out the modules) on white with its quiet zone, or why there is none.
        The lowest error correction: a screen is never torn or stained, and larger modules scan further."""
        if not text:
            pygame.draw.rect(surface, PANEL, box, border_radius=6)
            self._paragraphs(surface, ("Not on a network yet",), box.inflate(-8, -8), self.floor, DIM)
            return
        import segno

        rows = [tuple(row) for row in segno.make(text, error="l", micro=False).matrix]
        quiet = 4  # modules of white round the code, as the QR standard asks
        module = max(1, box.width // (len(rows) + 2 * quiet))
        side = module * (len(rows) + 2 * quiet)
        white = pygame.Rect(0, 0, side, side)
        white.center = box.center
        pygame.draw.rect(surface, (255, 255, 255), white)
        for r, row in enumerate(rows):
            for c, dark in enumerate(row):
                if dark:
                    pygame.draw.rect(surface, (0, 0, 0), (white.x + (c + quiet) * module,
                                                         white.y + (r + quiet) * module, module, module))

    def _notes(self, screen: Screen, width: int, room: int) -> tuple[str, ...]:
        """What a tap asked (all of it), else the newest moves of the log that fit."""
        if screen.detail:
            return screen.detail
        shown: tuple[str, ...] = ()
        for line in reversed(screen.log):
            more = (line, *shown)
            if shown and wrapped_height(more, self.floor, width - 16) + 16 > room:
                break
            shown = more
        return shown

    def _notes_panel(self, surface: Any, box: pygame.Rect, lines: tuple[str, ...], detail: bool, pad: int) -> None:
        pygame.draw.rect(surface, PANEL, box, border_radius=6)
        inner = box.inflate(-pad, -pad)
        if detail:
            self._paragraphs(surface, lines, inner, self.floor, PAPER)
            return
        y = inner.y
        for i, line in enumerate(lines):  # the last move stands out; the older ones are dimmer
            height = wrapped_height((line,), self.floor, inner.width)
            self._paragraphs(surface, (line,), pygame.Rect(inner.x, y, inner.width, height), self.floor,
                             ACCENT if i == len(lines) - 1 else DIM)
            y += height

    def _strip_height(self, strip: Strip | None, unit: float) -> int:
        if strip is None:
            return 0
        return (len(strip.seats) + 2) * (int(font(self.floor).get_linesize()) + round(4 * unit))

    def _strip(self, surface: Any, rect: pygame.Rect, strip: Strip, unit: float) -> None:
        """A row per seat: dynasty letter and name, the four leaders (filled on the board, hollow in hand),
        the catastrophes left, the treasures taken; then the supply in two rows."""
        row_h = rect.height // (len(strip.seats) + 2)
        icon = row_h * 4 // 5
        name_w = rect.width * 3 // 10
        for i, seat in enumerate(strip.seats):
            row = pygame.Rect(rect.x, rect.y + i * row_h, rect.width, row_h)
            if seat.current:
                pygame.draw.rect(surface, PANEL, row, border_radius=4)
            letter = DYNASTY_LETTERS.get(seat.dynasty, "?")
            self._text(surface, f"{letter} {seat.name}", pygame.Rect(row.x + 4, row.y, name_w - 4, row_h), self.floor,
                       ACCENT if seat.current else PAPER)
            x = row.x + name_w
            for colour, on_board in seat.leaders:
                disc = pygame.Rect(x, row.centery - icon // 2, icon, icon)
                if on_board:
                    draw_symbol(surface, colour, disc)
                else:  # in hand: a hollow frame of its colour
                    pygame.draw.rect(surface, COLOURS[colour] if colour != "black" else DIM, disc, 3,
                                     border_radius=max(1, icon // 6))
                x += icon + 3
            x += icon // 3
            for n in range(2):
                box = pygame.Rect(x, row.centery - icon // 2, icon, icon)
                pygame.draw.rect(surface, (70, 70, 70) if n < seat.catastrophes else BACKGROUND, box)
                if n < seat.catastrophes:
                    pygame.draw.line(surface, (250, 120, 40), box.topleft, box.bottomright, 3)
                    pygame.draw.line(surface, (250, 120, 40), box.topright, box.bottomleft, 3)
                else:
                    pygame.draw.rect(surface, PANEL, box, 2)
                x += icon + 3
            if seat.treasures is not None:
                x += icon // 3
                _diamond(surface, pygame.Rect(x, row.centery - icon // 2, icon, icon))
                self._text(surface, str(seat.treasures), pygame.Rect(x + icon + 2, row.y, row.right - x - icon - 2,
                                                                     row_h), self.floor)
        supply = strip.supply
        y = rect.y + len(strip.seats) * row_h
        first = pygame.Rect(rect.x, y, rect.width, row_h)
        x = first.x + 4
        _diamond(surface, pygame.Rect(x, first.centery - icon // 2, icon, icon))
        step = (first.width - 8) // 3
        self._text(surface, f"{supply.treasures} left", pygame.Rect(x + icon + 4, first.y, step - icon - 8, row_h),
                   self.floor)
        self._text(surface, f"bag {supply.bag}", pygame.Rect(x + step, first.y, step - 4, row_h), self.floor)
        x += 2 * step
        for k, (a, b) in enumerate(supply.monuments[:2]):  # a monument still to build, then how many
            half = pygame.Rect(x + k * 4, first.centery - icon // 2 + k * 4, icon // 2, icon - 4)
            pygame.draw.rect(surface, COLOURS[a], half)
            pygame.draw.rect(surface, COLOURS[b], half.move(icon // 2, 0))
            pygame.draw.rect(surface, PAPER, half.union(half.move(icon // 2, 0)), 1)
        self._text(surface, f"{len(supply.monuments)} left",
                   pygame.Rect(x + icon + 8, first.y, first.right - x - icon - 8, row_h), self.floor)
        second = pygame.Rect(rect.x, y + row_h, rect.width, row_h)
        self._text(surface, "unseen", pygame.Rect(second.x + 4, second.y, name_w - 4, row_h), self.floor, DIM)
        step = (second.right - second.x - name_w) // max(1, len(supply.unseen))
        for i, (colour, n) in enumerate(supply.unseen):
            x = second.x + name_w + i * step
            draw_symbol(surface, colour, pygame.Rect(x, second.centery - icon // 2, icon, icon))
            self._text(surface, str(n), pygame.Rect(x + icon + 2, second.y, step - icon - 4, row_h), self.floor)

    def _table(self, surface: Any, rect: pygame.Rect, table: Table, unit: float) -> None:
        rows = (table.header, *table.rows)
        row_h = rect.height // len(rows)
        size = max(self.floor, round(26 * unit))  # one size for the whole table, so the columns line up
        side = min(row_h * 3 // 5, font(size).get_linesize())  # a colour symbol
        widths = self._column_widths(table, rect.width, size, side)
        # Narrow headers keep their colour symbols only: all of them, so the columns look alike.
        words = all(side + 8 + font(size).size(cell.text)[0] <= width
                    for cell, width in zip(table.header, widths, strict=True) if isinstance(cell, Chip))
        for r, row in enumerate(rows):
            y = rect.y + r * row_h
            if r % 2 == 0 and r:
                pygame.draw.rect(surface, PANEL, (rect.x, y, rect.width, row_h))
            x = rect.x
            for c, (cell, width) in enumerate(zip(row, widths, strict=True)):
                box = pygame.Rect(x + 2, y, width - 4, row_h)
                x += width
                if table.selected == (r - 1, c) or (isinstance(cell, Chip) and cell.highlight):
                    pygame.draw.rect(surface, ACCENT, box, 3, border_radius=4)
                if not isinstance(cell, Chip):
                    if cell:
                        self._text(surface, cell, box, size, DIM if r == 0 else PAPER)
                    continue
                symbol = pygame.Rect(box.x + 4, box.centery - side // 2, side, side)
                draw_symbol(surface, cell.colour, symbol)
                text = pygame.Rect(symbol.right + 4, box.y, box.right - symbol.right - 6, box.height)
                if r == 0 and not words:
                    continue
                plain = font(size).size(cell.text)[0]
                self._text(surface, cell.text, pygame.Rect(text.x, text.y, min(text.width, plain), text.height), size,
                           DIM if r == 0 else PAPER)
                if cell.extra:  # the treasures added, in their gold
                    after = text.x + plain + 6
                    self._text(surface, cell.extra, pygame.Rect(after, box.y, box.right - after - 2, box.height), size,
                               TREASURE)

    def _column_widths(self, table: Table, width: int, size: int, side: int) -> list[int]:
        """Each column as wide as its widest cell needs (header chips count their symbol only); what is
        left is shared out evenly."""
        def need(cell: Cell, header: bool) -> int:
            if not isinstance(cell, Chip):
                return int(font(size).size(cell)[0]) + 8
            if header:
                return side + 10
            extra = font(size).size(cell.extra)[0] + 8 if cell.extra else 0
            return side + 14 + int(font(size).size(cell.text)[0]) + extra

        rows = (table.header, *table.rows)
        natural = [max(need(row[c], r == 0) for r, row in enumerate(rows)) for c in range(len(table.header))]
        spare = (width - sum(natural)) // len(natural)
        return [n + spare for n in natural]

    def _stepper(self, surface: Any, rect: pygame.Rect, stepper: Stepper, unit: float) -> None:
        label = pygame.Rect(rect.x, rect.y, rect.width, font(self.floor).get_linesize())
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
        number = font(round(64 * unit)).size(str(stepper.value))
        if stepper.colour:  # the colour's symbol left of the number, never over it
            side = min(value.height // 2, (value.width - number[0]) // 2 - 12)
            symbol = pygame.Rect(0, 0, side, side)
            symbol.midright = (value.centerx - number[0] // 2 - 8, value.centery)
            draw_symbol(surface, stepper.colour, symbol)
        self._text(surface, str(stepper.value), value, round(64 * unit), ACCENT, align="center")

    def _buttons(self, surface: Any, rect: pygame.Rect, screen: Screen, unit: float, pad: int,
                 columns: int | None = None) -> None:
        count = len(screen.buttons)
        if not count:
            return
        portrait = surface.get_height() > surface.get_width()
        columns = columns or _columns(screen, portrait)
        rows = -(-count // columns)
        height = min(round((52 if portrait else 64) * unit), (rect.height - (rows - 1) * pad) // rows)
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
        inner = box.inflate(-12, -4)
        side = min(inner.height * 2 // 3, round(30 * unit))
        if colour is not None and font(self.floor).size(label)[0] + side + 6 > inner.width:
            # No room for the symbol beside the word (which names the colour): a stripe of the colour instead.
            pygame.draw.rect(surface, COLOURS[colour], (box.x + 4, box.y + 6, 6, box.height - 12), border_radius=3)
            inner = pygame.Rect(inner.x + 6, inner.y, inner.width - 6, inner.height)
            colour = None
        if colour is not None:
            draw_symbol(surface, colour, pygame.Rect(inner.x, inner.centery - side // 2, side, side))
            inner = pygame.Rect(inner.x + side + 6, inner.y, inner.width - side - 6, inner.height)
        size = round((56 if big else 30) * unit)
        ink = PAPER if enabled else DIM
        if " " in label and font(self.floor).size(label)[0] > inner.width:
            self._centred_lines(surface, label, inner, self.floor, ink)  # two lines rather than type too small
        else:
            self._text(surface, label, inner, size, ink, align="center" if colour is None else "left")

    def _centred_lines(self, surface: Any, text: str, box: pygame.Rect, size: int, colour: Any) -> None:
        size, lines = fit_paragraphs((text,), size, box.width, box.height, self.floor)
        step = min(font(size).get_linesize(), box.height // max(1, len(lines)))
        y = box.centery - step * len(lines) // 2
        for line in lines:
            image = font(size).render(line, True, colour)
            rect = image.get_rect(midtop=(box.centerx, y))
            surface.blit(image, rect)
            self.texts.append(Text(line, rect, box, cap_height(size)))
            y += step


def _cell_text(cell: Cell) -> str:
    return cell.text if isinstance(cell, Chip) else cell


def _diamond(surface: Any, r: pygame.Rect) -> None:
    """A treasure, as on the board picture."""
    points = [r.midtop, r.midright, r.midbottom, r.midleft]
    pygame.draw.polygon(surface, TREASURE, points)
    pygame.draw.polygon(surface, INK, points, 1)


def _columns(screen: Screen, portrait: bool) -> int:
    """Buttons side by side: one for a few, two for more; beside a landscape board two from three on (the
    prompt needs the height) and three for very many (the pieces a square can show), so every row stays
    a finger high."""
    count = len(screen.buttons)
    if portrait:  # under a board the height is the prompt's; without one a column of six fits
        return 1 if count <= (2 if screen.board is not None else 6) else 2
    if screen.board is not None:
        return 1 if count <= 2 else 3 if count > 8 else 2
    return 1 if count <= 4 else 2
