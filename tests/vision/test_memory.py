"""The memory of this table's pieces: bounded, kept atomically beside the calibration, never a crash."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import numpy as np
import pytest

from vision import memory as memory_module
from vision.memory import Memory
from vision.reading import CellClass, CellReading
from vision.rectify import PX_PER_SQUARE


def pictures(n: int, shade: int = 0) -> np.ndarray:
    looks = np.zeros((n, PX_PER_SQUARE, PX_PER_SQUARE, 3), np.uint8)
    looks[:] = (np.arange(n)[:, None, None, None] + shade) % 256
    return looks


def named(cls: CellClass, n: int, monument: tuple[str, str] | None = None) -> list[CellReading]:
    return [CellReading(cls, 1.0, None, monument)] * n


def test_it_keeps_the_newest_pictures_of_each_class_and_no_bare_board() -> None:
    memory = Memory(per_class=3)
    memory.learn(pictures(5), named(CellClass.TILE_RED, 5))
    memory.learn(pictures(2, 100), named(CellClass.EMPTY_LAND, 1) + named(CellClass.LEADER_BLUE, 1))
    assert memory.classes == (CellClass.TILE_RED,) * 3 + (CellClass.LEADER_BLUE,)
    assert [int(look[0, 0, 0]) for look in memory.looks] == [2, 3, 4, 101]  # the oldest red ones went


def test_it_stays_within_its_bytes_dropping_the_commonest_class_first() -> None:
    size = PX_PER_SQUARE * PX_PER_SQUARE * 3
    memory = Memory(per_class=10, max_bytes=6 * size)
    memory.learn(pictures(5), named(CellClass.TILE_RED, 5))
    memory.learn(pictures(3, 50), named(CellClass.CATASTROPHE, 3))
    assert memory.nbytes <= 6 * size
    assert memory.classes.count(CellClass.TILE_RED) == 3 and memory.classes.count(CellClass.CATASTROPHE) == 3


def test_it_is_written_atomically_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "calibration.pieces.npz"
    memory = Memory(path, "2026-01-01T20:00:00+00:00")
    memory.learn(pictures(2), named(CellClass.MONUMENT, 2, ("red", "blue")))
    assert memory.save() and path.exists()
    assert not memory.save()  # nothing new: not written again
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary file left behind
    again = Memory.load(path, "2026-01-01T20:00:00+00:00")
    assert again.classes == memory.classes and again.monuments == (("red", "blue"),) * 2
    assert np.array_equal(again.looks, memory.looks)


def test_a_file_that_cannot_be_written_leaves_the_pictures_in_memory(tmp_path: Path, caplog) -> None:  # type: ignore[no-untyped-def]
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    memory = Memory(blocked / "pieces.npz")
    memory.learn(pictures(1), named(CellClass.TILE_BLACK, 1))
    with caplog.at_level(logging.WARNING):
        assert not memory.save()
    assert "could not be saved" in caplog.text and len(memory) == 1


def test_it_is_written_now_and_then_not_at_every_move(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "pieces.npz"
    memory = Memory(path)
    clock = [1000.0]
    monkeypatch.setattr(memory_module.time, "monotonic", lambda: clock[0])
    count, seconds = memory_module.SAVE_AFTER
    memory.learn(pictures(1), named(CellClass.TILE_RED, 1))
    assert not memory.save_now_and_then() and not path.exists()
    clock[0] += seconds
    assert memory.save_now_and_then() and path.exists()
    memory.learn(pictures(count), named(CellClass.TILE_GREEN, count))
    assert memory.save_now_and_then()  # enough waiting to write at once


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"not a zip file at all", "not used"),
        (None, "another calibration"),
        (b"", "not used"),
    ],
)
def test_a_damaged_or_foreign_file_is_left_aside_with_the_reason_logged(
    tmp_path: Path, caplog, content: bytes | None, reason: str  # type: ignore[no-untyped-def]
) -> None:
    path = tmp_path / "pieces.npz"
    if content is None:  # a good file, made with another calibration
        other = Memory(path, "another evening")
        other.learn(pictures(1), named(CellClass.TILE_RED, 1))
        other.save()
    else:
        path.write_bytes(content)
    with caplog.at_level(logging.WARNING):
        memory = Memory.load(path, "tonight")
    assert len(memory) == 0 and reason in caplog.text and str(path) in caplog.text


def test_a_file_with_pictures_of_the_wrong_size_is_left_aside(tmp_path: Path, caplog) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "pieces.npz"
    np.savez(path, format=np.array(memory_module.FORMAT), version=np.array(memory_module.VERSION),
             calibration=np.array(""), looks=np.zeros((1, 8, 8, 3), np.uint8), classes=np.array(["red tile"]),
             monuments=np.array([""]))
    with caplog.at_level(logging.WARNING):
        assert len(Memory.load(path)) == 0
    assert "do not fit" in caplog.text


def test_no_file_is_an_empty_memory(tmp_path: Path) -> None:
    memory = Memory.load(tmp_path / "none.npz")
    assert len(memory) == 0 and not os.listdir(tmp_path)
