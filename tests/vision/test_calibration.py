from __future__ import annotations

import base64
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import SIZE, calibrated, cover

from tests.vision.test_picture import huge_png
from vision import calibration as calib
from vision.reading import CellClass
from vision.sim import synthetic
from vision.sim.synthetic import CameraPose, Conditions, Scene


def _grid_error(calibration: calib.Calibration, rendered: synthetic.Rendered) -> float:
    return float(np.abs(calibration.grid_corners() - rendered.grid_corners).max())


@pytest.mark.parametrize(
    "pose", [CameraPose(), CameraPose(tilt_deg=10, yaw_deg=-5, offset_mm=(15, -10), height_mm=700)]
)
def test_markers_give_the_grid_within_a_pixel(pose: CameraPose) -> None:
    rendered = synthetic.render(Scene.setup(), size=SIZE, pose=pose)
    calibration = calib.from_markers(rendered.frame)
    assert calibration.method == "markers" and len(calibration.markers) == 4
    assert _grid_error(calibration, rendered) < 1.0


def test_tapped_corners_give_the_same_grid() -> None:
    rendered = synthetic.render(Scene.setup(), size=SIZE, pose=CameraPose(tilt_deg=8))
    calibration = calib.from_corners(SIZE, rendered.grid_corners.tolist())
    assert _grid_error(calibration, rendered) < 1e-3


@pytest.mark.parametrize(
    "taps",
    [
        [[0, 0], [10, 0], [10, 10]],
        [[0, 0], [0, 100], [100, 100], [100, 0]],
        [[0, 0], [100, 0], [0, 100], [100, 100]],
    ],
)
def test_bad_taps_are_refused_in_words(taps: list[list[float]]) -> None:
    with pytest.raises(calib.CalibrationError, match="corner"):
        calib.from_corners(SIZE, taps)


def test_a_frame_without_markers_cannot_be_calibrated() -> None:
    blank = np.full((SIZE[1], SIZE[0], 3), 120, np.uint8)
    with pytest.raises(calib.CalibrationError, match="Only 0 of the 4 corner markers"):
        calib.from_markers(blank)


def test_the_file_round_trips(tmp_path: Path) -> None:
    calibration = calibrated("classic")
    path = tmp_path / "sub" / "calibration.json"
    calib.save(calibration, path)
    loaded = calib.load(path)
    assert np.allclose(loaded.homography, calibration.homography)
    assert loaded.references is not None and calibration.references is not None
    assert loaded.references.classes == calibration.references.classes
    assert np.allclose(loaded.references.prototypes, calibration.references.prototypes, atol=1e-4)
    assert np.array_equal(loaded.references.board, calibration.references.board)
    assert np.array_equal(loaded.references.looks, calibration.references.looks)
    assert loaded.references.setup == calibration.references.setup
    assert loaded.surroundings is not None and calibration.surroundings is not None
    assert np.array_equal(loaded.surroundings, calibration.surroundings)
    assert json.loads(path.read_text())["markers"].keys() == {
        "top-left",
        "top-right",
        "bottom-right",
        "bottom-left",
    }
    assert [p.name for p in tmp_path.joinpath("sub").iterdir()] == ["calibration.json"]  # no temp file left


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("{not json", "damaged"),
        ('{"format": "something else"}', "damaged"),
        ('{"format": "tigris-companion-calibration", "version": 3}', "bad or missing"),
        ('{"format": "tigris-companion-calibration", "version": 2}', "another version"),
        ('{"format": "tigris-companion-calibration", "version": 99}', "another version"),
    ],
)
def test_a_corrupt_file_gives_a_clear_error(tmp_path: Path, text: str, words: str) -> None:
    path = tmp_path / "calibration.json"
    path.write_text(text)
    with pytest.raises(calib.CalibrationError, match=words) as caught:
        calib.load(path)
    assert "companion calibrate" in str(caught.value)


def test_a_missing_file_says_so(tmp_path: Path) -> None:
    with pytest.raises(calib.CalibrationError, match="no calibration file"):
        calib.load(tmp_path / "nope.json")


def test_a_still_board_is_confirmed_without_a_search() -> None:
    calibration = calibrated("classic")
    frame = synthetic.render(Scene.setup(), size=SIZE, seed=7).frame
    alignment = calib.align(frame, calibration)
    assert alignment.ok and not alignment.moved and alignment.found == 4
    assert alignment.calibration is calibration


