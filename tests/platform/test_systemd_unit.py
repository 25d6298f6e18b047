"""The kiosk unit as systemd itself reads it: `systemd-analyze verify` must say nothing."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SYSTEMD = Path(__file__).parents[2] / "systemd"
UNIT = SYSTEMD / "companion.service"
EXEC = "/opt/companion/bin/companion"

analyze = pytest.mark.skipif(shutil.which("systemd-analyze") is None,
                             reason="systemd-analyze is not installed")


def unit_with_exec(tmp_path: Path, executable: str) -> Path:
    """The unit with ExecStart pointed at `executable`: verify checks that the binary exists."""
    text = UNIT.read_text()
    assert text.count(EXEC) == 1
    copy = tmp_path / "companion.service"
    copy.write_text(text.replace(EXEC, executable))
    return copy


@analyze
def test_verify_prints_nothing(tmp_path):
    result = subprocess.run(["systemd-analyze", "verify", str(unit_with_exec(tmp_path, sys.executable))],
                            capture_output=True, text=True, timeout=60)
    assert (result.returncode, result.stdout + result.stderr) == (0, "")


@analyze
def test_verify_would_complain_about_a_missing_program(tmp_path):
    """The check above can fail: verify does read ExecStart."""
    unit = unit_with_exec(tmp_path, "/nonexistent/companion")
    result = subprocess.run(["systemd-analyze", "verify", str(unit)],
                            capture_output=True, text=True, timeout=60)
    assert "/nonexistent/companion" in result.stdout + result.stderr


@analyze
def test_exposure_stays_low(tmp_path):
    result = subprocess.run(["systemd-analyze", "security", "--offline=true", "--no-pager",
                             str(unit_with_exec(tmp_path, sys.executable))],
                            capture_output=True, text=True, timeout=60)
    score = re.search(r"Overall exposure level for companion.service: ([\d.]+)", result.stdout)
    assert score, result.stdout + result.stderr
    assert float(score.group(1)) <= 1.5


def test_no_comment_shares_a_line_with_a_setting():
    """systemd would take such a comment as part of the value."""
    for number, line in enumerate(UNIT.read_text().splitlines(), start=1):
        if "=" in line and not line.startswith(("#", ";")):
            assert not re.search(r"\s[#;]", line), f"line {number}: {line}"


def test_the_desktop_autostart_runs_the_same_program():
    entry = (SYSTEMD / "companion-desktop.desktop").read_text()
    assert entry.startswith("[Desktop Entry]\n")
    exec_line = next(line for line in entry.splitlines() if line.startswith("Exec="))
    assert exec_line.endswith(f"{EXEC} run")
    assert f"ExecStart={EXEC} run\n" in UNIT.read_text()
