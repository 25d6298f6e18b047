"""The post-game report, from the golden games: its numbers against what the golden records froze."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from companion.app.journal import Journal
from companion.phone.report import Report, html
from companion.rules import ConflictKind, Game, GameConfig

GOLDEN = Path(__file__).parents[1] / "rules" / "golden"
NAMES = sorted(path.stem for path in GOLDEN.glob("*.json"))
ROOT = Path(__file__).parents[2]


def golden(name: str) -> dict:
    return json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))


def frozen_timeline(data: dict) -> dict[int, tuple[tuple[int, ...], ...]]:
    """Each turn's points at its end, read from the golden digests ("turn 4 action p0 | 1/0/0/0 t0 …")."""
    players = data["config"]["players"]
    timeline = {0: tuple((0, 0, 0, 0) for _ in range(players))}
    turn = 1
    for step in data["steps"]:
        fields = step["after"].split(" | ")
        timeline[turn] = tuple(tuple(int(n) for n in f.split()[0].split("/")) for f in fields[1:1 + players])
        turn = int(fields[0].split()[1])
    return timeline


def digests(data: dict, kind: str) -> list[list[str]]:
    return [event.split() for step in data["steps"] for event in step["events"] if event.split()[0] == kind]


@pytest.mark.parametrize("name", NAMES)
def test_the_report_of_a_golden_game_tells_its_numbers(name: str) -> None:
    data = golden(name)
    report = Report.of(GameConfig.from_dict(data["config"]), [step["action"] for step in data["steps"]])
    frozen = frozen_timeline(data)
    assert dict(zip(report.turns, report.points, strict=True)) == frozen
    assert [(s.name, s.rank, list(s.key), list(s.spread), s.tie_break) for s in report.tally] == sorted(
        ((s["name"], s["rank"], s["key"], s["spread"], s["tie_break"]) for s in data["final"]["scores"]),
        key=lambda row: (row[1], row[0]))
    won = digests(data, "conflict_won")
    assert len(report.fights) == len(won)
    assert sum(f.kind is ConflictKind.REVOLT for f in report.fights) == len(digests(data, "revolt_started"))
    assert [int(d[3]) for d in won] == [max(f.attack_total, f.defence_total) for f in report.fights]
    names = data["config"]["names"]
    assert [names[int(d[1][1:])] for d in won] == [f.winner for f in report.fights]
    removed = digests(data, "pieces_removed")
    assert [len(d) - 3 for d in removed] == [f.removed for f in report.fights]
    assert len(report.monuments) == len(digests(data, "monument_built"))
    assert [d[-1] for d in digests(data, "treasure_taken")] == [t.square for t in report.treasures]
    assert report.actions == len(data["steps"])
    assert Game.from_json(report.record).state == report_state(data)


def report_state(data: dict) -> object:
    game = Game(GameConfig.from_dict(data["config"]))
    for step in data["steps"]:
        game.apply(step["action"])
    return game.state


def test_the_report_page_shows_the_tally_the_fights_and_the_chart() -> None:
    data = golden("four-alternate")  # two ties broken: ranks 1-2 on the second-weakest, 3-4 on the third
    report = Report.of(GameConfig.from_dict(data["config"]), [step["action"] for step in data["steps"]])
    page = html(report)
    assert "Player 3 is ahead of Player 4 on the second-weakest colour (11 to 6)." in page
    assert "Player 1 is ahead of Player 2 on the third-weakest colour (10 to 6)." in page
    assert page.count("<svg") == 1 and "red temples" not in page.split("<svg")[0].split("Points per colour")[0]
    assert f"{len(report.fights) - sum(f.kind is ConflictKind.REVOLT for f in report.fights)} wars" in page
    assert "data:application/json;base64," in page
    # Self-contained: nothing is fetched from anywhere (a namespace URI is no fetch).
    fetched = re.findall(r"""(?:src|href)=["'](?!data:|#)([^"']+)""", page)
    assert fetched == []


def test_companion_report_makes_the_same_report_from_a_journal_offline(tmp_path: Path) -> None:
    data = golden("two-alternate-table")
    game = Game(GameConfig.from_dict(data["config"]))
    with Journal.start(tmp_path, game) as record:
        for step in data["steps"]:
            record.apply(game, step["action"])
        path = record.path
    out = tmp_path / "report.html"
    run = subprocess.run([sys.executable, "-m", "companion", "report", str(path), "--out", str(out)], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    winner = next(s for s in data["final"]["scores"] if s["rank"] == 1)
    assert f"Winner: {winner['name']} with {winner['key'][0]}." in run.stdout
    page = out.read_text(encoding="utf-8")
    expected = Report.of(GameConfig.from_dict(data["config"]), [s["action"] for s in data["steps"]])
    assert html(expected, f"Tigris & Euphrates — {path.name}") == page


def test_companion_report_says_what_is_wrong_with_a_file_and_writes_nothing(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    for path, words in ((tmp_path / "absent.jsonl", "there is no such file"),
                        (broken, "The game record cannot be read")):
        run = subprocess.run([sys.executable, "-m", "companion", "report", str(path)], cwd=tmp_path,
                             capture_output=True, text=True, timeout=120, env=_env())
        assert run.returncode == 1 and words in run.stderr and "Traceback" not in run.stderr
    assert list(tmp_path.glob("*.html")) == []


def _env() -> dict[str, str]:
    import os

    return {**os.environ, "PYTHONPATH": str(ROOT)}