def test_a_bumped_board_is_found_again() -> None:
    calibration = calibrated("classic")
    bumped = synthetic.render(
        Scene.setup(), size=SIZE, conditions=Conditions(board_shift_mm=(12.0, -9.0), board_rotation_deg=2.0)
    )
    alignment = calib.align(bumped.frame, calibration)
    assert alignment.moved and alignment.calibration is not None
    assert _grid_error(alignment.calibration, bumped) < 1.0


def test_a_bumped_board_is_found_again_in_a_full_size_picture() -> None:
    """Markers this big are searched for at half size, then refined at full size."""
    size = (2028, 1520)
    calibration = calib.from_markers(synthetic.render(Scene.setup(), size=size).frame)
    diagonal = float(np.linalg.norm(calibration.markers[0][0] - calibration.markers[0][2]))
    assert diagonal >= calib._SEARCH_HALF  # the half-size search is the one tried
    bumped = synthetic.render(
        Scene.setup(), size=size, conditions=Conditions(board_shift_mm=(-10.0, 8.0), board_rotation_deg=-2.5)
    )
    alignment = calib.align(bumped.frame, calibration)
    assert alignment.moved and alignment.calibration is not None and alignment.found == 4
    assert _grid_error(alignment.calibration, bumped) < 1.0


def test_a_small_nudge_is_not_told_but_is_read_through_the_new_grid() -> None:
    calibration = calibrated("classic")
    nudged = synthetic.render(Scene.setup(), size=SIZE, conditions=Conditions(board_shift_mm=(3.0, 0.0)))
    alignment = calib.align(nudged.frame, calibration)
    assert alignment.ok and not alignment.moved  # 0.1 square: under the quarter-square tolerance
    assert alignment.calibration is not calibration and _grid_error(alignment.calibration, nudged) < 1.0


def test_a_small_nudge_with_a_marker_hidden_is_read_through_the_new_grid() -> None:
    """Three markers make the grid again however little the board moved: the stored grid, a
    tenth of a square off, was once read with the fourth marker under a glare."""
    calibration = calibrated("classic")
    nudged = synthetic.render(Scene.setup(), size=SIZE, conditions=Conditions(board_shift_mm=(2.0, -2.5)))
    frame = nudged.frame.copy()
    cover(frame, nudged.marker_corners[3])
    alignment = calib.align(frame, calibration)
    assert alignment.ok and alignment.markers == (0, 1, 2)
    assert alignment.calibration is not None and _grid_error(alignment.calibration, nudged) < 1.0
    # The hidden marker is looked for next where the new grid puts it.
    assert alignment.calibration.markers.keys() == calibration.markers.keys()
    assert np.abs(alignment.calibration.markers[3] - nudged.marker_corners[3]).max() < 1.5


def test_a_small_nudge_with_two_markers_hidden_is_not_read() -> None:
    calibration = calibrated("classic")
    nudged = synthetic.render(Scene.setup(), size=SIZE, conditions=Conditions(board_shift_mm=(2.0, -2.5)))
    frame = nudged.frame.copy()
    for marker in (2, 3):
        cover(frame, nudged.marker_corners[marker])
    alignment = calib.align(frame, calibration)
    assert alignment.calibration is None and alignment.moved and "uncover" in alignment.message


def test_pieces_layout_puts_every_piece_where_it_stands_in_play() -> None:
    layout = calib.pieces_layout()
    from vision import geometry

    rivers, temples = geometry.river_cells(), geometry.start_temple_cells()
    assert all(layout[c].cls is CellClass.EMPTY_LAND for c in temples)  # lifted off: the bare squares seen
    on_river = {layout[c].cls for c in set(layout) & rivers}
    assert on_river == {CellClass.TILE_BLUE, CellClass.CATASTROPHE}
    assert all(c in rivers for c, p in layout.items() if p.cls is CellClass.TILE_BLUE)
    assert sum(p.monument is not None for p in layout.values()) == 24
    assert sum(p.dynasty is not None for p in layout.values()) == 16
    for colour in ("RED", "BLUE", "GREEN", "BLACK"):  # each tile seen at three places far apart
        spots = [divmod(c, 16) for c, p in layout.items() if p.cls is CellClass[f"TILE_{colour}"]]
        assert len(spots) == 3
        apart = [abs(a[0] - b[0]) + abs(a[1] - b[1]) for a in spots for b in spots if a != b]
        assert min(apart) >= 3 and max(apart) >= 10


