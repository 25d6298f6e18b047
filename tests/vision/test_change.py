"""What changed since the agreed picture: the light measured on the squares that did not change."""

from __future__ import annotations

import numpy as np
from conftest import SIZE, calibrated

from vision import change, rectify
from vision.reading import CELLS, COLUMNS
from vision.sim import synthetic
from vision.sim.synthetic import Conditions, random_scene

PX = rectify.PX_PER_SQUARE


def board(seed: int = 1) -> np.ndarray:
    scene = random_scene(np.random.default_rng(seed))
    frame = synthetic.render(scene, size=SIZE, conditions=Conditions(noise_sigma=2.0), seed=seed).frame
    return rectify.rectify(frame, calibrated("classic").homography)


def relit(top_down: np.ndarray, gain: np.ndarray, noise: float, seed: int = 0) -> np.ndarray:
    """The picture under another light (a gain per channel at every pixel) with sensor noise."""
    rng = np.random.default_rng(seed)
    lit = top_down.astype(np.float32) * gain + rng.normal(0, noise, top_down.shape)
    return np.clip(np.rint(lit), 0, 255).astype(np.uint8)


def smooth_gain(shape: tuple[int, ...]) -> np.ndarray:
    """A lamp switched on to the right, a little warm: brighter and redder towards one side."""
    x = np.linspace(0, 1, shape[1], dtype=np.float32)[None, :, None]
    return np.broadcast_to((0.9 + 0.3 * x) * np.array([0.9, 1.0, 1.1], np.float32), shape).copy()


def square(top_down: np.ndarray, cell: int) -> np.ndarray:
    row, col = divmod(cell, COLUMNS)
    view: np.ndarray = top_down[row * PX : (row + 1) * PX, col * PX : (col + 1) * PX]
    return view


def test_a_smooth_change_of_light_is_measured_whatever_changed_on_a_few_squares() -> None:
    agreed = board()
    gain = smooth_gain(agreed.shape)
    now = relit(agreed, gain, noise=2.0)
    for cell in (20, 21, 90, 150):  # pieces put down or taken: unlike their agreed selves
        square(now, cell)[:] = (30, 200, 60)
    measured, glare = change.light_change(now, change.reference(agreed))
    assert np.abs(measured / gain - 1).max() < 0.03 and np.abs(glare).max() < 3


def test_a_piece_put_down_in_a_corner_is_no_change_of_light() -> None:
    """Each part's light is followed from the parts around it; a pale piece covering a corner
    square, or one in the middle, is left out of it like any changed square."""
    for seed in (1, 2):
        agreed = board(seed)
        gain = smooth_gain(agreed.shape)
        now = relit(agreed, gain, noise=2.0, seed=seed)
        pieces = (0, 15, 160, 175, 20, 90)
        for cell in pieces:  # a pale piece through which a little of the board's pattern shows
            square(now, cell)[:] = np.clip(0.35 * square(now, cell).astype(np.float32) + 140, 0, 255)
        measured, glare = change.light_change(now, change.reference(agreed))
        for cell in pieces:
            assert np.abs(square(measured, cell) / square(gain, cell) - 1).max() < 0.08, cell
            assert np.abs(square(glare, cell)).max() < 8, cell


def glare_spot(shape: tuple[int, ...], x: float, y: float, radius: float, peak: float) -> np.ndarray:
    """A lamp's reflection: white light added, brightest at (x, y) (shares of the picture)."""
    rows, cols = np.mgrid[0 : shape[0], 0 : shape[1]].astype(np.float32)
    spread = radius * shape[1]
    return peak * np.exp(-((cols - x * shape[1]) ** 2 + (rows - y * shape[0]) ** 2) / (2 * spread**2))


def test_a_lamp_s_reflection_coming_or_going_is_measured_as_white_light() -> None:
    """Switched on, a lamp adds its reflection, several squares across; switched off, it goes.
    Most of it is measured here (its steep heart is left to the reading of the squares flagged,
    which may each take some more glare); a multiplicative light alone would measure none."""
    plain = board(2)
    spot = glare_spot(plain.shape, 0.4, 0.5, 0.12, 90.0)
    glaring = np.clip(plain.astype(np.float32) + spot[..., None], 0, 255).astype(np.uint8)
    for before, after, sign in ((plain, glaring, 1), (glaring, plain, -1)):
        found = change.compare(relit(after, np.ones(after.shape, np.float32), noise=2.0), change.reference(before))
        centre = (slice(70, 100), slice(90, 120))  # unclipped land by the spot's middle, where it adds 70-90
        assert sign * float(np.median(found.glare[centre])) > 45
        far = (slice(0, 40), slice(200, 256))
        assert np.abs(found.glare[far]).max() < 3 and not found.changed.reshape(11, 16)[:2, 13:].any()


