"""`companion bench render` runs and reports every case with sane figures."""

from __future__ import annotations

import json

from companion import bench
from companion.bench import render as bench_render


def test_bench_render_reports_every_case(capsys):
    assert bench.main(["render", "--frames", "1", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    cases = {(r["size"], r["style"], r["case"]) for r in rows}
    assert len(cases) == len(bench_render.SIZES) * len(bench_render.STYLES) * len(bench_render.CASES) == 12
    for row in rows:
        assert 0 < row["median_ms"] <= row["p95_ms"]
        assert row["cpu_ms"] > 0
