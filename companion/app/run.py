"""`companion run`: the companion at the table — camera, touchscreen, GPIO buttons, the game record.

One main loop, no threads of ours (a buzzer times its notes on one, touching no game state): each
pass pings the systemd watchdog, shows the camera's small frame to the stability gate, reads the
board once it is still (with a sound when the camera took a move or needs the players), turns
touches, keys and button edges (which gpiozero's thread only posts as pygame events) into commands,
and draws the screen.
Every part that touches hardware is passed in, so a test runs the loop with a synthetic camera,
the dummy video driver and gpiozero's MockFactory.
"""

from __future__ import annotations

import argparse
import errno
import logging
import os
import signal
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from companion.app import journal
from companion.app.calibrating import Calibrating
from companion.app.config import Config, kept_copy, load
from companion.app.controller import Controller, Sight
from companion.app.hand_tally import HandTally
from companion.commands import UiCommand, Verb
from companion.hardware.sound import Cue, Silent, Speaker, open_sound
from companion.rules import CompanionError, Game
from companion.tracker import expected_cells
from companion.ui import messages, wizard
from companion.ui.model import Screen, UiState
from vision.camera import Camera, CameraError, capture_exposed
from vision.observer import Observer
from vision.reading import BoardReading

log = logging.getLogger("companion")

GAMES = "games"  # folder of game records inside the state directory


class Notify(Protocol):
    def ready(self) -> None: ...
    def watchdog(self) -> None: ...
    def status(self, text: str) -> None: ...
    def stopping(self) -> None: ...


class Setup:
    """Before a game: the set-up wizard, ending with a camera check of the set-up position."""

    def __init__(self, records: Path, board: str = "standard", *, left: Controller | None = None) -> None:
        self.draft = wizard.SetupDraft(board=board)
        self.left = left  # the game the players left for this set-up: they may go back to it until it starts
        self.ui = UiState()
        self.records = records
        self.differ: tuple[int, ...] = ()
        self.reading: BoardReading | None = None
        self.started: Controller | None = None
        self.looking = ""
        self.hand_tally: HandTally | None = None  # a game not followed from the start, tallied by hand
        self.problem: Exception | None = None  # a game record that cannot be read or written, in words

    def brief(self, sight: Sight) -> None:
        """At the camera check the board should show the set-up position: the observer compares it
        with the calibration's set-up picture where that shows the same (read whole, a square left
        unsure would be shown as set up wrong)."""
        if self.draft.step == "camera":
            start = expected_cells(Game(self.draft.config()).state)
            sight.expect_setup(tuple(look.seen() for look in start))

    def on_reading(self, reading: BoardReading) -> None:
        self.reading = reading
        if self.draft.step == "camera" and reading.ok:
            expected = expected_cells(Game(self.draft.config()).state)
            self.differ = tuple(c for c, (want, seen) in enumerate(zip(expected, reading.cells, strict=True))
                                if not want.fits(seen))

    def screen(self) -> Screen:
        if self.problem is not None:
            return messages.disk_full() if _disk_full(self.problem) else messages.error(self.problem)
        if self.hand_tally is not None:
            return self.hand_tally.screen()
        screen = wizard.setup(self.draft, self.ui, differ=self.differ)
        if self.left is not None:
            screen = messages.way_back(screen)
        if self.draft.step != "camera" or (self.reading is not None and self.reading.ok):
            return screen
        why = self.reading.message if self.reading is not None else "no picture yet"
        return replace(screen, lines=(screen.lines[0], f"The camera cannot check the board yet: {why}"))

    def handle(self, command: UiCommand) -> None:
        if self.problem is not None:
            if (self.screen().resolve(command) or command).verb is Verb.NAV:  # OK / Try again
                self.problem = None
            return
        if self.hand_tally is not None:
            self.hand_tally.handle(command)
            if self.hand_tally.new_game:
                self.hand_tally = None
            return
        command = self.screen().resolve(command) or command
        if command.verb is Verb.MENU and self.draft.players:  # the menu of the set-up: tally by hand
            names = [d.capitalize() for d in self.draft.dynasties]
            if len(names) != self.draft.players:
                names = [f"Player {seat + 1}" for seat in range(self.draft.players)]
            self.hand_tally = HandTally.of(names)
            return
        new_ui = self.ui.apply(command)
        if new_ui is not None:
            self.ui = new_ui
            return
        draft = self.draft.apply(command)
        if draft is not None:
            self.draft, self.ui = draft, UiState()
        elif command.verb is Verb.NAV and command.value == "recheck" and self.reading is not None:
            self.on_reading(self.reading)
        elif command == messages.BACK_TO_GAME and self.left is not None:
            self.left.back_from_setup()
            self.started = self.left
        elif command.verb is Verb.NAV and command.value == "start":
            game = Game(self.draft.config())
            try:
                self.started = Controller(game, journal.Journal.start(self.records, game))
            except OSError as error:  # JournalError: a full or read-only card, said in words
                self.problem = error
                return
            if self.left is not None and isinstance(self.left.record, journal.Journal):
                self.left.record.close()  # the game left behind is kept as it was: its record is complete


