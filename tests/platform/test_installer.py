"""install.sh on a pretend Raspberry Pi: a scratch root directory, apt and the user database stubbed.

The venv, pip, `install`, `systemctl --root` and the file checks are the real ones; only what would
touch this machine's packages and users is replaced by small scripts that keep their state in files.
"""

import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

REPO = Path(__file__).parents[2]
PI_PACKAGES = ["python3-venv", "python3-setuptools", "python3-wheel", "python3-numpy", "python3-opencv",
               "python3-pygame", "python3-gpiozero", "python3-lgpio", "python3-picamera2", "rpicam-apps-lite",
               "python3-aiohttp", "python3-segno", "python3-matplotlib"]
ONE_CAMERA = "Available cameras\n-----------------\n0 : imx708 [4608x2592 10-bit RGGB] (/base/soc/i2c0mux)"

STUBS = {
    # apt: $FAKE/known lists what the archive has, $FAKE/installed what dpkg has.
    "apt-cache": """
        [ "$1" = policy ] || exit 2
        echo "$2:"
        if grep -qx "$2" "$FAKE/known"; then echo "  Candidate: 1.0"; else echo "  Candidate: (none)"; fi
    """,
    "dpkg-query": """
        for last; do :; done
        grep -qx "$last" "$FAKE/installed" || exit 1
        printf 'install ok installed'
    """,
    "apt-get": """
        echo "apt-get $*" >>"$FAKE/log"
        [ "$1" = install ] || exit 0
        for p; do case "$p" in -*|install) ;; *) echo "$p" >>"$FAKE/installed";; esac; done
    """,
    "getent": """grep -qx "$2" "$FAKE/$1" 2>/dev/null""",
    "groupadd": """echo "groupadd $*" >>"$FAKE/log"; for last; do :; done; echo "$last" >>"$FAKE/group" """,
    "useradd": """echo "useradd $*" >>"$FAKE/log"; for last; do :; done; echo "$last" >>"$FAKE/passwd" """,
    "userdel": """echo "userdel $*" >>"$FAKE/log"; : >"$FAKE/passwd" """,
    "usermod": """echo "usermod $*" >>"$FAKE/log"; echo "$3" | tr , '\\n' >>"$FAKE/member-of" """,
    "id": """grep -qx "$2" "$FAKE/passwd" || exit 1; tr '\\n' ' ' <"$FAKE/member-of" 2>/dev/null; echo""",
    "rpicam-hello": """cat "$FAKE/cameras" """,
}


class FakePi:
    def __init__(self, tmp: Path) -> None:
        self.source = _mkdir(tmp / "checkout")
        for part in ("install.sh", "pyproject.toml", "README.md"):
            shutil.copy2(REPO / part, self.source / part)
        for part in ("companion", "vision", "systemd"):
            shutil.copytree(REPO / part, self.source / part, ignore=shutil.ignore_patterns("__pycache__"))
        self.root = _mkdir(tmp / "root")
        _mkdir(self.root / "usr/local/bin")
        (_mkdir(self.root / "etc") / "os-release").write_text('ID=debian\nVERSION_CODENAME=bookworm\n')
        self.fake = _mkdir(tmp / "fake")
        (self.fake / "known").write_text("\n".join(PI_PACKAGES) + "\n")
        (self.fake / "installed").write_text("python3-numpy\n")
        (self.fake / "group").write_text("video\ninput\n")
        (self.fake / "cameras").write_text(ONE_CAMERA)
        self.bin = _mkdir(tmp / "bin")
        for name, body in STUBS.items():
            (self.bin / name).write_text("#!/bin/sh\n" + body.strip() + "\n")
            (self.bin / name).chmod(0o755)
        self.user = subprocess.run(["id", "-un"], capture_output=True, text=True, check=True).stdout.strip()

    def env(self) -> dict[str, str]:
        return {**os.environ, "PATH": f"{self.bin}:{os.environ['PATH']}", "ROOT": str(self.root),
                "FAKE": str(self.fake), "SERVICE_USER": self.user}

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        result = subprocess.run(["bash", str(self.source / "install.sh"), *args], capture_output=True,
                                text=True, env=self.env(), timeout=300)
        if check:
            assert result.returncode == 0, result.stdout + result.stderr
        return result

    def source_and_call(self, script: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["bash", "-c", f'source "{self.source}/install.sh"; {script}'],
                              capture_output=True, text=True, env=self.env(), timeout=60)

    @property
    def log(self) -> str:
        path = self.fake / "log"
        return path.read_text() if path.exists() else ""


def _mkdir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


def tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


# Debian's packages the installer's tests use from /usr/bin/python3, by the module each provides.
APT_TOOLS = {"ensurepip": "python3-venv", "setuptools": "python3-setuptools", "wheel": "python3-wheel"}
APT_STACK = {"numpy": "python3-numpy", "cv2": "python3-opencv", "pygame": "python3-pygame"}


