import math
import tomllib
from pathlib import Path

import pytest

from companion.app import config
from companion.app.config import ButtonsConfig, Config

SHIPPED = Path(__file__).parents[2] / "systemd" / "config.toml"


def test_the_shipped_file_documents_every_setting_at_its_default():
    data = tomllib.loads(SHIPPED.read_text())
    loaded = config.parse(data, "config.toml")
    assert loaded.problems == ()
    assert loaded == Config(source="config.toml")
    assert data == tomllib.loads(config.to_toml(Config()))


def test_a_missing_file_gives_the_defaults(tmp_path):
    loaded = config.load(tmp_path / "absent.toml")
    assert loaded.camera == Config().camera
    assert loaded.problems == ()
    assert "does not exist" in loaded.source


def test_a_wrong_value_names_the_key_and_the_default_used(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('[camera]\nbackend = "usb"\nresolution = [640]\n[screen]\nfullscreen = "yes"\n')
    loaded = config.load(path)
    assert loaded.camera.backend == "picamera2"
    assert loaded.camera.resolution == (0, 0)
    assert loaded.screen.fullscreen is True
    assert loaded.problems == (
        f'{path}: [camera] backend = "usb" is not one of "picamera2", "opencv", "folder", "synthetic" '
        '— using "picamera2"',
        f"{path}: [camera] resolution = [640] is not a list of 2 numbers — using [0, 0]",
        f'{path}: [screen] fullscreen = "yes" is not true or false — using true',
    )


def test_good_values_next_to_bad_ones_are_kept():
    loaded = config.parse({"camera": {"backend": "opencv", "device": 0, "lens_position": 2, "resolution": 1}})
    assert (loaded.camera.backend, loaded.camera.device, loaded.camera.lens_position) == ("opencv", "0", 2.0)
    assert loaded.camera.resolution == (0, 0)
    assert len(loaded.problems) == 1 and "resolution = 1" in loaded.problems[0]


def test_unknown_keys_and_sections_are_ignored_with_a_message():
    loaded = config.parse({"camera": {"fps": 30}, "lights": {"colour": 3}, "game": 4})
    assert loaded == Config(source="config", problems=loaded.problems)
    assert [p.split(" — ")[0] for p in loaded.problems] == [
        "config: unknown section [lights]",
        "config: game must be a section [game]",
        "config: unknown key [camera] fps",
    ]


def test_a_corrupt_file_falls_back_to_every_default(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("[camera\nbackend = 'opencv'\n")
    loaded = config.load(path)
    assert loaded.camera == Config().camera
    assert len(loaded.problems) == 1
    assert "line 1" in loaded.problems[0] and "built-in defaults" in loaded.problems[0]


def test_buttons_sharing_a_pin_or_off_the_header_give_the_default_wiring():
    shared = config.parse({"buttons": {"up": 6}})
    assert shared.buttons == ButtonsConfig()
    assert "two buttons share a pin" in shared.problems[0]
    off = config.parse({"buttons": {"menu": 40}})
    assert off.buttons == ButtonsConfig()
    assert "menu = 40 is not a GPIO pin" in off.problems[0]
    rewired = config.parse({"buttons": {"up": 17, "down": 27}})
    assert rewired.button_pins == {"up": 17, "down": 27, "ok": 13, "back": 19, "menu": 26}


def test_the_buzzer_needs_a_free_gpio_pin():
    assert config.parse({"sound": {"buzzer_pin": 21, "buzzer": "active"}}).sound.buzzer_pin == 21
    for pin, words in ((13, "13 is a button's pin — no buzzer"),
                       (40, "40 is not -1 (none) or a GPIO pin from 2 to 27 — using -1")):
        wrong = config.parse({"sound": {"buzzer_pin": pin}})
        assert wrong.sound.buzzer_pin == -1
        assert f"[sound] buzzer_pin = {words}" in wrong.problems[0]
    assert config.parse({"sound": {"enabled": False}}).sound.enabled is False


def test_save_writes_what_load_reads(tmp_path):
    changed = config.parse({"screen": {"size": [720, 1280], "rotation": 90}, "game": {"scores": "open"}})
    config.save(changed, tmp_path / "config.toml")
    again = config.load(tmp_path / "config.toml")
    assert (again.screen, again.game) == (changed.screen, changed.game)


def test_the_state_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("STATE_DIRECTORY", "/var/lib/companion:/var/lib/other")
    assert config.default_state_dir() == Path("/var/lib/companion")
    monkeypatch.delenv("STATE_DIRECTORY")
    monkeypatch.setattr(config, "SYSTEM_STATE_DIR", tmp_path / "absent")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert config.default_state_dir() == tmp_path / "state" / "companion"
    explicit = config.parse({"paths": {"state_dir": str(tmp_path), "calibration": "cal/board.json"}})
    assert explicit.calibration_file == tmp_path / "cal" / "board.json"
    assert explicit.games_dir == tmp_path / "games"


def test_the_video_driver():
    screen = Config().screen
    assert screen.video_driver({}) == "kmsdrm"
    assert screen.video_driver({"WAYLAND_DISPLAY": "wayland-1"}) == ""
    assert screen.video_driver({"SDL_VIDEODRIVER": "dummy", "DISPLAY": ":0"}) == "dummy"
    assert config.parse({"screen": {"driver": "x11"}}).screen.video_driver({}) == "x11"


def test_the_config_path_follows_the_environment(monkeypatch):
    monkeypatch.setenv("COMPANION_CONFIG", "/tmp/x.toml")
    assert config.config_path() == Path("/tmp/x.toml")
    monkeypatch.delenv("COMPANION_CONFIG")
    assert config.config_path() == Path("/etc/companion/config.toml")


def test_the_settings_open_the_matching_vision_camera(tmp_path):
    from vision.camera import FolderCamera, OpenCVCamera, PiCamera

    pi = config.parse({"camera": {"lens_position": 1.25}}).camera.open()
    assert isinstance(pi, PiCamera) and (pi.size, pi.lens_position) == (None, 1.25)
    webcam = config.parse({"camera": {"backend": "opencv", "device": "1", "resolution": [640, 480]}}).camera.open()
    assert isinstance(webcam, OpenCVCamera) and (webcam.source, webcam.size) == (1, (640, 480))
    folder = config.parse({"camera": {"backend": "folder", "device": str(tmp_path)}}).camera.open()
    assert isinstance(folder, FolderCamera) and folder.folder == tmp_path


@pytest.mark.parametrize(
    ("section", "key", "value", "words"),
    [
        ("screen", "size", [-800, 480], "is not a size from 240×240 to 7680×4320 pixels — using [800, 480]"),
        ("camera", "resolution", [1, 1], "is not [0, 0] or a size from 320×240 to 4656×3496 pixels — using [0, 0]"),
        ("camera", "lens_position", math.nan, "= nan is not a number of dioptres from 0 to 15 — using 0.0"),
        ("camera", "lens_position", -2.0, "is not a number of dioptres from 0 to 15 — using 0.0"),
        ("buttons", "ok", 1, "= 1 is not a GPIO pin from 2 to 27 (the Pi keeps 0 and 1 for HATs) — using 13"),
        ("paths", "state_dir", "/proc/companion", "outside /proc, /sys and /dev — using \"\""),
        ("paths", "state_dir", "games", "is not a folder's absolute path (or ~/…) outside /proc"),
        ("paths", "calibration", "/sys/../sys/cal.json", "outside /proc, /sys and /dev — using \"calibration.json\""),
        ("paths", "calibration", "", "is not a file's path"),
        ("camera", "device", "video\0.mp4", "is not a device number, a video file or a folder"),
        ("screen", "driver", "x" * 100_000, "is not an SDL video driver's name"),
        ("screen", "rotation", 90.0, "is not one of 0, 90, 180, 270 — using 0"),
    ],
)
def test_every_setting_has_a_range_and_out_of_it_the_default_is_used(section, key, value, words):
    loaded = config.parse({section: {key: value}})
    assert getattr(getattr(loaded, section), key) == getattr(getattr(Config(), section), key)
    [problem] = loaded.problems
    assert problem.startswith(f"config: [{section}] {key} = ") and words in problem
    assert len(problem) < 300


def test_a_toml_syntax_error_keeps_the_last_configuration_that_loaded_and_names_the_line(tmp_path):
    path, kept = tmp_path / "config.toml", tmp_path / "state" / config.KEPT_COPY
    good = '[buttons]\nok = 16\n[camera]\nbackend = "opencv"\n'
    path.write_text(good)
    assert config.load(path, kept=kept).buttons.ok == 16
    assert kept.read_text() == good  # the companion's own copy
    path.write_text('[buttons]\nok = 16\n[camera]\nbackend = "opencv\n')  # a quote forgotten
    loaded = config.load(path, kept=kept)
    assert (loaded.buttons.ok, loaded.camera.backend) == (16, "opencv")
    [problem] = loaded.problems
    assert problem.startswith(f'{path} line 4 is broken (') and 'backend = "opencv' in problem
    assert f"using the last configuration that loaded (kept in {kept})" in problem
    assert kept.read_text() == good
    assert [p.name for p in kept.parent.iterdir()] == [config.KEPT_COPY]  # written atomically, nothing left over


@pytest.mark.parametrize("text", ["a = " + "[" * 100_000, "x" * (config.MAX_BYTES + 1), "\udcff"])
def test_any_file_at_all_gives_a_configuration(tmp_path, text):
    path = tmp_path / "config.toml"
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    loaded = config.load(path)
    assert loaded.buttons == ButtonsConfig()
    [problem] = loaded.problems
    assert str(path) in problem and "built-in defaults" in problem and len(problem) < 300
