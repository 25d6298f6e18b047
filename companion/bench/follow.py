"""`companion bench follow [--split developed|unseen|both] [--json] [--games N]`: the camera
following whole games, move by move.

Each game is a random playout of the rules engine, filmed by the synthetic camera as the players
make it: pieces stay where hands put them, the light drifts and a lamp is switched on, off or
turned warmer now and then, a glare spot stays where the lamp throws it, the board is bumped once
in a while, and every few moves a hand is held perfectly still over the board. Two splits, as
`companion bench vision` has them: the classic and modern pieces the reader was developed on, and
printings nobody tuned on (`vision.sim.unseen`, each calibrated under its own evening's light).
After every move the same picture is read two ways:

- *following*: compared with the picture last agreed on (the game says what it shows, as the
  controller does after each move), only the changed squares read, among what the rules allow
  there (`Observer.candidates`, from `companion.sight` as the controller tells it);
- *whole*: the absolute read of every square, as before any agreement (`companion read`).

Printed for both: squares wrong (unsure counted), silently wrong, boards read with no error,
boards refused with no hand in view, hands read and squares misread under them, read time; and
for following, the squares that changed which it missed. The machine's speed is given by a
full-frame warp timed in the same run.
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
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np

from companion import rules
from companion.bench.vision import SPLITS, truth_of
from companion.sight import candidates
from companion.sim.eyes import refusal, synthetic_calibration
from companion.tracker import expected_cells
from vision import rectify
from vision.observer import Observer
from vision.reading import CELLS, BoardReading, CellClass, CellReading
from vision.sim import synthetic, unseen
from vision.sim.perturbations import Conditions
from vision.sim.synthetic import Scene, Style


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
            self.refused[refusal(reading)] += 1
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


@dataclass(frozen=True)
class Table:
    """One table for a whole game: the pieces' look, where the camera hangs, the light the evening
    starts in (calibrated under it) and how it changes from move to move."""

    style: Style
    pose: synthetic.CameraPose
    light: Conditions
    drift: Callable[[Conditions, np.random.Generator], Conditions]


def _developed_drift(conditions: Conditions, rng: np.random.Generator) -> Conditions:
    """A lamp switched on, turned warmer or cooler, the exposure drifting, now and then."""
    if rng.random() < 0.15:
        exposure = float(np.clip(conditions.exposure * rng.uniform(0.85, 1.15), 0.6, 1.4))
        return replace(conditions, lamp=float(rng.uniform(-0.7, 0.7)), exposure=exposure)
    return conditions


def _table(split: str, game: int, size: tuple[int, int], rng: np.random.Generator) -> Table:
    if split == "developed":
        style: Style = ("classic", "modern")[game % 2]
        pose = synthetic.random_pose(rng, size)
        return Table(style, pose, replace(synthetic.random_conditions(rng, bump=False), placement=game),
                     _developed_drift)
    printing = unseen.random_printing(int(rng.integers(1 << 30))).put_down(game)
    return Table(printing, unseen.random_pose(rng, printing, size), unseen.evening(rng), unseen.drift)


def play(split: str, seed: int, size: tuple[int, int], moves: int, hands_every: int,
         follow: Tally, whole: Tally, warp_ms: list[float]) -> None:
    """One game at one table, filmed and read both ways."""
    rng = np.random.default_rng([seed, SPLITS.index(split)])
    table = _table(split, seed, size, rng)
    style, pose = table.style, table.pose
    # The developed split's pieces are shown at calibration in a perfect picture, as `bench vision` does.
    light = None if split == "developed" else table.light
    calibration = synthetic_calibration(pose, size, style=style, seed=int(rng.integers(1 << 30)), conditions=light)
    following, reading_whole = Observer(calibration, still_frames=1), Observer(calibration, still_frames=1)
    conditions = table.light
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
        following.candidates = candidates(game.state, expected_cells(game.state))
        game.apply(chooser.choice(game.legal_actions()))
        now = truth_of(game.state)
        if now.cells == truth.cells:
            continue  # a decision on the buttons: nothing to see
        conditions = table.drift(conditions, rng)
        if rng.random() < 0.05:  # the board bumped
            conditions = replace(conditions, board_shift_mm=(float(rng.uniform(-12, 12)), float(rng.uniform(-12, 12))),
                                 board_rotation_deg=float(rng.uniform(-2, 2)))
        monuments = frozenset(c for c, t in enumerate(now.cells) if t.cls is CellClass.MONUMENT)
        for observer in (following, reading_whole):
            observer.tall = observer.face_down = monuments
        if hands_every and step % hands_every == 0:  # a hand held still over the board first
            _hands(now, table, size, replace(conditions, hands=(synthetic.random_hand(rng),)), step,
                   ((following, follow), (reading_whole, whole)))
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


def _hands(now: Scene, table: Table, size: tuple[int, int], conditions: Conditions, step: int,
           readers: tuple[tuple[Observer, Tally], ...]) -> None:
    """A hand held perfectly still over the board (no motion gives it away): never to be read, and
    no square under it misread."""
    shot = synthetic.render(now, style=table.style, size=size, pose=table.pose, conditions=conditions,
                            seed=step + 5000)
    calibration = readers[0][0].calibration
    assert calibration is not None
    mask = rectify.rectify(shot.hand_mask.astype(np.uint8) * 255, calibration.homography)
    covered = np.flatnonzero(rectify.cells(mask[..., None]).reshape(CELLS, -1).mean(axis=1) > 25)
    if not len(covered):  # over a tenth of a square at least, not only beside the board
        return
    for observer, tally in readers:
        tally.hands += 1
        read = observer.read(shot.frame)
        tally.hands_read += read.ok
        if read.ok:
            tally.silent_under_hand += sum(read.cells[c].cls not in (now.cells[c].cls, CellClass.UNKNOWN)
                                           for c in covered)


def run(split: str, games: int, seed: int, size: tuple[int, int], moves: int, hands_every: int,
        progress: bool = False) -> dict[str, Any]:
    follow, whole = Tally(), Tally()
    warp_ms: list[float] = []
    for game in range(games):
        play(split, seed + game, size, moves, hands_every, follow, whole, warp_ms)
        if progress:
            print(".", end="", file=sys.stderr, flush=True)
    if progress:
        print(file=sys.stderr)
    return {
        "split": split,
        "games": games,
        "seed": seed,
        "frame_size": list(size),
        "following": follow.summary(),
        "whole": whole.summary(),
        "full_frame_warp_ms_median": statistics.median(warp_ms) if warp_ms else None,
    }


def _print(result: dict[str, Any]) -> None:
    width, height = result["frame_size"]
    print(f"{result['split']} split: {result['games']} games from seed {result['seed']}, camera {width}x{height}; "
          f"a full-frame warp took {result['full_frame_warp_ms_median']:.1f} ms")
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
    parser.add_argument("--split", default="both", choices=(*SPLITS, "both"),
                        help="developed (the classic and modern pieces), unseen (printings nobody tuned on), or both")
    parser.add_argument("--games", type=int, default=8, help="games per split (default 8)")
    parser.add_argument("--moves", type=int, default=60, help="actions played per game (default 60)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--size", default="2028x1520", help="camera still size, WIDTHxHEIGHT")
    parser.add_argument("--hands-every", type=int, default=5, help="a hand held still every N moves (0: none)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    width, height = (int(v) for v in args.size.lower().split("x"))
    cv2.setNumThreads(1)
    splits = SPLITS if args.split == "both" else (args.split,)
    results = [run(split, args.games, args.seed, (width, height), args.moves, args.hands_every,
                   progress=not args.json) for split in splits]
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        for result in results:
            _print(result)
    return 0
