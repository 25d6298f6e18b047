"""All the ways players give commands, merged for the main loop: GPIO buttons, keys and touches."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from companion.commands import UiCommand
from companion.hardware.buttons import DEFAULT_TIMING, Buttons, Timing
from companion.hardware.display import Pointer, pointer

from .render import Renderer


class Inputs:
    """`commands(pygame.event.get())` once per frame → the raw commands of that frame, in order.

    Touches are read against what `renderer` drew last; long presses and repeats need this to be
    called every frame, even when there are no events.
    """

    def __init__(self, renderer: Renderer, timing: Timing = DEFAULT_TIMING, *,
                 clock: Callable[[], float] = time.monotonic,
                 touches: Callable[[Any], Pointer | None] = pointer) -> None:
        """`touches` is `display.pointer` for a panel mounted turned (see `Display`)."""
        self.renderer = renderer
        self._touches = touches
        self.buttons = Buttons(timing, clock=clock)
        self._clock = clock

    def commands(self, events: Iterable[Any]) -> list[UiCommand]:
        found: list[UiCommand] = []
        for event in events:
            found += self.buttons.handle(event)
            touch = self._touches(event)
            if touch is not None and (command := self.renderer.pointer(touch, self._clock())) is not None:
                found.append(command)
        found += self.buttons.tick()
        if (held := self.renderer.tick(self._clock())) is not None:
            found.append(held)
        return found
