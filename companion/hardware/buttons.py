"""Five push buttons (up/+, down/−, OK, back/undo, menu) on GPIO, and the keyboard standing in for them.

Three layers, so that only the first one touches threads and hardware:

1. `GpioButtons` — gpiozero `Button`s with the internal pull-ups (button between the pin and GND).
   Their callbacks run on gpiozero's threads and do one thing: post a pygame event (`post_edge`).
2. `Buttons` — on the main loop: turns those events and KEYDOWN/KEYUP into (key, pressed, time) edges.
3. `ButtonLogic` — a pure state machine over the edges and an injected clock: debounce, long press,
   auto-repeat. Our own logic because gpiozero's `bounce_time` is ignored by its mock pins and its
   `hold_repeat` runs on another thread.

Default wiring (BCM numbering; one contiguous block at the bottom of the 40-pin header):
up/+ GPIO5 (pin 29), down/− GPIO6 (pin 31), OK GPIO13 (pin 33), back GPIO19 (pin 35),
menu GPIO26 (pin 37), common ground pin 39.
"""

from __future__ import annotations

import logging
import math
import time
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from companion.commands import Key, UiCommand, Verb

log = logging.getLogger(__name__)

DEFAULT_PINS: dict[Key, int] = {Key.UP: 5, Key.DOWN: 6, Key.OK: 13, Key.BACK: 19, Key.MENU: 26}

# + and − repeat while held (counting tiles); the others tell a short press from a long one.
REPEATING = frozenset({Key.UP, Key.DOWN})

Post = Callable[[Key, bool, float], None]


@dataclass(frozen=True, slots=True)
class Timing:
    debounce: float = 0.03  # edges closer than this to the last accepted one are contact bounce
    long_press: float = 0.7
    repeat_delay: float = 0.45
    repeat_interval: float = 0.12


DEFAULT_TIMING = Timing()


class ButtonLogic:
    """Debounce, long press and repeat from timed edges. Call `tick` every frame of the main loop.

    Press of up/down: a command at once, then repeats while held. Press of OK/back/menu: a short
    command on release, or a long one (`long=True`) as soon as the press has lasted `long_press`
    and a RELEASE when it ends.
    """

    def __init__(self, timing: Timing = DEFAULT_TIMING) -> None:
        self.timing = timing
        self._raw: dict[Key, bool] = {}  # what the contact says now, bouncing included
        self._level: dict[Key, bool] = {}  # the debounced state
        self._changed_at: dict[Key, float] = {}
        self._pressed_at: dict[Key, float] = {}
        self._next_repeat: dict[Key, float] = {}
        self._long_sent: set[Key] = set()

    def feed(self, key: Key, pressed: bool, now: float) -> list[UiCommand]:
        self._raw[key] = pressed
        if now - self._changed_at.get(key, -math.inf) < self.timing.debounce:
            return []  # bounce; if the contact settles on a new level, `tick` accepts it
        return self._accept(key, pressed, now)

    def tick(self, now: float) -> list[UiCommand]:
        commands: list[UiCommand] = []
        for key in Key:
            raw = self._raw.get(key, False)
            settled = now - self._changed_at.get(key, -math.inf) >= self.timing.debounce
            if raw != self._level.get(key, False) and settled:
                commands += self._accept(key, raw, now)
            if not self._level.get(key, False):
                continue
            if key in REPEATING:
                if now >= self._next_repeat[key]:
                    commands.append(UiCommand.key(key))
                    # keep the beat of the schedule, but never burst after a slow frame
                    self._next_repeat[key] = max(self._next_repeat[key], now - self.timing.repeat_interval)
                    self._next_repeat[key] += self.timing.repeat_interval
            elif key not in self._long_sent and now - self._pressed_at[key] >= self.timing.long_press:
                self._long_sent.add(key)
                commands.append(UiCommand.key(key, long=True))
        return commands

    def _accept(self, key: Key, pressed: bool, now: float) -> list[UiCommand]:
        if pressed == self._level.get(key, False):
            return []
        self._level[key] = pressed
        self._changed_at[key] = now
        if pressed:
            self._pressed_at[key] = now
            self._long_sent.discard(key)
            if key in REPEATING:
                self._next_repeat[key] = now + self.timing.repeat_delay
                return [UiCommand.key(key)]
            return []
        if key in REPEATING:
            return []
        if key in self._long_sent:
            return [UiCommand(Verb.RELEASE, key)]  # e.g. hide the scores a held button showed
        return [UiCommand.key(key)]


def pins_from_config(config: Mapping[str, int]) -> dict[Key, int]:
    """{"up": 5, "down": 6, …} from the configuration file → pins by key, with a clear error."""
    names = {key.value: key for key in Key}
    unknown = sorted(set(config) - set(names))
    if unknown:
        raise ValueError(f"Unknown button name(s) {', '.join(unknown)}; use {', '.join(names)}")
    pins = dict(DEFAULT_PINS)
    for name, pin in config.items():
        if not isinstance(pin, int) or isinstance(pin, bool) or not 2 <= pin <= 27:
            raise ValueError(f"Button {name!r}: {pin!r} is not a BCM GPIO number (2 to 27)")
        pins[names[name]] = pin
    doubles = sorted({p for p in pins.values() if list(pins.values()).count(p) > 1})
    if doubles:
        raise ValueError(f"Two buttons share GPIO {doubles[0]}; give each button its own pin")
    return pins


