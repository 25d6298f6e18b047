from __future__ import annotations

import json

import numpy as np
import pytest

from companion import bench, rules
from companion.bench.vision import mid_game_scene, truth_of
from vision.reading import CellClass


def test_every_piece_on_an_engine_board_becomes_what_the_camera_sees() -> None:
    game = rules.Game.new(3, seed=4)
    for action in game.legal_actions()[:1]:
        game.apply(action)
    scene = truth_of(game.state)
    for cell, truth in enumerate(scene.cells):
        square = game.state.square(cell)
        if square.leader is not None:
            seat, colour = square.leader
            assert truth.cls is CellClass[f"LEADER_{colour.name}"]
            assert truth.dynasty == game.state.players[seat].dynasty
        elif square.treasure and square.monument is None:
            assert truth.cls is CellClass.TREASURE
        elif square.tile is None and not square.catastrophe:
            assert truth.cls is (CellClass.EMPTY_RIVER if square.river else CellClass.EMPTY_LAND)


def test_mid_game_boards_hold_pieces_of_many_kinds() -> None:
    rng = np.random.default_rng(3)
    kinds = {truth.cls for _ in range(4) for truth in mid_game_scene(rng).cells}
    assert {CellClass.TILE_RED, CellClass.TREASURE, CellClass.EMPTY_RIVER} <= kinds
    assert any(k.is_leader for k in kinds)


def test_the_unseen_split_reads_printings_nobody_tuned_on(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench.main(["vision", "--split", "unseen", "--boards", "2", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result) == {"unseen"}  # the developed split was not asked for
    unseen = result["unseen"]
    assert unseen["boards"] == 2
    assert [t["boards"] for t in unseen["tables"]] == [2]  # one table, one calibration
    assert unseen["tables"][0]["printing"].startswith("printing ")
    assert unseen["boards_read"] + unseen["boards_refused_no_hand"] == 2
    assert 0 <= unseen["cell_error_rate"] <= 1 and 0 <= unseen["silent_cell_error_rate"] <= unseen["cell_error_rate"]
    assert unseen["read_ms_median_2028x1520"] > 0
