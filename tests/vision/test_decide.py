"""How a changed square's two measures are weighed against each other (`vision.decide`)."""

from __future__ import annotations

from vision.decide import _Ranked, _verdict
from vision.reading import CellClass
from vision.tuning import TUNING

SURE = TUNING.min_confidence + 0.15


def test_a_leader_both_measures_are_sure_of_takes_its_colour_from_the_rings() -> None:
    """Leaders differ in colour only in a figure or a rim: the pixels, which weigh the symbol and
    outline all leaders share as much, may come nearer another colour's picture than the rings."""
    rings, pixels = _Ranked(CellClass.LEADER_BLUE, SURE), _Ranked(CellClass.LEADER_BLACK, SURE)
    verdict = _verdict(rings, pixels, False, TUNING.min_confidence)
    assert verdict.reading.cls is CellClass.LEADER_BLUE and not verdict.unchanged


def test_two_measures_sure_of_different_pieces_name_neither() -> None:
    """A tile or a leader, a leader or bare board: a guess there would be a move nobody made."""
    for rings, pixels in ((CellClass.LEADER_RED, CellClass.TILE_RED), (CellClass.TILE_GREEN, CellClass.TILE_BLACK),
                          (CellClass.CATASTROPHE, CellClass.LEADER_GREEN)):
        verdict = _verdict(_Ranked(rings, SURE), _Ranked(pixels, SURE), False, TUNING.min_confidence)
        assert verdict.reading.cls is CellClass.UNKNOWN, (rings, pixels)


def test_a_leader_only_the_rings_are_sure_of_is_still_unsure_where_they_have_little_to_spare() -> None:
    rings = _Ranked(CellClass.LEADER_BLUE, TUNING.min_confidence - 0.1)
    verdict = _verdict(rings, _Ranked(CellClass.LEADER_BLACK, SURE), False, TUNING.min_confidence)
    assert verdict.reading.cls is CellClass.LEADER_BLACK  # the pixels sure, the rings not: as before
