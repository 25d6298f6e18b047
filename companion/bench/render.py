"""`companion bench render [--json] [--quick]`: how fast the synthetic camera draws a frame.

The vision benchmark renders hundreds of boards, so the renderer must stay cheap. For both
frame sizes and both piece styles this renders busy boards (60 pieces) three ways — a clean
frame from the default pose, a random table (pose, light, lens, sensor, JPEG, bumps, pieces
put down by hand), and the same with hands — and prints the median and 95th percentile wall
time per frame, and the CPU time (all threads) per frame, after one warm-up frame per case.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

from vision.sim import synthetic

SIZES = ((2028, 1520), (1640, 1232))
STYLES = ("classic", "modern")
CASES = ("clean", "random table", "random table + hands")


def _case(
    name: str, rng: np.random.Generator, size: tuple[int, int]
) -> tuple[synthetic.CameraPose, synthetic.Conditions]:
    if name == "clean":
        return synthetic.CameraPose(), synthetic.Conditions()
    hands = name.endswith("hands")
    return synthetic.random_pose(rng, size), synthetic.random_conditions(rng, hands=hands)


def measure(frames: int, seed: int = 0) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for size in SIZES:
        for style in STYLES:
            for case in CASES:
                rng = np.random.default_rng(seed)
                jobs = [
                    (synthetic.random_scene(rng, pieces=60), *_case(case, rng, size))
                    for _ in range(frames + 1)
                ]
                walls, cpus = [], []
                for i, (scene, pose, conditions) in enumerate(jobs):
                    wall, cpu = time.perf_counter(), time.process_time()
                    synthetic.render(scene, style=style, size=size, pose=pose, conditions=conditions, seed=i)
                    if i:  # the first frame of a case fills the art caches
                        walls.append(1000 * (time.perf_counter() - wall))
                        cpus.append(1000 * (time.process_time() - cpu))
                walls.sort()
                rows.append(
                    {
                        "size": f"{size[0]}x{size[1]}",
                        "style": style,
                        "case": case,
                        "frames": frames,
                        "median_ms": round(statistics.median(walls), 1),
                        "p95_ms": round(walls[min(len(walls) - 1, int(0.95 * len(walls)))], 1),
                        "cpu_ms": round(statistics.median(cpus), 1),
                    }
                )
    return rows


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="companion bench render", description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--quick", action="store_true", help="5 frames per case instead of 30")
    parser.add_argument("--frames", type=int, help="frames per case (overrides --quick)")
    args = parser.parse_args(argv)
    frames = args.frames or (5 if args.quick else 30)
    if frames < 1:
        parser.error("--frames must be at least 1")
    rows = measure(frames)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"{'size':<10} {'style':<8} {'case':<22} {'median':>8} {'p95':>8} {'cpu':>8}   (ms per frame)")
    for row in rows:
        print(
            f"{row['size']:<10} {row['style']:<8} {row['case']:<22} "
            f"{row['median_ms']:>8} {row['p95_ms']:>8} {row['cpu_ms']:>8}"
        )
    return 0