def apt_missing(packages: dict[str, str], python: Sequence[str] = ("/usr/bin/python3",)) -> str | None:
    """Why a test cannot run on this machine's Debian Python (the packages to install), or None.

    CI installs them all (.ci/run): there a missing one is a failure, never a skip."""
    probe = f"import importlib.util as u; print(*[m for m in {list(packages)!r} if u.find_spec(m) is None])"
    try:
        found = subprocess.run([*python, "-c", probe], capture_output=True, text=True, timeout=60)
    except OSError:
        found = subprocess.CompletedProcess(python, 1, "", "")
    absent = found.stdout.split() if found.returncode == 0 else list(packages)
    if not absent:
        return None
    names = " ".join(packages[m] for m in packages if m in absent)
    return f"needs Debian's {names} (sudo apt install {names}; .ci/run installs them)"


def _unless_ci(reason: str | None) -> pytest.MarkDecorator:
    return pytest.mark.skipif(reason is not None and os.environ.get("CI") != "true", reason=reason or "")


needs_apt_python = _unless_ci(apt_missing(APT_TOOLS))
needs_apt_stack = _unless_ci(apt_missing({**APT_TOOLS, **APT_STACK}))


def test_the_apt_stack_guard_names_what_to_install() -> None:
    # This Python with its own site-packages hidden: like a fresh Debian without the apt stack.
    bare = apt_missing(APT_STACK, (sys.executable, "-S"))
    assert bare == ("needs Debian's python3-numpy python3-opencv python3-pygame (sudo apt install python3-numpy "
                    "python3-opencv python3-pygame; .ci/run installs them)")
    assert apt_missing(APT_STACK, (sys.executable,)) is None  # the wheels are there
    assert apt_missing(APT_STACK, ("/nonexistent/python3",)) is not None


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """A pretend Pi after one run of install.sh, and what that run printed."""
    pi = FakePi(tmp_path_factory.mktemp("pi"))
    return pi, pi.run()


@needs_apt_python
def test_the_first_run_installs_everything(installed):
    pi, first = installed
    log = pi.log.splitlines()
    missing = [p for p in PI_PACKAGES if p != "python3-numpy"]
    assert log[:2] == ["apt-get update", "apt-get install -y --no-install-recommends " + " ".join(missing)]
    assert "groupadd --system render" in log and "groupadd --system gpio" in log
    assert not any(line.startswith("groupadd --system video") for line in log)
    assert f"usermod --append --groups video,render,input,gpio {pi.user}" in log
    venv = pi.root / "opt/companion"
    assert "include-system-site-packages = true" in (venv / "pyvenv.cfg").read_text()
    assert os.readlink(pi.root / "usr/local/bin/companion") == "/opt/companion/bin/companion"
    assert (pi.root / "etc/companion/config.toml").read_bytes() == (REPO / "systemd/config.toml").read_bytes()
    state = pi.root / "var/lib/companion"
    assert stat.S_IMODE(state.stat().st_mode) == 0o750
    unit = pi.root / "etc/systemd/system/companion.service"
    assert unit.read_bytes() == (REPO / "systemd/companion.service").read_bytes()
    assert (pi.root / "etc/systemd/system/multi-user.target.wants/companion.service").is_symlink()
    assert "found: imx708" in first.stdout


@needs_apt_stack
def test_the_program_runs_on_apts_libraries_without_wheels(installed):
    pi, _ = installed
    python = pi.root / "opt/companion/bin/python"
    probe = "import numpy, companion.app.config, vision.reading; print(numpy.__file__)"
    result = subprocess.run([str(python), "-c", probe], capture_output=True, text=True, cwd="/")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("/usr/lib/python3/dist-packages/numpy")
    site = next((pi.root / "opt/companion/lib").glob("python3*/site-packages"))
    assert not [p.name for p in site.iterdir() if p.name.lower().startswith(("numpy", "opencv", "pygame"))]
    help_text = subprocess.run([str(pi.root / "opt/companion/bin/companion"), "--help"],
                               capture_output=True, text=True, cwd="/")
    assert "doctor" in help_text.stdout


@needs_apt_python
def test_a_second_run_changes_nothing_and_says_so(installed):
    pi, _ = installed
    before_log, before_tree = pi.log, tree(pi.root)
    second = pi.run()
    assert "Nothing to change: everything was already in place." in second.stdout
    assert "running:" not in second.stdout
    assert (pi.log, tree(pi.root)) == (before_log, before_tree)


# The tests below carry on with the same pretend Pi (one venv is built per module: it takes seconds).


@needs_apt_python
def test_changed_sources_are_installed_again_and_settings_kept(installed):
    pi, _ = installed
    (pi.root / "etc/companion/config.toml").write_text('[camera]\nbackend = "opencv"\n')
    (pi.source / "companion/app/__init__.py").write_text('"""Changed."""\n')
    again = pi.run()
    assert "running:" in again.stdout and "pip install" in again.stdout
    assert "Nothing to change" not in again.stdout
    assert (pi.root / "etc/companion/config.toml").read_text() == '[camera]\nbackend = "opencv"\n'


