"""`companion bench vision [--split developed|unseen|both] [--json] [--quick]`: how well and how fast
the camera reads the board.

A seeded set of mid-game boards is rendered by the synthetic camera, with random light, blur,
noise, JPEG, glare, shadows and bumps, at the two still sizes of the Pi HQ camera, in two splits:

- developed: the classic and modern pieces the reader was developed on. For every (style, size,
  camera pose) the board is calibrated once from the set-up position and the "show me your pieces"
  layout, in a perfect picture.
- unseen: printings nobody tuned on (`vision.sim.unseen`: another artist's board and pieces, wider
  table effects, cameras hung anywhere). One calibration per table, as a new user would make it:
  that printing's set-up picture and its "show me your pieces" picture, under the evening's light.
  Never tune a constant on this split.

Every board is read by the full pipeline (including, where a glare dazzled the camera, a second
picture at a shorter exposure, which the Pi camera takes when asked and the renderer draws here).
Frames with hands over the board are fed to the stability gate, which must refuse them all.
"""

from __future__ import annotations

import os

# The reader's matrices are small: BLAS threads only fight each other (and the renderer) for the
# cores. The companion runs the same way on the Pi (see the README).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import functools
import json
import math
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from companion import rules
from companion.sim.eyes import Rendering, refusal, synthetic_calibration
from vision import geometry, rectify
from vision.camera import DARKER
from vision.observer import Observer
from vision.reading import CELLS, BoardReading, CellClass
from vision.sim import synthetic, unseen
from vision.sim.perturbations import Conditions
from vision.sim.synthetic import CellTruth, Scene, Style

SIZES = ((2028, 1520), (1640, 1232))
STYLES = ("classic", "modern")
SPLITS = ("developed", "unseen")
LORES = (320, 240)  # the Pi camera's small stream, which the gate watches
BOARDS_PER_PRINTING = 16  # unseen split: boards read at each table after its one calibration
ConditionsAt = Callable[..., Conditions]  # random_conditions of a split: (rng, *, hands, bump)


def truth_of(state: rules.GameState, board: str = "standard") -> Scene:
    """What the camera should see on a board in this game state, square by square."""
    cells = []
    for cell in range(CELLS):
        square = state.square(cell)
        if square.monument is not None:
            a, b = square.monument.value.split("/")
            truth = CellTruth(CellClass.MONUMENT, monument=(a, b))
        elif square.unification:
            truth = CellTruth(CellClass.UNIFICATION)
        elif square.catastrophe:
            truth = CellTruth(CellClass.CATASTROPHE)
        elif square.leader is not None:
            seat, colour = square.leader
            truth = CellTruth(CellClass[f"LEADER_{colour.name}"], dynasty=state.players[seat].dynasty)
        elif square.tile is not None and square.face_down:
            truth = CellTruth(CellClass.FACE_DOWN)
        elif square.tile is not None and square.treasure:
            truth = CellTruth(CellClass.TREASURE)
        elif square.tile is not None:
            truth = CellTruth(CellClass[f"TILE_{square.tile.name}"])
        else:
            truth = CellTruth(CellClass.EMPTY_RIVER if square.river else CellClass.EMPTY_LAND)
        cells.append(truth)
    return Scene(tuple(cells), geometry.river_cells(board), geometry.corner_treasure_cells(board))


def mid_game_scene(rng: np.random.Generator) -> Scene:
    """A board from a random playout of the rules engine, stopped somewhere in the middle."""
    seed = int(rng.integers(1 << 30))
    game = rules.Game.new(int(rng.integers(2, 5)), seed=seed)
    chooser = random.Random(seed)
    for _ in range(int(rng.integers(30, 160))):
        if game.state.over:
            break
        game.apply(chooser.choice(game.legal_actions()))
    return truth_of(game.state)


@dataclass
class Tally:
    cells: int = 0
    wrong: int = 0
    flagged_wrong: int = 0
    boards: int = 0
    perfect: int = 0
    unread: Counter[str] = field(default_factory=Counter)
    confusion: Counter[tuple[str, str]] = field(default_factory=Counter)
    read_ms: list[float] = field(default_factory=list)
    gate_ms: list[float] = field(default_factory=list)
    warp_ms: list[float] = field(default_factory=list)
    hand_frames: int = 0
    hand_frames_read: int = 0
    silent_under_hand: int = 0
    darker: int = 0  # boards looked at again through a shorter exposure, for a glare

    def add(self, truth: Scene, reading: BoardReading) -> None:
        self.boards += 1
        if not reading.ok:  # no hand is over these boards: every refusal is one too many
            self.unread[refusal(reading)] += 1
            return
        errors = 0
        for real, seen in zip(truth.cells, reading.cells, strict=True):
            self.cells += 1
            self.confusion[(real.cls.value, seen.cls.value)] += 1
            if seen.cls is not real.cls:
                errors += 1
                self.flagged_wrong += seen.cls is CellClass.UNKNOWN
        self.wrong += errors
        self.perfect += errors == 0

    def merge(self, other: Tally) -> None:
        for name in _COUNTS:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for name in ("unread", "confusion"):
            getattr(self, name).update(getattr(other, name))
        for name in ("read_ms", "gate_ms", "warp_ms"):
            getattr(self, name).extend(getattr(other, name))


