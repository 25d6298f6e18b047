"""`companion bench game [--split developed|unseen|both] [--games N] [--json]`: whole games through
camera, vision, tracker and rules.

Each game is played by simulated players (companion.sim.table) and filmed by the synthetic camera
at the Pi HQ camera's still size, with hands over the board; the observer reads it and the
controller follows, exactly as in `companion demo`. Two splits:

- developed: the classic and modern pieces the reader was developed on, the camera straight over
  the board, a lamp that now and then changes;
- unseen: for each game a printing nobody tuned on (`vision.sim.unseen`, its seed the game's),
  a camera hung anywhere, calibrated as a new user would (that printing's set-up picture and its
  "show me your pieces" picture, under the evening's light), the light drifting from look to look,
  a lamp switched on and off. Never tune a constant on this split.

Printed per split: the moves made on the board the companion recognised without help, those that
needed the players (by what it asked; "order": only which of two moves made before the camera got
a look came first, asked of a board read right, a question of the game and not of the camera), the
same games seen by a camera that never errs, the times its game differed from the truth without
telling the players, still boards refused with no hand in view, games that stalled (every look at
the board refused), and the time from a still board to the updated screen.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import statistics
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.app.controller import Controller
from companion.rules import Game, final_scores
from companion.sim.demo import DemoError, Screens, Stats, play, same_tally
from companion.sim.eyes import CameraEyes
from companion.sim.table import PerfectEyes, Table
from vision.sim import unseen

TARGET_UNAIDED = 99.5  # % of the moves on the board (developed split; the issue asks ≥ 99 % unseen)
TARGET_SCREEN_MS = 150.0
SPLITS = ("developed", "unseen")
STYLES = ("classic", "modern")


def eyes_for(split: str, style: str, seed: int, size: tuple[int, int], board: str) -> tuple[CameraEyes, str]:
    """The camera at the table of this game, and what it films in words."""
    if split == "developed":
        return CameraEyes(seed, size=size, board=board, style=style), f"{style} pieces"
    printing, pose, light = unseen.game_table(seed, size)
    eyes = CameraEyes(seed, size=size, board=board, style=printing, pose=pose, conditions=light, drift=unseen.drift)
    return eyes, printing.describe()


@dataclass
class Split:
    """The games of one split, added up."""

    stats: Stats = field(default_factory=Stats)
    games: list[dict[str, Any]] = field(default_factory=list)
    finished: int = 0
    tallies_equal: int = 0
    still_boards: int = 0
    refused: Counter[str] = field(default_factory=Counter)
    frames: int = 0
    seconds: float = 0.0
    perfect: Stats = field(default_factory=Stats)  # the same games seen by a camera that never errs

    def add(self, stats: Stats, eyes: CameraEyes) -> None:
        total = self.stats
        for name in ("seen", "unaided", "corrected", "order_only", "stalled", "silent"):
            setattr(total, name, getattr(total, name) + getattr(stats, name))
        for name in ("helped_by", "prompts", "unreadable", "misread"):
            getattr(total, name).update(getattr(stats, name))
        total.to_screen_ms += stats.to_screen_ms
        total.after_read_ms += stats.after_read_ms
        self.still_boards += eyes.still_boards
        self.refused.update(eyes.refused)
        self.frames += eyes.frames

    def summary(self) -> dict[str, Any]:
        s = self.stats
        times = sorted(s.to_screen_ms)
        refused = sum(self.refused.values())
        return {
            "games": len(self.games),
            "games_finished": self.finished,
            "games_stalled": s.stalled,
            "tallies_equal_to_engine": self.tallies_equal,
            "moves_on_board": s.seen,
            "recognised_without_help": s.unaided,
            "recognised_without_help_pct": round(100 * s.unaided / max(1, s.seen), 2),
            "needed_help": s.corrected,
            "needed_help_by_reason": dict(s.helped_by.most_common()),
            "perfect_camera_without_help": self.perfect.unaided,
            "perfect_camera_without_help_pct": round(100 * self.perfect.unaided / max(1, self.perfect.seen), 2),
            "needed_only_the_order": s.order_only,
            "recognised_without_help_or_asked_only_the_order_pct": round(
                100 * (s.unaided + s.order_only) / max(1, s.seen), 2),
            "silent_disagreements": s.silent,
            "prompts": dict(s.prompts.most_common()),
            "still_boards_without_hand": self.still_boards,
            "refused_without_hand": refused,
            "refused_without_hand_pct": round(100 * refused / max(1, self.still_boards), 2),
            "refused_without_hand_by_reason": dict(self.refused.most_common()),
            "still_board_to_screen_ms_median": round(statistics.median(times), 1) if times else None,
            "still_board_to_screen_ms_p95": round(times[int(0.95 * (len(times) - 1))], 1) if times else None,
            "tracker_view_draw_ms_median": round(statistics.median(s.after_read_ms), 1) if s.after_read_ms else None,
            "readings_unreadable_squares_by_truth": dict(s.unreadable.most_common()),
            "readings_confident_misreads": dict(s.misread.most_common()),
            "camera_frames": self.frames,
            "seconds": round(self.seconds, 1),
            "by_game": self.games,
        }


def run(split: str, styles: Sequence[str], games: int, players: int, seed: int, size: tuple[int, int],
        board: str = "standard") -> dict[str, Any]:
    """Plays `games` games per style (developed) or `games` games at printings of their own (unseen)."""
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    screens_ = Screens(draw=True)
    result = Split()
    start = time.perf_counter()
    for style in styles if split == "developed" else ("unseen",):
        for game_seed in range(seed, seed + games):
            eyes, looks = eyes_for(split, style, game_seed, size, board)
            table = Table.new(players, game_seed, board)
            controller = Controller(Game.new(players, board=board, hidden_hands=True))
            stats = Stats()
            outcome = "played to the end"
            try:
                play(table, controller, eyes, screens_, stats)
                result.finished += 1
                result.tallies_equal += same_tally(final_scores(table.truth.state), final_scores(controller.state))
            except DemoError as error:
                outcome = str(error)
            result.add(stats, eyes)
            seen, unaided = _perfect(players, game_seed, board)
            result.perfect.seen += seen
            result.perfect.unaided += unaided
            result.games.append({"seed": game_seed, "looks": looks, "moves_on_board": stats.seen,
                                 "recognised_without_help": stats.unaided, "outcome": outcome,
                                 "perfect_camera": f"{unaided}/{seen}"})
    result.seconds = time.perf_counter() - start
    return {"split": split, "players": players, "frame_size": list(size), "board": board, **result.summary()}


@functools.cache
def _perfect(players: int, seed: int, board: str) -> tuple[int, int]:
    """The same game seen by a camera that never errs (moves on the board, and those recognised
    without help): what only the players can answer. Played once a seed: the developed split's
    piece styles play the same game, which such a camera sees alike."""
    stats = Stats()
    with contextlib.suppress(DemoError):  # lost track: the moves until then count, as the camera's do
        play(Table.new(players, seed, board), Controller(Game.new(players, board=board, hidden_hands=True)),
             PerfectEyes(), Screens(), stats)
    return stats.seen, stats.unaided


def _print(result: dict[str, Any]) -> None:
    seen = result["moves_on_board"]
    target = f", target ≥ {TARGET_UNAIDED} %" if result["split"] == "developed" else ", target ≥ 99 %"
    print(f"== {result['split']} split: {result['games_finished']}/{result['games']} games of {result['players']} "
          f"players played to the end ({result['tallies_equal_to_engine']} tallies equal to the engine's), "
          f"{result['games_stalled']} stalled; {result['board']} board, camera "
          f"{result['frame_size'][0]}x{result['frame_size'][1]}, {result['camera_frames']} frames, "
          f"{result['seconds']} s")
    print(f"moves made on the board:             {seen}")
    print(f"recognised without help:             {result['recognised_without_help']} "
          f"({result['recognised_without_help_pct']} %{target})")
    print(f"needed a correction or a choice:     {result['needed_help']}   by what was asked: "
          f"{result['needed_help_by_reason'] or 'nothing'}")
    print(f"  a camera that never errs, the same games: {result['perfect_camera_without_help']} "
          f"({result['perfect_camera_without_help_pct']} %): the rest it asks is the game's own question")
    print(f"  of which only \"which order?\", the board read right (the game's question, not the camera's): "
          f"{result['needed_only_the_order']}; recognised without help but for those: "
          f"{result['recognised_without_help_or_asked_only_the_order_pct']} %")
    print(f"silent disagreements with the truth: {result['silent_disagreements']} (target 0)")
    print(f"still boards with no hand in view:   {result['still_boards_without_hand']}, refused "
          f"{result['refused_without_hand']} ({result['refused_without_hand_pct']} %, target ≤ 1 %) "
          f"{result['refused_without_hand_by_reason'] or ''}".rstrip())
    print(f"still board → updated screen:        median {result['still_board_to_screen_ms_median']} ms, "
          f"p95 {result['still_board_to_screen_ms_p95']} ms (target ≤ {TARGET_SCREEN_MS:.0f} ms median); "
          f"tracker + view-model + drawing alone: median {result['tracker_view_draw_ms_median']} ms")
    print(f"camera, unreadable squares by what they showed: {result['readings_unreadable_squares_by_truth']}")
    print(f"camera, squares read wrong with confidence: {result['readings_confident_misreads']}")
    for game in result["by_game"]:
        print(f"  seed {game['seed']}, {game['looks']}: {game['recognised_without_help']}/{game['moves_on_board']} "
              f"without help (a camera that never errs: {game['perfect_camera']}); {game['outcome']}")


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="companion bench game", description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="both", choices=(*SPLITS, "both"),
                        help="developed (the classic and modern pieces), unseen (printings nobody tuned on), or both")
    parser.add_argument("--games", type=int, default=2, help="games per piece style (developed) and per split (unseen)")
    parser.add_argument("--players", type=int, default=3, choices=(2, 3, 4))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--size", default="2028x1520", help="camera still size, WIDTHxHEIGHT")
    parser.add_argument("--board", default="standard", choices=("standard", "alternate"))
    parser.add_argument("--style", default="both", choices=(*STYLES, "both"),
                        help="the developed split's pieces: classic, modern or both")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(list(argv))
    width, height = (int(v) for v in args.size.lower().split("x"))
    styles = STYLES if args.style == "both" else (args.style,)
    results = {}
    for split in SPLITS if args.split == "both" else (args.split,):
        results[split] = run(split, styles, args.games, args.players, args.seed, (width, height), args.board)
        if not args.json:
            _print(results[split])
    if args.json:
        print(json.dumps(results, indent=1))
    return 0
