"""`companion run`: the main loop with a synthetic camera, the dummy screen and mock GPIO buttons."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

pygame = pytest.importorskip("pygame")

from gpiozero.pins.mock import MockFactory  # noqa: E402

from companion.app import journal  # noqa: E402
from companion.app.config import Config, parse  # noqa: E402
from companion.app.controller import Controller  # noqa: E402
from companion.app.run import Loop, Setup, cue_for, open_camera, open_observer, resume_or_setup  # noqa: E402
from companion.commands import Key, UiCommand, Verb  # noqa: E402
from companion.hardware.buttons import GpioButtons, post_edge  # noqa: E402
from companion.hardware.display import Display  # noqa: E402
from companion.hardware.sound import Cue  # noqa: E402
from companion.rules import Event, EventKind, Game, PendingKind, Support, cell_name, parse_cell  # noqa: E402
from companion.sim.eyes import synthetic_calibration  # noqa: E402
from companion.sim.table import reading_of  # noqa: E402
from companion.tracker import Look, expected_cells  # noqa: E402
from companion.ui.gallery import play_until  # noqa: E402
from companion.ui.inputs import Inputs  # noqa: E402
from companion.ui.render import Renderer  # noqa: E402
from vision.calibration import Calibration  # noqa: E402
from vision.camera import CameraError, FolderCamera, PiCamera  # noqa: E402
from vision.observer import Observer  # noqa: E402
from vision.reading import BoardReading, CellClass, CellReading  # noqa: E402
from vision.sim.camera import SyntheticCamera  # noqa: E402
from vision.sim.synthetic import CameraPose, CellTruth, Scene  # noqa: E402

SIZE = (1014, 760)


class Heard:
    """A speaker that writes down the cues."""

    def __init__(self) -> None:
        self.cues: list[Cue] = []

    def play(self, cue: Cue) -> None:
        self.cues.append(cue)

    def close(self) -> None:
        pass


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
    assert setup.reading.changed == ()  # compared with the calibration's set-up picture: nothing changed
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
    loop.speaker = heard = Heard()
    board = list(expected_cells(controller.state))
    board[parse_cell("F11")] = Look(CellClass.TILE_RED)
    camera.hand_passing(Scene(tuple(CellTruth(look.cls, look.dynasty, look.monument) for look in board),
                              camera.scene.river, camera.scene.corners), frames=4)
    for _ in range(10):
        loop.step()
    assert [str(a) for a in controller.game.actions] == ["tile red F11"]
    assert heard.cues == [Cue.MOVE]  # once, when the camera took the tile
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
    loop.speaker = heard = Heard()
    cable.pulled = True
    loop.step()
    loop.step()
    assert heard.cues == [Cue.ATTENTION]  # the players must check the cable: called once
    assert loop.phase.screen().name == "camera_lost" and cable.starts == 1
    cable.pulled = False
    loop.step()
    assert cable.starts == 2 and loop.phase.screen().name != "camera_lost"


def run_until_watchdog(tmp_path: Path, extra: str = "") -> tuple[list[str], str, int]:
    """`companion run` as systemd starts it: what it told systemd up to its first watchdog ping, and
    what it printed and returned after SIGTERM."""
    config = tmp_path / "config.toml"
    config.write_text(f'[camera]\nbackend = "synthetic"\nresolution = [640, 480]\n'
                      f'[paths]\nstate_dir = "{tmp_path / "state"}"\n[screen]\ndriver = "dummy"\n' + extra)
    address = str(tmp_path / "notify")
    sink = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sink.bind(address)
    sink.settimeout(30)
    env = {**os.environ, "NOTIFY_SOCKET": address, "WATCHDOG_USEC": "200000", "SDL_VIDEODRIVER": "dummy",
           "GPIOZERO_PIN_FACTORY": "mock", "PYTHONPATH": str(Path(__file__).parents[2]),
           "STATE_DIRECTORY": str(tmp_path / "state")}
    process = subprocess.Popen([sys.executable, "-m", "companion", "run", "--config", str(config)], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        got = []
        while "WATCHDOG=1" not in got or not any(said.startswith("STATUS=") for said in got):
            got.append(sink.recv(4096).decode())
        time.sleep(0.3)
        process.send_signal(signal.SIGTERM)
        output, _ = process.communicate(timeout=30)
    finally:
        process.kill()
        sink.close()
    return got, output, process.returncode


def test_companion_run_is_ready_pings_the_watchdog_and_stops_on_sigterm(tmp_path: Path) -> None:
    got, output, code = run_until_watchdog(tmp_path)
    assert got[0] == "READY=1"
    assert code == 0, output
    assert "stopped cleanly" in output


def test_companion_run_starts_over_a_calibration_it_cannot_use_and_says_why(tmp_path: Path) -> None:
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "calibration.json").write_text('{"format": "tigris-companion-calibration", "version": 2}')
    got, output, code = run_until_watchdog(tmp_path)
    assert got[0] == "READY=1" and "STATUS=The camera cannot read the board" in got
    assert code == 0 and "Traceback" not in output and "written by another version" in output


def test_the_set_up_menu_offers_a_tally_by_hand(tmp_path: Path) -> None:
    setup = Setup(tmp_path)
    setup.handle(UiCommand.choose("players", 3))
    setup.handle(UiCommand(Verb.MENU))
    assert setup.screen().name == "manual_tally"
    assert setup.screen().title.startswith("Player 1:")


def test_a_damaged_record_is_said_and_kept_and_the_moves_before_the_damage_resumed(tmp_path: Path) -> None:
    games = tmp_path / "games"
    game = Game.new(2, hidden_hands=True)
    with journal.Journal.start(games, game) as record:
        for action in ("tile red F11", "pass", "pass"):
            record.apply(game, action)
    path = next(games.glob("*.jsonl"))
    lines = path.read_bytes().splitlines(keepends=True)
    damaged = b"".join(lines[:3]) + b"{this is not a line of the record}\n" + lines[3]
    path.write_bytes(damaged)
    controller = resume_or_setup(games)
    assert isinstance(controller, Controller)
    assert [str(a) for a in controller.game.actions] == ["tile red F11", "pass"]
    screen = controller.screen()
    assert screen.name == "resuming" and screen.title.endswith("2 actions")
    assert any(line.startswith(f"Moves 3–4 of {path.name} could not be read") and "after move 2" in line
               for line in screen.lines)
    assert path.read_bytes() == damaged


def test_a_record_with_an_unusable_header_is_said_and_kept_and_a_new_game_can_start(tmp_path: Path) -> None:
    games = tmp_path / "games"
    games.mkdir()
    path = games / "game-20261129-201400.jsonl"
    path.write_text('{"format":"te-companion game record","config":null}\n')
    setup = resume_or_setup(games)
    assert isinstance(setup, Setup) and setup.screen().name == "error"
    assert any("line 1" in line for line in setup.screen().lines)
    setup.handle(UiCommand.key(Key.OK))
    assert setup.screen().name == "setup_players"
    assert path.read_text() == '{"format":"te-companion game record","config":null}\n'


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


def test_the_set_up_of_a_new_game_leads_back_to_the_game_left(tmp_path: Path) -> None:
    game = Game.new(2, hidden_hands=True)
    controller = Controller(game)
    controller.handle(UiCommand.action("pass"))
    controller.handle(UiCommand.nav("new"))
    controller.handle(UiCommand.nav("start-new"))
    assert controller.new_game
    setup = Setup(tmp_path / "games", left=controller)
    setup.handle(UiCommand.choose("players", 3))
    screen = setup.screen()
    back = next(b for b in screen.buttons if b.label == "Back to the game")
    setup.handle(back.command)
    assert setup.started is controller and not controller.new_game
    assert [str(a) for a in controller.game.actions] == ["pass"] and controller.screen().name == "turn"
    assert not (tmp_path / "games").exists()  # no record of a new game was begun
def test_the_camera_calls_the_players_for_a_new_question_and_blips_for_a_move() -> None:
    from companion.ui.model import Screen

    turn, result = Screen(name="turn", title="Bo's turn"), Screen(name="result", title="Bo wins")
    assert cue_for(True, "turn", turn) is Cue.MOVE
    assert cue_for(True, "turn", result) is Cue.ATTENTION  # a move that starts something to do
    assert cue_for(False, "turn", Screen(name="mismatch", title="")) is Cue.ATTENTION
    assert cue_for(False, "mismatch", Screen(name="mismatch", title="")) is None  # asked already
    assert cue_for(False, "turn", turn) is None


class Told(Observer):
    """The real observer, keeping what the companion told it."""

    def __init__(self, calibration: Calibration, still_frames: int) -> None:
        super().__init__(calibration, still_frames=still_frames)
        self.agreed: list[tuple[CellReading, ...]] = []
        self.told: list[tuple[frozenset[CellClass], ...] | None] = []  # the candidates at each read

    def agree(self, shown: Sequence[CellReading]) -> None:
        self.agreed.append(tuple(shown))

    def read(self, frame: object, darker: Callable[[], np.ndarray | None] | None = None) -> BoardReading:
        self.told.append(self.candidates)
        return super().read(frame, darker)


def test_the_loop_tells_the_observer_what_may_appear_and_what_the_game_agreed_with(tmp_path: Path) -> None:
    pose = CameraPose()
    camera = SyntheticCamera(Scene.setup(), size=SIZE, pose=pose, seed=3)
    camera.start()
    observer = Told(synthetic_calibration(pose, SIZE, seed=5), still_frames=2)
    renderer = Renderer()
    controller = Controller(Game.new(2, hidden_hands=True))
    loop = Loop(controller, camera, observer, Display((800, 480)), renderer, Inputs(renderer), Pings(),
                tmp_path / "games")
    for _ in range(5):
        loop.step()
    assert len(observer.told) == 1 and len(observer.agreed) == 1  # the set-up, read and agreed
    f11 = parse_cell("F11")
    board = list(expected_cells(controller.state))
    board[f11] = Look(CellClass.TILE_RED)
    camera.hand_passing(Scene(tuple(CellTruth(look.cls, look.dynasty, look.monument) for look in board),
                              camera.scene.river, camera.scene.corners), frames=4)
    for _ in range(10):
        loop.step()
    assert [str(a) for a in controller.game.actions] == ["tile red F11"]
    told = observer.told[-1]
    assert told is not None and CellClass.TILE_RED in told[f11]  # told before the read that saw it
    assert len(observer.agreed) == 2 and observer.agreed[-1][f11].cls is CellClass.TILE_RED


def _calibration_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "calibration.json"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("damage", "words"),
    [
        (lambda text: text[: len(text) // 2], "damaged"),
        (lambda text: text.replace('"version": 3', '"version": 2'), "another version"),
        (lambda text: re.sub(r'"homography": \[.*?\]\s*\]', '"homography": [[0, 0, 0], [0, 0, 0], [0, 0, 1]]', text,
                             flags=re.S), "grid is flat"),
        (lambda text: text.replace('"method"', '"deep": ' + "[" * 50_000 + "]" * 50_000 + ', "method"'), "nested"),
        (lambda text: "", "damaged"),
    ],
)
def test_a_calibration_that_cannot_be_used_never_stops_the_start(tmp_path: Path, damage, words: str) -> None:
    from vision import calibration as calib

    good = calib.to_json(synthetic_calibration(CameraPose(), SIZE, seed=5))
    path = _calibration_file(tmp_path, damage(good))
    observer, why = open_observer(parse({"paths": {"state_dir": str(tmp_path)}}))
    assert observer.calibration is None and why is not None and words in why and str(path) in why


def test_calibrating_at_the_table_when_the_calibration_cannot_be_used(tmp_path: Path) -> None:
    from vision import calibration as calib

    loop, camera, _ = loop_with_fakes(tmp_path)
    loop.observer = Observer(None, still_frames=2)
    out = _calibration_file(tmp_path, "the old, broken calibration")
    loop.calibrate_first("The calibration file is damaged.", out, "standard")
    loop.step()
    assert loop.phase.screen().name == "calibration_offer"
    assert "The calibration file is damaged." in loop.phase.screen().lines
    layout = calib.pieces_layout()
    shown = Scene.setup().with_cells({c: CellTruth(p.cls, p.dynasty, p.monument) for c, p in layout.items()})
    # the pieces picture taken too soon: refused, naming the squares, the old file kept
    for pieces, expected in ((Scene.setup(), "calibration_failed"), (shown, "setup_players")):
        loop.phase.handle(UiCommand.key(Key.OK))  # Calibrate now / Try again
        assert loop.phase.screen().name == "calibration_setup"
        camera.scene = Scene.setup()
        loop.phase.handle(UiCommand.key(Key.OK))  # Take the picture
        loop.step()
        assert loop.phase.screen().name == "calibration_pieces"
        assert loop.phase.screen().board is not None
        camera.scene = pieces
        loop.phase.handle(UiCommand.key(Key.OK))
        loop.step()
        loop.step()
        assert loop.phase.screen().name == expected, loop.phase.screen()
        if expected == "calibration_failed":
            assert "should show a" in loop.phase.screen().lines[0]
            assert out.read_text() == "the old, broken calibration"
    assert loop.observer.calibration is not None and calib.load(out).references is not None


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
    assert open_observer(config)[0].memory.classes == (CellClass.LEADER_RED,) * 2
    path.write_bytes(b"damaged")
    observer, why = open_observer(config)
    assert why is None and observer.calibration is not None and len(observer.memory) == 0
