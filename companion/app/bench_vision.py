"""`companion bench vision [--json] [--quick]`: how well and how fast the camera reads the board.

A seeded set of mid-game boards is rendered by the synthetic camera in both piece styles, with
random light, blur, noise, JPEG, glare, shadows and bumps, at the two still sizes of the Pi HQ
camera. For every (style, size, camera pose) the board is calibrated once from the set-up
position and the "show me your pieces" layout, then every board is read by the full pipeline
(including, where a glare dazzled the camera, a second picture at a shorter exposure, which the
Pi camera takes when asked and the renderer draws here).
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
import random
import re
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from companion import rules
from companion.app.eyes import Rendering
from vision import calibration as calib
from vision import geometry, rectify
from vision.camera import DARKER
from vision.observer import Observer
from vision.reading import CELLS, BoardReading, CellClass
from vision.sim import synthetic
from vision.sim.perturbations import Conditions
from vision.sim.synthetic import CellTruth, Scene

SIZES = ((2028, 1520), (1640, 1232))
STYLES = ("classic", "modern")
LORES = (320, 240)  # the Pi camera's small stream, which the gate watches


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
        if not reading.ok:
            reason = reading.message.split(":")[0]  # the kind of refusal, not which edge or marker
            self.unread[re.sub(r"board's .* edge", "board's edge", re.sub(r"the .* marker", "a marker", reason))] += 1
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


def _calibrated(style: str, size: tuple[int, int], pose: synthetic.CameraPose, seed: int) -> calib.Calibration:
    setup = synthetic.render(Scene.setup(), style=style, size=size, pose=pose, seed=seed)
    layout = calib.pieces_layout()
    shown = Scene.setup().with_cells({c: CellTruth(p.cls, p.dynasty, p.monument) for c, p in layout.items()})
    pieces = synthetic.render(shown, style=style, size=size, pose=pose, seed=seed + 1)
    return calib.calibrate(setup.frame, [(pieces.frame, layout)])


def _frame(
    scene: Scene, style: str, size: tuple[int, int], pose: synthetic.CameraPose, conditions: Conditions, seed: int
) -> np.ndarray:
    return synthetic.render(scene, style=style, size=size, pose=pose, conditions=conditions, seed=seed).frame


def _ms_since(start: float) -> float:
    return (time.perf_counter() - start) * 1000


def run(
    boards: int, seed: int, hands_every: int = 4, progress: bool = False, darker: bool = True
) -> dict[str, Tally]:
    """darker: a camera whose exposure can be set (the Pi camera); False reads as a webcam or a
    recording does, from the one picture."""
    rng = np.random.default_rng(seed)
    tallies: dict[str, Tally] = {}
    groups = [(style, size) for style in STYLES for size in SIZES]
    per_group = max(1, boards // len(groups))
    identity = np.eye(3)
    for style, size in groups:
        tally = tallies.setdefault(f"{style} {size[0]}x{size[1]}", Tally())
        pose = synthetic.random_pose(rng, size)
        observer = Observer(_calibrated(style, size, pose, int(rng.integers(1 << 30))), still_frames=1)
        for index in range(per_group):
            scene = mid_game_scene(rng)
            conditions = synthetic.random_conditions(rng)
            seed = int(rng.integers(1 << 30))
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
            cv2.warpPerspective(shot.frame, identity, size)
            tally.warp_ms.append(_ms_since(start))
            if index % hands_every == 0:
                _hands(observer, scene, style, size, pose, rng, tally)
            if progress:
                print(".", end="", file=sys.stderr, flush=True)
    if progress:
        print(file=sys.stderr)
    return tallies


def _hands(
    observer: Observer,
    scene: Scene,
    style: str,
    size: tuple[int, int],
    pose: synthetic.CameraPose,
    rng: np.random.Generator,
    tally: Tally,
) -> None:
    """Hands held perfectly still over a still board (the hardest case for the gate: no motion
    gives them away): no reading may come out, and no square under a hand may be misread."""
    conditions = synthetic.random_conditions(rng, hands=True, bump=False)
    shot = synthetic.render(
        scene, style=style, size=size, pose=pose, conditions=conditions, seed=int(rng.integers(1 << 30))
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
        for name in (
            "cells",
            "wrong",
            "flagged_wrong",
            "boards",
            "perfect",
            "hand_frames",
            "hand_frames_read",
            "silent_under_hand",
            "darker",
        ):
            setattr(total, name, getattr(total, name) + getattr(tally, name))
        total.unread.update(tally.unread)
        total.confusion.update(tally.confusion)
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
    read = total.boards - sum(total.unread.values())
    return {
        "boards": total.boards,
        "boards_read": read,
        "boards_unread": dict(total.unread),
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
        "groups": groups,
        "confusion": {f"{real} -> {seen}": n for (real, seen), n in sorted(total.confusion.items()) if real != seen},
    }


def _print(result: dict[str, Any]) -> None:
    print(f"boards: {result['boards']}, read: {result['boards_read']}, not read: {result['boards_unread'] or 'none'}")
    print(
        f"per-cell error rate: {100 * result['cell_error_rate']:.3f} %  (target ≤ 0.05 %; "
        f"an unsure square counts as an error), silently wrong: {100 * result['silent_cell_error_rate']:.3f} %"
    )
    print(
        f"boards read with no error: {100 * result['boards_without_error']:.1f} %  (target ≥ 98 %; "
        f"{100 * result['boards_without_error_counting_unread']:.1f} % counting unread boards as failures)"
    )
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


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="companion bench vision", description=__doc__)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--quick", action="store_true", help="a small subset, for CI")
    parser.add_argument("--boards", type=int, default=None, help="number of boards (default 512, quick 24)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument(
        "--one-exposure",
        action="store_true",
        help="read from one picture only, as with a webcam or a recording (no second, shorter exposure)",
    )
    args = parser.parse_args(argv)
    boards = args.boards or (24 if args.quick else 512)
    cv2.setNumThreads(1)
    result = summary(run(boards, args.seed, progress=not args.json, darker=not args.one_exposure))
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        _print(result)
    return 0
