"""GPIO buttons through gpiozero's MockFactory and a fake clock: what a player's finger does."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

from companion.commands import Key, UiCommand, Verb
from companion.hardware.buttons import (
    DEFAULT_PINS,
    ButtonLogic,
    Buttons,
    GpioButtons,
    Timing,
    pins_from_config,
    post_edge,
)

TIMING = Timing(debounce=0.03, long_press=0.7, repeat_delay=0.45, repeat_interval=0.12)
UP, OK = UiCommand.key(Key.UP), UiCommand.key(Key.OK)


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Rig:
    """Mock pins → GpioButtons → recorded edges → ButtonLogic, all on this thread."""

    def __init__(self) -> None:
        from gpiozero import Device
        from gpiozero.pins.mock import MockFactory

        Device.pin_factory = MockFactory()
        self.factory = Device.pin_factory
        self.clock = FakeClock()
        self.logic = ButtonLogic(TIMING)
        self.commands: list[UiCommand] = []
        self.buttons = GpioButtons(self._post, DEFAULT_PINS, clock=self.clock)

    def _post(self, key: Key, pressed: bool, when: float) -> None:
        self.commands += self.logic.feed(key, pressed, when)

    def pin(self, key: Key):  # type: ignore[no-untyped-def]
        return self.factory.pin(DEFAULT_PINS[key])

    def at(self, t: float) -> Rig:
        self.clock.now = 100.0 + t
        self.commands += self.logic.tick(self.clock.now)
        return self

    def press(self, key: Key, t: float) -> None:
        self.clock.now = 100.0 + t
        self.pin(key).drive_low()  # the button shorts the pulled-up pin to ground

    def release(self, key: Key, t: float) -> None:
        self.clock.now = 100.0 + t
        self.pin(key).drive_high()


@pytest.fixture
def rig():  # type: ignore[no-untyped-def]
    from gpiozero import Device

    pytest.importorskip("gpiozero.pins.mock")
    r = Rig()
    yield r
    r.buttons.close()
    Device.pin_factory.reset()
    Device.pin_factory = None


def test_short_press_of_ok_fires_once_on_release(rig: Rig) -> None:
    rig.press(Key.OK, 0.0)
    rig.at(0.1)
    assert rig.commands == []
    rig.release(Key.OK, 0.2)
    rig.at(0.25).at(1.5)
    assert rig.commands == [OK]


def test_contact_bounce_is_rejected(rig: Rig) -> None:
    for t, low in [(0.0, True), (0.004, False), (0.008, True), (0.012, False), (0.016, True)]:
        (rig.press if low else rig.release)(Key.OK, t)
    rig.at(0.05)
    rig.release(Key.OK, 0.3)
    for t in (0.303, 0.306):  # bounce on release too
        (rig.press if t == 0.303 else rig.release)(Key.OK, t)
    rig.at(0.4).at(2.0)
    assert rig.commands == [OK]


def test_release_lost_in_bounce_is_caught_when_the_contact_settles(rig: Rig) -> None:
    rig.press(Key.UP, 0.0)
    rig.release(Key.UP, 0.01)  # a real, very short tap: the release falls inside the debounce window
    rig.at(0.02)
    assert rig.commands == [UP]
    rig.at(0.05).at(2.0)  # settled as released: no auto-repeat afterwards
    assert rig.commands == [UP]


def test_long_press_fires_once_while_held_and_its_release_is_told(rig: Rig) -> None:
    rig.press(Key.BACK, 0.0)
    rig.at(0.5)
    assert rig.commands == []
    rig.at(0.71)
    assert rig.commands == [UiCommand.key(Key.BACK, long=True)]
    rig.at(1.5)
    rig.release(Key.BACK, 2.0)
    rig.at(2.1)
    assert rig.commands == [UiCommand.key(Key.BACK, long=True), UiCommand(Verb.RELEASE, Key.BACK)]


def test_plus_repeats_while_held(rig: Rig) -> None:
    rig.press(Key.UP, 0.0)
    assert rig.commands == [UP]
    rig.at(0.3)
    assert rig.commands == [UP]  # not before the repeat delay
    for i in range(4):
        rig.at(0.451 + 0.12 * i)
    assert rig.commands == [UP] * 5
    rig.release(Key.UP, 1.0)
    rig.at(1.1).at(3.0)
    assert rig.commands == [UP] * 5


def test_two_buttons_are_independent(rig: Rig) -> None:
    rig.press(Key.DOWN, 0.0)
    rig.press(Key.MENU, 0.01)  # inside DOWN's debounce window, but another button
    rig.release(Key.MENU, 0.2)
    rig.release(Key.DOWN, 0.3)
    rig.at(0.4)
    assert rig.commands == [UiCommand.key(Key.DOWN), UiCommand.key(Key.MENU)]


def test_gpio_callback_only_posts_a_pygame_event_the_main_loop_turns_into_a_command() -> None:
    import pygame
    from gpiozero.pins.mock import MockFactory

    pygame.display.init()
    try:
        clock = FakeClock()
        buttons = Buttons(TIMING, clock=clock)
        gpio = GpioButtons(post_edge, DEFAULT_PINS, pin_factory=(factory := MockFactory()), clock=clock)
        pygame.event.clear()
        factory.pin(DEFAULT_PINS[Key.OK]).drive_low()
        clock.now += 0.1
        factory.pin(DEFAULT_PINS[Key.OK]).drive_high()
        commands = [c for event in pygame.event.get() for c in buttons.handle(event)]
        assert commands == [OK]
        gpio.close()
        factory.reset()
    finally:
        pygame.display.quit()


def test_keyboard_stands_in_for_the_buttons() -> None:
    import pygame

    pygame.display.init()
    try:
        clock = FakeClock()
        buttons = Buttons(TIMING, clock=clock)
        down = pygame.event.Event(pygame.KEYDOWN, key=pygame.K_BACKSPACE, mod=0, unicode="\b")
        up = pygame.event.Event(pygame.KEYUP, key=pygame.K_BACKSPACE, mod=0)
        assert buttons.handle(down) == []
        clock.now += 1.0
        assert buttons.tick() == [UiCommand.key(Key.BACK, long=True)]
        assert buttons.handle(up) == [UiCommand(Verb.RELEASE, Key.BACK)]
        plus = pygame.event.Event(pygame.KEYDOWN, key=pygame.K_KP_PLUS, mod=0, unicode="+")
        assert buttons.handle(plus) == [UP]
        letter = pygame.event.Event(pygame.KEYDOWN, key=pygame.K_q, mod=0, unicode="q")
        assert buttons.handle(letter) == []
    finally:
        pygame.display.quit()


def test_pins_from_config_says_what_is_wrong() -> None:
    assert pins_from_config({"ok": 16})[Key.OK] == 16
    with pytest.raises(ValueError, match="Unknown button name"):
        pins_from_config({"select": 16})
    with pytest.raises(ValueError, match="share GPIO 6"):
        pins_from_config({"up": 6})
    with pytest.raises(ValueError, match="not a BCM GPIO"):
        pins_from_config({"up": 40})


def test_without_gpiozero_the_app_runs_on_keys_and_touch(monkeypatch: pytest.MonkeyPatch,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    import logging
    import sys

    from companion.hardware.buttons import open_gpio_buttons

    caplog.set_level(logging.INFO)
    monkeypatch.setitem(sys.modules, "gpiozero", None)  # as if it were not installed
    assert open_gpio_buttons() is None
    assert "use the keyboard or the touchscreen" in caplog.text


def test_without_a_pin_library_the_log_says_why_not_that_gpiozero_is_missing(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    import logging
    import warnings

    from gpiozero.exc import BadPinFactory, PinFactoryFallback

    from companion.hardware import buttons

    def no_pins(*args: object, **kwargs: object) -> None:  # as gpiozero does on a Pi without lgpio
        warnings.warn(PinFactoryFallback("Falling back from lgpio: No module named 'lgpio'"), stacklevel=1)
        raise BadPinFactory("Unable to load any default pin factory!")

    caplog.set_level(logging.INFO)
    monkeypatch.setattr(buttons, "GpioButtons", no_pins)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the fallback warning is taken into the log line, not shown
        assert buttons.open_gpio_buttons() is None
    assert "not installed" not in caplog.text
    assert "Unable to load any default pin factory!; Falling back from lgpio: No module named 'lgpio'" in caplog.text
    assert "use the keyboard or the touchscreen" in caplog.text


def test_open_gpio_buttons_on_mock_pins() -> None:
    from gpiozero.pins.mock import MockFactory

    from companion.hardware.buttons import open_gpio_buttons

    factory = MockFactory()
    buttons = open_gpio_buttons(pin_factory=factory)
    assert buttons is not None
    buttons.close()
    factory.reset()
