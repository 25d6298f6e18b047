"""The main loop's input: keys, GPIO edges and touches from one pygame event queue, each counted once."""

from __future__ import annotations

import os

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame
import pytest

from companion.commands import Key, UiCommand
from companion.hardware.buttons import post_edge
from companion.hardware.display import LANDSCAPE, open_display
from companion.ui.gallery import gallery
from companion.ui.inputs import Inputs
from companion.ui.render import Renderer


class Clock:
    now = 50.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def screen():  # type: ignore[no-untyped-def]
    surface = open_display(LANDSCAPE)
    pygame.event.clear()
    yield surface
    pygame.display.quit()


def test_keys_buttons_and_touches_become_commands_once(screen) -> None:  # type: ignore[no-untyped-def]
    turn = next(s for s in gallery() if s.name == "turn")
    renderer = Renderer()
    renderer.draw(screen, turn)
    clock = Clock()
    inputs = Inputs(renderer, clock=clock)
    pass_button = next(t for t in renderer.targets if t.command == UiCommand.action("pass"))
    x, y = pass_button.rect.center
    w, h = LANDSCAPE
    for event in (
        pygame.event.Event(pygame.KEYDOWN, key=pygame.K_DOWN, mod=0, unicode=""),
        pygame.event.Event(pygame.KEYUP, key=pygame.K_DOWN, mod=0),
        pygame.event.Event(pygame.FINGERDOWN, touch_id=1, finger_id=0, x=x / w, y=y / h, dx=0.0, dy=0.0,
                           pressure=1.0),
        pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(x, y), button=1, touch=True),
        pygame.event.Event(pygame.FINGERUP, touch_id=1, finger_id=0, x=x / w, y=y / h, dx=0.0, dy=0.0,
                           pressure=0.0),
        pygame.event.Event(pygame.MOUSEBUTTONUP, pos=(x, y), button=1, touch=True),
    ):
        pygame.event.post(event)
    post_edge(Key.OK, True, clock.now)
    clock.now += 0.1
    post_edge(Key.OK, False, clock.now)
    commands = inputs.commands(pygame.event.get())
    assert commands == [UiCommand.key(Key.DOWN), UiCommand.action("pass"), UiCommand.key(Key.OK)]
    assert [turn.resolve(c) for c in commands] == [UiCommand.focus(1), UiCommand.action("pass"),
                                                   UiCommand.nav("swap")]


def test_long_presses_arrive_on_frames_without_events(screen) -> None:  # type: ignore[no-untyped-def]
    clock = Clock()
    inputs = Inputs(Renderer(), clock=clock)
    post_edge(Key.BACK, True, clock.now)
    assert inputs.commands(pygame.event.get()) == []
    clock.now += 1.0
    assert inputs.commands([]) == [UiCommand.key(Key.BACK, long=True)]