def _disk_full(error: Exception) -> bool:
    return isinstance(error, OSError) and error.errno == errno.ENOSPC


def resume_or_setup(records: Path, board: str = "standard") -> Controller | Setup:
    """The unfinished game in `records`, resumed (its board checked by the camera next), or a new set-up
    — which first says why, when the last record cannot be read (the file is kept as it is)."""
    try:
        path = journal.unfinished(records)
        resumed = None if path is None else journal.resume(path)
    except (OSError, ValueError, CompanionError) as error:
        log.error("%s", error)
        setup = Setup(records, board)
        setup.problem = error
        return setup
    if resumed is None:
        return Setup(records, board)
    for warning in resumed.warnings:
        log.warning("%s", warning)
    controller = Controller.resume(resumed.game, resumed.journal, resumed.started, resumed.warnings)
    log.info("%s", resumed.message)
    return controller


def read_when_still(camera: Camera, observer: Observer, *, again: bool) -> tuple[bool, BoardReading | None]:
    """One moment of the camera: is the board still, and its reading when it is and `again` asks for
    one. The full frame is taken and read only then: the small stream is all a moving board costs."""
    gate = observer.gate.update(camera.capture_small())
    if not gate.still or not again:
        return gate.still, None
    return True, observer.read(capture_exposed(camera), darker=camera.capture_darker)


