"""A short demo game end to end in CI: renderer, observer, tracker, controller, screens, tally."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from differential import Differential

from companion.app.controller import Controller
from companion.rules import Game, final_scores
from companion.sim import demo
from companion.sim.table import PerfectEyes, Table

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")


def test_a_whole_demo_game_ends_with_the_engines_tally(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shots, record = tmp_path / "shots", tmp_path / "game.json"
    code = demo.main(["--headless", "--fast", "--players", "2", "--seed", "3", "--shots", str(shots),
                      "--save", str(record)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "The tally equals the engine's own result." in out
    names = {p.stem.split("-", 1)[1] for p in shots.glob("*.png")}
    assert {"turn", "tally"} <= names
    assert demo.replay_main([str(record), "--headless"]) == 0
    assert "Replayed" in capsys.readouterr().out


def test_the_tally_check_can_fail() -> None:
    table = Table.new(2, 3)
    while not table.over:
        table.step()
    scores = final_scores(table.truth.state)
    worse = [scores[0].__class__(**{**{f: getattr(s, f) for f in s.__slots__}, "treasures": s.treasures + 1})
             if s.seat == 0 else s for s in scores]
    assert demo.same_tally(scores, scores)
    assert not demo.same_tally(scores, worse)


def test_a_journal_replays_on_the_screens(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from companion.app import journal
    from companion.rules import Game

    game = Game.new(2, hidden_hands=True)
    with journal.Journal.start(tmp_path, game) as record:
        for action in ("tile red F11", "pass", "swap 2"):
            record.apply(game, action)
    path = next(tmp_path.glob("*.jsonl"))
    assert demo.replay_main([str(path), "--headless", "--shots", str(tmp_path / "shots")]) == 0
    assert "Replayed 3 actions" in capsys.readouterr().out
    assert (tmp_path / "shots" / "01-turn.png").exists()


def test_a_broken_record_is_reported_in_words(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "game.json"
    path.write_text("{not json")
    assert demo.replay_main([str(path), "--headless"]) == 1
    assert "cannot be read" in capsys.readouterr().err


def test_the_demo_briefs_its_observer_before_every_look_and_agrees_after_every_move() -> None:
    table = Table.new(3, 5)
    eyes = Differential(table.board)  # reads what changed since the board agreed, never a class ruled out
    controller = Controller(Game.new(3, hidden_hands=True))
    stats = demo.Stats()
    demo.play(table, controller, eyes, demo.Screens(), stats)
    assert demo.same_tally(final_scores(table.truth.state), final_scores(controller.state))
    assert eyes.excluded == []  # every square that changed showed a class the companion allowed
    assert eyes.wrong_labels == []  # and every board agreed was the board the camera had just seen
    assert eyes.absolute == 1 and eyes.agreements >= stats.seen // 2  # only the first look was read whole
    assert stats.silent == 0


@pytest.mark.parametrize(
    ("name", "content", "words"),
    [
        ("game.json", "[" * 100_000, "nested too deeply"),
        ("game.json", '{"format": "te-companion/1", "config": {"players": 2}, "actions": ["tile ' + "x" * 100_000
         + '"]}', "cannot be read"),
        ("game.jsonl", '{"format":"te-companion game record","config":{"players":2}}\n{"seq":1,"action":null}\n',
         "Move 1 of game.jsonl could not be read (line 2: it holds no action)"),
        ("game.jsonl", "\xff\xfe", "not a game record"),
    ],
)
def test_replay_says_what_is_wrong_with_any_file(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                 name: str, content: str, words: str) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="latin-1")
    before = path.read_bytes()
    demo.replay_main([str(path), "--headless"])
    said = capsys.readouterr().err
    assert words in said and len(said) < 600
    assert path.read_bytes() == before


def test_players_pass_the_action_spent_on_a_leader_moved_on_before_the_camera_looked() -> None:
    # Seed 614 (3 players): a player puts the blue leader down on M5 and moves it on to B3 in one
    # look. The camera sees only B3, which one action explains: the screen shows the turn still
    # open, and the players pass the action they had spent. Before, the game differed from the
    # table silently, even through a camera that never errs.
    table = Table.new(3, 614)
    controller = Controller(Game.new(3, hidden_hands=True))
    stats = demo.Stats()
    demo.play(table, controller, PerfectEyes(), demo.Screens(), stats)
    assert stats.helped_by[demo.SPENT] == 2 and stats.silent == 0
    assert demo.same_tally(final_scores(table.truth.state), final_scores(controller.state))
    assert stats.unaided == stats.seen - stats.corrected