class GpioButtons:
    """gpiozero buttons whose callbacks only call `post(key, pressed, time)` (from gpiozero's thread)."""

    def __init__(
        self,
        post: Post,
        pins: Mapping[Key, int] = DEFAULT_PINS,
        *,
        pin_factory: Any = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        from gpiozero import Button  # lazily: the app runs without gpiozero

        self._buttons: list[Any] = []
        try:
            for key, pin in pins.items():
                # bounce_time=None: debouncing is ours, in ButtonLogic, with a clock tests control.
                button = Button(pin, pull_up=True, bounce_time=None, pin_factory=pin_factory)
                button.when_pressed = _edge(post, key, True, clock)
                button.when_released = _edge(post, key, False, clock)
                self._buttons.append(button)
        except Exception:
            self.close()
            raise

    def close(self) -> None:
        for button in self._buttons:
            button.close()
        self._buttons.clear()


def _edge(post: Post, key: Key, pressed: bool, clock: Callable[[], float]) -> Callable[[], None]:
    def callback() -> None:
        post(key, pressed, clock())

    return callback


_event_type: int | None = None


def button_event_type() -> int:
    """The custom pygame event type that carries a button edge (key=, pressed=, time=)."""
    global _event_type
    if _event_type is None:
        import pygame

        _event_type = pygame.event.custom_type()
    return _event_type


def post_edge(key: Key, pressed: bool, when: float) -> None:
    """The only thing a GPIO thread does: put the edge on pygame's (thread-safe) event queue."""
    import pygame

    pygame.event.post(pygame.event.Event(button_event_type(), key=key.value, pressed=pressed, time=when))


def open_gpio_buttons(
    pins: Mapping[Key, int] = DEFAULT_PINS, *, pin_factory: Any = None
) -> GpioButtons | None:
    """The GPIO buttons, or None (with a log line saying why) on a machine without them."""
    # gpiozero warns once for each pin library it tries and cannot use; the reasons belong in the one
    # line that says why there are no buttons (on a Pi: which library to install), not on stderr.
    with warnings.catch_warnings(record=True) as tried:
        warnings.simplefilter("always")
        try:
            return GpioButtons(post_edge, pins, pin_factory=pin_factory)
        except Exception as error:  # gpiozero raises several types for "no GPIO here"
            if isinstance(error, ModuleNotFoundError) and error.name == "gpiozero":
                log.info("gpiozero is not installed: no GPIO buttons, use the keyboard or the touchscreen")
            else:  # its BadPinFactory is an ImportError too: gpiozero is there, no pin library works
                why = "".join(f"; {w.message}" for w in tried)
                log.warning("GPIO buttons unavailable (%s%s): use the keyboard or the touchscreen", error, why)
    return None


def keyboard_map() -> dict[int, Key]:
    """Keys that stand in for the buttons on a laptop."""
    import pygame

    return {
        pygame.K_UP: Key.UP, pygame.K_PLUS: Key.UP, pygame.K_EQUALS: Key.UP, pygame.K_KP_PLUS: Key.UP,
        pygame.K_DOWN: Key.DOWN, pygame.K_MINUS: Key.DOWN, pygame.K_KP_MINUS: Key.DOWN,
        pygame.K_RETURN: Key.OK, pygame.K_KP_ENTER: Key.OK, pygame.K_SPACE: Key.OK,
        pygame.K_BACKSPACE: Key.BACK, pygame.K_ESCAPE: Key.BACK,
        pygame.K_m: Key.MENU,
    }  # fmt: skip


class Buttons:
    """Main-loop side: button events and keys → UiCommands through one ButtonLogic."""

    def __init__(self, timing: Timing = DEFAULT_TIMING, *, clock: Callable[[], float] = time.monotonic) -> None:
        import pygame

        self.logic = ButtonLogic(timing)
        self._clock = clock
        self._keys = keyboard_map()
        self._types = {button_event_type(), pygame.KEYDOWN, pygame.KEYUP}
        self._keydown = pygame.KEYDOWN
        self._button = button_event_type()

    def handle(self, event: Any) -> list[UiCommand]:
        """Commands for one pygame event (empty for events that are not buttons or mapped keys)."""
        if event.type not in self._types:
            return []
        if event.type == self._button:
            return self.logic.feed(Key(event.key), bool(event.pressed), float(event.time))
        key = self._keys.get(event.key)
        if key is None:
            return []
        return self.logic.feed(key, event.type == self._keydown, self._clock())

    def tick(self) -> list[UiCommand]:
        return self.logic.tick(self._clock())
