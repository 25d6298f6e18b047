"""Calibrating at the table, when `companion run` finds no calibration it can use.

The screen says why the calibration cannot be used and offers to calibrate: the same two pictures
as `companion calibrate --camera pi` (the set-up position, then the pieces laid out), taken from
the running camera. The new calibration must read every laid-out piece where the layout puts it
before it is saved; otherwise the players hear which squares, and the old file is left as it was.
"""

from __future__ import annotations

import enum
import logging
from pathlib import Path

import numpy as np

from companion.app.calibrate import check_pieces
from companion.app.problems import disk_words
from companion.commands import UiCommand
from companion.ui import calibration as screens
from companion.ui.model import Screen, UiState
from vision import calibration as calib
from vision.reading import BoardReading

log = logging.getLogger(__name__)


class Step(enum.Enum):
    OFFER = "offer"  # why the camera cannot read the board; calibrate now or not now
    SETUP = "setup"  # waiting for the set-up position's picture
    PIECES = "pieces"  # waiting for the pieces' picture
    FAILED = "failed"


class Calibrating:
    """A phase of the main loop before the set-up or the resumed game (`then`), which follows it."""

    looking = ""  # no board reading is waited for: the pictures are taken when the players say

    def __init__(self, why: str, out: Path, board: str = "standard") -> None:
        self.why = why
        self.out = out
        self.board = board
        self.step = Step.OFFER
        self.ui = UiState()
        self.wants_picture = False  # the players pressed "Take the picture": the loop takes one
        self.finished = False  # calibrated (`calibration` holds it), or put off by the players
        self.calibration: calib.Calibration | None = None
        self._setup: np.ndarray | None = None
        self._layout = calib.pieces_layout(board)

    def screen(self) -> Screen:
        if self.step is Step.OFFER:
            return screens.offer(self.why, self.ui)
        if self.step is Step.FAILED:
            return screens.failed(self.why, self.ui)
        if self.wants_picture and self.step is Step.PIECES:
            return screens.working()
        if self.step is Step.SETUP:
            return screens.setup_picture(self.board, self.ui)
        layout = {cell: (piece.cls.value, piece.dynasty, piece.monument) for cell, piece in self._layout.items()}
        return screens.pieces_picture(self.board, layout, self.ui)

    def handle(self, command: UiCommand) -> None:
        command = self.screen().resolve(command) or command
        new_ui = self.ui.apply(command)
        if new_ui is not None:
            self.ui = new_ui
        elif command == screens.LATER:
            self.finished = True
        elif command == screens.CALIBRATE:
            self.step, self.ui, self._setup = Step.SETUP, UiState(), None
        elif command == screens.PICTURE and self.step in (Step.SETUP, Step.PIECES):
            self.wants_picture = True

    def on_reading(self, reading: BoardReading) -> None:
        """Readings are of no use without a calibration: the pictures come through `on_picture`."""

    def on_picture(self, frame: np.ndarray) -> None:
        """The picture the players asked for."""
        self.wants_picture = False
        if self.step is Step.SETUP:
            self._setup, self.step, self.ui = frame, Step.PIECES, UiState()
            return
        assert self._setup is not None
        try:
            made = calib.calibrate(self._setup, [(frame, self._layout)], self.board)
            check_pieces(made, frame, self._layout)
            calib.save(made, self.out)
        except calib.CalibrationError as error:
            self.failed(str(error))
            return
        except OSError as error:
            self.failed(f"The calibration could not be written to {self.out}: {disk_words(error)}.")
            return
        log.info("calibrated at the table: %s", self.out)
        self.calibration, self.finished = made, True

    def failed(self, why: str) -> None:
        log.warning("calibration: %s", why)
        self.why, self.step, self.ui, self.wants_picture = why, Step.FAILED, UiState(), False
