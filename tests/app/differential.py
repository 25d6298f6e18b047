"""An observer double that reads as issue 12's contract says (VISION-CONTRACT.md), over a board
given square by square instead of pictures.

A square unchanged since the board the game last agreed with keeps its agreed label; a changed one
is named by `naming` (a classifier, right or wrong) among the candidates the companion gave and the
square's agreed class, or reported unsure, never as a class outside them. Before the first
agreement every square is named (an absolute read). It also stands in for the demo's camera
(`look`, `again`), and keeps what the companion got wrong in what it told it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from companion.rules import cell_name
from companion.tracker import Look
from vision.reading import CELLS, BoardReading, CellClass, CellReading, ReadStatus

Naming = Callable[[int, Look], CellClass]


def right(cell: int, look: Look) -> CellClass:
    return look.cls


class Differential:
    read_ms = 0.0

    def __init__(self, board: Sequence[Look], naming: Naming = right) -> None:
        self.board = list(board)  # what the table shows now
        self.naming = naming
        self.tall: frozenset[int] = frozenset()
        self.excused: frozenset[int] = frozenset()
        self.unexplained: frozenset[int] = frozenset()
        self.face_down: frozenset[int] | None = None
        self.candidates: tuple[frozenset[CellClass], ...] | None = None
        self.last: tuple[Look, ...] | None = None  # the board of the last reading
        self.reference: tuple[Look, ...] | None = None  # the board of the agreed picture
        self.labels: tuple[CellReading, ...] = ()
        self.reads = self.absolute = self.agreements = 0
        self.wrong_labels: list[str] = []  # agreed labels the agreed board does not show
        self.excluded: list[str] = []  # changed squares whose true class was not a candidate
        self.setups: list[tuple[CellReading, ...]] = []  # the set-up positions the companion said to expect

    @property
    def observer(self) -> Differential:
        return self

    def agree(self, shown: Sequence[CellReading]) -> None:
        assert self.last is not None, "an agreement before any reading"
        self.reference, self.labels = self.last, tuple(shown)
        self.agreements += 1
        self.wrong_labels += [f"{cell_name(cell)}: agreed {label.cls.value}, shows {look.cls.value}"
                              for cell, (label, look) in enumerate(zip(shown, self.last, strict=True))
                              if label.cls is not look.cls]

    def expect_setup(self, shown: Sequence[CellReading]) -> None:
        self.setups.append(tuple(shown))  # what it was told; it reads the board whole until an agreement

    def read(self) -> BoardReading:
        reference = self.reference
        changed = tuple(c for c in range(CELLS) if reference is None or self.board[c] != reference[c])
        cells = list(self.labels) if reference is not None else [CellReading(CellClass.UNKNOWN, 0.0)] * CELLS
        for cell in changed:
            cells[cell] = self._name(cell)
        self.last = tuple(self.board)
        self.reads += 1
        self.absolute += reference is None
        unsure = tuple(c for c, seen in enumerate(cells) if seen.cls is CellClass.UNKNOWN)
        return BoardReading(ReadStatus.OK, tuple(cells), board_found=True, low_confidence=unsure,
                            changed=None if reference is None else changed)

    def _name(self, cell: int) -> CellReading:
        look = self.board[cell]
        agreed = {self.labels[cell].cls} if self.labels else set()
        allowed = None if self.candidates is None else self.candidates[cell] | agreed
        if allowed is not None and look.cls not in allowed:
            self.excluded.append(f"{cell_name(cell)} shows {look.cls.value}, not a candidate")
        named = self.naming(cell, look)
        if named is CellClass.UNKNOWN or (allowed is not None and named not in allowed):
            return CellReading(CellClass.UNKNOWN, 0.3)
        return CellReading(named, 0.95, look.dynasty, look.monument)

    # --- the demo's camera (companion.sim.demo.Eyes) ----------------------------------------------

    def look(self, looks: Sequence[Look], *, hand: bool = True) -> BoardReading:
        self.board = list(looks)
        return self.read()

    def again(self) -> BoardReading:
        return self.read()
