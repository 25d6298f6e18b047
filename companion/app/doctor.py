"""`companion doctor`: what works and what to do about what does not.

Checks the software versions, the configuration, the camera and the markers it sees, the
calibration file, the GPIO buttons, the screen and the free space for game records. Every check
survives a missing part: it reports it with advice instead of failing, so the doctor itself always
finishes.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.metadata
import os
import platform
import re
import shutil
import subprocess
import sys
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from companion.app import config as config_module
from companion.app.config import Config

Status = Literal["ok", "warn", "fail", "info"]
Runner = Callable[..., subprocess.CompletedProcess[str]]
LOW_DISK_BYTES = 200 * 1024 * 1024


@dataclass(frozen=True)
class Finding:
    name: str
    status: Status
    detail: str
    advice: str = ""


@dataclass
class Frame:
    """The one camera frame that the marker check looks at (BGR, as every camera in vision delivers)."""

    image: Any = None


def versions() -> list[Finding]:
    findings = [Finding("Python", "ok", platform.python_version())]
    wanted = [
        ("OpenCV", "cv2", "sudo apt install python3-opencv   (laptop: ./install.sh --dev)"),
        ("numpy", "numpy", "sudo apt install python3-numpy   (laptop: ./install.sh --dev)"),
        ("pygame", "pygame", "sudo apt install python3-pygame   (laptop: ./install.sh --dev)"),
        ("gpiozero", "gpiozero", "sudo apt install python3-gpiozero python3-lgpio"),
        ("picamera2", "picamera2", "sudo apt install python3-picamera2 (Raspberry Pi OS only)"),
    ]
    for name, module_name, advice in wanted:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                module = importlib.import_module(module_name)
        except Exception as error:  # a broken install raises more than ImportError
            on_laptop = module_name == "picamera2" and not _is_raspberry_pi()
            status: Status = "info" if on_laptop else "fail"
            detail = "not installed (only needed on a Raspberry Pi)" if on_laptop else f"missing: {error}"
            findings.append(Finding(name, status, detail, "" if on_laptop else advice))
            continue
        version = getattr(module, "__version__", None) or _distribution_version(module_name)
        findings.append(Finding(name, "ok", str(version)))
    return findings


def configuration(config: Config) -> list[Finding]:
    if not config.problems:
        return [Finding("Configuration", "ok", config.source)]
    return [
        Finding("Configuration", "warn", problem, f"Edit {config.source}; the default is used meanwhile.")
        for problem in config.problems
    ]


CAMERA_ADVICE = {
    "picamera2": "Check the ribbon cable at both ends; if the companion service is running it holds the "
    "camera: sudo systemctl stop companion. For a USB webcam set [camera] backend = \"opencv\".",
    "opencv": "Plug the webcam in, check `ls /dev/video*`, or set [camera] device.",
    "folder": "Set [camera] device to a folder of board photos (.png or .jpg).",
}


def camera(config: Config, frame: Frame, run: Runner) -> list[Finding]:
    backend = config.camera.backend
    if backend == "synthetic":
        return [Finding("Camera", "info", "synthetic camera (demo): nothing to check")]
    findings = _listed_pi_cameras(run) if backend == "picamera2" else []
    if any(finding.status == "fail" for finding in findings):
        return findings
    try:
        from vision.camera import CameraError
    except ImportError as error:
        return [*findings, Finding("Camera", "fail", f"the camera code cannot be loaded: {error}",
                                   "sudo apt install python3-opencv   (laptop: ./install.sh --dev)")]
    try:
        with config.camera.open() as source:
            frame.image = source.capture()
    except CameraError as error:
        return [*findings, Finding("Camera", "fail", str(error), CAMERA_ADVICE[backend])]
    height, width = frame.image.shape[:2]
    return [*findings, Finding("Camera", "ok", f"{backend}: a {width}×{height} picture")]


def _listed_pi_cameras(run: Runner) -> list[Finding]:
    lister = shutil.which("rpicam-hello") or shutil.which("libcamera-hello")
    if not lister:
        return [Finding("Camera", "info", "rpicam-hello is not installed; asking picamera2 directly",
                        "sudo apt install rpicam-apps-lite")]
    try:
        listed = run([lister, "--list-cameras"], capture_output=True, text=True, timeout=20)
        output = listed.stdout + listed.stderr
    except (OSError, subprocess.TimeoutExpired) as error:
        output = f"could not run {lister}: {error}"
    cameras = re.findall(r"^\s*\d+\s*:\s*(\S+)", output, re.MULTILINE)
    if cameras:
        return [Finding("Camera", "ok", f"{Path(lister).name} lists {', '.join(cameras)}")]
    return [Finding(
        "Camera", "fail", f"{Path(lister).name} lists no camera",
        "Power off, reseat the ribbon cable (both ends, contacts the right way round), check "
        "`camera_auto_detect=1` in /boot/firmware/config.txt, and reboot.",
    )]


def markers(frame: Frame) -> list[Finding]:
    if frame.image is None:
        return [Finding("Markers", "info", "not checked: no picture from the camera")]
    import cv2

    from vision.aruco import CORNER_IDS, detect

    image = frame.image
    gray = image if image.ndim == 2 else cv2.cvtColor(image[:, :, :3], cv2.COLOR_BGR2GRAY)
    seen = {marker.id for marker in detect(gray)}
    missing = [corner for corner, marker_id in CORNER_IDS.items() if marker_id not in seen]
    if not missing:
        return [Finding("Markers", "ok", "all 4 corner markers in view")]
    return [Finding(
        "Markers", "fail" if len(missing) == 4 else "warn",
        f"{4 - len(missing)} of 4 corner markers in view; missing: {', '.join(missing)}",
        "Clear the board's corners, check the light and the focus, and move the camera until every "
        "corner marker is in the picture.",
    )]


def calibration(config: Config) -> list[Finding]:
    """Whether `companion run` can use the calibration file, and why not."""
    from vision import calibration as calib

    advice = "sudo systemctl stop companion; sudo -u companion companion calibrate --camera pi"
    try:
        loaded = calib.load(config.calibration_file)
    except calib.CalibrationError as error:
        return [Finding("Calibration", "fail", str(error), advice)]
    if loaded.references is None:
        return [Finding("Calibration", "warn", f"{config.calibration_file} knows the grid but not the pieces",
                        advice)]
    made = loaded.created or "at an unknown time"
    return [Finding("Calibration", "ok", f"{config.calibration_file} ({loaded.method}, made {made})")]


def gpio(config: Config, pin_factory: Any = None) -> list[Finding]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from gpiozero import Button, Device

            factory = pin_factory or Device.pin_factory or Device._default_pin_factory()
    except Exception as error:
        laptop = not _is_raspberry_pi()
        return [Finding(
            "GPIO", "info" if laptop else "fail", f"no GPIO pin factory: {error}",
            "On a laptop the keyboard stands in for the buttons." if laptop
            else "sudo apt install python3-gpiozero python3-lgpio, and add the user to the gpio group.",
        )]
    findings = [Finding("GPIO", "ok", f"pin factory {type(factory).__name__}")]
    busy: list[str] = []
    for name, pin in config.button_pins.items():
        try:
            Button(pin, pin_factory=factory).close()
        except Exception as error:
            busy.append(f"{name} (GPIO{pin}): {error}")
    if busy:
        findings.append(Finding("Buttons", "fail", "; ".join(busy),
                                _busy_advice() + " Or choose other pins in [buttons]."))
    else:
        pins = ", ".join(f"{name} GPIO{pin}" for name, pin in config.button_pins.items())
        findings.append(Finding("Buttons", "ok", f"pins free: {pins}"))
    return findings


def screen(config: Config, run: Runner,
           environ: dict[str, str] | None = None) -> list[Finding]:
    driver = config.screen.video_driver(environ)
    findings: list[Finding] = []
    if driver == "kmsdrm":
        cards = sorted(str(card) for card in Path("/dev/dri").glob("card*"))
        usable = [card for card in cards if os.access(card, os.R_OK | os.W_OK)]
        if not cards:
            findings.append(Finding("Screen", "fail", "KMSDRM: no /dev/dri/card* (no display driver)",
                                    "On a Pi: keep `dtoverlay=vc4-kms-v3d` in /boot/firmware/config.txt."))
            return findings
        if not usable:
            findings.append(Finding("Screen", "fail", f"KMSDRM: {', '.join(cards)} not writable by this user",
                                    "Add the user to the video and render groups (install.sh does)."))
            return findings
    # Opening a display can crash a process in the video driver: try it in a child.
    probe = "import os, pygame; pygame.display.init(); print(pygame.display.get_driver())"
    env = {**(os.environ if environ is None else environ), "SDL_VIDEODRIVER": driver,
           "PYGAME_HIDE_SUPPORT_PROMPT": "1", "SDL_AUDIODRIVER": "dummy"}
    if not driver:
        del env["SDL_VIDEODRIVER"]
    try:
        result = run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=20, env=env)
        opened = result.returncode == 0
        said = (result.stdout.strip() if opened else result.stderr.strip().splitlines()[-1:] or ["crashed"])
    except (OSError, subprocess.TimeoutExpired) as error:
        opened, said = False, str(error)
    if opened:
        findings.append(Finding("Screen", "ok", f"SDL video driver {said}"))
    else:
        advice = ("Stop the companion service first (it holds the screen), and run the doctor from the "
                  "console, not over ssh." if driver == "kmsdrm" else
                  "Set SDL_VIDEODRIVER or [screen] driver; the desktop session must be running.")
        detail = f"SDL cannot open the {driver or 'desktop'} display: {''.join(said)}"
        findings.append(Finding("Screen", "fail", detail, advice))
    return findings


def disk(config: Config) -> list[Finding]:
    state_dir = config.state_dir
    existing = state_dir
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    free = shutil.disk_usage(existing).free
    findings = []
    if free < LOW_DISK_BYTES:
        findings.append(Finding("Disk", "warn", f"only {free // 2**20} MB free for {state_dir}",
                                "Delete old game records or logs (`sudo journalctl --vacuum-size=50M`)."))
    else:
        findings.append(Finding("Disk", "ok", f"{free / 2**30:.1f} GB free for {state_dir}"))
    if not state_dir.exists():
        findings.append(Finding("State directory", "warn", f"{state_dir} does not exist yet",
                                "It is created on the first game; on the Pi run install.sh again."))
    elif not os.access(state_dir, os.W_OK):
        findings.append(Finding("State directory", "fail", f"{state_dir} is not writable by this user",
                                "Run the doctor as the companion user: sudo -u companion companion doctor"))
    return findings


def service(run: Runner) -> list[Finding]:
    if not shutil.which("systemctl"):
        return []
    try:
        active = run(["systemctl", "is-active", "companion.service"], capture_output=True, text=True,
                     timeout=10).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return []
    if active == "active":
        return [Finding("Service", "warn", "companion.service is running and holds the camera, the screen "
                        "and the buttons", "sudo systemctl stop companion   before checking them")]
    return [Finding("Service", "info", f"companion.service is {active or 'unknown'}")]


def diagnose(config: Config, *, pin_factory: Any = None,
             run: Runner = subprocess.run,
             environ: dict[str, str] | None = None) -> list[Finding]:
    frame = Frame()
    checks: list[tuple[str, Callable[[], Iterable[Finding]]]] = [
        ("Versions", versions),
        ("Configuration", lambda: configuration(config)),
        ("Service", lambda: service(run)),
        ("Camera", lambda: camera(config, frame, run)),
        ("Markers", lambda: markers(frame)),
        ("Calibration", lambda: calibration(config)),
        ("GPIO", lambda: gpio(config, pin_factory)),
        ("Screen", lambda: screen(config, run, environ)),
        ("Disk", lambda: disk(config)),
    ]
    findings: list[Finding] = []
    for name, check in checks:
        try:
            findings.extend(check())
        except Exception as error:  # the doctor reports a broken part; it never breaks on it
            detail = f"the check itself failed: {type(error).__name__}: {error}"
            findings.append(Finding(name, "fail", detail))
    return findings


def report(findings: Sequence[Finding]) -> str:
    marks = {"ok": "ok  ", "warn": "WARN", "fail": "FAIL", "info": "--  "}
    width = max(len(finding.name) for finding in findings)
    lines = []
    for finding in findings:
        lines.append(f"{marks[finding.status]}  {finding.name:<{width}}  {finding.detail}")
        if finding.advice:
            lines.append(f"      {'':<{width}}  → {finding.advice}")
    failures = sum(finding.status == "fail" for finding in findings)
    warnings_ = sum(finding.status == "warn" for finding in findings)
    lines.append("")
    lines.append("All good." if not failures and not warnings_ else
                 f"{failures} problem{'s' * (failures != 1)}, {warnings_} warning{'s' * (warnings_ != 1)}.")
    return "\n".join(lines)


def _distribution_version(module_name: str) -> str:
    with contextlib.suppress(importlib.metadata.PackageNotFoundError):
        return importlib.metadata.version(module_name)
    return "installed"


def _busy_advice() -> str:
    return "Is the companion service running? sudo systemctl stop companion, then run the doctor again."


def _is_raspberry_pi() -> bool:
    with contextlib.suppress(OSError):
        return "Raspberry Pi" in Path("/proc/device-tree/model").read_text(errors="replace")
    return False


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="companion doctor", description=__doc__.splitlines()[0])
    parser.add_argument("--config", help="the settings file (default: $COMPANION_CONFIG or "
                        f"{config_module.SYSTEM_CONFIG})")
    args = parser.parse_args(argv)
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    config = config_module.load(args.config, kept=config_module.kept_copy())
    findings = diagnose(config)
    print(report(findings))
    return 1 if any(finding.status == "fail" for finding in findings) else 0
