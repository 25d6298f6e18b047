"""The companion's settings: /etc/companion/config.toml, read with tomllib into typed dataclasses.

A mistake in the file never stops the companion: each value of the wrong type or out of its range
(`Rule`) is replaced by its safe default and the problem is told in words that name the key
(`Config.problems`, also logged as warnings). A file that cannot be read at all (a TOML syntax
error) does not throw every setting away: `companion run` keeps a copy of the last file that loaded
in the state directory, and that copy is used until the file is mended.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import logging
import math
import os
import re
import tomllib
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from companion.app.problems import clip, disk_words
from vision.files import write_atomic

if TYPE_CHECKING:
    from vision.camera import Camera

log = logging.getLogger(__name__)

SYSTEM_CONFIG = Path("/etc/companion/config.toml")
SYSTEM_STATE_DIR = Path("/var/lib/companion")
KEPT_COPY = "config-last-loaded.toml"  # in the state directory: the last configuration file that loaded
MAX_BYTES = 1024 * 1024  # the documented file is 3 KB


@dataclass(frozen=True)
class Rule:
    """The range of one setting: `test` says whether a value of the right type is in it."""

    test: Callable[[Any], bool]
    words: str  # "a number from 0 to 15": what the warning says the value must be


def _rule(test: Callable[[Any], bool], words: str) -> dict[str, Rule]:
    return {"rule": Rule(test, words)}


def _size(low: tuple[int, int], high: tuple[int, int], zero: bool = False) -> dict[str, Rule]:
    def test(size: tuple[int, int]) -> bool:
        return (zero and size == (0, 0)) or all(a <= v <= b for a, v, b in zip(low, size, high, strict=True))

    words = f"a size from {low[0]}×{low[1]} to {high[0]}×{high[1]} pixels"
    return _rule(test, ("[0, 0] or " if zero else "") + words)


def _pin() -> dict[str, Rule]:
    # GPIO 0 and 1 carry the HAT identification EEPROM's I2C bus; the Pi reserves them at boot.
    return _rule(lambda pin: 2 <= pin <= 27, "a GPIO pin from 2 to 27 (the Pi keeps 0 and 1 for HATs)")


_SYSTEM = ("/proc", "/sys", "/dev")  # kernel file systems: no file of ours may live there
_LONGEST_PATH = 4096


def _path(words: str, test: Callable[[str], bool] = bool, *, empty: bool = True) -> dict[str, Rule]:
    def ours(text: str) -> bool:
        if not text:
            return empty
        if "\0" in text or len(text) > _LONGEST_PATH:
            return False
        full = os.path.normpath(os.path.expanduser(text))
        return test(text) and not any(full == root or full.startswith(root + "/") for root in _SYSTEM)

    return _rule(ours, f"{words} outside /proc, /sys and /dev")


@dataclass(frozen=True)
class CameraConfig:
    # picamera2 on the Pi; opencv for a USB webcam; folder replays images; synthetic renders a game.
    backend: Literal["picamera2", "opencv", "folder", "synthetic"] = "picamera2"
    # opencv: a device number ("0") or a video file; folder: a directory of images.
    device: str = field(default="", metadata=_path("a device number, a video file or a folder"))
    # [0, 0] lets the camera choose (picamera2: the smallest full-field mode at least 1500 px wide).
    # At most the largest Pi camera mode (Arducam 16 MP: 4656×3496).
    resolution: tuple[int, int] = field(default=(0, 0), metadata=_size((320, 240), (4656, 3496), zero=True))
    # Fixed focus in dioptres (1 / metres), e.g. 1.25 for 80 cm; 0 leaves the lens where the camera puts it.
    # Camera Module 3 focuses from infinity (0) to about 7 cm (15).
    lens_position: float = field(default=0.0, metadata=_rule(lambda d: math.isfinite(d) and 0 <= d <= 15,
                                                             "a number of dioptres from 0 to 15"))

    def open(self) -> Camera:
        """The vision camera these settings describe, not yet started."""
        from vision.camera import FolderCamera, OpenCVCamera, PiCamera

        size = self.resolution if all(self.resolution) else None
        if self.backend == "picamera2":
            return PiCamera(size=size, lens_position=self.lens_position or None)
        if self.backend == "opencv":
            source: int | str = int(self.device) if self.device.isdigit() else (self.device or 0)
            return OpenCVCamera(source, size=size)
        if self.backend == "folder":
            return FolderCamera(self.device)
        raise ValueError("the synthetic camera renders a simulated game: `companion demo` makes its own")


@dataclass(frozen=True)
class ScreenConfig:
    size: tuple[int, int] = field(default=(800, 480), metadata=_size((240, 240), (7680, 4320)))
    rotation: Literal[0, 90, 180, 270] = 0
    fullscreen: bool = True
    # SDL video driver; "" picks kmsdrm on the console and lets SDL choose in a desktop session.
    driver: str = field(default="", metadata=_rule(lambda name: re.fullmatch(r"[A-Za-z0-9_]{0,32}", name) is not None,
                                                    "an SDL video driver's name, such as kmsdrm or x11"))

    def video_driver(self, environ: Mapping[str, str] | None = None) -> str:
        """The SDL video driver to ask for ("" lets SDL choose): $SDL_VIDEODRIVER wins, then `driver`."""
        env = os.environ if environ is None else environ
        if env.get("SDL_VIDEODRIVER"):
            return env["SDL_VIDEODRIVER"]
        if self.driver:
            return self.driver
        return "" if env.get("WAYLAND_DISPLAY") or env.get("DISPLAY") else "kmsdrm"


@dataclass(frozen=True)
class ButtonsConfig:
    # BCM GPIO numbers; each button joins its pin to ground (the internal pull-up is used).
    up: int = field(default=5, metadata=_pin())
    down: int = field(default=6, metadata=_pin())
    ok: int = field(default=13, metadata=_pin())
    back: int = field(default=19, metadata=_pin())
    menu: int = field(default=26, metadata=_pin())


@dataclass(frozen=True)
class SoundConfig:
    # The off switch: false keeps the companion silent.
    enabled: bool = True
    # BCM GPIO number of a piezo buzzer (the other leg to ground); -1 when there is none.
    buzzer_pin: int = field(default=-1, metadata=_rule(lambda pin: pin == -1 or 2 <= pin <= 27,
                                                       "-1 (none) or a GPIO pin from 2 to 27"))
    # "passive" piezos play the notes (gpiozero TonalBuzzer); "active" ones can only beep (Buzzer).
    buzzer: Literal["passive", "active"] = "passive"


@dataclass(frozen=True)
class GameSettings:
    scores: Literal["hidden", "open"] = "hidden"
    board: Literal["standard", "alternate"] = "standard"
    english_support: bool = False


def _local_address(text: str) -> bool:
    """"" or an address of this machine on a local network: private, link-local or loopback."""
    if not text:
        return True
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return False
    return (address.is_private or address.is_link_local or address.is_loopback) and not address.is_unspecified


@dataclass(frozen=True)
class PhoneConfig:
    # Each player's page on their phone (companion.phone); off unless switched on.
    enabled: bool = False
    # Above 1023: the service has no privilege to take a lower port.
    port: int = field(default=8080, metadata=_rule(lambda port: 1024 <= port <= 65535, "a port from 1024 to 65535"))
    # "" listens on the address of the local network the companion is on (its default route's).
    bind: str = field(default="", metadata=_rule(_local_address, '"" or an address on a local network, such as '
                                                                 '192.168.1.20 (private, link-local or 127.0.0.1)'))


@dataclass(frozen=True)
class PathsConfig:
    # "" means $STATE_DIRECTORY under systemd, else /var/lib/companion, else ~/.local/state/companion.
    state_dir: str = field(default="", metadata=_path("a folder's absolute path (or ~/…)",
                                                      lambda text: text.startswith(("/", "~"))))
    # Relative paths are taken inside the state directory.
    calibration: str = field(default="calibration.json", metadata=_path("a file's path", empty=False))


@dataclass(frozen=True)
class Config:
    camera: CameraConfig = field(default_factory=CameraConfig)
    screen: ScreenConfig = field(default_factory=ScreenConfig)
    buttons: ButtonsConfig = field(default_factory=ButtonsConfig)
    sound: SoundConfig = field(default_factory=SoundConfig)
    game: GameSettings = field(default_factory=GameSettings)
    paths: PathsConfig = field(default_factory=PathsConfig)
    phone: PhoneConfig = field(default_factory=PhoneConfig)
    source: str = "built-in defaults"
    problems: tuple[str, ...] = ()

    @property
    def state_dir(self) -> Path:
        if self.paths.state_dir:
            return Path(self.paths.state_dir).expanduser()
        return default_state_dir()

    @property
    def games_dir(self) -> Path:
        """Where the game records (journals) live: the unfinished one is resumed from here."""
        return self.state_dir / "games"

    @property
    def calibration_file(self) -> Path:
        return self.state_dir / Path(self.paths.calibration).expanduser()

    @property
    def button_pins(self) -> dict[str, int]:
        return dataclasses.asdict(self.buttons)


_HINTS = typing.get_type_hints(Config)
SECTIONS: dict[str, type[Any]] = {
    name: _HINTS[name] for name in ("camera", "screen", "buttons", "sound", "game", "paths", "phone")
}


def default_state_dir(environ: dict[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    if env.get("STATE_DIRECTORY"):
        # systemd's StateDirectory= may list several, separated by ':'; ours is the first.
        return Path(env["STATE_DIRECTORY"].split(":")[0])
    if SYSTEM_STATE_DIR.is_dir() and os.access(SYSTEM_STATE_DIR, os.W_OK):
        return SYSTEM_STATE_DIR
    home = Path(env.get("XDG_STATE_HOME") or Path.home() / ".local" / "state")
    return home / "companion"


def config_path(environ: dict[str, str] | None = None) -> Path:
    """$COMPANION_CONFIG, else /etc/companion/config.toml."""
    env = os.environ if environ is None else environ
    return Path(env["COMPANION_CONFIG"]) if env.get("COMPANION_CONFIG") else SYSTEM_CONFIG


def kept_copy(environ: dict[str, str] | None = None) -> Path:
    """Where `companion run` keeps the last configuration file that loaded. It lives in the default
    state directory, not the configured one: a file that cannot be read cannot say where that is."""
    return default_state_dir(environ) / KEPT_COPY


def load(path: str | os.PathLike[str] | None = None, kept: Path | None = None) -> Config:
    """The configuration from `path` (default: config_path()); defaults where the file is silent or wrong.

    kept: where a copy of the last file that loaded is kept (`kept_copy()`); a file that cannot be read
    is then replaced by that copy, and a file that loads refreshes it. None: no copy is used or written.
    """
    source = Path(path) if path is not None else config_path()
    if not source.exists():
        return Config(source=f"built-in defaults ({source} does not exist)")
    text = ""
    try:
        if source.stat().st_size > MAX_BYTES:
            raise ValueError(f"it is larger than {MAX_BYTES // 1024} KB, not a configuration file")
        text = source.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except OSError as error:
        return _unreadable(source, f"{source} cannot be read ({disk_words(error)})", kept)
    except UnicodeDecodeError:
        return _unreadable(source, f"{source} is not text", kept)
    except tomllib.TOMLDecodeError as error:
        return _unreadable(source, _broken_line(source, text, error), kept)
    except (ValueError, RecursionError) as error:  # too large, or nested too deeply for tomllib
        said = str(error) if isinstance(error, ValueError) else "its values are nested too deeply"
        return _unreadable(source, f"{source} cannot be read: {said}", kept)
    config = parse(data, str(source))
    if kept is not None:
        _keep(text, kept)
    return config


def _broken_line(source: Path, text: str, error: tomllib.TOMLDecodeError) -> str:
    """Which line of the file is broken, and how, from tomllib's "… (at line N, column M)"."""
    found = re.search(r"\(at line (\d+), column (\d+)\)", str(error))
    what = re.sub(r"\s*\(at line \d+, column \d+\)|\s*\(at end of document\)", "", str(error))
    if found is None:
        return f"{source} is not valid TOML ({clip(what)})"
    number = int(found.group(1))
    lines = text.splitlines()
    shown = clip(lines[number - 1].strip()) if 0 < number <= len(lines) else ""
    return f"{source} line {number} is broken ({clip(what)}, column {found.group(2)}): {shown}"


