"""`companion bench follow [--json] [--games N]`: the camera following whole games, move by move.

Each game is a random playout of the rules engine, filmed by the synthetic camera as the players
make it: pieces stay where hands put them, the light drifts and a lamp is switched or turned
warmer now and then, a glare spot stays where the lamp throws it, the board is bumped once in a
while, and every few moves a hand is held perfectly still over the board. After every move the
same picture is read two ways:

- *following*: compared with the picture last agreed on (the game says what it shows, as the
  controller does after each move), only the changed squares read, among what the rules allow
  there (`Observer.candidates`, worked out here from the engine's legal actions);
- *whole*: the absolute read of every square, as before any agreement (`companion read`).

Printed for both: squares wrong (unsure counted), silently wrong, boards read with no error,
boards refused with no hand in view, hands read, read time; and for following, the squares that
changed which it missed. The machine's speed is given by a full-frame warp timed in the same run.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import json
import random
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np

from companion import rules
from companion.app.bench_vision import _calibrated, truth_of
from companion.tracker import TILE_CLASS
from vision import geometry, rectify
from vision.observer import Observer
from vision.reading import CELLS, BoardReading, CellClass, CellReading
from vision.sim import synthetic
from vision.sim.synthetic import Scene

_TILES = frozenset(TILE_CLASS.values())


def allowed(game: rules.Game, board: str = "standard") -> tuple[frozenset[CellClass], ...]:
    """What may stand on each square after the next action: what stands there now, and what any
    legal action would put there, a tile of any colour the river or the land takes wherever one
    may be put (the players' hands are hidden at a real table)."""
    sets = [{truth.cls} for truth in truth_of(game.state, board).cells]
    for action in game.legal_actions():
        game.apply(action)
        for cell, truth in enumerate(truth_of(game.state, board).cells):
            sets[cell].add(truth.cls)
        game.undo()
    rivers = geometry.river_cells(board)
    for cell, classes in enumerate(sets):
        if classes & _TILES:
            classes |= {CellClass.TILE_BLUE} if cell in rivers else _TILES - {CellClass.TILE_BLUE}
    return tuple(frozenset(classes) for classes in sets)


@dataclass
class Tally:
    reads: int = 0
    refused: Counter[str] = field(default_factory=Counter)
    cells: int = 0
    wrong: int = 0
    silent: int = 0
    perfect: int = 0
    changed: int = 0  # squares whose truth changed since the last agreement
    missed: int = 0  # ... not listed as changed
    confusion: Counter[tuple[str, str]] = field(default_factory=Counter)
    read_ms: list[float] = field(default_factory=list)
    hands: int = 0
    hands_read: int = 0
    silent_under_hand: int = 0

    def add(self, truth: Scene, reading: BoardReading, before: Scene | None) -> None:
        self.reads += 1
        if not reading.ok:
            self.refused[reading.message.split(":")[0]] += 1
            return
        errors = 0
        for real, seen in zip(truth.cells, reading.cells, strict=True):
            self.cells += 1
            if seen.cls is not real.cls:
                errors += 1
                self.silent += seen.cls is not CellClass.UNKNOWN
                self.confusion[(real.cls.value, seen.cls.value)] += 1
        self.wrong += errors
        self.perfect += errors == 0
        if before is not None and reading.changed is not None:
            moved = {c for c in range(CELLS) if before.cells[c].cls is not truth.cells[c].cls}
            self.changed += len(moved)
            self.missed += len(moved - set(reading.changed))

    def summary(self) -> dict[str, Any]:
        read = self.reads - sum(self.refused.values())
        return {
            "boards": self.reads,
            "boards_refused_no_hand": dict(self.refused),
            "cell_error_rate": self.wrong / max(1, self.cells),
            "silent_cell_error_rate": self.silent / max(1, self.cells),
            "wrong_cells": self.wrong,
            "silent_cells": self.silent,
            "boards_without_error": self.perfect / max(1, read),
            "changed_squares": self.changed,
            "changed_squares_missed": self.missed,
            "hands_held_still": self.hands,
            "hands_read": self.hands_read,
            "silent_under_hands": self.silent_under_hand,
            "read_ms_median": statistics.median(self.read_ms) if self.read_ms else None,
            "confusion": {f"{a} -> {b}": n for (a, b), n in self.confusion.most_common()},
        }


def _shown(scene: Scene) -> list[CellReading]:
    return [CellReading(t.cls, 1.0, t.dynasty, t.monument) for t in scene.cells]


def _timed(observer: Observer, frame: np.ndarray, tally: Tally) -> BoardReading:
    start = time.perf_counter()
    reading = observer.read(frame)
    tally.read_ms.append((time.perf_counter() - start) * 1000)
    return reading


def play(seed: int, style: str, size: tuple[int, int], moves: int, hands_every: int,
         follow: Tally, whole: Tally, warp_ms: list[float]) -> None:
    """One game, filmed and read both ways."""
    rng = np.random.default_rng(seed)
    pose = synthetic.random_pose(rng, size)
    calibration = _calibrated(style, size, pose, int(rng.integers(1 << 30)))
    following, reading_whole = Observer(calibration, still_frames=1), Observer(calibration, still_frames=1)
    conditions = replace(synthetic.random_conditions(rng, bump=False), placement=seed)
    game = rules.Game.new(int(rng.integers(2, 5)), seed=seed)
    chooser = random.Random(seed)
    truth = truth_of(game.state)
    frame = synthetic.render(truth, style=style, size=size, pose=pose, conditions=conditions, seed=0).frame
    if not following.read(frame).ok:
        return  # the set-up check failed: at the table the players would be asked to clear the board
    following.agree(_shown(truth))
    for step in range(1, moves + 1):
        if game.state.over:
            break
        following.candidates = allowed(game)
        game.apply(chooser.choice(game.legal_actions()))
        now = truth_of(game.state)
        if now.cells == truth.cells:
            continue  # a decision on the buttons: nothing to see
        if rng.random() < 0.15:  # a lamp switched on, turned warmer or cooler; the exposure drifts
            conditions = replace(conditions, lamp=float(rng.uniform(-0.7, 0.7)),
                                 exposure=float(np.clip(conditions.exposure * rng.uniform(0.85, 1.15), 0.6, 1.4)))
        if rng.random() < 0.05:  # the board bumped
            conditions = replace(conditions, board_shift_mm=(float(rng.uniform(-12, 12)), float(rng.uniform(-12, 12))),
                                 board_rotation_deg=float(rng.uniform(-2, 2)))
        monuments = frozenset(c for c, t in enumerate(now.cells) if t.cls is CellClass.MONUMENT)
        for observer in (following, reading_whole):
            observer.tall = observer.face_down = monuments
        if hands_every and step % hands_every == 0:  # a hand held still over the board first
            hand = replace(conditions, hands=(synthetic.random_hand(rng),))
            shot = synthetic.render(now, style=style, size=size, pose=pose, conditions=hand, seed=step + 5000)
            grid = following.calibration.homography if following.calibration else calibration.homography
            mask = rectify.rectify(shot.hand_mask.astype(np.uint8) * 255, grid)
            covered = rectify.cells(mask[..., None]).reshape(CELLS, -1).mean(axis=1) > 25
            if covered.any():  # over a tenth of a square at least, not only beside the board
                for observer, tally in ((following, follow), (reading_whole, whole)):
                    tally.hands += 1
                    read = observer.read(shot.frame)
                    tally.hands_read += read.ok
                    if read.ok:
                        under = np.flatnonzero(covered)
                        tally.silent_under_hand += sum(read.cells[c].cls not in (now.cells[c].cls, CellClass.UNKNOWN)
                                                       for c in under)
        frame = synthetic.render(now, style=style, size=size, pose=pose, conditions=conditions, seed=step).frame
        seen = _timed(following, frame, follow)
        follow.add(now, seen, truth)
        whole.add(now, _timed(reading_whole, frame, whole), None)
        start = time.perf_counter()
        cv2.warpPerspective(frame, np.eye(3), size)
        warp_ms.append((time.perf_counter() - start) * 1000)
        if seen.ok:
            following.agree(_shown(now))  # the controller agrees once the game explained the move
        truth = now


def run(games: int, seed: int, size: tuple[int, int], moves: int, hands_every: int,
        progress: bool = False) -> dict[str, Any]:
    follow, whole = Tally(), Tally()
    warp_ms: list[float] = []
    for game in range(games):
        play(seed + game, ("classic", "modern")[game % 2], size, moves, hands_every, follow, whole, warp_ms)
        if progress:
            print(".", end="", file=sys.stderr, flush=True)
    if progress:
        print(file=sys.stderr)
    return {
        "games": games,
        "seed": seed,
        "frame_size": list(size),
        "following": follow.summary(),
        "whole": whole.summary(),
        "full_frame_warp_ms_median": statistics.median(warp_ms) if warp_ms else None,
    }


def _print(result: dict[str, Any]) -> None:
    print(f"{result['games']} games from seed {result['seed']}, camera {result['frame_size'][0]}x"
          f"{result['frame_size'][1]}; a full-frame warp took {result['full_frame_warp_ms_median']:.1f} ms")
    print(f"{'':34}{'following':>14}{'whole':>14}")
    f, w = result["following"], result["whole"]
    rows = [
        ("boards", "boards", "{}"),
        ("refused with no hand in view", "boards_refused_no_hand", "{}"),
        ("squares wrong (unsure counted) %", "cell_error_rate", "{:.4f}"),
        ("squares silently wrong %", "silent_cell_error_rate", "{:.4f}"),
        ("boards read with no error %", "boards_without_error", "{:.2f}"),
        ("hands held still / read / misread", "hands_held_still", "{}"),
        ("read time, median ms", "read_ms_median", "{:.1f}"),
    ]
    for label, key, form in rows:
        a, b = f[key], w[key]
        if key == "boards_refused_no_hand":
            a, b = sum(a.values()), sum(b.values())
        elif key.endswith("rate") or key == "boards_without_error":
            a, b = 100 * a, 100 * b
        elif key == "hands_held_still":
            a, b = (f"{t['hands_held_still']}/{t['hands_read']}/{t['silent_under_hands']}" for t in (f, w))
        print(f"{label:34}{form.format(a):>14}{form.format(b):>14}")
    print(f"changed squares missed by following: {f['changed_squares_missed']} of {f['changed_squares']}")
    for name, tally in (("following", f), ("whole", w)):
        if tally["boards_refused_no_hand"]:
            print(f"{name}, refused: {tally['boards_refused_no_hand']}")
        if tally["confusion"]:
            print(f"{name}, confusions: {tally['confusion']}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="companion bench follow", description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--moves", type=int, default=60, help="actions played per game (default 60)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--size", default="2028x1520", help="camera still size, WIDTHxHEIGHT")
    parser.add_argument("--hands-every", type=int, default=5, help="a hand held still every N moves (0: none)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    width, height = (int(v) for v in args.size.lower().split("x"))
    cv2.setNumThreads(1)
    result = run(args.games, args.seed, (width, height), args.moves, args.hands_every, progress=not args.json)
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        _print(result)
    return 0
