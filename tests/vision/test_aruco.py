"""A marker the detector missed, looked at where it lies (`aruco.shows`): its own pattern shows
there under any light, unless something covers it; no other marker's pattern does."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import SIZE

from vision import aruco
from vision.sim import synthetic
from vision.sim.synthetic import CameraPose, Conditions, Glare, Hand, Rendered, Scene
from vision.tuning import TUNING

SHOWN = TUNING.marker_shown
# A camera hung high and tilted, its picture blurred and noisy: the markers 3-4 px a cell.
HIGH = CameraPose(height_mm=820, hfov_deg=66, tilt_deg=20, yaw_deg=10)


def shot(conditions: Conditions | None = None, pose: CameraPose | None = None) -> Rendered:
    return synthetic.render(Scene.setup(), size=SIZE, pose=pose, conditions=conditions, seed=3)


def others(marker_id: int) -> list[int]:
    return [i for i in aruco.CORNER_IDS.values() if i != marker_id]


@pytest.mark.parametrize(("pose", "conditions"), [(None, None), (HIGH, Conditions(noise_sigma=5, blur_sigma=1.2))])
def test_a_marker_shows_its_own_pattern_and_no_other(pose: CameraPose | None, conditions: Conditions | None) -> None:
    rendered = shot(conditions, pose)
    for marker_id, corners in rendered.marker_corners.items():
        assert aruco.shows(rendered.frame, marker_id, corners) >= SHOWN, marker_id
        assert all(aruco.shows(rendered.frame, i, corners) < SHOWN for i in others(marker_id)), marker_id


@pytest.mark.parametrize("marker_id", aruco.CORNER_IDS.values())
def test_a_marker_shows_beside_a_glare_that_washes_out_its_card(marker_id: int) -> None:
    """A lamp's reflection on the table just beside the card washes out its white edge, and the
    detector misses the marker; the glare's light across the card is smooth, its pattern is not
    (taken as it is, the pattern showed 0.65-0.70 here)."""
    corners = shot().marker_corners[marker_id]
    middle, side = corners.mean(axis=0), float(np.linalg.norm(corners[1] - corners[0]))
    outward = middle - np.array(SIZE) / 2
    x, y = (middle + 0.8 * side * outward / np.linalg.norm(outward)) / np.array(SIZE)
    rendered = shot(Conditions(glare=Glare(float(x), float(y), 0.07, 1.0)))
    assert aruco.shows(rendered.frame, marker_id, corners) >= SHOWN
    assert all(aruco.shows(rendered.frame, i, corners) < SHOWN for i in others(marker_id))


@pytest.mark.parametrize("marker_id", aruco.CORNER_IDS.values())
@pytest.mark.parametrize("reach", [0.12, 0.15, 0.195])  # over half the marker, most of it (between the fingers), all
def test_a_hand_over_a_marker_hides_its_pattern(marker_id: int, reach: float) -> None:
    corners = shot().marker_corners[marker_id]
    middle = corners.mean(axis=0)
    edge = "left" if middle[0] < SIZE[0] / 2 else "right"
    rendered = shot(Conditions(hands=(Hand(edge=edge, along=float(middle[1] / SIZE[1]), reach=reach),)))
    x0, y0 = corners.min(axis=0).astype(int)
    x1, y1 = corners.max(axis=0).astype(int)
    assert rendered.hand_mask[y0:y1, x0:x1].mean() > 0.5
    assert aruco.shows(rendered.frame, marker_id, corners) < SHOWN
