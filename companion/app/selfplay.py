"""`companion selfplay`: a game played by the simple policy, printed move by move, with the final tally."""

from __future__ import annotations

import argparse
import random

from companion.rules import COLOURS, Game, final_scores, policy_action


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="companion selfplay", description=__doc__)
    parser.add_argument("--players", type=int, default=3, choices=(2, 3, 4))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--board", default="standard", choices=("standard", "alternate"))
    parser.add_argument("--quiet", action="store_true", help="print only the tally")
    args = parser.parse_args(argv)
    game = Game.new(args.players, board=args.board, seed=args.seed)
    rng = random.Random(args.seed)
    while not game.state.over:
        seat = game.pending.player
        action = policy_action(game, rng)
        events = game.apply(action)
        if not args.quiet:
            print(f"turn {game.state.turn:>3}  {game.state.players[seat].name}: {action}")
            for event in events:
                print(f"           {event}")
    print(f"\n{game.state.game_over}.  Final tally:")
    header = "  ".join(f"{c.value:>5}" for c in COLOURS)
    print(f"  {'rank':<4} {'player':<10} {header}  treasures  spread       weakest")
    for score in sorted(final_scores(game.state), key=lambda s: s.rank):
        points = "  ".join(f"{p:>5}" for p in score.points)
        spread = "+".join(str(s) for s in score.spread)
        print(f"  {score.rank:<4} {score.name:<10} {points}  {score.treasures:>9}  {spread:<11}  {score.score:>7}"
              + (f"   ({score.tie_break})" if score.tie_break else ""))
    return 0
