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


def test_a_whole_last_line_without_its_newline_is_kept(tmp_path):
    game, record = started_game(tmp_path, actions=4)
    record.close()
    whole = record.path.read_bytes()
    record.path.write_bytes(whole[:-1])
    resumed = journal.resume(record.path)
    assert resumed.game.to_json() == game.to_json() and resumed.warnings == ()
    assert record.path.read_bytes() == whole  # the newline is given back, so the next move has a line of its own
    resumed.journal.apply(resumed.game, resumed.game.legal_actions()[0])
    resumed.journal.close()
    assert journal.resume(record.path).game.to_json() == resumed.game.to_json()


def _line(n):
    return lambda text: text.splitlines(keepends=True)[n]


@pytest.mark.parametrize(
    ("damage", "kept", "reason"),
    [
        (lambda text: text.replace('"seq":3,', '"seq":3'), 2, "line 4: it is not a line of the record"),
        (lambda text: text.replace('"seq":3,', '"seq":9,'), 2, "line 4: expected move number 3, found 9"),
        (lambda text: text.replace('"action":"', '"action":"catastrophe A1 ', 1), 0, "line 2: "),
        (lambda text: text.replace(_line(3)(text), _line(3)(text) * 2), 3, "line 5: expected move number 4, found 3"),
        (lambda text: text.replace(_line(2)(text), '{"seq":2,"action":null}\n'), 1, "line 3: it holds no action"),
        (lambda text: text.replace(_line(2)(text), "[" * 100_000 + "\n"), 1, "line 3: it is not a line"),
    ],
)
def test_damage_keeps_every_move_before_it_and_the_file_as_it_was(tmp_path, damage, kept, reason):
    game, record = started_game(tmp_path, actions=6)
    record.close()
    damaged = damage(record.path.read_text())
    record.path.write_text(damaged)
    resumed = journal.resume(record.path)
    assert resumed.game.to_json() == replay(game.config, game.actions[:kept]).to_json()
    lost = len(damaged.splitlines()) - 1
    moves = f"Move {kept + 1}" if kept + 1 == lost else f"Moves {kept + 1}–{lost}"
    after = "from its start" if kept == 0 else f"after move {kept}"
    said = resumed.warnings[0]
    assert said.startswith(f"{moves} of {record.path.name} could not be read ({reason}")
    assert f"; the game resumes {after}." in said
    assert record.path.read_text() == damaged  # left as it is for the players to see
    # the game goes on in a new record, which is the one resumed next time
    assert resumed.journal.path != record.path
    resumed.journal.apply(resumed.game, resumed.game.legal_actions()[0])
    resumed.journal.close()
    assert journal.unfinished(tmp_path) == resumed.journal.path
    assert journal.resume(resumed.journal.path).game.to_json() == resumed.game.to_json()


def test_a_header_without_its_start_time_still_resumes(tmp_path):
    game, record = started_game(tmp_path, actions=3)
    record.close()
    header, *moves = record.path.read_text().splitlines(keepends=True)
    record.path.write_text(json.dumps({k: v for k, v in json.loads(header).items() if k != "started"}) + "\n"
                           + "".join(moves))
    resumed = journal.resume(record.path)
    assert resumed.game.to_json() == game.to_json() and resumed.warnings == ()


@pytest.mark.parametrize(
    "header",
    ['{"format":"te-companion game record","config":null}', '{"format":"te-companion game record"}',
     "[" * 100_000, '"just a string"', '{"format":"te-companion game record","config":{"players":"x"}}'],
)
def test_a_header_that_cannot_be_used_names_the_file_and_line_1(tmp_path, header):
    path = tmp_path / "game-20261129-201400.jsonl"
    path.write_text(header + "\n")
    with pytest.raises(JournalDamaged, match=r"game-20261129-201400\.jsonl .*line 1") as raised:
        journal.resume(path)
    assert isinstance(raised.value, CompanionError) and len(str(raised.value)) < 300
    assert journal.unfinished(tmp_path) == path  # the players hear about it
    assert path.read_text() == header + "\n"


def test_a_long_line_is_not_repeated_whole(tmp_path):
    _, record = started_game(tmp_path, actions=3)
    record.close()
    text = record.path.read_text()
    record.path.write_text(text + json.dumps({"seq": 4, "action": "tile " + "x" * 100_000}) + "\n")
    said, goes_on = journal.resume(record.path).warnings
    assert "line 5" in said and len(said) < 400 and goes_on.startswith("It goes on in")


def test_the_game_written_last_is_resumed_even_after_the_clock_stepped_back(tmp_path):
    # A Pi without network starts with the clock it had at shutdown, then steps it when it finds the time.
    _, older = started_game(tmp_path, actions=2, seed=1)
    older.close()
    newer_game = Game.new(3, seed=2)
    newer = Journal.start(tmp_path, newer_game, now=datetime(2024, 1, 1, 9, 0))  # its name sorts first
    newer.apply(newer_game, newer_game.legal_actions()[0])
    newer.close()
    os.utime(newer.path, (0, 0))  # and so does its modification time
    assert sorted(tmp_path.glob("*.jsonl"))[0] == newer.path
    assert journal.unfinished(tmp_path) == newer.path


def test_a_read_only_card_is_said_in_words(tmp_path, monkeypatch):
    _, record = started_game(tmp_path, actions=2)
    record.close()

    def read_only(*args, **kwargs):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(record.path))

    monkeypatch.setattr(journal.os, "open", read_only)
    with pytest.raises(JournalError) as raised:
        journal.resume(record.path)
    assert "[Errno" not in str(raised.value) and "cannot be written" in str(raised.value)


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
