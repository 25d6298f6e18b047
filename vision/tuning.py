"""Every hand-set threshold of the reader, in one typed place.

Each job of the reader reads its own group (`TUNING.light`, `TUNING.first`, ...). The values were
tuned on the developed split of the benchmarks (the classic and modern pieces of `vision.sim.art`)
and are measured, never tuned, on the printings nobody tuned on (`vision.sim.unseen`). Comments
say what each value means and, where it was measured, what was seen. Sizes of pictures (pixels per
square of each look) are not thresholds: they stay with the job that works at them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LightTuning:
    """The light model (`vision.light`): how the light on every square differs from calibration."""

    lamp_tolerance: float = 0.04  # how far (in chroma) a square's change of colour may be from the lamp's
    clipped_small: float = 245  # a channel this bright at the light's 8 px per square is mostly clipped pixels
    # rms misfit, as a share of the brightness, of a bare square under smooth light: any square, and
    # one whose brightness and glare also agree with its neighbours'
    bare_misfit: tuple[float, float] = (0.025, 0.035)
    bare_gain: tuple[float, float] = (0.55, 1.6)  # a bare square's brightness, as a share of its neighbours'
    near: float = 0.35  # squares: the light is followed this closely where the bare board shows around a piece
    far: float = 1.5  # squares: ... and this loosely on a crowded part of the board
    prior: float = 0.03  # how much the looser estimate of the light weighs, as a share of a bare neighbourhood
    edge: float = 0.15  # squares: a bare square's edge is left out (a neighbour's piece may overhang it)
    spot_floor: float = 8.0  # grey levels of glare below which a pixel tells nothing of a glare spot's shape
    spot_peak: float = 25.0  # grey levels at its heart below which a glare spot is not worth modelling
    spot_evidence: float = 1.0  # squares' worth of bare board under a glare that a spot's shape is read from


@dataclass(frozen=True)
class FirstLookTuning:
    """The first look (`vision.first_look`): ring colours and textures against every example's."""

    scale_floor: float = 0.02  # smallest spread of a feature, so one sharp reference cannot dominate
    margin: float = 0.6  # how much further (as a share) the next class must be for full confidence
    far: float = 12.0  # a square further than this from every example looks like nothing we know
    surely_bare: float = 0.03  # a square this near its set-up self under a smooth light is that (pieces: > 0.035)
    empty_misfit: float = 0.07  # no bare square is further from its set-up self (measured: < 0.065)
    glare_doubt: float = 20.0  # grey levels of glare beyond which bare board must show its pattern closely
    named: float = 1.25  # how much further the nearest example of any other monument must be to name this one
    second_opinion: float = 0.9  # confidence below which the second look checks the reading


@dataclass(frozen=True)
class SecondLookTuning:
    """The second look (`vision.second_look`): every example's picture, pixel by pixel."""

    noise: tuple[float, float] = (5.0, 0.03)  # grey levels a pixel may be off by: sensor, and a share of brightness
    outlier: float = 9.0  # (noise units, squared) a pixel off by more is a neighbour's overhang, not the piece
    margin: float = 0.5  # how much worse (as a share) the next class must fit for the default confidence
    far: float = 3.0  # a fit worse than this (mean squared noise units) is nothing we know
    nearest: int = 12  # examples of each kind, the best by a rough fit, fitted closely (`_rough_loss`)
    pattern_fit: float = 0.6  # a bare square fits its own printed pattern this well; no hand or plain piece does
    # ... and this well at least, under the curved edge of a glare spot a linear glare does not follow
    # (measured: up to 2.1); only a face-down tile, which no set-up showed, and a hand fit as well
    bare_fit: float = 2.5
    # How firmly the light worked out from the board around a square holds against what the square
    # itself suggests: as many pixels' worth for the brightness, as a share of the pixels for the glare
    hold_brightness: float = 2.0
    hold_glare: float = 0.02
    hold_slope: float = 0.02  # as hold_glare, for how fast the extra glare changes across the square
    brightness_room: tuple[float, float] = (0.75, 1.33)  # the brightness on a piece against the board's around it
    glare_room: tuple[float, float] = (-25.0, 90.0)  # grey levels: ... and its glare (a spot's heart may hide)
    # The brightness on a square a tall piece beside it may shade (`shaded_fit_loss`): a figure's or
    # a monument's shadow under a lamp above the table leaves a third of the light or more.
    shade_room: tuple[float, float] = (0.35, 1.33)
    burnt_out: float = 0.7  # share of a square washed out beyond which no piece is named on it
    blind: float = 0.95  # ... and beyond which not even the bare board is: too little of its pattern is left


