"""`companion bench {rules,vision,game,render,phone}`: each benchmark lives in its own module."""

from __future__ import annotations

import importlib
import sys

BENCHMARKS = {
    "rules": "companion.bench.rules",
    "vision": "companion.bench.vision",
    "follow": "companion.bench.follow",
    "game": "companion.bench.game",
    "render": "companion.bench.render",
    "phone": "companion.bench.phone",
}


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in BENCHMARKS:
        print(f"usage: companion bench {{{','.join(BENCHMARKS)}}} [--json] ...", file=sys.stderr)
        return 2
    module = importlib.import_module(BENCHMARKS[argv[0]])
    result: int = module.main(argv[1:])
    return result
