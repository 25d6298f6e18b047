"""Golden playthroughs: complete games frozen as action lists with what must follow from each action.

Each file in golden/ holds a game's configuration, its actions, and for every action a digest (whose turn,
the pending decision, every player's points, treasures and hand size, the bag, the board's counts) and the
events it caused (kind, player, colour, amount, squares — not the wording); a full state summary every
SNAPSHOT_EVERY actions; and the final summary with the final scores.

The games were played once by the simple policy player (companion.rules.policy) and checked by hand
against RULES.md before being frozen. To regenerate them deliberately, after a rules change that is meant
to change them:

    python3 tests/rules/golden_games.py --regen
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent.parent))

from companion.rules import (  # noqa: E402
    COLOURS,
    Event,
    Game,
    GameConfig,
    GameState,
    cell_name,
    final_scores,
    policy_action,
    state_summary,
)

GOLDEN = HERE / "golden"
SNAPSHOT_EVERY = 25

# name: (players, board, seed, table mode, English support)
GAMES: dict[str, tuple[int, str, int, bool, bool]] = {
    "two-standard": (2, "standard", 101, False, False),
    "three-standard": (3, "standard", 202, False, False),
    "four-alternate": (4, "alternate", 303, False, False),
    "four-standard-english": (4, "standard", 404, False, True),
    "three-alternate": (3, "alternate", 505, False, False),
    "two-alternate-table": (2, "alternate", 606, True, False),
}


def digest(state: GameState) -> str:
    """The fields that matter after each action, on one line."""
    pending = state.pending
    players = " | ".join(
        f"{'/'.join(str(p) for p in player.points)} t{player.treasures} h{player.hand_size} c{player.catastrophes}"
        for player in state.players
    )
    board = "/".join(str(state.on_board(colour)) for colour in COLOURS)
    return (f"turn {state.turn} {pending.kind.name.lower()} p{pending.player} | {players} | "
            f"board {board} treasures {state.treasures.bit_count()} bag {state.bag_count}")


def event_digest(event: Event) -> str:
    parts = [event.kind.name.lower()]
    if event.player is not None:
        parts.append(f"p{event.player}")
    if event.colour is not None:
        parts.append(event.colour.value)
    if event.amount:
        parts.append(str(event.amount))
    parts.extend(cell_name(c) for c in event.cells)
    return " ".join(parts)


def scores(state: GameState) -> list[dict[str, Any]]:
    return [{"name": s.name, "spread": list(s.spread), "key": list(s.key), "rank": s.rank, "tie_break": s.tie_break}
            for s in final_scores(state)]


def record(game: Game, steps: list[tuple[str, list[str], str]]) -> dict[str, Any]:
    return {
        "config": game.config.to_dict(),
        "steps": [{"action": action, "events": events, "after": after} for action, events, after in steps],
        "snapshots": {},
        "final": {"summary": state_summary(game.state), "scores": scores(game.state)},
    }


def play(name: str) -> dict[str, Any]:
    players, board, seed, table, english = GAMES[name]
    game = Game(GameConfig(players=players, board=board, seed=seed, hidden_hands=table,
                           english_support=english))
    rng = random.Random(seed)
    steps = []
    snapshots = {}
    while not game.state.over:
        action = policy_action(game, rng)
        events = game.apply(action)
        steps.append((str(action), [event_digest(e) for e in events], digest(game.state)))
        if len(steps) % SNAPSHOT_EVERY == 0:
            snapshots[str(len(steps))] = state_summary(game.state)
    data = record(game, steps)
    data["snapshots"] = snapshots
    return data


def write(name: str, data: dict[str, Any]) -> Path:
    """One step per line, so that a change shows as a readable diff."""
    path = GOLDEN / f"{name}.json"
    lines = ["{", f' "config": {json.dumps(data["config"])},', ' "steps": [']
    steps = [json.dumps(step) for step in data["steps"]]
    lines.extend(f"  {step}," for step in steps[:-1])
    lines.append(f"  {steps[-1]}")
    lines.append(" ],")
    lines.append(f' "snapshots": {json.dumps(data["snapshots"])},')
    lines.append(f' "final": {json.dumps(data["final"])}')
    lines.append("}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))
    return data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--regen", action="store_true", help="play the games again and overwrite golden/")
    parser.add_argument("games", nargs="*", default=list(GAMES), help="which games (default: all)")
    args = parser.parse_args(argv)
    if not args.regen:
        parser.print_help()
        return 2
    GOLDEN.mkdir(exist_ok=True)
    for name in args.games:
        data = play(name)
        path = write(name, data)
        print(f"{path.name}: {len(data['steps'])} actions, {path.stat().st_size // 1024} KB, "
              f"{data['final']['summary']['game_over']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
