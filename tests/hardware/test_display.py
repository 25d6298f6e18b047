"""The screen opens at the size asked for under the dummy driver, and a touch counts once."""

from __future__ import annotations

import os

import pytest

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame

from companion.hardware.display import LANDSCAPE, PORTRAIT, Pointer, open_display, parse_size, pointer


@pytest.fixture
def display():  # type: ignore[no-untyped-def]
    yield
    pygame.display.quit()


@pytest.mark.parametrize("size", [LANDSCAPE, PORTRAIT])
def test_window_has_the_explicit_size(display: None, size: tuple[int, int]) -> None:
    screen = open_display(size)
    assert screen.get_size() == size
    assert pygame.display.get_surface().get_size() == size


def test_parse_size() -> None:
    assert parse_size("720x1280") == PORTRAIT
    assert parse_size(" 800 × 480 ") == LANDSCAPE
    with pytest.raises(ValueError, match="WIDTHxHEIGHT"):
        parse_size("big")


def test_a_touch_counts_once_the_finger_event_is_ignored(display: None) -> None:
    open_display(LANDSCAPE)
    pygame.event.clear()
    # What SDL delivers for one tap on a touch panel: the finger events and the mouse events it
    # synthesises from them.
    pygame.event.post(pygame.event.Event(pygame.FINGERDOWN, touch_id=1, finger_id=0, x=0.5, y=0.25,
                                         dx=0.0, dy=0.0, pressure=1.0))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(400, 120), button=1, touch=True))
    pygame.event.post(pygame.event.Event(pygame.FINGERUP, touch_id=1, finger_id=0, x=0.5, y=0.25,
                                         dx=0.0, dy=0.0, pressure=0.0))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=(400, 120), button=1, touch=True))
    seen = [p for event in pygame.event.get() if (p := pointer(event)) is not None]
    assert seen == [Pointer("down", (400, 120)), Pointer("up", (400, 120))]


def test_right_button_and_hover_are_not_touches(display: None) -> None:
    open_display(LANDSCAPE)
    assert pointer(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(5, 5), button=3, touch=False)) is None
    hover = pygame.event.Event(pygame.MOUSEMOTION, pos=(5, 5), rel=(1, 1), buttons=(0, 0, 0), touch=False)
    assert pointer(hover) is None
    drag = pygame.event.Event(pygame.MOUSEMOTION, pos=(6, 5), rel=(1, 0), buttons=(1, 0, 0), touch=False)
    assert pointer(drag) == Pointer("move", (6, 5))


@pytest.mark.parametrize("rotation", [90, 180, 270])
def test_a_panel_mounted_turned_shows_the_picture_upright_and_turns_touches_back(
    display: None, rotation: int
) -> None:
    from companion.hardware.display import Display

    screen = Display(LANDSCAPE, rotation=rotation)
    assert screen.surface.get_size() == LANDSCAPE
    panel = (480, 800) if rotation in (90, 270) else LANDSCAPE
    assert pygame.display.get_surface().get_size() == panel
    screen.surface.fill((0, 0, 0))
    screen.surface.set_at((10, 20), (255, 0, 0))  # near the top-left corner of the upright picture
    screen.show()
    shown = pygame.display.get_surface()
    lit = [(x, y) for x in range(panel[0]) for y in range(panel[1]) if shown.get_at((x, y))[0] > 128]
    assert len(lit) == 1
    assert screen.to_upright(lit[0]) == (10, 20)
    tap = pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=lit[0], button=1, touch=True)
    assert screen.pointer(tap) == Pointer("down", (10, 20))


def test_rotation_must_be_a_quarter_turn(display: None) -> None:
    from companion.hardware.display import Display

    with pytest.raises(ValueError, match="0, 90, 180 or 270"):
        Display(LANDSCAPE, rotation=45)
