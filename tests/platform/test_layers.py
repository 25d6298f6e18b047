"""The arrows of DESIGN.md: what each part may import, checked in a fresh interpreter (and, for the
rules' public names, in the source)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _imported_by(statement: str) -> set[str]:
    """The modules a fresh interpreter imports to run `statement` (not those it started with)."""
    probe = f"import sys; before = set(sys.modules); {statement}; print('\\n'.join(set(sys.modules) - before))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    return set(out.split())


def _loaded_after(statement: str) -> set[str]:
    """The modules of ours a fresh interpreter holds after running `statement`."""
    return {name for name in _imported_by(statement) if name.split(".")[0] in ("companion", "vision")}


def test_the_production_path_never_imports_the_simulator() -> None:
    loaded = _loaded_after("import companion.app.run, companion.app.cli, companion.app.records")
    assert "vision.observer" in loaded  # the probe did load the reader
    assert not {name for name in loaded if name.startswith(("vision.sim", "companion.sim", "companion.bench"))}


def test_vision_never_imports_the_companion() -> None:
    loaded = _loaded_after("import vision.observer, vision.sim.camera, vision.marker_sheet")
    assert "vision.sim.synthetic" in loaded
    assert not {name for name in loaded if name.startswith("companion")}


def test_the_hardware_imports_neither_the_screens_nor_the_app() -> None:
    loaded = _loaded_after("import companion.hardware.buttons, companion.hardware.display, companion.hardware.notify")
    assert "companion.commands" in loaded  # the input vocabulary the buttons share with the screens
    assert not {name for name in loaded if name.startswith(("companion.ui", "companion.app"))}


def test_the_rules_import_only_themselves_and_the_standard_library() -> None:
    imported = _imported_by("import companion.rules")
    assert "companion.rules.engine" in imported
    ours = {"companion", "companion.rules"}
    outside = {name for name in imported if name not in ours and not name.startswith("companion.rules.")
               and name.split(".")[0] not in sys.stdlib_module_names}
    assert not outside


def test_the_tracker_and_the_screens_see_of_the_vision_only_the_readings_value_types() -> None:
    # vision.reading holds BoardReading and the cell classes, and imports nothing else.
    assert _loaded_after("import vision.reading") == {"vision", "vision.reading"}
    loaded = _loaded_after("import companion.tracker, companion.ui.screens, companion.ui.messages")
    assert {name for name in loaded if name.startswith("vision")} == {"vision", "vision.reading"}


def _imported_names(path: Path) -> set[str]:
    """The modules a source file imports, relative imports resolved."""
    package = path.relative_to(ROOT).with_suffix("").parts[:-1]
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else ()
            names.add(".".join((*base, *(node.module.split(".") if node.module else ()))))
    return names


def test_outside_the_rules_only_the_public_names_of_companion_rules_are_imported() -> None:
    sources = [p for p in (ROOT / "companion").rglob("*.py") if "rules" not in p.relative_to(ROOT).parts[1:2]]
    assert ROOT / "companion" / "tracker.py" in sources
    private = {f"{p.relative_to(ROOT)}: {name}" for p in sources for name in _imported_names(p)
               if name.startswith("companion.rules.")}
    assert not private