def _unreadable(source: Path, problem: str, kept: Path | None) -> Config:
    """The configuration to use when `source` cannot be read: the copy of the last one that loaded."""
    copy = _read_copy(kept)
    if copy is None:
        said = f"{problem} — using the built-in defaults for everything"
        log.warning("%s", said)
        return Config(source=str(source), problems=(said,))
    said = f"{problem} — using the last configuration that loaded (kept in {kept}) until it is mended"
    log.warning("%s", said)
    config = parse(copy, str(kept))
    return dataclasses.replace(config, source=str(source), problems=(said, *config.problems))


def _read_copy(kept: Path | None) -> dict[str, Any] | None:
    if kept is None:
        return None
    try:
        return tomllib.loads(kept.read_text(encoding="utf-8")) if kept.stat().st_size <= MAX_BYTES else None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        return None


def _keep(text: str, kept: Path) -> None:
    """Keep `text`, a configuration that loaded, for the day the file cannot be read (atomically: a
    power cut leaves the old copy or the new one)."""
    try:
        if kept.exists() and kept.read_text(encoding="utf-8") == text:
            return
        kept.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(kept, text)
    except (OSError, UnicodeDecodeError) as error:
        log.warning("could not keep a copy of the configuration in %s: %s", kept, error)


def parse(data: dict[str, Any], source: str = "config") -> Config:
    """Check a parsed TOML document against the dataclasses, key by key."""
    problems: list[str] = []
    sections: dict[str, Any] = {}
    for name, value in data.items():
        if name not in SECTIONS:
            problems.append(f"{source}: unknown section [{clip(name)}] — ignored (known: {', '.join(SECTIONS)})")
        elif not isinstance(value, dict):
            problems.append(f"{source}: {name} must be a section [{name}] — using its defaults")
    for name, cls in SECTIONS.items():
        table = data.get(name, {})
        sections[name] = _section(cls, name, table if isinstance(table, dict) else {}, source, problems)
    for problem in problems:
        log.warning("%s", problem)
    config = Config(**sections, source=source, problems=tuple(problems))
    return _check_pins(config, source)


