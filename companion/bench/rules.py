"""`companion bench rules`: how fast the rules engine is, for 2, 3 and 4 players, and the rules' answer
the companion works out before each look of the camera (what may appear on each square)."""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time

from companion.rules import Game, GameState, PendingKind, random_playout
from companion.sight import candidates
from companion.tracker import expected_cells

# candidates: small next to a still frame's read (about 12 ms here), which it precedes.
TARGETS_MS = {"legal_actions": 1.0, "apply": 0.2, "playout": 300.0, "candidates": 2.0}


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def _summary(values_ns: list[int]) -> dict[str, float]:
    ms = [v / 1e6 for v in values_ns]
    return {"median_ms": statistics.median(ms), "p95_ms": _percentile(ms, 0.95), "samples": len(ms)}


def measure(players: int, games: int, seed: int) -> dict[str, object]:
    legal_ns: list[int] = []
    apply_ns: list[int] = []
    playout_ns: list[int] = []
    candidates_ns: list[int] = []
    clock = time.perf_counter_ns
    for g in range(games):
        start = clock()
        random_playout(players, seed + g, board="standard" if g % 2 == 0 else "alternate")
        playout_ns.append(clock() - start)
        # The same game again, timing each call; mid-game = from turn 10 until the end.
        game = Game.new(players, seed=seed + g, board="standard" if g % 2 == 0 else "alternate")
        rng = random.Random(seed + g)
        earlier: list[GameState] = []  # a takeback of the last two actions is possible at each look
        while not game.state.over:
            t0 = clock()
            actions = game.legal_actions()
            t1 = clock()
            game.apply(rng.choice(actions))
            t2 = clock()
            state = game.state
            if state.turn >= 10:
                legal_ns.append(t1 - t0)
                apply_ns.append(t2 - t1)
            if state.turn >= 10 and state.pending.kind is PendingKind.ACTION:
                shown = expected_cells(state)  # the tracker keeps this one
                t3 = clock()
                candidates(state, shown, earlier)
                candidates_ns.append(clock() - t3)
            earlier = [*earlier[-1:], state]
    total_s = sum(playout_ns) / 1e9
    return {
        "players": players,
        "games": games,
        "legal_actions": _summary(legal_ns),
        "apply": _summary(apply_ns),
        "playout": _summary(playout_ns),
        "candidates": _summary(candidates_ns),
        "games_per_second": games / total_s,
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="companion bench rules", description=__doc__)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--games", type=int, default=20, help="random games per player count (default 20)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    results = [measure(players, args.games, args.seed) for players in (2, 3, 4)]
    if args.json:
        print(json.dumps({"targets_ms": TARGETS_MS, "results": results}, indent=2))
        return 0
    print(f"rules engine, {args.games} random games per player count (targets: legal_actions ≤ "
          f"{TARGETS_MS['legal_actions']} ms, apply ≤ {TARGETS_MS['apply']} ms, 4-player game ≤ "
          f"{TARGETS_MS['playout']:.0f} ms, what may appear where ≤ {TARGETS_MS['candidates']} ms, medians)")
    print(f"{'players':>7} {'legal med':>10} {'legal p95':>10} {'apply med':>10} {'apply p95':>10} "
          f"{'game med':>10} {'game p95':>10} {'games/s':>8} {'sight med':>10} {'sight p95':>10}")
    for r in results:
        la, ap, po, ca = r["legal_actions"], r["apply"], r["playout"], r["candidates"]
        assert isinstance(la, dict) and isinstance(ap, dict) and isinstance(po, dict) and isinstance(ca, dict)
        print(f"{r['players']:>7} {la['median_ms']:>8.3f}ms {la['p95_ms']:>8.3f}ms {ap['median_ms']:>8.3f}ms "
              f"{ap['p95_ms']:>8.3f}ms {po['median_ms']:>8.1f}ms {po['p95_ms']:>8.1f}ms {r['games_per_second']:>8.1f} "
              f"{ca['median_ms']:>8.3f}ms {ca['p95_ms']:>8.3f}ms")
    return 0
