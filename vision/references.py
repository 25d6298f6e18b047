"""What the squares and pieces looked like at calibration: the references every read compares with.

The player tells what each square holds at set-up and in the "show me your pieces" picture
(`Piece`); each square's picture, under the calibration light, is kept with its ring features
(`vision.rings`), and the spread of those features among pictures of one class says what "near"
means (`learn`).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from vision import leaders, monuments, picture, treasures
from vision.leaders import LEADERS, SIGNATURE, TILES
from vision.light import Light, cell_colours
from vision.reading import CELLS, COLUMNS, ROWS, CellClass
from vision.rectify import PX_PER_SQUARE, cells
from vision.rings import RINGS, features
from vision.second_look import coarse
from vision.tuning import TUNING

_IN_CALIBRATION = "A picture in the calibration"

_CLASSES = tuple(CellClass)
_BARE = (CellClass.EMPTY_LAND, CellClass.EMPTY_RIVER)


@dataclass(frozen=True, slots=True)
class Piece:
    """What a square holds, as the player tells it at calibration."""

    cls: CellClass
    dynasty: str | None = None
    monument: tuple[str, str] | None = None


class Known(Protocol):
    """What the player told us a square holds (vision.sim.synthetic.CellTruth fits)."""

    @property
    def cls(self) -> CellClass: ...
    @property
    def dynasty(self) -> str | None: ...
    @property
    def monument(self) -> tuple[str, str] | None: ...


@dataclass(frozen=True)
class References:
    """What the squares and pieces looked like at calibration."""

    board: np.ndarray  # the set-up board seen from above (uint8, PX_PER_SQUARE per square): the bare board's look
    prototypes: np.ndarray  # K × F: features of every example
    classes: tuple[CellClass, ...]  # K
    dynasties: tuple[str | None, ...]  # K
    monuments: tuple[tuple[str, str] | None, ...]  # K
    scale: np.ndarray  # F: the usual spread of each feature among patches of one square
    setup: tuple[CellClass, ...]  # what each square held at set-up, when `board` was seen
    looks: np.ndarray  # K × px × px × 3 (uint8): every example's picture under the calibration light
    dynasty_signatures: np.ndarray = field(default_factory=lambda: np.zeros((0, SIGNATURE), np.float32))
    dynasty_keys: tuple[tuple[CellClass, str], ...] = ()  # (leader class, dynasty) of each signature

    def __post_init__(self) -> None:
        labels = [c.value for c in self.classes]
        if labels != sorted(labels):
            raise ValueError("examples must be sorted by class")

    @functools.cached_property
    def empty(self) -> np.ndarray:
        """CELLS × 3: each square's mean colour on the set-up board."""
        return cell_colours(self.board)

    @functools.cached_property
    def coarse_looks(self) -> np.ndarray:
        """Every example's picture at the second look's size (K × LOOK_PX² · 3, float32)."""
        return coarse(self.looks)

    @functools.cached_property
    def monument_colours(self) -> dict[tuple[str, str], np.ndarray]:
        """How each monument shown at set-up spreads over the colours regardless of brightness
        (`monuments.colours`), over all its examples."""
        if CellClass.MONUMENT not in self.class_ranges:  # a set-up that showed no monument
            return {}
        names, codes = self.named(CellClass.MONUMENT, "monument")
        start, _ = self.class_ranges[CellClass.MONUMENT]
        return {name: monuments.colours(self.looks[start + np.flatnonzero(codes == i)]) for i, name in enumerate(names)}

    @functools.cached_property
    def treasure_colours(self) -> treasures.TreasureColours | None:
        """The colours only this table's treasures show (`treasures.learn`), None if there are none."""
        treasure, red = (self.looks[slice(*self.class_ranges.get(cls, (0, 0)))]
                         for cls in (CellClass.TREASURE, CellClass.TILE_RED))
        return treasures.learn(treasure, red, TUNING.treasure_least)

    @functools.cached_property
    def coarse_looks_squared(self) -> np.ndarray:
        """`coarse_looks`, each pixel squared: for fitting every example at once."""
        squared: np.ndarray = self.coarse_looks**2
        return squared

    @functools.cached_property
    def leader_colours(self) -> leaders.Colours:
        """Where this table's leaders show their colour and what each colour shows there: a solid
        figure in the middle, a pale disc only in its rim (`leaders.learn`)."""
        return leaders.learn({cls: each[:, :RINGS] for cls, each in self.examples_of(LEADERS).items()})

    @functools.cached_property
    def leader_rims(self) -> leaders.Colours:
        """What each colour of this table's leaders shows in the pixels about its centre unlike
        the board beside it (`leaders.colours`): a pale disc's thin rim, on whatever board."""
        return leaders.at_rings(self.examples_of(LEADERS), (RINGS,))._replace(unlike_board=self.unlike_board)

    @functools.cached_property
    def unlike_board(self) -> float:
        """Grey levels by which a pixel about a leader's centre must differ from the board beside
        it to count as the piece's: further than this table's bare squares, seen at calibration
        under its light, lie from their own corners (`leaders.board_texture`). A board printed
        with more grain or art, or seen with more noise, asks more."""
        return leaders.board_texture(self.looks[[i for i, c in enumerate(self.classes) if c in _BARE]])

    @functools.cached_property
    def tile_colours(self) -> leaders.Colours:
        """Where this table's tiles show their colour, wherever the printing puts it (a tile all of
        one colour, a coloured disc, a frame), and what each colour shows there: in the rings (a
        tile fills its square: no board shows beside it)."""
        return leaders.learn({cls: each[:, :RINGS] for cls, each in self.examples_of(TILES).items()})

    def colours_of(self, cls: CellClass) -> leaders.Colours | None:
        """The colours of `cls`'s kind as a piece put down is checked against them: a leader's in
        its pixels unlike the board beside it (`leader_rims`), a tile's in its rings; None for
        other pieces."""
        return self.leader_rims if cls.is_leader else self.tile_colours if cls.is_tile else None

    def examples_of(self, kinds: tuple[CellClass, ...]) -> dict[CellClass, np.ndarray]:
        """Each of `kinds` shown at calibration: its examples' mean colour (BGR) in every ring
        (`vision.rings`) and in the pixels unlike the board (`leaders.colours`), examples ×
        regions × 3."""
        examples = {}
        for cls in kinds:
            rows = [i for i, c in enumerate(self.classes) if c is cls]
            if rows:
                examples[cls] = leaders.colours(self.looks[rows], self.unlike_board)
        return examples

    @functools.cached_property
    def coarse_board(self) -> np.ndarray:
        """Every square of the set-up board at the second look's size (CELLS × LOOK_PX² · 3)."""
        return coarse(cells(self.board, PX_PER_SQUARE))

    @functools.cached_property
    def class_codes(self) -> np.ndarray:
        """Every example's class as its index in _CLASSES, for numpy to compare."""
        return np.array([_CLASSES.index(c) for c in self.classes])

    @functools.cached_property
    def kind_codes(self) -> np.ndarray:
        """Every example's kind: its class code, or for a named monument's quarter one code per
        monument, so that a short list keeps every monument to weigh each against the others."""
        kinds: np.ndarray = self.class_codes.copy()
        if CellClass.MONUMENT not in self.class_ranges:  # a set-up that showed no monument
            return kinds
        _, codes = self.named(CellClass.MONUMENT, "monument")
        start, _ = self.class_ranges[CellClass.MONUMENT]
        named = np.flatnonzero(codes >= 0)
        kinds[start + named] = len(_CLASSES) + codes[named]
        return kinds

    def second_look_rows(self, setup: CellClass) -> np.ndarray:
        """The examples a square that held `setup` at set-up is compared with at the second look:
        every piece; bare board only as its own printed pattern (added by the caller), except on a
        temple's square, whose bare look was shown with the temples lifted off, and whose treasure
        may stand anywhere on its temple: there every temple's treasure counts."""
        if setup not in self._rows:
            self._rows[setup] = np.array(
                [
                    i
                    for i, c in enumerate(self.classes)
                    if c not in (*_BARE, CellClass.TREASURE)
                    or (setup is CellClass.TREASURE and c in (CellClass.EMPTY_LAND, CellClass.TREASURE))
                ],
                dtype=np.intp,
            )
        return self._rows[setup]

    @functools.cached_property
    def _rows(self) -> dict[CellClass, np.ndarray]:
        return {}

    @functools.cached_property
    def scaled_prototypes(self) -> np.ndarray:
        scaled: np.ndarray = (self.prototypes / self.scale).astype(np.float32)
        return scaled

    @functools.cached_property
    def prototype_norms(self) -> np.ndarray:
        norms: np.ndarray = (self.scaled_prototypes**2).sum(axis=1)
        return norms

    @functools.cached_property
    def own_spread(self) -> dict[CellClass, float]:
        """How far, by rings (`scaled_prototypes`), this table's pictures of each class lie from
        one another: the furthest any of them lies from its nearest fellow. A square that near
        a class's pictures looks as that class's own pieces do here."""
        spread = {}
        for cls, (start, end) in self.class_ranges.items():
            each, norms = self.scaled_prototypes[start:end], self.prototype_norms[start:end]
            if len(each) > 1:
                squared = norms[:, None] - 2 * each @ each.T + norms[None, :]  # no K×K×F array
                np.fill_diagonal(squared, np.inf)
                spread[cls] = float(np.sqrt(max(float(squared.min(axis=1).max()), 0.0)))
        return spread

    def named(self, cls: CellClass, kind: str) -> tuple[list[Any], np.ndarray]:
        """The dynasties or monuments (kind) among a class's examples, and each example's index
        into them (-1: not named)."""
        key = (cls, kind)
        if key not in self._named:
            start, end = self.class_ranges[cls]
            values = (self.dynasties if kind == "dynasty" else self.monuments)[start:end]
            names = sorted({v for v in values if v is not None})
            self._named[key] = (names, np.array([names.index(v) if v is not None else -1 for v in values]))
        return self._named[key]

    @functools.cached_property
    def _named(self) -> dict[tuple[CellClass, str], tuple[list[Any], np.ndarray]]:
        return {}

    @functools.cached_property
    def class_ranges(self) -> dict[CellClass, tuple[int, int]]:
        """Where the examples of each class lie (examples are sorted by class)."""
        starts = [int(i) for i in self.class_starts] + [len(self.classes)]
        return {self.classes[a]: (a, b) for a, b in itertools.pairwise(starts)}

    @functools.cached_property
    def class_starts(self) -> np.ndarray:
        """Index of the first example of each class (examples are sorted by class)."""
        labels = [c.value for c in self.classes]
        return np.array([i for i, label in enumerate(labels) if i == 0 or labels[i - 1] != label])

    def to_json(self) -> dict[str, Any]:
        return {
            "leaders": [
                {"class": cls.value, "dynasty": dynasty, "signature": np.round(signature, 4).tolist()}
                for (cls, dynasty), signature in zip(self.dynasty_keys, self.dynasty_signatures, strict=True)
            ],
            "px_per_square": PX_PER_SQUARE,
            "board": picture.to_text(self.board),
            "looks": picture.to_text(self.looks.reshape(-1, PX_PER_SQUARE, 3)),
            "scale": np.round(self.scale, 5).tolist(),
            "setup": [cls.value for cls in self.setup],
            "examples": [
                {
                    "class": cls.value,
                    "dynasty": dynasty,
                    "monument": list(monument) if monument else None,
                    "features": np.round(proto, 4).tolist(),
                }
                for cls, dynasty, monument, proto in zip(
                    self.classes, self.dynasties, self.monuments, self.prototypes, strict=True
                )
            ],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> References:
        if data.get("px_per_square") != PX_PER_SQUARE:
            raise ValueError("px_per_square")
        examples = data["examples"]
        board = picture.from_text(data["board"], _IN_CALIBRATION)
        if board.shape != (ROWS * PX_PER_SQUARE, COLUMNS * PX_PER_SQUARE, 3) or not examples:
            raise ValueError("board")
        looks = picture.from_text(data["looks"], _IN_CALIBRATION)
        if looks.shape != (len(examples) * PX_PER_SQUARE, PX_PER_SQUARE, 3):
            raise ValueError("looks")
        return cls(
            board=board,
            prototypes=np.array([e["features"] for e in examples], dtype=np.float32),
            classes=tuple(CellClass(e["class"]) for e in examples),
            dynasties=tuple(e["dynasty"] for e in examples),
            monuments=tuple(tuple(e["monument"]) if e["monument"] else None for e in examples),
            scale=np.array(data["scale"], dtype=np.float32),
            setup=_setup(data["setup"]),
            looks=looks.reshape(len(examples), PX_PER_SQUARE, PX_PER_SQUARE, 3),
            dynasty_signatures=np.array([e["signature"] for e in data.get("leaders", [])], dtype=np.float32).reshape(
                -1, SIGNATURE
            ),
            dynasty_keys=tuple((CellClass(e["class"]), str(e["dynasty"])) for e in data.get("leaders", [])),
        )


def _setup(values: Sequence[str]) -> tuple[CellClass, ...]:
    setup = tuple(CellClass(v) for v in values)
    if len(setup) != CELLS:
        raise ValueError("setup")
    return setup


def learn(
    board: np.ndarray,
    setup: Sequence[Known],
    patches: np.ndarray,
    lights: Light,
    known: Sequence[Known],
    nudged: Sequence[bool],
) -> References:
    """References from square patches whose content the player told us.

    board: the set-up board seen from above (`rectify`), and what each square held (`setup`);
    patches (n, px, px, 3)
    with the light on each (one row per patch) and what they hold; nudged: whether a patch was cut off-centre
    or turned, to show how a piece put down carelessly looks. Those extra patches widen what each
    class may look like; the spread of the features (what counts as "near") is learnt from the
    plain ones only: the many squares of empty land, river and treasure at set-up.
    """
    prototypes = features(patches, lights)
    looks = np.clip(np.rint(lights.undo(patches.astype(np.float32))), 0, 255).astype(np.uint8)
    plain = ~np.asarray(nudged, dtype=bool)
    labels = np.array([k.cls.value for k in known])
    scale = _spread_within(prototypes[plain], labels[plain])
    order = sorted(range(len(known)), key=lambda i: known[i].cls.value)
    return References(
        board=board,
        prototypes=prototypes[order],
        classes=tuple(known[i].cls for i in order),
        dynasties=tuple(known[i].dynasty for i in order),
        monuments=tuple(known[i].monument for i in order),
        scale=scale,
        setup=tuple(piece.cls for piece in setup),
        looks=looks[order],
    )


def _spread_within(prototypes: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """The usual deviation of a feature within a class, pooled over classes, plus a floor."""
    deviations = [prototypes[labels == label] - prototypes[labels == label].mean(axis=0) for label in set(labels)]
    pooled = np.concatenate(deviations)
    spread: np.ndarray = np.sqrt((pooled**2).mean(axis=0)) + TUNING.first.scale_floor
    return spread.astype(np.float32)
