"""Pull the plug 50 times: every restart resumes exactly the state of the last journaled line."""

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from companion.app import journal
from companion.rules import Action, Game, GameConfig

REPO = Path(__file__).parents[2]
PLAYER = Path(__file__).with_name("journal_player.py")
KILLS = 50


def replay_whole_lines(path: Path) -> tuple[Game, int]:
    """The game the record's fully written lines describe, rebuilt here without the journal module."""
    header, *moves = [json.loads(line) for line in path.read_text().splitlines(keepends=True)
                      if line.endswith("\n")]
    game = Game(GameConfig.from_dict(header["config"]))
    for move in moves:
        if move.get("undo"):
            game.undo()
        else:
            game.apply(Action.parse(move["action"]))
    return game, len(moves)


def test_sigkill_at_random_moments(tmp_path):
    rng = random.Random(2026)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    acknowledged_total = 0
    for kill in range(KILLS):
        player = subprocess.Popen([sys.executable, str(PLAYER), str(tmp_path), str(kill)],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=REPO)
        first = ""
        if kill % 5:
            # Mostly mid-game: once the game is resumed or started, at a random moment of play.
            assert player.stdout is not None
            first = player.stdout.readline()
            time.sleep(rng.uniform(0.0, 0.25))
        else:
            # Now and then while it is starting up, resuming or cutting a record.
            time.sleep(rng.uniform(0.0, 0.4))
        player.send_signal(signal.SIGKILL)
        out, err = player.communicate(timeout=30)
        assert player.returncode == -signal.SIGKILL, err
        acknowledged = (first + out).splitlines()
        records = sorted(tmp_path.glob("game-*.jsonl"))
        if not records:
            assert not acknowledged, "a journaled line was acknowledged but no record exists"
            continue
        newest = records[-1]
        expected, lines = replay_whole_lines(newest)
        resumed = journal.resume(newest)
        resumed.journal.close()
        assert resumed.game.to_json() == expected.to_json(), f"kill {kill}: {newest.name}"
        assert resumed.journal.seq == lines
        if acknowledged:
            name, seq = acknowledged[-1].split()
            # Nothing acknowledged is lost: the record holds it, or a newer game replaced it.
            assert name != newest.name or int(seq) <= lines, f"kill {kill}: line {seq} was lost"
            acknowledged_total += len(acknowledged)
    # Most kills fell while a game was being played (no timing assumption: each of those runs had
    # acknowledged at least its start line before the plug was pulled).
    assert acknowledged_total >= KILLS - KILLS // 5