def test_a_dry_run_prints_the_plan_and_changes_nothing(tmp_path):
    pi = FakePi(tmp_path)
    before = tree(pi.root)
    result = pi.run("--dry-run")
    assert result.stdout.startswith("Dry run: nothing is changed.\n")
    for step in ("would run: env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "
                 "python3-venv",
                 "would run: groupadd --system render",
                 "would run: useradd --system --user-group --home-dir /var/lib/companion",
                 "would run: /usr/bin/python3 -m venv --clear --system-site-packages "
                 f"{pi.root}/opt/companion",
                 "-m pip install --quiet --no-deps --no-build-isolation --no-index",
                 f"would run: install -D -m 0644 {pi.source}/systemd/config.toml",
                 f"would run: systemctl --root={pi.root} enable companion.service"):
        assert step in result.stdout
    assert result.stdout.rstrip().endswith("Dry run finished: run without --dry-run to make these changes.")
    assert tree(pi.root) == before
    assert pi.log == ""


def test_a_missing_camera_is_said_clearly(tmp_path):
    pi = FakePi(tmp_path)
    (pi.fake / "cameras").write_text("No cameras available!")
    result = pi.source_and_call("check_camera")
    assert "NO CAMERA FOUND" in result.stdout and "ribbon cable" in result.stdout


def test_a_debian_without_the_raspberry_pi_repository_is_told_what_is_missing(tmp_path):
    pi = FakePi(tmp_path)
    (pi.fake / "known").write_text("\n".join(p for p in PI_PACKAGES if p not in ("python3-picamera2",
                                                                                   "rpicam-apps-lite")))
    result = pi.run(check=False)
    assert result.returncode == 1
    assert "apt does not know python3-picamera2 rpicam-apps-lite or libcamera-apps-lite" in result.stderr
    assert "Raspberry Pi OS repository" in result.stderr


def test_choices_prefer_what_is_installed_then_what_apt_has(tmp_path):
    pi = FakePi(tmp_path)
    (pi.fake / "known").write_text("rpicam-apps-lite\nlibcamera-apps-lite\n")
    assert pi.source_and_call('resolve_package "rpicam-apps-lite|libcamera-apps-lite"').stdout == \
        "rpicam-apps-lite\n"
    (pi.fake / "installed").write_text("libcamera-apps-lite\n")
    assert pi.source_and_call('resolve_package "rpicam-apps-lite|libcamera-apps-lite"').stdout == \
        "libcamera-apps-lite\n"
    assert pi.source_and_call('resolve_package "nothing|at-all"').returncode == 1


def test_trixie_and_bookworm_and_an_unknown_release(tmp_path):
    pi = FakePi(tmp_path)
    bookworm = pi.source_and_call("pi_packages bookworm")
    assert bookworm.stdout.split() == pi.source_and_call("pi_packages trixie").stdout.split()
    assert "python3-picamera2" in bookworm.stdout.split() and bookworm.stderr == ""
    assert "bullseye is not tested" in pi.source_and_call("pi_packages bullseye").stderr
    (pi.root / "etc/os-release").write_text('VERSION_CODENAME=trixie\n')
    assert pi.source_and_call("os_codename").stdout == "trixie\n"


def test_bad_options_are_refused(tmp_path):
    pi = FakePi(tmp_path)
    assert "unknown option --fast" in pi.run("--fast", check=False).stderr
    assert "--purge goes with --uninstall" in pi.run("--purge", check=False).stderr
    assert "--dev" in pi.run("--help").stdout


@needs_apt_python
def test_desktop_mode_autostarts_in_the_session_instead_of_tty1(installed):
    pi, _ = installed
    pi.run("--desktop")
    assert (pi.root / "etc/xdg/autostart/companion.desktop").read_bytes() == \
        (REPO / "systemd/companion-desktop.desktop").read_bytes()
    assert not (pi.root / "etc/systemd/system/multi-user.target.wants/companion.service").is_symlink()
    assert "Nothing to change" in pi.run("--desktop").stdout
    pi.run()
    assert (pi.root / "etc/systemd/system/multi-user.target.wants/companion.service").is_symlink()
    assert not (pi.root / "etc/xdg/autostart/companion.desktop").exists()


@needs_apt_python
def test_uninstall_keeps_game_records_and_calibration_unless_purged(installed):
    pi, _ = installed
    state = pi.root / "var/lib/companion"
    (state / "games").mkdir()
    (state / "games/game-20261129-201403.jsonl").write_text("{}\n")
    (state / "calibration.json").write_text("{}\n")
    removed = pi.run("--uninstall")
    assert "kept: game records and calibration" in removed.stdout
    assert not (pi.root / "opt/companion").exists()
    assert not (pi.root / "etc/systemd/system/companion.service").exists()
    assert not (pi.root / "usr/local/bin/companion").is_symlink()
    assert (state / "games/game-20261129-201403.jsonl").exists() and (state / "calibration.json").exists()
    assert (pi.root / "etc/companion/config.toml").exists()
    assert "Nothing to change" in pi.run("--uninstall").stdout
    pi.run("--uninstall", "--purge")
    assert not state.exists() and not (pi.root / "etc/companion").exists()
    assert f"userdel {pi.user}" in pi.log