@dataclass
class Loop:
    """The main loop. `phase` is the set-up wizard, then the game's controller; before either, calibrating
    when the camera has no calibration it can use."""

    phase: Controller | Setup | Calibrating
    camera: Camera
    observer: Observer
    display: Any  # companion.hardware.display.Display
    renderer: Any  # companion.ui.render.Renderer
    inputs: Any  # companion.ui.inputs.Inputs: keys, GPIO edges and touches → commands
    notify: Notify
    records: Path  # where game records are kept
    speaker: Speaker = field(default_factory=Silent)
    stop: bool = False
    _read_next_still: bool = True  # the board moved since the last reading (or nothing was read yet)
    _drawn: Screen | None = field(default=None, repr=False)
    camera_retry: float = 2.0  # seconds between attempts to restart a camera that stopped
    _camera_ok: bool = True
    _retry_at: float = 0.0
    _after_calibrating: Controller | Setup | None = None
    phones: Any = None  # companion.phone.follow.Phones when the phones are on: fed a snapshot after each change

    def calibrate_first(self, why: str, out: Path, board: str) -> None:
        """Say why the camera cannot read the board and offer to calibrate, before the current phase."""
        if isinstance(self.phase, Calibrating):
            return
        self._after_calibrating, self.phase = self.phase, Calibrating(why, out, board)

    def step(self) -> None:
        """One pass of the main loop."""
        import pygame

        self.notify.watchdog()
        moves = len(self.phase.game.actions) if isinstance(self.phase, Controller) else 0
        shown = self._drawn
        if self._look():
            moved = isinstance(self.phase, Controller) and len(self.phase.game.actions) > moves
            cue = cue_for(moved, shown.name if shown is not None else None, self.phase.screen())
            if cue is not None:
                self.speaker.play(cue)
        events = pygame.event.get()
        self.stop = self.stop or any(event.type == pygame.QUIT for event in events)
        for command in self.inputs.commands(events):
            self.phase.handle(command)
        if isinstance(self.phase, Calibrating) and self.phase.finished and self._after_calibrating is not None:
            if self.phase.calibration is not None:
                self.observer.use(self.phase.calibration)
            self.phase, self._after_calibrating, self._read_next_still = self._after_calibrating, None, True
        elif isinstance(self.phase, Setup) and self.phase.started is not None:
            self.phase = self.phase.started
            self._read_next_still = True
        elif isinstance(self.phase, Controller) and self.phase.new_game:
            self.phase = Setup(self.records, self.phase.game.config.board, left=self.phase)
            self.observer.forget()  # the last game's board is no picture to compare the set-up with
        if self.phones is not None and isinstance(self.phase, Controller):
            try:
                self.phones.follow(self.phase)
            except Exception:  # the phones are an extra: a fault in them must never stop the game
                log.exception("phones: stopped showing the game")
                self.phones.server.stop()
                self.phones = None
        self._draw()

    def _look(self) -> bool:
        """Show the camera's view to the game; True when something was seen (a reading, or the camera lost)."""
        if not self._camera_ok and time.monotonic() < self._retry_at:
            return False
        try:
            if not self._camera_ok:  # unplugged and plugged back, or a driver hiccup: start it afresh
                self.camera.close()
                self.camera.start()
            if isinstance(self.phase, Calibrating) and self.phase.wants_picture:
                self.phase.on_picture(self.camera.capture())
                return False
            if isinstance(self.phase, Controller | Setup):
                self.phase.brief(self.observer)
            still, reading = read_when_still(self.camera, self.observer,
                                             again=self._read_next_still or bool(self.phase.looking))
        except CameraError as error:
            if self._camera_ok:
                log.error("camera: %s", error)
            self._camera_ok = False
            self._retry_at = time.monotonic() + self.camera_retry
            if isinstance(self.phase, Controller):
                self.phase.camera_lost()
            elif isinstance(self.phase, Calibrating) and self.phase.wants_picture:
                self.phase.failed(str(error))
            return True
        if not self._camera_ok:
            log.info("camera: pictures again")
            self._camera_ok, self._read_next_still = True, True
            if isinstance(self.phase, Controller):
                self.phase.camera_back()
        if not still:
            self._read_next_still = True
            if isinstance(self.phase, Controller):
                self.phase.on_motion()
        if reading is None:
            return False
        self._read_next_still = not reading.ok
        self.phase.on_reading(reading)
        return True

    def _draw(self) -> None:
        screen = self.phase.screen()
        if screen != self._drawn:
            self.renderer.draw(self.display.surface, screen)
            self.display.show()
            self._drawn = screen
            self.notify.status(screen.title)

    def run(self, frame_seconds: float = 0.05) -> None:
        while not self.stop:
            began = time.monotonic()
            self.step()
            time.sleep(max(0.0, frame_seconds - (time.monotonic() - began)))


def cue_for(moved: bool, shown: str | None, screen: Screen) -> Cue | None:
    """The sound after the camera looked: a call when it brings a screen that asks something of the
    players (anything but the turn screen), else a blip when it took a move. Taps make no sound: the
    player tapping is already looking."""
    if screen.name != shown and screen.name != "turn":
        return Cue.ATTENTION
    return Cue.MOVE if moved else None


def open_camera(config: Config) -> Camera:
    """The camera the configuration names, not started (picamera2 itself is imported only then)."""
    settings = config.camera
    if settings.backend == "synthetic":  # the set-up position, rendered: `companion run` without a camera
        from vision.sim.camera import SyntheticCamera

        return SyntheticCamera(size=settings.resolution) if all(settings.resolution) else SyntheticCamera()
    return settings.open()


def pieces_file(calibration: Path) -> Path:
    """Where the pieces the camera learnt at this table are kept: beside the calibration."""
    return calibration.with_suffix(".pieces.npz")