def test_only_the_squares_that_changed_stand_out_of_this_pictures_noise() -> None:
    agreed = board()
    reference = change.reference(agreed)
    for noise in (1.0, 6.0):  # the threshold follows the noise measured on this picture
        now = relit(agreed, smooth_gain(agreed.shape), noise=noise, seed=int(noise))
        assert not change.compare(now, reference).changed.any()
        square(now, 77)[4:12, 4:12] = square(now, 77)[4:12, 4:12] // 2 + 90  # a small piece put down
        assert list(np.flatnonzero(change.compare(now, reference).changed)) == [77]


def test_pieces_nudged_by_a_pixel_are_no_change_but_a_piece_moved_a_square_is() -> None:
    agreed = board()
    reference = change.reference(agreed)
    nudged = agreed.copy()
    shifted = np.roll(agreed, (1, -1), axis=(0, 1))  # about 2 mm each way
    for cell in range(16, 176, 5):  # a piece, or the board under it, nudged on a square in five
        square(nudged, cell)[:] = square(shifted, cell)
    assert not change.compare(nudged, reference).changed.any()
    moved = agreed.copy()
    square(moved, 40)[:] = square(agreed, 41)
    square(moved, 41)[:] = square(agreed, 40)
    assert set(np.flatnonzero(change.compare(moved, reference).changed)) == {40, 41}


def test_a_reflection_that_went_does_not_hide_a_faint_change_far_from_it() -> None:
    """A lamp's broad reflection switched off over the right of the board is undone only roughly
    there; what is left of it must not raise the noise expected on the squares it never reached,
    where a piece little unlike the square it covers (a tile on a river drawn in its colour) was
    put down. Pieces put down where the reflection was stand out still."""
    plain = board(2)
    spot = glare_spot(plain.shape, 0.8, 0.5, 0.25, 150.0)
    glaring = np.clip(plain.astype(np.float32) + spot[..., None], 0, 255).astype(np.uint8)
    now = relit(plain, np.ones(plain.shape, np.float32), noise=2.0)
    square(now, 20)[2:14, 2:14] = (square(now, 20)[2:14, 2:14] * 0.9).astype(np.uint8)  # 10 % darker
    for cell in (76, 92, 110):  # under the reflection's heart
        square(now, cell)[4:12, 4:12] = square(now, cell)[4:12, 4:12] // 2 + 90
    changed = change.compare(now, change.reference(glaring)).changed
    assert changed[[20, 76, 92, 110]].all()
    # Nothing else where the reflection added under 10 grey levels (further in, what is left of it
    # undone may stand out: a square flagged for nothing is read again and found as agreed).
    assert {int(c) for c in np.flatnonzero(changed) if c % COLUMNS < 3 or c == 20} == {20}


def test_a_reflection_burnt_out_over_much_of_the_board_that_went_does_not_hide_a_faint_change() -> None:
    """A lamp's reflection burnt out more than a quarter of the agreed picture, and it went: those
    squares differ by what is left of it undone, far more than any noise. A piece little unlike the
    square it covers, put down on the other side of the board, stands out still."""
    plain = board(2)
    spot = glare_spot(plain.shape, 0.3, 0.6, 0.15, 400.0)
    glaring = np.clip(plain.astype(np.float32) + spot[..., None], 0, 255).astype(np.uint8)
    clipped = rectify.cells(glaring).max(axis=3) >= 250
    assert np.count_nonzero(clipped.mean(axis=(1, 2)) >= 0.3) > CELLS // 4
    agreed = change.reference(glaring)
    now = relit(plain, np.ones(plain.shape, np.float32), noise=2.0)
    for cell in (79, 110):  # 10 % darker, far to the right
        square(now, cell)[2:14, 2:14] = (square(now, cell)[2:14, 2:14] * 0.9).astype(np.uint8)
    seen = change.compare(now, agreed)
    assert seen.changed[[79, 110]].all()
    assert np.count_nonzero(seen.changed) <= CELLS // 2  # followed, not read whole