@dataclass(frozen=True)
class LeaderTuning:
    """Leaders (`vision.leaders`): the colour their middle shows and the dynasty their symbol shows."""

    # A coloured figure shows at least this share of its colour's steps (measured on the bench's
    # figures: 0.24 at the least; black ones a third of blue's, so a shadowed blue one stays possible)
    pale: float = 0.2
    # Two colours' middles are told apart when this many times the stray of one leader's middle
    # apart (the bench's classic and modern figures: 4.1 at the closest pair, black and blue)
    told_apart: float = 3.0
    # Percentile of how far the middle and rim rings' pixels of the calibration's bare squares lie
    # from their corners' board (`leaders.board_texture`) beyond which a pixel about a leader's
    # centre counts as the piece's: the table's own print and noise one pixel in a hundred. Chosen on
    # the developed split (classic, modern): 47.7 and 45.5 grey levels there, all leader colours told
    # apart in those pixels, the closest pair 6.0 and 3.6 strays apart (95th: 4.7, 3.2; 90th: modern's
    # black and blue not told apart). Its figures are solid, so no higher: a pale rim's pixels would
    # go with the board's art.
    board_texture: float = 99.0
    match: float = 0.6  # similarity (of what sets a symbol apart) below which no dynasty is named
    margin: float = 0.3  # lead over the best other dynasty needed to name one
    same_leader: float = 4.0  # grey levels: mean change of a leader's close-up that is only noise and light


@dataclass(frozen=True)
class ChangeTuning:
    """What changed since the agreed picture (`vision.change`)."""

    dark: float = 12.0  # grey levels: a part this dark in the agreed picture tells nothing of a change of gain
    spread: float = 3.0  # a part further than this many robust deviations from the smooth gain is an outlier
    least_spread: float = 0.004  # the smallest deviation of a log-gain that counts (a noiseless picture)
    # Parts measured per term of the smooth surface of light, fewer than which only its level is
    # fitted: least squares' rule of thumb of ten points a parameter, not tuned (a board seen
    # whole has 704 parts; one a lamp burnt out nearly everywhere, 13 in game 472).
    parts_per_term: int = 10
    smooth: float = 0.7  # px: the pictures are smoothed a little first, for the sensor's noise
    least_noise: float = 0.05  # squared grey levels: the least noise a square's difference is measured against
    # How many times its expected noise a square's difference must be to be changed. Measured on 12
    # rendered games: unchanged squares 0.8 (median), 27-61 (99th percentile); changed ones 145 at
    # least. Low on purpose: a change missed is a move unseen, a square flagged for nothing is read
    # again and found as agreed.
    changed: float = 6.0
    typical: float = 0.75  # the share of squares, the least different, taken as unchanged to measure noise
    # Parts (half squares) each way over which the light is followed beyond a smooth surface: a
    # shadow or a pool of light over more than half of 3.5 × 3.5 squares is followed, a few changed
    # squares (a monument's four are a third of them) are not.
    follow: int = 3
    # The least share of the agreed picture's contrast a part keeps under any light beyond the
    # smooth one. Measured on the developed split's games: under a hand held still half the parts
    # keep less than 0.2 (most of them none), elsewhere 0.3 % do (the parts of pieces put down).
    least_gain: float = 0.25


