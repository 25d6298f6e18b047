from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import cv2
import pytest

from companion.app import calibrate, read
from tests.app import cards
from tests.vision.test_picture import huge_png
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
    assert "not a PNG or JPEG picture" in capsys.readouterr().err


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


def _calibrated_before(pictures: dict[str, Path], tmp_path: Path) -> tuple[Path, bytes]:
    out = tmp_path / "cal.json"
    assert calibrate_with(pictures["setup"], pictures["pieces"], out) == 0
    return out, out.read_bytes()


def calibrate_with(setup: Path, pieces: Path, out: Path) -> int:
    return calibrate.main(["--setup", str(setup), "--pieces", str(pieces), "--out", str(out)])


def test_a_pieces_picture_without_the_pieces_is_refused_naming_the_squares(
    pictures: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, before = _calibrated_before(pictures, tmp_path)
    capsys.readouterr()
    # Enter pressed twice: the "pieces" picture is the set-up position again.
    assert calibrate_with(pictures["setup"], pictures["setup"], out) == 1
    said = capsys.readouterr().err
    assert "not seen as `companion calibrate --layout` shows them" in said
    first = min(calib.pieces_layout())
    assert f"{chr(ord('A') + first % 16)}{first // 16 + 1} should show a" in said
    assert "left as it was" in said
    assert out.read_bytes() == before


def test_a_greyscale_picture_is_refused_with_a_reason(
    pictures: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, before = _calibrated_before(pictures, tmp_path)
    capsys.readouterr()
    grey = tmp_path / "grey.png"
    cv2.imwrite(str(grey), cv2.cvtColor(cv2.imread(str(pictures["pieces"])), cv2.COLOR_BGR2GRAY))
    assert calibrate_with(pictures["setup"], grey, out) == 1
    assert "greyscale" in capsys.readouterr().err
    assert out.read_bytes() == before


@pytest.fixture
def tiny_card(tmp_path: Path) -> Iterator[Path]:
    yield from cards.mounted(tmp_path)


def test_a_full_card_while_writing_the_calibration_is_said_in_words(
    pictures: dict[str, Path], tiny_card: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tiny_card / "cal.json"
    out.write_text("the previous calibration")
    assert calibrate_with(pictures["setup"], pictures["pieces"], out) == 1
    said = capsys.readouterr().err
    assert "the memory card is full" in said and "Errno" not in said and "Traceback" not in said
    assert out.read_text() == "the previous calibration"
    assert [p.name for p in tiny_card.iterdir()] == ["cal.json"]


def test_a_huge_picture_is_refused_before_it_is_decoded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    huge = tmp_path / "huge.png"
    huge.write_bytes(huge_png(20000, 20000))
    assert calibrate.main(["--setup", str(huge), "--out", str(tmp_path / "c.json")]) == 1
    assert "20000×20000 pixels" in capsys.readouterr().err