def _section(cls: type[Any], name: str, table: dict[str, Any], source: str, problems: list[str]) -> Any:
    hints = typing.get_type_hints(cls)
    rules = {f.name: f.metadata.get("rule") for f in dataclasses.fields(cls)}
    defaults = cls()
    values: dict[str, Any] = {}
    for key, value in table.items():
        if key not in hints:
            problems.append(f"{source}: unknown key [{name}] {clip(key)} — ignored (known: {', '.join(hints)})")
            continue
        default = getattr(defaults, key)
        converted = _convert(hints[key], value)
        rule = rules[key]
        if converted is _INVALID:
            wrong = f"{source}: [{name}] {key} = {clip(_toml(value))} is not {_describe(hints[key])}"
            problems.append(f"{wrong} — using {_toml(default)}")
        elif rule is not None and not rule.test(converted):
            wrong = f"{source}: [{name}] {key} = {clip(_toml(value))} is not {rule.words}"
            problems.append(f"{wrong} — using {_toml(default)}")
        else:
            values[key] = converted
    return cls(**values)


_INVALID = object()


def _convert(hint: Any, value: Any) -> Any:
    origin = typing.get_origin(hint)
    if origin is Literal:
        return value if any(value == arg and type(value) is type(arg) for arg in typing.get_args(hint)) else _INVALID
    if origin is tuple:
        kinds = typing.get_args(hint)
        if not isinstance(value, list) or len(value) != len(kinds):
            return _INVALID
        items = [_convert(kind, item) for kind, item in zip(kinds, value, strict=True)]
        return _INVALID if _INVALID in items else tuple(items)
    if hint is bool:
        return value if isinstance(value, bool) else _INVALID
    if hint is int:
        return value if isinstance(value, int) and not isinstance(value, bool) else _INVALID
    if hint is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        return float(value) if ok else _INVALID
    if hint is str:
        # A number is accepted where a name or path is expected: `device = 0` means "0".
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        return value if isinstance(value, str) else _INVALID
    raise TypeError(f"no conversion for {hint!r}")


