"""`companion read IMAGE... [--calibration FILE] [--json]`: what the camera sees on the board.

For players checking their set-up and for tests: each picture is read as the table companion
would read it and printed as a 16 × 11 grid, one character per square (`?` where unsure).
"""

from __future__ import annotations

import argparse
import json
import sys

from companion.app.calibrate import SYMBOLS, default_path, load_image
from vision import calibration as calib
from vision.observer import Observer
from vision.reading import COLUMNS, ROWS, BoardReading


def grid_text(reading: BoardReading) -> str:
    letters = "".join(chr(ord("A") + c) for c in range(COLUMNS))
    lines = [f"    {letters}"]
    for row in range(ROWS):
        cells = reading.cells[row * COLUMNS : (row + 1) * COLUMNS]
        lines.append(f"{row + 1:>3} " + "".join(SYMBOLS[c.cls] for c in cells))
    legend = ", ".join(f"{symbol} {cls.value}" for cls, symbol in SYMBOLS.items())
    lines += ["", f"legend: {legend}"]
    if reading.low_confidence:
        names = " ".join(f"{chr(ord('A') + i % COLUMNS)}{i // COLUMNS + 1}" for i in reading.low_confidence)
        lines.append(f"not sure about: {names}")
    return "\n".join(lines)


def as_json(path: str, reading: BoardReading) -> dict[str, object]:
    return {
        "image": path,
        "status": reading.status.name.lower(),
        "message": reading.message,
        "hands_in_view": reading.hands_in_view,
        "low_confidence": list(reading.low_confidence),
        "cells": [
            {
                "class": c.cls.value,
                "confidence": round(c.confidence, 3),
                "dynasty": c.dynasty,
                "monument": list(c.monument) if c.monument else None,
            }
            for c in reading.cells
        ],
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="companion read", description=__doc__)
    parser.add_argument("images", nargs="+", metavar="IMAGE")
    parser.add_argument("--calibration", default=None, help=f"calibration file (default {default_path()})")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the grid")
    args = parser.parse_args(argv)
    try:
        calibration = calib.load(args.calibration or default_path())
    except calib.CalibrationError as error:
        print(f"companion read: {error}", file=sys.stderr)
        return 1
    observer = Observer(calibration)
    results, failed = [], False
    for path in args.images:
        try:
            reading = observer.read(load_image(path))
        except calib.CalibrationError as error:
            print(f"companion read: {error}", file=sys.stderr)
            failed = True
            continue
        failed |= not reading.ok
        if args.json:
            results.append(as_json(path, reading))
        elif reading.ok:
            print(f"{path}:\n{grid_text(reading)}\n")
        else:
            print(f"{path}: not read — {reading.status.value}. {reading.message}\n")
    if args.json:
        print(json.dumps(results, indent=1))
    return 1 if failed else 0
