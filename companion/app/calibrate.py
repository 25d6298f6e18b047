"""`companion calibrate`: find the board, learn its look, write the calibration file.

Two pictures from the camera over the table: the set-up position (temples with treasures on the
printed start squares, nothing else), then the same board with the pieces laid out as
`companion calibrate --layout` shows (one tile of each colour, a catastrophe,
the unification tile, every leader and the six monuments).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

import numpy as np

from companion.app.problems import disk_words
from vision import calibration as calib
from vision import picture
from vision.camera import Camera, CameraError, FolderCamera, OpenCVCamera, PiCamera
from vision.observer import Observer
from vision.reading import COLUMNS, ROWS, CellClass
from vision.references import Piece

# One letter per class, shared with `companion read`.
SYMBOLS = {
    CellClass.EMPTY_LAND: ".",
    CellClass.EMPTY_RIVER: "~",
    CellClass.TILE_RED: "r",
    CellClass.TILE_BLUE: "b",
    CellClass.TILE_GREEN: "g",
    CellClass.TILE_BLACK: "k",
    CellClass.TREASURE: "T",
    CellClass.FACE_DOWN: "x",
    CellClass.MONUMENT: "M",
    CellClass.LEADER_RED: "R",
    CellClass.LEADER_BLUE: "B",
    CellClass.LEADER_GREEN: "G",
    CellClass.LEADER_BLACK: "K",
    CellClass.CATASTROPHE: "*",
    CellClass.UNIFICATION: "U",
    CellClass.UNKNOWN: "?",
}


def default_path() -> Path:
    """Where `companion run` looks for the calibration: `[paths] calibration` of the configuration."""
    from companion.app import config

    return config.load().calibration_file


def load_image(path: str) -> np.ndarray:
    """A picture file as a BGR frame, or a clear error (its size is checked before it is decoded)."""
    try:
        return picture.read(path)
    except picture.PictureError as error:
        raise calib.CalibrationError(str(error)) from None


SHOWN = 8  # squares named when the pieces picture disagrees with the layout; the rest are counted


def check_pieces(calibration: calib.Calibration, frame: np.ndarray, layout: dict[int, Piece]) -> None:
    """Raise CalibrationError unless the new calibration reads every laid-out piece where the layout
    puts it: a pieces picture taken too soon (Enter pressed twice), or with pieces misplaced, would
    otherwise teach the companion wrong looks and every board after would be refused."""
    reading = Observer(calibration).read(frame)
    if not reading.ok:
        raise calib.CalibrationError(f"The pieces picture could not be read: {reading.message or reading.status.value}")
    wrong = [(cell, piece.cls, reading.cells[cell].cls) for cell, piece in sorted(layout.items())
             if reading.cells[cell].cls is not piece.cls]
    if not wrong:
        return
    named = "; ".join(f"{_square(cell)} should show a {want.value}, the camera sees "
                      f"{'nothing it is sure of' if seen is CellClass.UNKNOWN else seen.value}"
                      for cell, want, seen in wrong[:SHOWN])
    more = f"; and {len(wrong) - SHOWN} more" if len(wrong) > SHOWN else ""
    raise calib.CalibrationError(
        f"{len(wrong)} of the {len(layout)} laid-out squares are not seen as `companion calibrate --layout` "
        f"shows them: {named}{more}. Lay the pieces out as shown and take the pieces picture again.")


def _square(cell: int) -> str:
    return f"{chr(ord('A') + cell % COLUMNS)}{cell // COLUMNS + 1}"


def layout_text(board: str) -> str:
    """Where each piece goes for the pieces picture, as a grid and a list."""
    layout = calib.pieces_layout(board)
    lines = ["    " + "".join(chr(ord("A") + c) for c in range(COLUMNS))]
    for row in range(ROWS):
        marks = "".join(
            SYMBOLS[layout[row * COLUMNS + c].cls] if row * COLUMNS + c in layout else " " for c in range(COLUMNS)
        )
        lines.append(f"{row + 1:>3} {marks}")
    lines.append("")
    lines.append("Lift the ten temples (with their treasures) off the board: their squares must show the bare board.")
    for cell, piece in sorted(layout.items()):
        name = _square(cell)
        extra = piece.dynasty or ("/".join(piece.monument) if piece.monument else "")
        lines.append(f"  {name:<4} {piece.cls.value} {extra}".rstrip())
    return "\n".join(lines)


def open_camera(source: str) -> Camera:
    """`pi` for the Raspberry Pi camera, a number for a USB camera, else a video file or a folder
    of recorded frames."""
    if source == "pi":
        return PiCamera()
    if source.isdigit():
        return OpenCVCamera(int(source))
    if Path(source).is_dir():
        return FolderCamera(source)
    return OpenCVCamera(source)


def _capture(camera: Camera, prompt: str) -> np.ndarray:
    print(prompt, file=sys.stderr)
    with contextlib.suppress(EOFError):
        input()
    return camera.capture()


def _from_camera(source: str, board: str, pieces: bool) -> tuple[np.ndarray, list[tuple[np.ndarray, dict[int, Piece]]]]:
    try:
        with open_camera(source) as camera:
            setup = _capture(
                camera, "Lay out the set-up position (the ten temples with their treasures), then press Enter."
            )
            shown = []
            if pieces:
                shown.append(
                    (
                        _capture(
                            camera, "Lay out the pieces as `companion calibrate --layout` shows, then press Enter."
                        ),
                        calib.pieces_layout(board),
                    )
                )
    except CameraError as error:
        raise calib.CalibrationError(str(error)) from None
    return setup, shown


def _corners(text: str) -> list[list[float]]:
    try:
        points = [[float(v) for v in pair.split(",")] for pair in text.split()]
    except ValueError:
        raise calib.CalibrationError("Give the corners as 'x,y x,y x,y x,y' (pixels).") from None
    return points


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="companion calibrate", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--setup", metavar="IMAGE", help="picture of the set-up position")
    parser.add_argument(
        "--camera",
        metavar="SOURCE",
        help="take the pictures with a camera: pi, a USB camera number, a video or a folder",
    )
    parser.add_argument("--no-pieces", action="store_true", help="with --camera: skip the pieces picture")
    parser.add_argument("--pieces", metavar="IMAGE", help="picture of the pieces laid out as --layout shows")
    parser.add_argument(
        "--corners",
        metavar="'x,y x,y x,y x,y'",
        help="the grid's corners in the picture (TL TR BR BL) when there are no markers",
    )
    parser.add_argument("--board", default="standard", choices=("standard", "alternate"))
    parser.add_argument("--out", default=None, help=f"calibration file (default {default_path()})")
    parser.add_argument("--layout", action="store_true", help="print where to lay the pieces, then stop")
    args = parser.parse_args(argv)
    if args.layout:
        print(layout_text(args.board))
        return 0
    if not args.setup and not args.camera:
        parser.error("give --setup IMAGE (a picture of the set-up position) or --camera SOURCE")
    out = Path(args.out) if args.out else default_path()
    try:
        if args.camera:
            setup, pieces = _from_camera(args.camera, args.board, not args.no_pieces)
        else:
            setup = load_image(args.setup)
            pieces = [(load_image(args.pieces), calib.pieces_layout(args.board))] if args.pieces else []
        corners = _corners(args.corners) if args.corners else None
        calibration = calib.calibrate(setup, pieces, args.board, corners=corners)
        for frame, layout in pieces:
            check_pieces(calibration, frame, layout)
        calib.save(calibration, out)
    except calib.CalibrationError as error:
        print(f"companion calibrate: {error} The calibration file was left as it was.", file=sys.stderr)
        return 1
    except OSError as error:
        print(f"companion calibrate: the calibration could not be written to {out}: {disk_words(error)}. "
              "The calibration file was left as it was.", file=sys.stderr)
        return 1
    if not pieces:
        print("Note: without --pieces only empty squares and treasures can be recognised.", file=sys.stderr)
    print(f"Calibration written to {out} ({calibration.method}, {len(calibration.markers)} markers).")
    return 0
