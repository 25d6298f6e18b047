import errno
import json
import os
import random
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest

from companion.app import journal
from companion.app.journal import Journal, JournalDamaged, JournalError
from companion.rules import CompanionError, Game, replay
from tests.app import cards
from vision.reading import CELLS, BoardReading, CellClass, CellReading, ReadStatus


def play(game: Game, record: Journal, actions: int, rng: random.Random, takebacks: float = 0.0) -> None:
    for _ in range(actions):
        if game.state.over:
            return
        if game.actions and rng.random() < takebacks:
            record.undo(game)
        else:
            record.apply(game, rng.choice(game.legal_actions()))


def started_game(tmp_path, actions=20, takebacks=0.0, seed=7) -> tuple[Game, Journal]:
    game = Game.new(3, seed=seed)
    record = Journal.start(tmp_path, game, now=datetime(2026, 11, 29, 20, 14))
    play(game, record, actions, random.Random(seed), takebacks)
    return game, record


def lines(record: Journal) -> list[dict]:
    return [json.loads(line) for line in record.path.read_text().splitlines()]


def test_the_header_then_one_line_per_action(tmp_path):
    game, record = started_game(tmp_path, actions=5)
    header, *moves = lines(record)
    assert record.path.name == "game-20261129-201400.jsonl"
    assert header["format"] == journal.FORMAT
    assert header["config"] == game.config.to_dict() and header["config"]["seed"] == 7
    assert datetime.fromisoformat(header["started"]).strftime("%H:%M") == "20:14"
    assert [m["seq"] for m in moves] == [1, 2, 3, 4, 5]
    assert [m["action"] for m in moves] == [str(a) for a in game.actions]
    assert all("reading" not in m and datetime.fromisoformat(m["time"]) for m in moves)


def test_resuming_lands_on_the_same_state_with_takebacks(tmp_path):
    game, record = started_game(tmp_path, actions=120, takebacks=0.15)
    record.close()
    assert any(m.get("undo") for m in lines(record))
    resumed = journal.resume(record.path)
    assert resumed.game.to_json() == game.to_json()
    assert resumed.warnings == ()
    count = len(game.actions)
    assert resumed.message == f"Resuming the game started 20:14 — {count} actions"
    # and the record goes on where it stopped
    resumed.journal.apply(resumed.game, resumed.game.legal_actions()[0])
    assert journal.resume(record.path).game.to_json() == resumed.game.to_json()


def test_a_reading_is_kept_with_its_action(tmp_path):
    game = Game.new(2, seed=3)
    with Journal.start(tmp_path, game) as record:
        cells = tuple(CellReading(CellClass.EMPTY_LAND, 0.91234) for _ in range(CELLS))
        reading = BoardReading(ReadStatus.OK, cells, board_found=True, time=12.5, low_confidence=(4,))
        record.apply(game, game.legal_actions()[0], reading)
        record.apply(game, game.legal_actions()[0], {"source": "typed by a player"})
    first, second = lines(record)[1:]
    assert first["reading"]["cells"][0] == ["empty land", 0.912]
    assert (first["reading"]["status"], first["reading"]["low_confidence"]) == ("ok", [4])
    assert second["reading"] == {"source": "typed by a player"}


