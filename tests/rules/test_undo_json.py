"""Undo goes back to the exact earlier snapshot; a game record (JSON) and replay rebuild the same game."""

from __future__ import annotations

import json
import random

import pytest

from companion.rules import (
    CompanionError,
    Game,
    GameConfig,
    IllegalAction,
    NothingToUndo,
    PendingKind,
    replay,
    state_summary,
)


def played(actions: int, seed: int = 5, players: int = 3, **options: object) -> Game:
    game = Game.new(players, seed=seed, **options)  # type: ignore[arg-type]
    rng = random.Random(seed)
    for _ in range(actions):
        if game.state.over:
            break
        game.apply(rng.choice(game.legal_actions()))
    return game


def test_undo_goes_back_one_action_to_the_very_same_snapshot() -> None:
    game = played(0)
    states = [game.state]
    applied = []
    rng = random.Random(1)
    for _ in range(60):
        action = rng.choice(game.legal_actions())
        game.apply(action)
        applied.append(action)
        states.append(game.state)
    for k in range(60, 0, -1):
        assert game.undo() == applied[k - 1]
        assert game.state is states[k - 1]
        assert game.actions == tuple(applied[: k - 1])
    with pytest.raises(NothingToUndo, match="nothing to take back") as info:
        game.undo()
    assert isinstance(info.value, CompanionError) and isinstance(info.value, IndexError)


def test_before_shows_where_undo_would_lead_without_undoing() -> None:
    game = played(5)
    wanted = [game.before(k) for k in range(6)]
    assert wanted[0] is game.state and len(game.actions) == 5
    for k in range(1, 6):
        game.undo()
        assert game.state is wanted[k]
    with pytest.raises(NothingToUndo):
        game.before(1)


def test_undo_then_a_different_action_forgets_the_undone_one() -> None:
    game = played(10)
    taken_back = game.undo()
    other = next(a for a in game.legal_actions() if a != taken_back)
    game.apply(other)
    assert game.actions[-1] == other and len(game.actions) == 10
    assert replay(game.config, game.actions).state == game.state


def test_undo_inside_a_conflict_and_after_the_turn_ended() -> None:
    game = played(0, seed=11, players=2)
    rng = random.Random(11)
    seen: set[str] = set()
    while not game.state.over and len(seen) < 2:
        before = game.state
        action = rng.choice(game.legal_actions())
        game.apply(action)
        if game.pending.kind is PendingKind.SUPPORT or game.state.turn != before.turn:
            seen.add("conflict" if game.pending.kind is PendingKind.SUPPORT else "turn")
            after = game.state
            assert game.undo() == action and game.state is before
            game.apply(action)  # the same action again gives an equal state
            assert game.state == after
    assert seen == {"conflict", "turn"}


@pytest.mark.parametrize("options", [{}, {"board": "alternate"}, {"hidden_hands": True}, {"english_support": True}])
def test_a_game_record_rebuilds_the_same_game(options: dict[str, object]) -> None:
    game = played(120, **options)
    record = game.to_json()
    data = json.loads(record)
    assert data["format"] == "te-companion/1"
    assert set(data) == {"format", "config", "actions", "state"}
    assert data["actions"] == [str(a) for a in game.actions]
    assert data["config"]["players"] == 3 and data["state"] == state_summary(game.state)
    again = Game.from_json(record)
    assert again.state == game.state and again.actions == game.actions and again.config == game.config
    assert replay(game.config, [str(a) for a in game.actions]).state == game.state


def test_a_finished_game_and_a_game_in_mid_conflict_round_trip() -> None:
    game = played(5000, seed=3, players=2)
    assert game.state.over
    assert Game.from_json(game.to_json()).state == game.state
    game = played(0, seed=3, players=2)
    rng = random.Random(3)
    while game.pending.kind is not PendingKind.SUPPORT:
        game.apply(rng.choice(game.legal_actions()))
    again = Game.from_json(game.to_json())
    assert again.pending == game.pending and again.state == game.state


def test_a_record_whose_actions_do_not_lead_to_its_state_is_refused() -> None:
    game = played(30)
    data = json.loads(game.to_json())
    data["state"]["players"][0]["points"]["red"] += 1
    with pytest.raises(CompanionError, match="do not lead to the state"):
        Game.from_json(json.dumps(data))


@pytest.mark.parametrize("mangle", [
    lambda d: "not json at all",
    lambda d: json.dumps({**d, "format": "chess/1"}),
    lambda d: json.dumps({**d, "actions": ["tile red Z99"]}),
    lambda d: json.dumps({k: v for k, v in d.items() if k != "config"}),
    lambda d: json.dumps({**d, "config": {"board": "standard"}}),
])
def test_an_unreadable_record_is_refused_in_words(mangle: object) -> None:
    data = json.loads(played(10).to_json())
    with pytest.raises(CompanionError, match="cannot be read"):
        Game.from_json(mangle(data))  # type: ignore[operator]


def test_a_record_with_an_illegal_action_is_refused() -> None:
    data = json.loads(played(10).to_json())
    data["actions"].append("support 3")  # not a support decision now
    del data["state"]
    with pytest.raises(IllegalAction):
        Game.from_json(json.dumps(data))


def test_replay_needs_only_the_configuration_and_the_actions() -> None:
    game = played(80, seed=9, players=4)
    config = GameConfig.from_dict(json.loads(json.dumps(game.config.to_dict())))
    assert config == game.config
    assert replay(config, game.actions).state == game.state
    assert game.config.seed == 9 and game.config.names == ("Player 1", "Player 2", "Player 3", "Player 4")


def test_a_game_without_a_seed_gets_one_so_that_it_replays() -> None:
    game = Game.new(2)
    assert game.config.seed is not None
    game.apply(game.legal_actions()[0])
    assert replay(game.config, game.actions).state == game.state
