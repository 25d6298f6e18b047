import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest
from gpiozero import Button
from gpiozero.pins.mock import MockFactory

from companion.app import config, doctor
from vision.aruco import CORNER_IDS, marker_image


def board_photo(corners: list[str]) -> np.ndarray:
    """A white page with the named corner markers, as the camera would see a board's corners."""
    image = np.full((600, 800, 3), 255, np.uint8)
    spots = {"top-left": (40, 40), "top-right": (40, 640),
             "bottom-right": (440, 640), "bottom-left": (440, 40)}
    for corner in corners:
        row, col = spots[corner]
        image[row : row + 120, col : col + 120] = cv2.cvtColor(marker_image(CORNER_IDS[corner], 120),
                                                               cv2.COLOR_GRAY2BGR)
    return image


def folder_config(folder: Path) -> config.Config:
    return config.parse({"camera": {"backend": "folder", "device": str(folder)}})


def by_name(findings, name):
    return [finding for finding in findings if finding.name == name]


@pytest.mark.parametrize(
    ("corners", "status"), [(list(CORNER_IDS), "ok"), (["top-left", "top-right"], "warn")]
)
def test_markers_in_view_from_a_folder_camera(tmp_path, corners, status):
    cv2.imwrite(str(tmp_path / "board.png"), board_photo(corners))
    frame = doctor.Frame()
    assert by_name(doctor.camera(folder_config(tmp_path), frame, subprocess.run), "Camera")[0].status == "ok"
    [finding] = doctor.markers(frame)
    assert finding.status == status
    if status == "warn":
        assert finding.detail == "2 of 4 corner markers in view; missing: bottom-right, bottom-left"
        assert "corner" in finding.advice


def test_an_empty_folder_is_a_camera_problem_with_advice(tmp_path):
    frame = doctor.Frame()
    [finding] = doctor.camera(folder_config(tmp_path), frame, subprocess.run)
    assert finding.status == "fail" and "holds no pictures" in finding.detail and finding.advice
    assert doctor.markers(frame)[0].status == "info"


def fake_command(folder: Path, name: str, output: str) -> None:
    script = folder / name
    script.write_text(f"#!/bin/sh\ncat <<'END'\n{output}\nEND\n")
    script.chmod(0o755)


def test_rpicam_hello_finding_no_camera(tmp_path, monkeypatch):
    fake_command(tmp_path, "rpicam-hello", "No cameras available!")
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    [finding] = doctor.camera(config.Config(), doctor.Frame(), subprocess.run)
    assert (finding.status, finding.detail) == ("fail", "rpicam-hello lists no camera")
    assert "ribbon cable" in finding.advice


def test_rpicam_hello_listing_a_camera(tmp_path, monkeypatch):
    listing = "Available cameras\n-----------------\n0 : imx708 [4608x2592 10-bit RGGB] (/base/soc/i2c0mux)\n"
    fake_command(tmp_path, "rpicam-hello", listing)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    findings = doctor.camera(config.Config(), doctor.Frame(), subprocess.run)
    assert findings[0] == doctor.Finding("Camera", "ok", "rpicam-hello lists imx708")
    if importlib.util.find_spec("picamera2") is None:
        assert findings[1].status == "fail" and "sudo apt install python3-picamera2" in findings[1].detail


def test_buttons_on_free_and_busy_pins():
    factory = MockFactory()
    findings = doctor.gpio(config.Config(), factory)
    assert [f.status for f in findings] == ["ok", "ok"]
    assert findings[1].detail == "pins free: up GPIO5, down GPIO6, ok GPIO13, back GPIO19, menu GPIO26"
    busy = Button(13, pin_factory=factory)
    try:
        findings = doctor.gpio(config.Config(), factory)
    finally:
        busy.close()
    assert findings[1].status == "fail"
    assert findings[1].detail.startswith("ok (GPIO13): pin ") and "already in use" in findings[1].detail


def test_the_screen_opens_with_the_dummy_driver_and_a_bad_driver_is_reported():
    environ = {**os.environ, "SDL_VIDEODRIVER": "dummy"}
    assert doctor.screen(config.Config(), subprocess.run, environ)[0].detail == "SDL video driver dummy"
    environ["SDL_VIDEODRIVER"] = "no-such-driver"
    [finding] = doctor.screen(config.Config(), subprocess.run, environ)
    assert finding.status == "fail" and "no-such-driver" in finding.detail and finding.advice


def test_low_disk_is_a_warning(tmp_path, monkeypatch):
    settings = config.parse({"paths": {"state_dir": str(tmp_path)}})
    assert doctor.disk(settings)[0].status == "ok"
    monkeypatch.setattr(doctor.shutil, "disk_usage", lambda path: SimpleNamespace(free=50 * 2**20))
    [finding] = doctor.disk(settings)
    assert (finding.status, finding.detail) == ("warn", f"only 50 MB free for {tmp_path}")


def test_a_check_that_breaks_is_reported_and_the_others_still_run(monkeypatch):
    def broken(frame):
        raise RuntimeError("camera driver exploded")

    monkeypatch.setattr(doctor, "markers", broken)
    findings = doctor.diagnose(config.parse({"camera": {"backend": "synthetic"}}), pin_factory=MockFactory(),
                               environ={**os.environ, "SDL_VIDEODRIVER": "dummy"})
    broke = "the check itself failed: RuntimeError: camera driver exploded"
    assert doctor.Finding("Markers", "fail", broke) in findings
    names = {f.name for f in findings}
    assert names >= {"Python", "OpenCV", "numpy", "pygame", "Camera", "Buttons", "Screen", "Disk"}


def test_the_command_prints_a_report_on_a_machine_without_the_hardware(tmp_path):
    """The real `companion doctor` here: no camera, no GPIO, no screen — it reports and exits 1."""
    settings = tmp_path / "config.toml"
    settings.write_text(f'[camera]\nbackend = "picamera2"\nzoom = 2\n[paths]\nstate_dir = "{tmp_path}"\n')
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "PATH": os.environ["PATH"], "STATE_DIRECTORY": str(tmp_path)}
    result = subprocess.run([sys.executable, "-m", "companion", "doctor", "--config", str(settings)],
                            capture_output=True, text=True, timeout=120, env=env,
                            cwd=Path(__file__).parents[2])
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    assert "FAIL  Camera" in result.stdout
    assert "WARN  Configuration" in result.stdout and "unknown key [camera] zoom" in result.stdout
    assert "ok    Screen" in result.stdout
    assert result.stdout.rstrip().splitlines()[-1].endswith(("warning.", "warnings.", "All good."))


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('{"format": "tigris-companion-calibration", "version": 2}', "another version"),
        ('{"format": "tigris-companion-calibr', "damaged"),
        (None, "no calibration file"),
    ],
)
def test_the_calibration_is_checked(tmp_path, text, words):
    if text is not None:
        (tmp_path / "calibration.json").write_text(text)
    settings = config.parse({"paths": {"state_dir": str(tmp_path)}})
    [finding] = doctor.calibration(settings)
    assert finding.status == "fail" and words in finding.detail and "companion calibrate" in finding.advice
    assert finding in doctor.diagnose(settings, run=lambda *a, **k: subprocess.CompletedProcess(a, 1, "", ""),
                                      environ={"SDL_VIDEODRIVER": "dummy"})