def _describe(hint: Any) -> str:
    origin = typing.get_origin(hint)
    if origin is Literal:
        return "one of " + ", ".join(_toml(arg) for arg in typing.get_args(hint))
    if origin is tuple:
        return f"a list of {len(typing.get_args(hint))} numbers"
    return {bool: "true or false", int: "a whole number", float: "a number", str: "a text"}[hint]


def _check_pins(config: Config, source: str) -> Config:
    pins = config.button_pins
    problems: list[str] = []
    if len(set(pins.values())) != len(pins):
        problems += [f"{source}: [buttons] two buttons share a pin ({pins})",
                     f"{source}: [buttons] using the default wiring {dataclasses.asdict(ButtonsConfig())}"]
        config = dataclasses.replace(config, buttons=ButtonsConfig())
    buzzer = config.sound.buzzer_pin
    if buzzer in config.button_pins.values():
        problems.append(f"{source}: [sound] buzzer_pin = {buzzer} is a button's pin — no buzzer")
        config = dataclasses.replace(config, sound=dataclasses.replace(config.sound, buzzer_pin=-1))
    if not problems:
        return config
    for problem in problems:
        log.warning("%s", problem)
    return dataclasses.replace(config, problems=config.problems + tuple(problems))


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    return repr(value)


def to_toml(config: Config) -> str:
    """The settings as TOML that `parse` reads back to the same values."""
    lines: list[str] = []
    for name in SECTIONS:
        lines.append(f"[{name}]")
        for key, value in dataclasses.asdict(getattr(config, name)).items():
            lines.append(f"{key} = {_toml(value)}")
        lines.append("")
    return "\n".join(lines)


def save(config: Config, path: str | os.PathLike[str]) -> None:
    write_atomic(path, to_toml(config))
