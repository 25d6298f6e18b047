"""The companion's settings: /etc/companion/config.toml, read with tomllib into typed dataclasses.

A mistake in the file never stops the companion: each bad value is replaced by its safe default and
the problem is told in words that name the key (`Config.problems`, also logged as warnings).
"""

from __future__ import annotations

import dataclasses
import logging
import os
import tomllib
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from companion.app.atomic import write_atomic

if TYPE_CHECKING:
    from vision.camera import Camera

log = logging.getLogger(__name__)

SYSTEM_CONFIG = Path("/etc/companion/config.toml")
SYSTEM_STATE_DIR = Path("/var/lib/companion")


@dataclass(frozen=True)
class CameraConfig:
    # picamera2 on the Pi; opencv for a USB webcam; folder replays images; synthetic renders a game.
    backend: Literal["picamera2", "opencv", "folder", "synthetic"] = "picamera2"
    # opencv: a device number ("0") or a video file; folder: a directory of images.
    device: str = ""
    # [0, 0] lets the camera choose (picamera2: the smallest full-field mode at least 1500 px wide).
    resolution: tuple[int, int] = (0, 0)
    # Fixed focus in dioptres (1 / metres), e.g. 1.25 for 80 cm; 0 leaves the lens where the camera puts it.
    lens_position: float = 0.0

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
    size: tuple[int, int] = (800, 480)
    rotation: Literal[0, 90, 180, 270] = 0
    fullscreen: bool = True
    # SDL video driver; "" picks kmsdrm on the console and lets SDL choose in a desktop session.
    driver: str = ""

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
    up: int = 5
    down: int = 6
    ok: int = 13
    back: int = 19
    menu: int = 26


@dataclass(frozen=True)
class GameSettings:
    scores: Literal["hidden", "open"] = "hidden"
    board: Literal["standard", "alternate"] = "standard"
    english_support: bool = False


@dataclass(frozen=True)
class PathsConfig:
    # "" means $STATE_DIRECTORY under systemd, else /var/lib/companion, else ~/.local/state/companion.
    state_dir: str = ""
    # Relative paths are taken inside the state directory.
    calibration: str = "calibration.json"


@dataclass(frozen=True)
class Config:
    camera: CameraConfig = field(default_factory=CameraConfig)
    screen: ScreenConfig = field(default_factory=ScreenConfig)
    buttons: ButtonsConfig = field(default_factory=ButtonsConfig)
    game: GameSettings = field(default_factory=GameSettings)
    paths: PathsConfig = field(default_factory=PathsConfig)
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
    name: _HINTS[name] for name in ("camera", "screen", "buttons", "game", "paths")
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


def load(path: str | os.PathLike[str] | None = None) -> Config:
    """The configuration from `path` (default: config_path()); defaults where the file is silent or wrong."""
    source = Path(path) if path is not None else config_path()
    if not source.exists():
        return Config(source=f"built-in defaults ({source} does not exist)")
    try:
        data = tomllib.loads(source.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        problem = f"{source} cannot be read ({error}) — using the built-in defaults for everything"
        log.warning("%s", problem)
        return Config(source=str(source), problems=(problem,))
    return parse(data, str(source))


def parse(data: dict[str, Any], source: str = "config") -> Config:
    """Check a parsed TOML document against the dataclasses, key by key."""
    problems: list[str] = []
    sections: dict[str, Any] = {}
    for name, value in data.items():
        if name not in SECTIONS:
            problems.append(f"{source}: unknown section [{name}] — ignored (known: {', '.join(SECTIONS)})")
        elif not isinstance(value, dict):
            problems.append(f"{source}: {name} must be a section [{name}] — using its defaults")
    for name, cls in SECTIONS.items():
        table = data.get(name, {})
        sections[name] = _section(cls, name, table if isinstance(table, dict) else {}, source, problems)
    for problem in problems:
        log.warning("%s", problem)
    config = Config(**sections, source=source, problems=tuple(problems))
    return _check_buttons(config, source)


def _section(cls: type[Any], name: str, table: dict[str, Any], source: str, problems: list[str]) -> Any:
    hints = typing.get_type_hints(cls)
    defaults = cls()
    values: dict[str, Any] = {}
    for key, value in table.items():
        if key not in hints:
            problems.append(f"{source}: unknown key [{name}] {key} — ignored (known: {', '.join(hints)})")
            continue
        default = getattr(defaults, key)
        converted = _convert(hints[key], value)
        if converted is _INVALID:
            wrong = f"{source}: [{name}] {key} = {_toml(value)} is not {_describe(hints[key])}"
            problems.append(f"{wrong} — using {_toml(default)}")
        else:
            values[key] = converted
    return cls(**values)


_INVALID = object()


def _convert(hint: Any, value: Any) -> Any:
    origin = typing.get_origin(hint)
    if origin is Literal:
        return value if value in typing.get_args(hint) and type(value) is not bool else _INVALID
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


def _check_buttons(config: Config, source: str) -> Config:
    pins = config.button_pins
    problems = [
        f"{source}: [buttons] {name} = {pin} is not a GPIO pin (0–27)" for name, pin in pins.items()
        if not 0 <= pin <= 27
    ]
    if len(set(pins.values())) != len(pins):
        problems.append(f"{source}: [buttons] two buttons share a pin ({pins})")
    if not problems:
        return config
    problems.append(f"{source}: [buttons] using the default wiring {dataclasses.asdict(ButtonsConfig())}")
    for problem in problems:
        log.warning("%s", problem)
    return dataclasses.replace(config, buttons=ButtonsConfig(), problems=config.problems + tuple(problems))


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
