"""This table's own pieces, learnt as the game goes on.

Every time the game and the players agree on the board, the squares that changed since the
agreement before are pictures of this table's own pieces, under tonight's light, with their names
given by the game: the `Memory` keeps them (under the calibration light, as the pieces shown at
calibration are kept), so a piece the calibration showed badly, or never, is read from how it
looked earlier in the evening, and on the next evening with the same set.

It is bounded (`per_class` pictures of each class, the oldest going first, and `max_bytes` in
all) and kept in a file beside the calibration, written atomically (a temporary file, then a
rename) now and then, not at every move. A file that is damaged, of another format or made with
another calibration is left aside with the reason logged: the companion starts with an empty
memory, never with an error.
"""

from __future__ import annotations

import io
import logging
import time
import zipfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from vision import files
from vision.reading import CellClass, CellReading
from vision.rectify import PX_PER_SQUARE

log = logging.getLogger(__name__)

FORMAT = "tigris-companion-pieces"
VERSION = 1
PER_CLASS = 48  # pictures kept of each class
MAX_BYTES = 512 * 1024  # pictures kept in all, in bytes (about 680 squares)
SAVE_AFTER = (8, 120.0)  # written once this many new pictures wait, or once one waited this many seconds
# Bare board has its own printed pattern on each square, which the set-up picture shows: nothing to learn.
_NOT_LEARNT = frozenset({CellClass.EMPTY_LAND, CellClass.EMPTY_RIVER, CellClass.UNKNOWN})


class Memory:
    """Pictures of pieces (PX_PER_SQUARE square, BGR uint8, under the calibration light) with
    their class and, for a monument, its two colours. `calibration`: which calibration's light
    they are under (its creation time): another calibration's pictures are not used."""

    def __init__(
        self,
        path: Path | None = None,
        calibration: str = "",
        *,
        per_class: int = PER_CLASS,
        max_bytes: int = MAX_BYTES,
    ) -> None:
        self.path = path
        self.calibration = calibration
        self.per_class = per_class
        self.max_bytes = max_bytes
        self.looks = np.zeros((0, PX_PER_SQUARE, PX_PER_SQUARE, 3), np.uint8)
        self.classes: tuple[CellClass, ...] = ()
        self.monuments: tuple[tuple[str, str] | None, ...] = ()
        self.version = 0  # counts every change, so that what is made from the pictures is made again
        self._unsaved = 0
        self._waiting_since = 0.0

    def __len__(self) -> int:
        return len(self.classes)

    @property
    def nbytes(self) -> int:
        return int(self.looks.nbytes)

    def learn(self, looks: np.ndarray, readings: Sequence[CellReading]) -> None:
        """Keep these pictures (n × px × px × 3, calibration light) of what the game says they
        show; bare board and unknown squares are left out."""
        keep = [i for i, reading in enumerate(readings) if reading.cls not in _NOT_LEARNT]
        if not keep:
            return
        self.looks = np.concatenate([self.looks, np.asarray(looks, np.uint8)[keep]])
        self.classes += tuple(readings[i].cls for i in keep)
        self.monuments += tuple(readings[i].monument for i in keep)
        self._bound()
        self.version += 1
        if not self._unsaved:
            self._waiting_since = time.monotonic()
        self._unsaved += len(keep)

    def _bound(self) -> None:
        """The newest `per_class` of each class, and the oldest of the commonest class dropped
        while the pictures take more than `max_bytes`."""
        order = np.arange(len(self.classes))
        keep = np.ones(len(order), bool)
        for cls in set(self.classes):
            rows = [i for i, c in enumerate(self.classes) if c is cls]
            keep[rows[: max(0, len(rows) - self.per_class)]] = False
        size = self.looks[0].nbytes if len(self.looks) else 1
        while int(keep.sum()) * size > self.max_bytes:
            kept = [c for c, k in zip(self.classes, keep, strict=True) if k]
            commonest = max(set(kept), key=kept.count)
            keep[next(i for i, c in enumerate(self.classes) if c is commonest and keep[i])] = False
        self.looks = self.looks[keep]
        self.classes = tuple(c for c, k in zip(self.classes, keep, strict=True) if k)
        self.monuments = tuple(m for m, k in zip(self.monuments, keep, strict=True) if k)

    def save_now_and_then(self) -> bool:
        """Write the file when enough new pictures are waiting or one has waited long enough;
        whether it was written."""
        count, seconds = SAVE_AFTER
        if not self._unsaved or (self._unsaved < count and time.monotonic() - self._waiting_since < seconds):
            return False
        return self.save()

    def save(self) -> bool:
        """Write the file now (atomically), if there is one and something new to write; a disk
        that refuses is logged and the pictures stay in memory."""
        if self.path is None or not self._unsaved:
            return False
        buffer = io.BytesIO()
        np.savez_compressed(
            buffer,
            format=np.array(FORMAT),
            version=np.array(VERSION),
            calibration=np.array(self.calibration),
            looks=self.looks,
            classes=np.array([c.value for c in self.classes], dtype=str),
            monuments=np.array(["/".join(m) if m else "" for m in self.monuments], dtype=str),
        )
        try:
            files.write_atomic(self.path, buffer.getvalue())
        except OSError as error:
            log.warning("the pieces learnt tonight could not be saved to %s: %s", self.path, error)
            return False
        self._unsaved = 0
        return True

    @classmethod
    def load(cls, path: Path, calibration: str = "", **bounds: int) -> Memory:
        """The pictures kept in `path` for this calibration; an empty memory (the reason logged)
        when there is no such file or it cannot be used."""
        memory = cls(path, calibration, **bounds)
        if not path.exists():
            return memory
        try:
            with np.load(path, allow_pickle=False) as data:
                if str(data["format"]) != FORMAT or int(data["version"]) != VERSION:
                    raise ValueError("it is not a file of pieces of this version of the companion")
                if str(data["calibration"]) != calibration:
                    raise ValueError("it was learnt with another calibration")
                looks = np.asarray(data["looks"])
                classes = tuple(CellClass(str(value)) for value in data["classes"])
                monuments = tuple(_colours(str(value)) for value in data["monuments"])
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as error:
            log.warning("the pieces learnt earlier in %s are not used: %s", path, error)
            return memory
        if looks.dtype != np.uint8 or looks.shape[1:] != memory.looks.shape[1:] or not (
            len(looks) == len(classes) == len(monuments)
        ):
            log.warning("the pieces learnt earlier in %s are not used: their pictures do not fit", path)
            return memory
        memory.looks, memory.classes, memory.monuments = looks, classes, monuments
        memory._bound()
        return memory


def _colours(text: str) -> tuple[str, str] | None:
    if not text:
        return None
    first, second = text.split("/")
    return first, second
