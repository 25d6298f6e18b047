from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from companion.app import calibrate, read
from vision import calibration as calib
from vision.sim import synthetic
from vision.sim.synthetic import CellTruth, Scene

SIZE = (1014, 760)


@pytest.fixture(scope="module")
def pictures(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("pictures")
    layout = calib.pieces_layout()
    shown = Scene.setup().with_cells({c: CellTruth(p.cls, p.dynasty, p.monument) for c, p in layout.items()})
    scenes = {"setup": Scene.setup(), "pieces": shown}
    paths = {}
    for name, scene in scenes.items():
        paths[name] = folder / f"{name}.png"
        cv2.imwrite(str(paths[name]), synthetic.render(scene, size=SIZE, seed=len(name)).frame)
    return paths


def test_calibrate_then_read_prints_the_grid(
    pictures: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "cal.json"
    assert (
        calibrate.main(["--setup", str(pictures["setup"]), "--pieces", str(pictures["pieces"]), "--out", str(out)]) == 0
    )
    assert "Calibration written" in capsys.readouterr().out
    assert read.main([str(pictures["setup"]), "--calibration", str(out)]) == 0
    text = capsys.readouterr().out
    rows = [line for line in text.splitlines() if line[:3].strip().isdigit()]
    assert rows[0] == "  1 ....~~~~~.T.~..."  # the printed standard board, row 1
    assert rows[10] == " 11 ..........T....."
    assert "legend:" in text


def test_read_json_has_every_square(
    pictures: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "cal.json"
    calibrate.main(["--setup", str(pictures["setup"]), "--pieces", str(pictures["pieces"]), "--out", str(out)])
    capsys.readouterr()
    assert read.main([str(pictures["pieces"]), "--calibration", str(out), "--json"]) == 0
    [result] = json.loads(capsys.readouterr().out)
    assert result["status"] == "ok" and len(result["cells"]) == 176
    layout = calib.pieces_layout()
    seen = {c: result["cells"][c]["class"] for c in layout}
    assert all(seen[c] in (layout[c].cls.value, "unknown") for c in layout)


def test_read_without_calibration_says_what_to_do(
    pictures: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert read.main([str(pictures["setup"]), "--calibration", str(tmp_path / "none.json")]) == 1
    assert "companion calibrate" in capsys.readouterr().err


def test_unreadable_picture_is_an_error_not_a_crash(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bogus = tmp_path / "bogus.png"
    bogus.write_text("not a picture")
    assert calibrate.main(["--setup", str(bogus), "--out", str(tmp_path / "c.json")]) == 1
    assert "not a picture" in capsys.readouterr().err


def test_layout_lists_every_piece(capsys: pytest.CaptureFixture[str]) -> None:
    assert calibrate.main(["--layout"]) == 0
    text = capsys.readouterr().out
    assert text.count("leader") == 16 and text.count("monument") == 24


def test_calibrate_from_a_folder_camera(
    pictures: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "frames"
    folder.mkdir()
    (folder / "1-setup.png").write_bytes(pictures["setup"].read_bytes())
    (folder / "2-pieces.png").write_bytes(pictures["pieces"].read_bytes())
    monkeypatch.setattr("builtins.input", lambda: "")
    out = tmp_path / "cal.json"
    assert calibrate.main(["--camera", str(folder), "--out", str(out)]) == 0
    assert calib.load(out).references is not None
