"""`companion report FILE`: the post-game report made from a saved game record, offline.

The same page the phones show after a game (companion.phone.report), written as one HTML file that
needs nothing else: open it in any browser, keep it, send it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from companion.app.problems import disk_words
from vision.files import write_atomic


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="companion report", description="Make the post-game report (one HTML "
                                     "file) from a saved game record: a journal (.jsonl) or `demo --save` JSON.")
    parser.add_argument("record", type=Path)
    parser.add_argument("--out", type=Path, help="where to write it (default: RECORD's name with -report.html, "
                                                 "in the current folder)")
    args = parser.parse_args(list(argv))
    from companion.app.records import open_record
    from companion.phone.report import Report, html

    out = args.out or Path(f"{args.record.stem}-report.html")
    if not args.record.is_file():
        print(f"companion report: {args.record}: there is no such file", file=sys.stderr)
        return 1
    game = open_record(args.record, "companion report")
    if game is None:
        return 1
    report = Report.of(game.config, game.actions)
    try:
        write_atomic(out, html(report, f"Tigris & Euphrates — {args.record.name}"))
    except OSError as error:
        print(f"companion report: {out}: {disk_words(error)}", file=sys.stderr)
        return 1
    winners = [s.name for s in report.tally if s.rank == 1]
    print(f"{report.over or 'The game was not finished'}. Winner{'s' if len(winners) > 1 else ''}: "
          f"{', '.join(winners)} with {report.tally[0].score}. The report is in {out}")
    return 0
