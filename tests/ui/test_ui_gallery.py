"""The screen browser: the real display and input path, driven by mock GPIO pins."""

from __future__ import annotations

import os

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pytest

from companion.commands import Key
from companion.hardware.buttons import DEFAULT_PINS
from companion.hardware.display import LANDSCAPE
from companion.ui.gallery import main, show


def test_show_answers_the_buttons_and_the_menu_button_turns_the_page() -> None:
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory

    Device.pin_factory = factory = MockFactory()
    said: list[str] = []

    def say(line: str) -> None:
        if not said:  # the display is open: press down, then menu
            for key in (Key.DOWN, Key.MENU):
                factory.pin(DEFAULT_PINS[key]).drive_low()
                factory.pin(DEFAULT_PINS[key]).drive_high()
        said.append(line)

    try:
        show(LANDSCAPE, frames=6, say=say)
    finally:
        factory.reset()
        Device.pin_factory = None
    assert " screens at 800x480: menu (or M) for the next one" in said[0]
    assert "turn: key down → focus 1" in said
    assert "turn: key menu → menu" in said


def test_a_wrong_size_is_told_in_words(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--show", "--size", "big"])
    assert "write it as WIDTHxHEIGHT" in capsys.readouterr().err