_COUNTS = ("cells", "wrong", "flagged_wrong", "boards", "perfect", "hand_frames", "hand_frames_read",
           "silent_under_hand", "darker")


def _frame(
    scene: Scene, style: Style, size: tuple[int, int], pose: synthetic.CameraPose, conditions: Conditions, seed: int
) -> np.ndarray:
    return synthetic.render(scene, style=style, size=size, pose=pose, conditions=conditions, seed=seed).frame


def _ms_since(start: float) -> float:
    return (time.perf_counter() - start) * 1000


@dataclass(frozen=True)
class Table:
    """What one calibration serves: the pieces' look, the frame size, where the camera hangs, and
    the split's table effects."""

    style: Style
    size: tuple[int, int]
    pose: synthetic.CameraPose
    conditions: ConditionsAt


def _read(observer: Observer, table: Table, scene: Scene, rng: np.random.Generator, tally: Tally,
          darker: bool, hands: bool) -> None:
    """One board read at this table (and, when `hands`, hands held still over it)."""
    conditions = table.conditions(rng)
    seed = int(rng.integers(1 << 30))
    style, size, pose = table.style, table.size, table.pose
    shot = synthetic.render(scene, style=style, size=size, pose=pose, conditions=conditions, seed=seed)
    # The same moment through a shorter exposure, when a glare dazzled the camera: the
    # Pi camera takes it as it is asked for.
    shorter = Rendering(functools.partial(_frame, scene, style, size, pose, conditions.exposed(DARKER), seed))
    # At the table the companion tells the observer where monuments stand (the game knows),
    # so where a face-down tile may lie.
    observer.tall = frozenset(c for c, t in enumerate(scene.cells) if t.cls is CellClass.MONUMENT)
    observer.face_down = observer.tall
    start = time.perf_counter()
    reading = observer.read(shot.frame, darker=shorter if darker else None)
    tally.read_ms.append(_ms_since(start) - shorter.seconds * 1000)
    tally.darker += shorter.seconds > 0
    tally.add(scene, reading)
    lores = cv2.resize(shot.frame, LORES, interpolation=cv2.INTER_AREA)
    start = time.perf_counter()
    observer.gate.update(lores)
    tally.gate_ms.append(_ms_since(start))
    start = time.perf_counter()
    cv2.warpPerspective(shot.frame, np.eye(3), size)
    tally.warp_ms.append(_ms_since(start))
    if hands:
        _hands(observer, scene, table, rng, tally)