def open_observer(config: Config) -> tuple[Observer, str | None]:
    """The observer reading with the configured calibration and the pieces learnt with it on
    earlier evenings, and why there is no calibration it can use."""
    from vision import calibration
    from vision.memory import Memory

    path = config.calibration_file
    try:
        loaded = calibration.load(path)
    except calibration.CalibrationError as error:
        log.warning("%s", error)
        return Observer(None, memory=Memory(pieces_file(path))), str(error)
    if loaded.references is None:
        why = f"The calibration file {path} knows where the board lies but not what the pieces look like."
        log.warning("%s", why)
        return Observer(None, memory=Memory(pieces_file(path))), why
    return Observer(loaded, memory=Memory.load(pieces_file(path), loaded.created)), None


def open_phones(config: Config) -> Any:
    """The phones' server, started in its own thread, and the main loop's side of it; None when off or
    when its libraries are missing (said in the log: the table works on without it)."""
    if not config.phone.enabled:
        return None
    try:
        from companion.phone.follow import Phones
        from companion.phone.server import PhoneServer
    except ImportError as error:
        log.error("phones: %s — install python3-aiohttp and python3-segno (install.sh does)", error)
        return None
    server = PhoneServer(config.phone.bind, config.phone.port)
    server.start()
    if server.problem:
        log.warning("phones: %s", server.problem)
    return Phones(server)


@dataclass(frozen=True)
class Start:
    """Everything `companion run` reads from files before it opens the hardware."""

    config: Config
    phase: Controller | Setup
    observer: Observer
    why_not_calibrated: str | None


def start_up(config_file: Path | None, kept: Path | None) -> Start:
    """Read the configuration, the game records and the calibration. Nothing any of these files holds
    makes it raise: each problem is logged and becomes words on the screen."""
    config = load(config_file, kept=kept)
    for problem in config.problems:
        log.warning("%s", problem)
    phase = resume_or_setup(config.state_dir / GAMES, config.game.board)
    observer, why = open_observer(config)
    return Start(config, phase, observer, why)


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="companion run", description="The table companion: camera, screen, buttons.")
    parser.add_argument("--config", type=Path, help="configuration file (default: /etc/companion/config.toml)")
    args = parser.parse_args(list(argv))
    from companion.hardware.notify import setup_logging

    setup_logging()  # journal priorities under systemd, so `journalctl -p warning` finds the problems
    start = start_up(args.config, kept_copy())
    config = start.config
    from companion.hardware.buttons import open_gpio_buttons, pins_from_config
    from companion.hardware.display import Display
    from companion.hardware.notify import Notifier
    from companion.ui.inputs import Inputs
    from companion.ui.render import Renderer

    driver = config.screen.video_driver()
    if driver:
        os.environ["SDL_VIDEODRIVER"] = driver
    notify = Notifier()
    display = Display(config.screen.size, rotation=config.screen.rotation, fullscreen=config.screen.fullscreen)
    gpio = open_gpio_buttons(pins_from_config(config.button_pins))
    camera = open_camera(config)
    try:
        camera.start()
    except CameraError as error:
        log.error("camera: %s", error)
    renderer = Renderer()
    sound = config.sound
    speaker = open_sound(sound.enabled, sound.buzzer_pin if sound.buzzer_pin >= 0 else None, sound.buzzer)
    loop = Loop(start.phase, camera, start.observer, display, renderer, Inputs(renderer, touches=display.pointer),
                notify, config.state_dir / GAMES, speaker, phones=open_phones(config))
    if start.why_not_calibrated is not None:
        loop.calibrate_first(start.why_not_calibrated, config.calibration_file, config.game.board)

    def stop(signum: int, frame: object) -> None:
        loop.stop = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    notify.ready()
    try:
        loop.run()
    finally:
        notify.stopping()
        if loop.phones is not None:
            loop.phones.server.stop()
        camera.close()
        loop.observer.memory.save()
        speaker.close()
        if gpio is not None:
            gpio.close()
        record = getattr(loop.phase, "record", None)
        if isinstance(record, journal.Journal):
            record.close()
        import pygame

        pygame.quit()
    log.info("stopped cleanly")
    return 0