def _changed(change: Callable[[dict[str, Any]], object]) -> Callable[[str], str]:
    def damage(text: str) -> str:
        data = json.loads(text)
        change(data)
        return json.dumps(data)

    return damage


@pytest.mark.parametrize(
    ("damage", "words"),
    [
        (lambda text: text[:100_000], "damaged"),  # cut short
        (_changed(lambda d: d.update(homography=[[1, 2, 3], [2, 4, 6], [0, 0, 1]])), "grid is flat"),
        (_changed(lambda d: d.update(homography=[[0] * 3] * 3)), "grid is flat"),
        (_changed(lambda d: d.update(image_size=[1e300, 3])), "bad or missing"),
        (_changed(lambda d: d.update(markers={"x" * 100_000: [[0, 0]] * 4})), "bad or missing"),
        (_changed(lambda d: d["references"].update(setup=None)), "bad or missing"),
        (_changed(lambda d: d.update(references="[" * 100_000)), "bad or missing"),
        (_changed(lambda d: d.update(surroundings="not a picture")), "picture of the board"),
        (_changed(lambda d: d.update(surroundings=d["references"]["board"])), "bad or missing surroundings"),
        (lambda text: text.replace('"markers": {', '"markers": ' + "[" * 100_000 + "]" * 100_000 + ', "x": {'),
         "nested too deeply"),
    ],
)
def test_a_damaged_file_is_refused_in_words_never_a_traceback(
    tmp_path: Path, damage: Callable[[str], str], words: str
) -> None:
    path = tmp_path / "calibration.json"
    path.write_text(damage(calib.to_json(calibrated("classic"))))
    with pytest.raises(calib.CalibrationError, match=words) as caught:
        calib.load(path)
    assert len(str(caught.value)) < 400


def test_a_file_written_before_the_surroundings_were_kept_still_loads(tmp_path: Path) -> None:
    """Only a read after a bump needs them (`Observer`): without, it compares the rim as before."""
    path = tmp_path / "calibration.json"
    path.write_text(_changed(lambda d: d.pop("surroundings"))(calib.to_json(calibrated("classic"))))
    loaded = calib.load(path)
    assert loaded.surroundings is None and loaded.rim is not None


def test_a_huge_picture_inside_the_file_is_refused_before_it_is_decoded(tmp_path: Path) -> None:
    path = tmp_path / "calibration.json"
    huge = base64.b64encode(huge_png(20000, 20000)).decode("ascii")
    path.write_text(_changed(lambda d: d["references"].update(looks=huge))(calib.to_json(calibrated("classic"))))
    with pytest.raises(calib.CalibrationError, match="20000×20000 pixels"):
        calib.load(path)


def test_a_file_too_large_for_a_calibration_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "calibration.json"
    with path.open("wb") as file:
        file.truncate(calib.MAX_FILE_BYTES + 1)
    with pytest.raises(calib.CalibrationError, match="larger than"):
        calib.load(path)


def test_after_a_bump_a_blurred_marker_is_found_near_its_old_place_as_in_the_whole_picture() -> None:
    """A soft-focus camera high over the table: its markers are small and blurred. Halving the
    picture sharpens their edges; the search near where each marker was must find what a search
    of the whole picture finds, or a marker in plain view is taken for a covered one."""
    size, pose = (1640, 1232), CameraPose(height_mm=820)
    setup = synthetic.render(Scene.setup(), size=size, pose=pose, seed=1).frame
    calibration = calib.calibrate(setup)
    bumped = Conditions(blur_sigma=2.0, board_shift_mm=(10.0, 0.0), noise_sigma=2)
    frame = synthetic.render(Scene.setup(), size=size, pose=pose, conditions=bumped, seed=5).frame
    alignment = calib.align(frame, calibration)
    assert alignment.moved and len(alignment.markers) >= 3
    assert alignment.markers == tuple(sorted(calib.find_markers(frame)))
