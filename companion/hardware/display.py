"""Open the screen, and read touches through one path.

- Desktop (X11/Wayland): a window of an explicit size (800×480 unless told otherwise).
- The Pi without a desktop (SDL's KMSDRM driver): full screen at the panel's native size, no cursor.
- Tests: `SDL_VIDEODRIVER=dummy` — always with an explicit size (dummy's "full screen" is 1024×768).

A panel mounted turned (`rotation` 90, 180 or 270 degrees clockwise) gets a `Display`: screens are
drawn upright on `display.surface` at the size the players see, `display.show()` turns the picture
onto the panel, and `display.pointer(event)` turns touches back.

Touch: SDL reports a finger twice, as FINGER* events (normalised 0..1 coordinates) and as mouse
events it synthesises from them (`event.touch == True`). We take the mouse events — one path that
also serves a real mouse on a laptop — and ignore FINGER* entirely, so no touch counts twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

LANDSCAPE = (800, 480)  # Raspberry Pi 7" Touch Display (v1)
PORTRAIT = (720, 1280)  # Raspberry Pi Touch Display 2, as the panel is mounted

FULL_SCREEN_DRIVERS = frozenset({"kmsdrm"})


def parse_size(text: str) -> tuple[int, int]:
    """"800x480" → (800, 480), with a clear error."""
    parts = text.lower().replace("×", "x").split("x")
    if len(parts) == 2 and all(p.strip().isdigit() for p in parts):
        width, height = int(parts[0]), int(parts[1])
        if width >= 320 and height >= 320:
            return width, height
    raise ValueError(f"{text!r} is not a screen size: write it as WIDTHxHEIGHT, e.g. 800x480 or 720x1280")


def open_display(
    size: tuple[int, int] | None = None, *, caption: str = "Tigris & Euphrates companion"
) -> Any:
    """Initialise pygame's display and return the screen surface (an upright panel)."""
    return Display(size, caption=caption).surface


class Display:
    """The screen: a window, or the whole panel under KMSDRM, possibly mounted turned."""

    def __init__(
        self,
        size: tuple[int, int] | None = None,
        *,
        rotation: int = 0,
        fullscreen: bool | None = None,
        caption: str = "Tigris & Euphrates companion",
    ) -> None:
        import pygame

        if rotation not in (0, 90, 180, 270):
            raise ValueError(f"screen rotation {rotation} must be 0, 90, 180 or 270 degrees")
        pygame.display.init()
        pygame.font.init()
        driver = pygame.display.get_driver().lower()
        if fullscreen is None:
            fullscreen = driver in FULL_SCREEN_DRIVERS
        if fullscreen and driver != "dummy":
            info = pygame.display.Info()  # before set_mode: the panel's native mode
            self.screen = pygame.display.set_mode((info.current_w, info.current_h), pygame.FULLSCREEN)
            pygame.mouse.set_visible(False)  # a touch panel needs no arrow in the middle of the board
        else:
            panel = size or LANDSCAPE
            if rotation in (90, 270) and size is not None:
                panel = (size[1], size[0])  # `size` is what the players see
            self.screen = pygame.display.set_mode(panel)
            pygame.display.set_caption(caption)
        self.rotation = rotation
        w, h = self.screen.get_size()
        self.size = (h, w) if rotation in (90, 270) else (w, h)
        self.surface = self.screen if rotation == 0 else pygame.Surface(self.size)

    def show(self) -> None:
        """Put the frame drawn on `surface` on the panel."""
        import pygame

        if self.rotation:
            # pygame turns counter-clockwise for positive angles.
            self.screen.blit(pygame.transform.rotate(self.surface, -self.rotation), (0, 0))
        pygame.display.flip()

    def to_upright(self, pos: tuple[int, int]) -> tuple[int, int]:
        """A panel pixel → the same point in the upright picture."""
        x, y = pos
        w, h = self.size
        if self.rotation == 90:
            return y, h - 1 - x
        if self.rotation == 180:
            return w - 1 - x, h - 1 - y
        if self.rotation == 270:
            return w - 1 - y, x
        return x, y

    def pointer(self, event: Any) -> Pointer | None:
        touch = pointer(event)
        return None if touch is None else Pointer(touch.phase, self.to_upright(touch.pos))


@dataclass(frozen=True, slots=True)
class Pointer:
    """A finger (or the left mouse button): "down", "move" (while down) or "up", at a pixel position."""

    phase: str
    pos: tuple[int, int]


def pointer(event: Any) -> Pointer | None:
    """The pointer action in a pygame event, or None. FINGER* events are ignored on purpose (see above)."""
    import pygame

    if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
        return Pointer("down", tuple(event.pos))
    if event.type == pygame.MOUSEBUTTONUP and event.button == 1:
        return Pointer("up", tuple(event.pos))
    if event.type == pygame.MOUSEMOTION and event.buttons[0]:
        return Pointer("move", tuple(event.pos))
    return None
