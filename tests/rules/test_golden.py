"""Golden playthroughs: complete games replayed action by action against what was frozen in golden/.

Each game is also checked, event by event, against a naive second reading of the rules (referee.py).
Regenerate deliberately with
`python3 tests/rules/golden_games.py --regen` (see golden_games.py).
"""

from __future__ import annotations

import pytest
import referee
from golden_games import GAMES, GOLDEN, digest, event_digest, load, scores
from rulecheck import check_invariants

from companion.rules import Game, GameConfig, state_summary

NAMES = sorted(path.stem for path in GOLDEN.glob("*.json"))


def test_every_golden_game_is_there() -> None:
    assert sorted(GAMES) == NAMES
    configs = [load(name)["config"] for name in NAMES]
    assert {c["players"] for c in configs} == {2, 3, 4}
    assert {c["board"] for c in configs} == {"standard", "alternate"}
    assert any(c["hidden_hands"] for c in configs) and any(c["english_support"] for c in configs)
    assert sum((GOLDEN / f"{name}.json").stat().st_size for name in NAMES) < 2_000_000


@pytest.mark.parametrize("name", NAMES)
def test_a_golden_game_replays_exactly(name: str) -> None:
    data = load(name)
    game = Game(GameConfig.from_dict(data["config"]))
    for number, step in enumerate(data["steps"], start=1):
        before = game.state
        events = game.apply(step["action"])
        where = f"{name}, action {number}: {step['action']}"
        assert [event_digest(e) for e in events] == step["events"], where
        assert digest(game.state) == step["after"], where
        if str(number) in data["snapshots"]:
            assert state_summary(game.state) == data["snapshots"][str(number)], where
        if not game.state.hidden_hands:
            check_invariants(game.state, before)
    assert game.state.over
    assert state_summary(game.state) == data["final"]["summary"]
    assert scores(game.state) == data["final"]["scores"]


@pytest.mark.parametrize("name", NAMES)
def test_a_golden_game_agrees_with_the_referee(name: str) -> None:
    data = load(name)
    counted = referee.check_game(GameConfig.from_dict(data["config"]), [step["action"] for step in data["steps"]])
    assert counted["tiles"] and counted["conflicts"] and counted["war removals"] and counted["ends of turn"], counted