def test_a_last_line_cut_by_a_power_cut_is_dropped_with_a_warning(tmp_path):
    game, record = started_game(tmp_path, actions=30)
    record.close()
    whole = record.path.read_bytes()
    cut = whole[: -len(whole.splitlines()[-1]) // 2 - 1]
    record.path.write_bytes(cut)
    resumed = journal.resume(record.path)
    game.undo()
    assert resumed.game.to_json() == game.to_json()
    assert len(resumed.warnings) == 1 and "was cut off" in resumed.warnings[0]
    # the cut part is gone from the file, so the next move starts a line of its own
    assert record.path.read_bytes() == whole[: whole.rstrip(b"\n").rfind(b"\n") + 1]
    resumed.journal.apply(resumed.game, resumed.game.legal_actions()[0])
    again = journal.resume(record.path)
    assert again.warnings == () and again.game.to_json() == resumed.game.to_json()


def test_a_whole_last_line_without_its_newline_counts_as_cut(tmp_path):
    _, record = started_game(tmp_path, actions=4)
    record.path.write_bytes(record.path.read_bytes()[:-1])
    resumed = journal.resume(record.path)
    assert len(resumed.game.actions) == 3 and resumed.warnings


@pytest.mark.parametrize(
    ("damage", "expected"),
    [
        (lambda text: text.replace('"seq":3,', '"seq":3'), "damaged at line 4"),
        (lambda text: text.replace('"seq":3,', '"seq":9,'), "damaged at line 4: expected move number 3"),
        (lambda text: text.replace('"action":"', '"action":"catastrophe A1 ', 1), "damaged at line 2"),
    ],
)
def test_damage_before_the_last_line_is_an_error_naming_the_line(tmp_path, damage, expected):
    _, record = started_game(tmp_path, actions=6)
    damaged = damage(record.path.read_text())
    record.path.write_text(damaged)
    with pytest.raises(JournalDamaged, match=expected) as raised:
        journal.resume(record.path)
    assert isinstance(raised.value, CompanionError)
    assert record.path.read_text() == damaged  # left as it is for the players to see


def test_a_full_card_during_a_move_loses_nothing_saved_before(tmp_path, monkeypatch):
    game, record = started_game(tmp_path, actions=10)
    before_file, before_game = record.path.read_bytes(), game.to_json()
    real_write = os.write

    def half_then_full(fd, data):
        real_write(fd, data[: len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", half_then_full)
    with pytest.raises(JournalError) as raised:
        record.apply(game, game.legal_actions()[0])
    monkeypatch.undo()
    assert str(raised.value).startswith("The memory card is full — the last move was not saved.")
    assert raised.value.errno == errno.ENOSPC
    assert game.to_json() == before_game
    assert record.path.read_bytes() == before_file
    record.apply(game, game.legal_actions()[0])
    assert journal.resume(record.path).game.to_json() == game.to_json()


def test_a_failed_takeback_record_keeps_the_move(tmp_path, monkeypatch):
    game, record = started_game(tmp_path, actions=3)
    before = game.to_json()

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(JournalError):
        record.undo(game)
    monkeypatch.undo()
    assert game.to_json() == before
    assert journal.resume(record.path).game.to_json() == before


@pytest.fixture
def tiny_card(tmp_path: Path) -> Iterator[Path]:
    yield from cards.mounted(tmp_path)


def test_a_really_full_card(tiny_card):
    game = Game.new(4, seed=11)
    record = Journal.start(tiny_card, game)
    rng = random.Random(11)
    reading = {"padding": "x" * 3000}
    with pytest.raises(JournalError, match="The memory card is full"):
        for _ in range(1000):
            record.apply(game, rng.choice(game.legal_actions()), reading)
    record.close()
    resumed = journal.resume(record.path)
    resumed.journal.close()
    assert resumed.warnings == ()
    assert resumed.game.to_json() == game.to_json()
    assert len(game.actions) > 5


def test_the_unfinished_game_is_found(tmp_path):
    assert journal.unfinished(tmp_path) is None
    _, record = started_game(tmp_path, actions=3)
    record.close()
    assert journal.unfinished(tmp_path) == record.path
    finished = Game.new(2, seed=5)
    done = Journal.start(tmp_path, finished, now=datetime(2026, 11, 30, 21, 0))
    play(finished, done, 5000, random.Random(5))
    done.close()
    assert finished.state.over
    assert journal.unfinished(tmp_path) is None  # the newest game is over; older ones were abandoned
    assert replay(finished.config, finished.actions).to_json() == journal.resume(done.path).game.to_json()


def test_two_games_started_in_the_same_second_get_two_records(tmp_path):
    now = datetime(2026, 11, 29, 20, 14)
    first = Journal.start(tmp_path, Game.new(2, seed=1), now=now)
    second = Journal.start(tmp_path, Game.new(2, seed=2), now=now)
    assert first.path != second.path
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game-20261129-201400-2.jsonl",
                                                          "game-20261129-201400.jsonl"]


def test_an_empty_record_is_an_error_not_a_crash(tmp_path):
    (tmp_path / "game-20261129-201400.jsonl").write_bytes(b"")
    with pytest.raises(JournalDamaged, match="is empty"):
        journal.resume(tmp_path / "game-20261129-201400.jsonl")
    assert journal.unfinished(tmp_path) == tmp_path / "game-20261129-201400.jsonl"


def test_a_game_already_under_way_is_recorded_from_its_start(tmp_path):
    game = Game.new(2, seed=9)
    rng = random.Random(9)
    for _ in range(4):
        game.apply(rng.choice(game.legal_actions()))
    with Journal.start(tmp_path, game) as record:
        assert record.seq == 4
    assert journal.resume(record.path).game.to_json() == game.to_json()
