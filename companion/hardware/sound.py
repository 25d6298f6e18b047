"""Short sounds at the table: a blip when the camera takes a move, a rising call when it needs the players.

The tones are made here in code (no sound files to ship). They play through pygame's mixer where the
machine has audio, and on a piezo buzzer on a GPIO pin when one is configured: a passive piezo
(gpiozero `TonalBuzzer`) plays the same notes, an active one (`Buzzer`) beeps once per note. A
machine without either stays silent: a missing sound never stops the game.
"""

from __future__ import annotations

import enum
import logging
import math
import threading
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

log = logging.getLogger(__name__)

RATE = 22050  # samples per second: plenty for short beeps, light for a Pi
FADE = 0.005  # seconds of fade in and out, so a note starts and stops without a click


@dataclass(frozen=True, slots=True)
class Note:
    frequency: float  # Hz; 0 is a rest
    seconds: float


class Cue(enum.Enum):
    """What a sound tells the players, and its notes: each cue is told apart by ear."""

    MOVE = (Note(1320.0, 0.07),)  # the camera took a move: one short high blip
    ATTENTION = (Note(660.0, 0.12), Note(0.0, 0.04), Note(990.0, 0.16))  # the players are needed: rising

    @property
    def notes(self) -> tuple[Note, ...]:
        notes: tuple[Note, ...] = self.value
        return notes


def samples(notes: Sequence[Note], rate: int = RATE, volume: float = 0.5) -> array[int]:
    """Signed 16-bit mono samples of `notes`: sine waves with short fades, rests silent."""
    out = array("h")
    peak = round(32767 * volume)
    fade = max(1, round(FADE * rate))
    for note in notes:
        count = round(note.seconds * rate)
        for i in range(count):
            if note.frequency <= 0:
                out.append(0)
                continue
            envelope = min(1.0, i / fade, (count - 1 - i) / fade)
            out.append(round(peak * envelope * math.sin(2 * math.pi * note.frequency * i / rate)))
    return out


class Speaker(Protocol):
    def play(self, cue: Cue) -> None: ...

    def close(self) -> None: ...


class Silent:
    """No sound at all: switched off, or nothing to play it on."""

    def play(self, cue: Cue) -> None:
        pass

    def close(self) -> None:
        pass


class Mixer:
    """The cues through pygame's mixer (the HDMI or headphone output, a USB or I2S sound card).

    `Mixer.open()` is None when the machine has no audio device."""

    def __init__(self, sounds: dict[Cue, Any]) -> None:
        self.sounds = sounds

    @classmethod
    def open(cls) -> Mixer | None:
        import pygame

        try:
            pygame.mixer.init(frequency=RATE, size=-16, channels=1, buffer=512)
            init = pygame.mixer.get_init()
        except pygame.error as error:
            log.info("no sound from the speaker: %s", error)
            return None
        if init is None:
            return None
        rate, _, channels = init  # the device may insist on its own rate or on stereo
        sounds = {}
        for cue in Cue:
            mono = samples(cue.notes, rate)
            data = array("h", (s for s in mono for _ in range(channels))) if channels > 1 else mono
            sounds[cue] = pygame.mixer.Sound(buffer=data.tobytes())
        return cls(sounds)

    def play(self, cue: Cue) -> None:
        self.sounds[cue].play()  # the mixer plays on its own thread: this returns at once

    def close(self) -> None:
        import pygame

        pygame.mixer.quit()


class Piezo:
    """The cues on a piezo buzzer. Notes are timed on a background thread, so the main loop never waits;
    a new cue cuts the one still playing short."""

    def __init__(self, device: Any, *, tonal: bool) -> None:
        self.device = device
        self.tonal = tonal
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @classmethod
    def open(cls, pin: int, kind: Literal["passive", "active"] = "passive", pin_factory: Any = None) -> Piezo:
        """A buzzer on BCM `pin`: "passive" plays the notes, "active" can only beep."""
        from gpiozero import Buzzer, TonalBuzzer

        if kind == "passive":  # A5 (880 Hz) in the middle, one octave either way: every cue's notes fit
            return cls(TonalBuzzer(pin, mid_tone="A5", octaves=1, pin_factory=pin_factory), tonal=True)
        return cls(Buzzer(pin, pin_factory=pin_factory), tonal=False)

    def play(self, cue: Cue) -> None:
        self._halt()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sound, args=(cue.notes, self._stop), daemon=True)
        self._thread.start()

    def wait(self) -> None:
        """Until the cue playing now has finished (for tests and for closing)."""
        if self._thread is not None:
            self._thread.join()

    def _sound(self, notes: Sequence[Note], stop: threading.Event) -> None:
        for note in notes:
            if stop.is_set():
                break
            if note.frequency > 0:
                if self.tonal:
                    self.device.play(note.frequency)
                else:
                    self.device.on()
            stop.wait(note.seconds)
            self._quiet()

    def _quiet(self) -> None:
        if self.tonal:
            self.device.stop()
        else:
            self.device.off()

    def _halt(self) -> None:
        self._stop.set()
        self.wait()

    def close(self) -> None:
        self._halt()
        self.device.close()


class Both:
    """The speaker and the buzzer together."""

    def __init__(self, speakers: Sequence[Speaker]) -> None:
        self.speakers = tuple(speakers)

    def play(self, cue: Cue) -> None:
        for speaker in self.speakers:
            speaker.play(cue)

    def close(self) -> None:
        for speaker in self.speakers:
            speaker.close()


def open_sound(enabled: bool, buzzer_pin: int | None = None, buzzer: Literal["passive", "active"] = "passive",
               pin_factory: Any = None) -> Speaker:
    """Everything that can make the cues heard here; `Silent()` when switched off or when nothing can."""
    if not enabled:
        return Silent()
    speakers: list[Speaker] = []
    mixer = Mixer.open()
    if mixer is not None:
        speakers.append(mixer)
    if buzzer_pin is not None:
        try:
            speakers.append(Piezo.open(buzzer_pin, buzzer, pin_factory))
        except Exception as error:  # gpiozero raises many kinds (no pin library, pin in use, no PWM): all mean silence
            log.warning("no buzzer on GPIO%d: %s", buzzer_pin, error)
    return Both(speakers) if speakers else Silent()