def run(
    boards: int, seed: int, hands_every: int = 4, progress: bool = False, darker: bool = True
) -> dict[str, Tally]:
    """The developed split. darker: a camera whose exposure can be set (the Pi camera); False reads
    as a webcam or a recording does, from the one picture."""
    rng = np.random.default_rng(seed)
    tallies: dict[str, Tally] = {}
    groups = [(style, size) for style in STYLES for size in SIZES]
    per_group = max(1, boards // len(groups))
    for style, size in groups:
        tally = tallies.setdefault(f"{style} {size[0]}x{size[1]}", Tally())
        pose = synthetic.random_pose(rng, size)
        observer = Observer(synthetic_calibration(pose, size, style=style, seed=int(rng.integers(1 << 30))),
                            still_frames=1)
        table = Table(style, size, pose, synthetic.random_conditions)
        for index in range(per_group):
            _read(observer, table, mid_game_scene(rng), rng, tally, darker, index % hands_every == 0)
            if progress:
                print(".", end="", file=sys.stderr, flush=True)
    if progress:
        print(file=sys.stderr)
    return tallies


def run_unseen(
    boards: int, seed: int, hands_every: int = 4, progress: bool = False, darker: bool = True
) -> tuple[dict[str, Tally], list[dict[str, Any]]]:
    """The never-tuned-on split: a printing per table, `BOARDS_PER_PRINTING` boards at each. Also
    each table's figures, for finding what goes wrong (never for tuning)."""
    rng = np.random.default_rng([seed, 1])  # its own stream: the developed split's boards stay as they were
    tallies: dict[str, Tally] = {}
    tables: list[dict[str, Any]] = []
    count = max(1, math.ceil(boards / BOARDS_PER_PRINTING))
    for index in range(count):
        printing = unseen.random_printing(int(rng.integers(1 << 30)))
        size = SIZES[index % len(SIZES)]
        pose = unseen.random_pose(rng, printing, size)
        light = unseen.evening(rng)
        calibration = synthetic_calibration(pose, size, style=printing, seed=int(rng.integers(1 << 30)),
                                            conditions=light)
        observer = Observer(calibration, still_frames=1)
        tally = Tally()
        for board in range(boards * (index + 1) // count - boards * index // count):
            table = Table(printing.put_down(board + 1), size, pose, unseen.random_conditions)
            _read(observer, table, mid_game_scene(rng), rng, tally, darker, board % hands_every == 0)
            if progress:
                print(".", end="", file=sys.stderr, flush=True)
        tables.append({"printing": printing.describe(), "frame_size": list(size), "boards": tally.boards,
                       "refused": sum(tally.unread.values()), "wrong_cells": tally.wrong,
                       "boards_without_error": tally.perfect})
        tallies.setdefault(f"unseen {size[0]}x{size[1]}", Tally()).merge(tally)
    if progress:
        print(file=sys.stderr)
    return tallies, tables


def _hands(observer: Observer, scene: Scene, table: Table, rng: np.random.Generator, tally: Tally) -> None:
    """Hands held perfectly still over a still board (the hardest case for the gate: no motion
    gives them away): no reading may come out, and no square under a hand may be misread."""
    conditions = table.conditions(rng, hands=True, bump=False)
    shot = synthetic.render(
        scene, style=table.style, size=table.size, pose=table.pose, conditions=conditions,
        seed=int(rng.integers(1 << 30)),
    )
    assert observer.calibration is not None
    grid = np.zeros(shot.hand_mask.shape, np.uint8)
    cv2.fillConvexPoly(grid, np.round(shot.grid_corners).astype(np.int32), 1)
    if not (shot.hand_mask & grid.astype(bool)).any():
        return  # the hand stayed off the board
    lores = cv2.resize(shot.frame, LORES, interpolation=cv2.INTER_AREA)
    observer.gate.reset()
    readings = [observer.feed(shot.frame, small=lores) for _ in range(observer.gate.still_frames + 2)]
    tally.hand_frames += 1
    read = [r for r in readings if r.ok]
    tally.hand_frames_read += bool(read)
    if read:
        mask = rectify.rectify(shot.hand_mask.astype(np.uint8) * 255, observer.calibration.homography)
        covered = rectify.cells(mask[..., None]).reshape(CELLS, -1).mean(axis=1) > 10
        for cell in np.flatnonzero(covered):
            seen, real = read[-1].cells[cell].cls, scene.cells[cell].cls
            tally.silent_under_hand += seen is not real and seen is not CellClass.UNKNOWN
    observer.gate.reset()


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def summary(tallies: dict[str, Tally]) -> dict[str, Any]:
    total = Tally()
    for tally in tallies.values():
        total.merge(tally)
    groups = {}
    for name, tally in tallies.items():
        groups[name] = {
            "boards": tally.boards,
            "cell_error_rate": tally.wrong / max(1, tally.cells),
            "boards_without_error": tally.perfect / max(1, tally.boards),
            "read_ms_median": statistics.median(tally.read_ms),
            "read_ms_p95": _percentile(tally.read_ms, 0.95),
            "gate_ms_median": statistics.median(tally.gate_ms),
            "gate_ms_p95": _percentile(tally.gate_ms, 0.95),
            "full_frame_warp_ms_median": statistics.median(tally.warp_ms),
        }
    refused = sum(total.unread.values())
    read = total.boards - refused
    largest = [ms for name, tally in tallies.items() if name.endswith("2028x1520") for ms in tally.read_ms]
    return {
        "boards": total.boards,
        "boards_read": read,
        "boards_unread": dict(total.unread),
        "boards_refused_no_hand": refused,
        "boards_refused_no_hand_rate": refused / max(1, total.boards),
        "cells": total.cells,
        "cell_error_rate": total.wrong / max(1, total.cells),
        "silent_cell_error_rate": (total.wrong - total.flagged_wrong) / max(1, total.cells),
        "boards_without_error": total.perfect / max(1, read),
        "boards_without_error_counting_unread": total.perfect / max(1, total.boards),
        "wrong_cells": total.wrong,
        "wrong_cells_flagged": total.flagged_wrong / total.wrong if total.wrong else 1.0,
        "hand_frames": total.hand_frames,
        "hand_frames_read": total.hand_frames_read,
        "silent_misreads_under_hands": total.silent_under_hand,
        "boards_looked_at_again_darker": total.darker,
        "read_ms_median_2028x1520": statistics.median(largest) if largest else None,
        "groups": groups,
        "confusion": {f"{real} -> {seen}": n for (real, seen), n in sorted(total.confusion.items()) if real != seen},
    }


# What each split is held to: the developed split to the README's targets, the unseen split to
# issue 12's (per-square error counting unsure squares, silently wrong squares, full read time).
TARGETS = {
    "developed": {"cells": 0.05, "silent": None, "boards": 98.0, "read_ms": 25.0},
    "unseen": {"cells": 0.1, "silent": 0.01, "boards": None, "read_ms": 25.0},
}


def _print(split: str, result: dict[str, Any]) -> None:
    target = TARGETS[split]
    print(f"== {split} split")
    print(f"boards: {result['boards']}, read: {result['boards_read']}, refused with no hand in view: "
          f"{result['boards_refused_no_hand']} ({100 * result['boards_refused_no_hand_rate']:.1f} %) "
          f"{result['boards_unread'] or ''}".rstrip())
    silent = f" (target ≤ {target['silent']} %)" if target["silent"] is not None else ""
    print(
        f"per-cell error rate: {100 * result['cell_error_rate']:.3f} %  (target ≤ {target['cells']} %; "
        f"an unsure square counts as an error), silently wrong: {100 * result['silent_cell_error_rate']:.3f} %"
        f"{silent}"
    )
    boards = f"target ≥ {target['boards']:.0f} %; " if target["boards"] is not None else ""
    print(
        f"boards read with no error: {100 * result['boards_without_error']:.1f} %  ({boards}"
        f"{100 * result['boards_without_error_counting_unread']:.1f} % counting unread boards as failures)"
    )
    if result["read_ms_median_2028x1520"] is not None:
        print(f"full read at 2028x1520, median: {result['read_ms_median_2028x1520']:.1f} ms "
              f"(target ≤ {target['read_ms']:.0f} ms on this machine, unloaded)")
    print(
        f"wrong cells: {result['wrong_cells']}, flagged low-confidence: "
        f"{100 * result['wrong_cells_flagged']:.1f} %  (target ≥ 90 %)"
    )
    print(
        f"boards with a hand held still over them: {result['hand_frames']}, "
        f"read anyway: {result['hand_frames_read']}; "
        f"squares under a hand silently misread: {result['silent_misreads_under_hands']}"
    )
    print(
        f"boards looked at again through {DARKER:.0%} of the exposure (a glare had dazzled the camera): "
        f"{result['boards_looked_at_again_darker']}; their second read counts in the read time, its picture not"
    )
    print("\nlatency (ms)                 read med  read p95  gate med  gate p95  warp full frame")
    for name, g in result["groups"].items():
        print(
            f"  {name:<26} {g['read_ms_median']:8.1f}  {g['read_ms_p95']:8.1f}  {g['gate_ms_median']:8.2f}  "
            f"{g['gate_ms_p95']:8.2f}  {g['full_frame_warp_ms_median']:8.1f}"
        )
    confusion = result["confusion"]
    print("\nconfusions (truth -> read: count):" if confusion else "\nno confusions")
    for pair, n in confusion.items():
        print(f"  {pair}: {n}")
    for table in result.get("tables", ()):
        print(f"  {table['boards_without_error']}/{table['boards']} boards without error, {table['refused']} refused, "
              f"{table['wrong_cells']} wrong squares: {table['printing']}")
    print()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="companion bench vision", description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--quick", action="store_true", help="a small subset, for CI")
    parser.add_argument("--split", default="both", choices=(*SPLITS, "both"),
                        help="developed (the classic and modern pieces), unseen (printings nobody tuned on), or both")
    parser.add_argument("--boards", type=int, default=None, help="boards per split (default 256, quick 24)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument(
        "--one-exposure",
        action="store_true",
        help="read from one picture only, as with a webcam or a recording (no second, shorter exposure)",
    )
    args = parser.parse_args(argv)
    boards = args.boards or (24 if args.quick else 256)
    cv2.setNumThreads(1)
    darker, progress = not args.one_exposure, not args.json
    results: dict[str, dict[str, Any]] = {}
    if args.split in ("developed", "both"):
        results["developed"] = summary(run(boards, args.seed, progress=progress, darker=darker))
    if args.split in ("unseen", "both"):
        tallies, tables = run_unseen(boards, args.seed, progress=progress, darker=darker)
        results["unseen"] = {**summary(tallies), "tables": tables}
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        for split, result in results.items():
            _print(split, result)
    return 0
