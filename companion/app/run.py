"""`companion run`: the companion at the table — camera, touchscreen, GPIO buttons, the game record.

One main loop, no threads of ours: each pass pings the systemd watchdog, shows the camera's small
frame to the stability gate, reads the board once it is still, turns touches, keys and button
edges (which gpiozero's thread only posts as pygame events) into commands, and draws the screen.
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
from companion.app.config import Config, load
from companion.app.controller import Controller, Moment
from companion.app.hand_tally import HandTally
from companion.rules import CompanionError, Game
from companion.tracker import Tracker, expected_cells
from companion.ui import messages, wizard
from companion.ui.commands import UiCommand, Verb
from companion.ui.model import Screen, UiState
from vision.camera import Camera, CameraError
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

    def __init__(self, records: Path, board: str = "standard") -> None:
        self.draft = wizard.SetupDraft(board=board)
        self.ui = UiState()
        self.records = records
        self.differ: tuple[int, ...] = ()
        self.reading: BoardReading | None = None
        self.started: Controller | None = None
        self.looking = ""
        self.hand_tally: HandTally | None = None  # a game not followed from the start, tallied by hand
        self.problem: Exception | None = None  # a game record that cannot be read or written, in words

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
        elif command.verb is Verb.NAV and command.value == "start":
            game = Game(self.draft.config())
            try:
                self.started = Controller(game, journal.Journal.start(self.records, game))
            except OSError as error:  # JournalError: a full or read-only card, said in words
                self.problem = error


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
    controller = Controller(resumed.game, resumed.journal)
    controller.tracker = Tracker.resume(resumed.game)  # pieces the players still had to lift are asked for again
    controller.moment = Moment("resuming", started=resumed.started)
    log.info("%s", resumed.message)
    return controller


def read_when_still(camera: Camera, observer: Observer, *, again: bool) -> tuple[bool, BoardReading | None]:
    """One moment of the camera: is the board still, and its reading when it is and `again` asks for
    one. The full frame is taken and read only then: the small stream is all a moving board costs."""
    gate = observer.gate.update(camera.capture_small())
    if not gate.still or not again:
        return gate.still, None
    return True, observer.read(camera.capture(), darker=camera.capture_darker)


@dataclass
class Loop:
    """The main loop. `phase` is the set-up wizard, then the game's controller."""

    phase: Controller | Setup
    camera: Camera
    observer: Observer
    display: Any  # companion.hardware.display.Display
    renderer: Any  # companion.ui.render.Renderer
    inputs: Any  # companion.ui.inputs.Inputs: keys, GPIO edges and touches → commands
    notify: Notify
    records: Path  # where game records are kept
    stop: bool = False
    _read_next_still: bool = True  # the board moved since the last reading (or nothing was read yet)
    _drawn: Screen | None = field(default=None, repr=False)
    camera_retry: float = 2.0  # seconds between attempts to restart a camera that stopped
    _camera_ok: bool = True
    _retry_at: float = 0.0

    def step(self) -> None:
        """One pass of the main loop."""
        import pygame

        self.notify.watchdog()
        self._look()
        events = pygame.event.get()
        self.stop = self.stop or any(event.type == pygame.QUIT for event in events)
        for command in self.inputs.commands(events):
            self.phase.handle(command)
        if isinstance(self.phase, Setup) and self.phase.started is not None:
            self.phase = self.phase.started
            self._read_next_still = True
        elif isinstance(self.phase, Controller) and self.phase.new_game:
            self.phase = Setup(self.records, self.phase.game.config.board)
            self.observer.forget()  # the last game's board is no picture to compare the set-up with
        self._draw()

    def _look(self) -> None:
        if not self._camera_ok and time.monotonic() < self._retry_at:
            return
        try:
            if not self._camera_ok:  # unplugged and plugged back, or a driver hiccup: start it afresh
                self.camera.close()
                self.camera.start()
            if isinstance(self.phase, Controller):
                self.phase.brief(self.observer)
            still, reading = read_when_still(self.camera, self.observer,
                                             again=self._read_next_still or bool(self.phase.looking))
        except CameraError as error:
            if self._camera_ok:
                log.error("camera: %s", error)
            self._camera_ok = False
            self._retry_at = time.monotonic() + self.camera_retry
            if isinstance(self.phase, Controller):
                self.phase.moment = Moment("camera", error=error)
            return
        if not self._camera_ok:
            log.info("camera: pictures again")
            self._camera_ok, self._read_next_still = True, True
            if isinstance(self.phase, Controller) and self.phase.moment is not None \
                    and self.phase.moment.kind == "camera":
                self.phase.moment = None
        if not still:
            self._read_next_still = True
            if isinstance(self.phase, Controller):
                self.phase.on_motion()
        if reading is None:
            return
        self._read_next_still = not reading.ok
        self.phase.on_reading(reading)

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


def open_observer(config: Config) -> Observer:
    """The observer with the calibration and the pieces learnt with it on earlier evenings."""
    from vision import calibration
    from vision.memory import Memory

    path = config.calibration_file
    if not path.exists():
        log.warning("no calibration at %s: run `companion calibrate` first", path)
        return Observer(None)
    calibrated = calibration.load(path)
    return Observer(calibrated, memory=Memory.load(pieces_file(path), calibrated.created))


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="companion run", description="The table companion: camera, screen, buttons.")
    parser.add_argument("--config", type=Path, help="configuration file (default: /etc/companion/config.toml)")
    args = parser.parse_args(list(argv))
    logging.basicConfig(level=logging.INFO, format="<%(levelno)s>%(name)s: %(message)s"
                        if os.environ.get("JOURNAL_STREAM") else "%(levelname)s %(name)s: %(message)s")
    config = load(args.config)
    for problem in config.problems:
        log.warning("%s", problem)
    from companion.hardware.buttons import open_gpio_buttons, pins_from_config
    from companion.hardware.display import Display
    from companion.hardware.notify import Notifier
    from companion.ui.inputs import Inputs
    from companion.ui.render import Renderer

    driver = config.screen.video_driver()
    if driver:
        os.environ["SDL_VIDEODRIVER"] = driver
    notify = Notifier()
    records = config.state_dir / GAMES
    phase = resume_or_setup(records, config.game.board)
    display = Display(config.screen.size, rotation=config.screen.rotation, fullscreen=config.screen.fullscreen)
    gpio = open_gpio_buttons(pins_from_config(config.button_pins))
    camera = open_camera(config)
    try:
        camera.start()
    except CameraError as error:
        log.error("camera: %s", error)
    renderer = Renderer()
    loop = Loop(phase, camera, open_observer(config), display, renderer,
                Inputs(renderer, touches=display.pointer), notify, records)

    def stop(signum: int, frame: object) -> None:
        loop.stop = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    notify.ready()
    try:
        loop.run()
    finally:
        notify.stopping()
        camera.close()
        loop.observer.memory.save()
        if gpio is not None:
            gpio.close()
        record = getattr(loop.phase, "record", None)
        if isinstance(record, journal.Journal):
            record.close()
        import pygame

        pygame.quit()
    log.info("stopped cleanly")
    return 0

