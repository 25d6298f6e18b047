"""`companion bench {rules,vision,game}`: each benchmark lives in its own module."""

from __future__ import annotations

import importlib
import sys

BENCHMARKS = {
    "rules": "companion.app.bench_rules",
    "vision": "companion.app.bench_vision",
    "follow": "companion.app.bench_follow",
    "game": "companion.app.bench_game",
    "render": "companion.app.bench_render",
}


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in BENCHMARKS:
        print(f"usage: companion bench {{{','.join(BENCHMARKS)}}} [--json] ...", file=sys.stderr)
        return 2
    module = importlib.import_module(BENCHMARKS[argv[0]])
    result: int = module.main(argv[1:])
    return result
