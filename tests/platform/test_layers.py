"""The arrows of DESIGN.md: what each part may import, checked in a fresh interpreter."""

from __future__ import annotations

import subprocess
import sys


def _loaded_after(statement: str) -> set[str]:
    """The modules of ours a fresh interpreter holds after running `statement`."""
    probe = f"import sys; {statement}; print('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    return {name for name in out.split() if name.split(".")[0] in ("companion", "vision")}


def test_the_production_path_never_imports_the_simulator() -> None:
    loaded = _loaded_after("import companion.app.run, companion.app.cli")
    assert "vision.observer" in loaded  # the probe did load the reader
    assert not {name for name in loaded if name.startswith("vision.sim")}


def test_vision_never_imports_the_companion() -> None:
    loaded = _loaded_after("import vision.observer, vision.sim.camera, vision.marker_sheet")
    assert "vision.sim.synthetic" in loaded
    assert not {name for name in loaded if name.startswith("companion")}
