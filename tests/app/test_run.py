"""`companion run`: the main loop with a synthetic camera, the dummy screen and mock GPIO buttons."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

pygame = pytest.importorskip("pygame")

from gpiozero.pins.mock import MockFactory  # noqa: E402

from companion.app import journal  # noqa: E402
from companion.app.config import Config, parse  # noqa: E402
from companion.app.controller import Controller  # noqa: E402
from companion.app.eyes import synthetic_calibration  # noqa: E402
from companion.app.run import Loop, Setup, open_camera, resume_or_setup  # noqa: E402
from companion.app.table import reading_of  # noqa: E402
from companion.hardware.buttons import GpioButtons, post_edge  # noqa: E402
from companion.hardware.display import Display  # noqa: E402
from companion.rules import Event, EventKind, Game, PendingKind, Support, cell_name, parse_cell  # noqa: E402
from companion.tracker import Look, expected_cells  # noqa: E402
from companion.ui.commands import Key, UiCommand, Verb  # noqa: E402
from companion.ui.gallery import play_until  # noqa: E402
from companion.ui.inputs import Inputs  # noqa: E402
from companion.ui.render import Renderer  # noqa: E402
from vision.camera import CameraError, FolderCamera, PiCamera  # noqa: E402
from vision.observer import Observer  # noqa: E402
from vision.reading import CellClass  # noqa: E402
from vision.sim.camera import SyntheticCamera  # noqa: E402
from vision.sim.synthetic import CameraPose, CellTruth, Scene  # noqa: E402

SIZE = (1014, 760)


class Pings:
    def __init__(self) -> None:
        self.sent: list[str] = []

    def ready(self) -> None:
        self.sent.append("READY=1")

    def watchdog(self) -> None:
        self.sent.append("WATCHDOG=1")

    def status(self, text: str) -> None:
        self.sent.append(f"STATUS={text}")

    def stopping(self) -> None:
        self.sent.append("STOPPING=1")


def loop_with_fakes(tmp_path: Path, now: list[float] | None = None) -> tuple[Loop, SyntheticCamera, Pings]:
    clock = (lambda: now[0]) if now is not None else time.monotonic
    pose = CameraPose()
    camera = SyntheticCamera(Scene.setup(), size=SIZE, pose=pose, seed=3)
    camera.start()
    observer = Observer(synthetic_calibration(pose, SIZE, seed=5), still_frames=2)
    pings = Pings()
    renderer = Renderer()
    loop = Loop(resume_or_setup(tmp_path / "games"), camera, observer, Display((800, 480)), renderer,
                Inputs(renderer, clock=clock), pings, tmp_path / "games")
    return loop, camera, pings


def test_the_loop_sets_up_a_game_and_follows_the_board(tmp_path: Path) -> None:
    now = [100.0]
    loop, camera, pings = loop_with_fakes(tmp_path, now)
    setup = loop.phase
    assert isinstance(setup, Setup)
    for what, which in (("players", 2), ("dynasty", "lion"), ("dynasty", "pot"), ("board", "standard"),
                        ("scores", "hidden")):
        setup.handle(UiCommand.choose(what, which))
    assert "The camera cannot check the board yet: no picture yet" in setup.screen().lines
    for _ in range(4):
        loop.step()
    assert setup.screen().name == "setup_camera" and setup.reading is not None and setup.differ == ()
    assert "The camera sees the set-up: all good." in setup.screen().lines
    gpio = GpioButtons(post_edge, {Key.OK: 13}, pin_factory=MockFactory(), clock=lambda: now[0])
    try:
        pin = gpio._buttons[0].pin
        pin.drive_low()  # OK pressed for a fifth of a second: "Start the game"
        loop.step()
        now[0] += 0.2
        pin.drive_high()
        loop.step()
    finally:
        gpio.close()
    controller = loop.phase
    assert isinstance(controller, Controller)
    assert [p.dynasty for p in controller.state.players] == ["lion", "pot"]
    board = list(expected_cells(controller.state))
    board[parse_cell("F11")] = Look(CellClass.TILE_RED)
    camera.hand_passing(Scene(tuple(CellTruth(look.cls, look.dynasty, look.monument) for look in board),
                              camera.scene.river, camera.scene.corners), frames=4)
    for _ in range(10):
        loop.step()
    assert [str(a) for a in controller.game.actions] == ["tile red F11"]
    assert pings.sent.count("WATCHDOG=1") == 4 + 2 + 10
    assert any(s.startswith("STATUS=") for s in pings.sent)
    record = journal.unfinished(tmp_path / "games")
    assert record is not None
    assert [str(a) for a in journal.resume(record).game.actions] == ["tile red F11"]


class Cable:
    """A camera whose cable can be pulled and put back."""

    def __init__(self, camera: SyntheticCamera) -> None:
        self.camera, self.pulled, self.starts = camera, False, 0

    def start(self) -> None:
        self.starts += 1
        if self.pulled:
            raise CameraError("No camera found. Check its cable.")
        self.camera.start()

    def close(self) -> None:
        self.camera.close()

    def capture_small(self) -> object:
        if self.pulled:
            raise CameraError("The camera stopped sending pictures. Check its cable.")
        return self.camera.capture_small()

    def capture(self) -> object:
        return self.camera.capture()


def test_an_unplugged_camera_is_shown_the_game_kept_and_the_camera_restarted(tmp_path: Path) -> None:
    game = Game.new(2, hidden_hands=True)
    journal.Journal.start(tmp_path / "games", game).close()
    loop, camera, _ = loop_with_fakes(tmp_path)
    cable = Cable(camera)
    loop.camera, loop.camera_retry = cable, 0.0  # type: ignore[assignment]
    assert isinstance(loop.phase, Controller) and loop.phase.screen().name == "resuming"
    loop.phase.handle(UiCommand.key(Key.OK))
    cable.pulled = True
    loop.step()
    loop.step()
    assert loop.phase.screen().name == "camera_lost" and cable.starts == 1
    cable.pulled = False
    loop.step()
    assert cable.starts == 2 and loop.phase.screen().name != "camera_lost"


def test_companion_run_is_ready_pings_the_watchdog_and_stops_on_sigterm(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f'[camera]\nbackend = "synthetic"\nresolution = [640, 480]\n'
                      f'[paths]\nstate_dir = "{tmp_path / "state"}"\n[screen]\ndriver = "dummy"\n')
    address = str(tmp_path / "notify")
    sink = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sink.bind(address)
    sink.settimeout(30)
    env = {**os.environ, "NOTIFY_SOCKET": address, "WATCHDOG_USEC": "200000", "SDL_VIDEODRIVER": "dummy",
           "GPIOZERO_PIN_FACTORY": "mock", "PYTHONPATH": str(Path(__file__).parents[2])}
    process = subprocess.Popen([sys.executable, "-m", "companion", "run", "--config", str(config)], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        got = []
        while "WATCHDOG=1" not in got:
            got.append(sink.recv(4096).decode())
        assert got[0] == "READY=1"
        time.sleep(0.3)
        process.send_signal(signal.SIGTERM)
        output, _ = process.communicate(timeout=30)
    finally:
        process.kill()
        sink.close()
    assert process.returncode == 0, output
    assert "stopped cleanly" in output


def test_the_set_up_menu_offers_a_tally_by_hand(tmp_path: Path) -> None:
    setup = Setup(tmp_path)
    setup.handle(UiCommand.choose("players", 3))
    setup.handle(UiCommand(Verb.MENU))
    assert setup.screen().name == "manual_tally"
    assert setup.screen().title.startswith("Player 1:")


def test_a_damaged_record_is_said_and_kept_and_a_new_game_can_start(tmp_path: Path) -> None:
    games = tmp_path / "games"
    game = Game.new(2, hidden_hands=True)
    with journal.Journal.start(games, game) as record:
        for action in ("tile red F11", "pass"):
            record.apply(game, action)
    path = next(games.glob("*.jsonl"))
    lines = path.read_bytes().splitlines(keepends=True)
    damaged = lines[0] + b"{this is not a line of the record}\n" + b"".join(lines[1:])
    path.write_bytes(damaged)
    setup = resume_or_setup(games)
    assert isinstance(setup, Setup) and setup.screen().name == "error"
    setup.handle(UiCommand.key(Key.OK))
    assert setup.screen().name == "setup_players"
    assert path.read_bytes() == damaged


def test_a_record_that_cannot_be_written_is_said_before_the_game_starts(tmp_path: Path) -> None:
    blocked = tmp_path / "games"
    blocked.write_text("a file where the folder of game records should be")
    setup = Setup(blocked)
    for what, which in (("players", 2), ("dynasty", "lion"), ("dynasty", "pot"), ("board", "standard"),
                        ("scores", "hidden")):
        setup.handle(UiCommand.choose(what, which))
    setup.handle(UiCommand.nav("start"))
    assert setup.started is None and setup.screen().name == "error"


def test_the_configured_camera_is_opened_with_its_settings(tmp_path: Path) -> None:
    pi = open_camera(Config())  # the default: the Pi camera, not started (picamera2 is absent here)
    assert isinstance(pi, PiCamera) and pi.size is None and pi.lens_position is None
    focused = open_camera(parse({"camera": {"lens_position": 1.25, "resolution": [2028, 1520]}}))
    assert isinstance(focused, PiCamera) and focused.size == (2028, 1520) and focused.lens_position == 1.25
    folder = open_camera(parse({"camera": {"backend": "folder", "device": str(tmp_path)}}))
    assert isinstance(folder, FolderCamera) and folder.folder == tmp_path
    assert isinstance(open_camera(parse({"camera": {"backend": "synthetic"}})), SyntheticCamera)


def test_pieces_still_owed_when_the_power_went_are_asked_for_again(tmp_path: Path) -> None:
    # A conflict decided on the buttons: the rules removed its losers, the players had not lifted them yet.
    def decided(game: Game, events: Sequence[Event]) -> bool:
        return bool(game.actions) and isinstance(game.actions[-1], Support) \
            and game.pending.kind is PendingKind.ACTION and any(e.kind is EventKind.PIECES_REMOVED for e in events)

    game, events = play_until(decided, players=2)
    removed = sorted({c for e in events if e.kind is EventKind.PIECES_REMOVED for c in e.cells})
    games = tmp_path / "games"
    played = Game(game.config)
    with journal.Journal.start(games, played) as record:
        for action in game.actions:
            record.apply(played, action)
    after = expected_cells(game.state)
    game.undo()
    table = [expected_cells(game.state)[c] if c in removed else look for c, look in enumerate(after)]

    controller = resume_or_setup(games)  # the power came back
    assert isinstance(controller, Controller)
    controller.on_reading(reading_of(table))
    controller.handle(UiCommand.key(Key.OK))  # "Continue": the camera looks at the board
    screen = controller.screen()
    assert screen.name == "owed", screen
    asked = [line for line in screen.lines if line.startswith("Please remove")]
    assert [line.rsplit(" ", 1)[-1] for line in asked] == [f"{cell_name(c)}." for c in removed]
    controller.on_reading(reading_of(after))  # lifted
    assert controller.moment is None and not controller.owed and controller.screen().name != "owed"


def test_the_pieces_learnt_are_kept_beside_the_calibration(tmp_path: Path) -> None:
    """The observer opens with the pieces learnt on earlier evenings with this calibration; a
    damaged file of them is no reason not to start."""
    import numpy as np

    from companion.app.run import open_observer, pieces_file
    from vision import calibration as calib
    from vision.memory import Memory
    from vision.reading import CellReading

    config = parse({"paths": {"state_dir": str(tmp_path)}})
    calibrated = synthetic_calibration(CameraPose(), SIZE, seed=5)
    calib.save(calibrated, config.calibration_file)
    path = pieces_file(config.calibration_file)
    assert path == tmp_path / "calibration.pieces.npz"
    learnt = Memory(path, calibrated.created)
    learnt.learn(np.zeros((2, 16, 16, 3), np.uint8), [CellReading(CellClass.LEADER_RED, 1.0)] * 2)
    learnt.save()
    assert open_observer(config).memory.classes == (CellClass.LEADER_RED,) * 2
    path.write_bytes(b"damaged")
    observer = open_observer(config)
    assert observer.calibration is not None and len(observer.memory) == 0
