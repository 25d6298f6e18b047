"""The table's sounds: tones made in code, the mixer on SDL's dummy audio, a piezo on mock GPIO pins."""

from __future__ import annotations

import itertools
import math
import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pytest

from companion.hardware.sound import RATE, Cue, Mixer, Note, Piezo, Silent, open_sound, samples


def test_each_cue_is_a_short_tone_told_apart_by_ear() -> None:
    blip, call = Cue.MOVE.notes, Cue.ATTENTION.notes
    assert sum(n.seconds for n in blip) <= 0.1 < sum(n.seconds for n in call) <= 0.5
    pitches = [n.frequency for n in call if n.frequency]
    assert pitches == sorted(pitches) and len(pitches) == 2  # the call rises


def test_samples_are_the_notes_pitch_with_silent_rests_and_no_click() -> None:
    pcm = samples((Note(440.0, 0.1), Note(0.0, 0.05)), RATE)
    assert len(pcm) == round(0.1 * RATE) + round(0.05 * RATE)
    tone, rest = pcm[: round(0.1 * RATE)], pcm[round(0.1 * RATE):]
    assert set(rest) == {0}
    crossings = sum(1 for a, b in itertools.pairwise(tone) if a < 0 <= b)
    assert abs(crossings - 44) <= 1  # 440 Hz for a tenth of a second
    assert abs(tone[0]) < 500 and abs(tone[-1]) < 500  # faded in and out
    assert max(tone) > 0.4 * 32767


def test_the_mixer_plays_on_a_machine_with_audio() -> None:
    mixer = Mixer.open()  # SDL's dummy audio driver stands in for a sound card
    assert mixer is not None
    try:
        assert set(mixer.sounds) == set(Cue)
        assert math.isclose(mixer.sounds[Cue.ATTENTION].get_length(), 0.32, abs_tol=0.01)
        mixer.play(Cue.MOVE)
    finally:
        mixer.close()


def test_no_audio_device_and_switched_off_are_silent(monkeypatch: pytest.MonkeyPatch) -> None:
    import pygame

    def no_device(**settings: object) -> None:
        raise pygame.error("ALSA: Couldn't open audio device")

    monkeypatch.setattr(pygame.mixer, "init", no_device)
    assert Mixer.open() is None
    assert isinstance(open_sound(True), Silent)
    assert isinstance(open_sound(False, buzzer_pin=21), Silent)


@pytest.fixture
def pins():  # type: ignore[no-untyped-def]
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    Device.pin_factory = factory = MockFactory(pin_class=MockPWMPin)
    yield factory
    factory.reset()
    Device.pin_factory = None


def test_a_passive_piezo_plays_the_notes_then_falls_silent(pins) -> None:  # type: ignore[no-untyped-def]
    piezo = Piezo.open(21, "passive")
    heard: list[float | None] = []
    device = piezo.device
    device.play = lambda frequency: heard.append(frequency) or type(device).play(device, frequency)
    piezo.play(Cue.ATTENTION)
    piezo.wait()
    assert heard == [660.0, 990.0]
    assert device.value is None and not device.is_active
    piezo.close()


def test_an_active_buzzer_beeps_once_per_note(pins) -> None:  # type: ignore[no-untyped-def]
    piezo = Piezo.open(21, "active")
    pin = pins.pin(21)
    piezo.play(Cue.ATTENTION)
    piezo.wait()
    highs = [state for _, state in pin.states if state]
    assert len(highs) == 2 and pin.state == 0
    piezo.close()


def test_a_new_cue_cuts_the_one_playing_short(pins) -> None:  # type: ignore[no-untyped-def]
    piezo = Piezo.open(21, "active")
    piezo.play(Cue.ATTENTION)
    piezo.play(Cue.MOVE)  # the call is stopped, the blip plays whole
    piezo.wait()
    assert pins.pin(21).state == 0
    piezo.close()


def test_the_configured_buzzer_joins_the_speaker(pins) -> None:  # type: ignore[no-untyped-def]
    speaker = open_sound(True, buzzer_pin=21, buzzer="active")
    try:
        speaker.play(Cue.MOVE)
        assert any(isinstance(s, Piezo) for s in getattr(speaker, "speakers", ()))
    finally:
        speaker.close()
