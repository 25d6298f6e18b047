"""A real, tiny memory card to fill up for real (needs root, as CI has)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


def mounted(tmp_path: Path) -> Iterator[Path]:
    """A 64 KiB tmpfs under `tmp_path`, unmounted afterwards; the test is skipped where none can be mounted."""
    mount = tmp_path / "card"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {done.stderr.decode().strip()}")
    yield mount
    subprocess.run(["umount", str(mount)], check=True)