@dataclass(frozen=True)
class FollowTuning:
    """Reading what changed among what the rules allow (`vision.decide`, `Observer`)."""

    nearest: int = 12  # pictures of each class, the nearest in rings, fitted pixel by pixel
    # A class allowed but never seen counts as this far by rings, and as fitting this badly by pixels:
    # where a known match never lies (rings: 0.4-1.7 for the true class, 4-8 for the next one).
    unseen_rings: float = 6.0
    unseen_pixels: float = 3.0
    burnt_for_learning: float = 0.05  # share of a square clipped beyond which its picture is not learnt
    rim_moved: float = 0.1  # squares the grid may have moved since a rim was seen and it still be compared
    # A tile put down off-centre is measured again by rings around where it lies (`decide._centred`):
    # looked for this far (pixels of 16 a square) round its square, where the square differs from
    # its agreed bare picture by more than this (summed over B, G, R), over this share of it.
    recentre_px: int = 4
    recentre_differs: float = 60.0
    recentre_covers: float = 0.3
    # The least brightness (`second_look.fitted_brightness`) at which the agreed picture of a
    # square still fits it, beyond the light worked out there, where no figure or monument was
    # agreed around and no square around is darker too: only a tall piece casts a shadow on one
    # square. Developed split, squares flagged changed that had not: 0.98 at the least (0.96
    # beside a figure); where a piece was put down, the agreed picture fits it at 0.79 (median).
    still_darkest: float = 0.9
    # How much worse than the board's usual square (that did not change) a square beside a figure
    # put down may fit the agreed picture in a shadow (`decide.shadowed_misfit`) and still be
    # taken as agreed, where it fits as closely as the squares around it: near the board's edge
    # the light is followed less closely (1.16 times the usual, never-tuned-on game 482). Where
    # a lamp switched on, the squares around fit 7-10 times worse than the usual, and a tile put
    # down there fit its bare board in a shadow within 1.2 times of them (game 371). Twice: not tuned.
    shadow_fit: float = 2.0


@dataclass(frozen=True)
class Tuning:
    min_confidence: float = 0.5  # squares below it are reported unsure, never guessed
    clipped: float = 250  # a channel this bright is clipped: the sensor saw at least this much, maybe far more
    glare_clips: float = 30  # grey levels of glare beyond which a clipped channel says nothing of the piece
    washed: float = 0.3  # share of a square washed out beyond which it cannot be read
    dazzled: float = 0.05  # ... and beyond which a shorter exposure is worth a look
    # A monument's colours show on its quarters: on 177 monuments under the benchmark's light none
    # had fewer than two quarters whose colours were named, while a hand read as a monument names none.
    named_quarters: int = 2
    # How many times further from a block's colours the next monument's must be to name the
    # nearest: half what nine in ten of the developed split's 192 monuments showed (6), against
    # the 3 that share a colour (the right one was nearest every time, 188 of them at 3 or more).
    # At 2 a monument leaning out at the picture's top, its top beyond its block, was misnamed.
    # (Measured on the colour cube's histogram, before colours were taken regardless of brightness.)
    monument_apart: float = 3.0
    # ... and how many times further in those colours than the nearest is in all colours (a block
    # showing what no candidate showed at set-up). On the developed split's monuments named by
    # their block the next was 4.2 times or more; never-tuned-on game 423's red/green monument,
    # named red/black, 1.23. Of synthetic red monuments under lights 10 % off in tint, 281 named
    # right and 2 wrong (both below 1), at 1.5: 74 of the right left to ask, none wrong named.
    monument_near: float = 1.5
    # Grey levels added to each channel before a monument's colours are taken regardless of
    # brightness (`vision.monuments.colours`): a pixel about this dark leans halfway to grey, its
    # colour mostly noise and the camera's black level.
    monument_dark: float = 20.0
    # A temple square shows its treasure when this share of a set-up treasure's own colours shows on
    # it (`vision.treasures`): on the developed split's boards red tiles showed none (185 of 185),
    # treasures 0.91 at the median. No colour is a treasure's own when they fill less than
    # `treasure_least` of its square: the treasure is coloured like its tile.
    treasure_shown: float = 0.25
    treasure_least: float = 0.02
    # A marker the detector missed is not covered where its pattern shows this well (`aruco.shows`).
    # Measured: markers in plain view 0.82-1.0 (0.82 at 3-4 px a cell, blurred); beside a glare that
    # washed out the card's edge 0.91-1.0 (game 271's 0.998; 0.65-0.75 without the smooth light
    # taken away); other markers' patterns 0.4 at most; a hand over all of a marker 0.2 at most,
    # over half of it or most but between the fingers 0.48-0.72.
    marker_shown: float = 0.75
    light: LightTuning = LightTuning()
    first: FirstLookTuning = FirstLookTuning()
    second: SecondLookTuning = SecondLookTuning()
    leaders: LeaderTuning = LeaderTuning()
    change: ChangeTuning = ChangeTuning()
    follow: FollowTuning = FollowTuning()


TUNING = Tuning()
