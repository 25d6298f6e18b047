"""What the reader must survive at real tables (issue 12, section 4), on rendered frames with ground
truth, following a game as the controller has it followed: printings nobody tuned on
(`vision.sim.unseen`), each calibrated as a new user would under its own evening's light, and the
developed editions with pieces turned and nudged further than hands usually do. Whatever the
table, a square is read right or reported unsure, never read wrong, and a board with no hand over
it is not refused."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import replace

import cv2
import numpy as np
import pytest
from conftest import SIZE, shadowed

from companion.sim.eyes import synthetic_calibration
from vision import calibration as calib
from vision import gate, geometry, leaders, monuments, rectify
from vision.camera import DARKER
from vision.observer import Observer
from vision.reading import CELLS, COLUMNS, BoardReading, CellClass, CellReading
from vision.rectify import PX_PER_SQUARE
from vision.sim import synthetic, unseen
from vision.sim.perturbations import Shadow
from vision.sim.synthetic import CameraPose, CellTruth, Conditions, Scene, Style
from vision.sim.unseen import Printing
from vision.sim.unseen_art import LeaderArt, Pattern, RiverArt, Surface

LEADERS = tuple(cls for cls in CellClass if cls.is_leader)


def printing_where(wanted: Callable[[Printing], bool]) -> Printing:
    """The first printing (by seed) with the look a test is about."""
    return next(p for p in map(unseen.random_printing, range(1, 500)) if wanted(p))


@functools.cache
def calibrated(style: Style, pose: CameraPose, light: Conditions, size: tuple[int, int] = SIZE) -> calib.Calibration:
    """Calibrated as players do: the set-up, then the pieces laid out, under the table's light."""
    setup = synthetic.render(Scene.setup(), style=style, size=size, pose=pose, conditions=light, seed=1)
    layout = calib.pieces_layout()
    shown = Scene.setup().with_cells({c: CellTruth(p.cls, p.dynasty, p.monument) for c, p in layout.items()})
    pieces = synthetic.render(shown, style=style, size=size, pose=pose, conditions=light, seed=2)
    return calib.calibrate(setup.frame, [(pieces.frame, layout)])


class Table:
    """One table: a printing (or an edition), a camera hung where it is, the evening's light; its
    pictures half the HQ camera's still unless told (`size`)."""

    def __init__(self, style: Style, seed: int = 3, pose: CameraPose | None = None,
                 light: Conditions | None = None, size: tuple[int, int] = SIZE) -> None:
        rng = np.random.default_rng(seed)
        self.style = style
        self.size = size
        if isinstance(style, str):
            self.pose = pose or CameraPose()
            self.light = light or Conditions(noise_sigma=3.0, piece_jitter=0.04, placement=1)
        else:
            self.pose = pose or unseen.random_pose(rng, style, size)
            self.light = light or unseen.evening(rng)
        self.observer = Observer(calibrated(style, self.pose, self.light, size))
        self.shots = 0

    @classmethod
    def of_game(cls, seed: int, table_seed: int = 3) -> Table:
        """The table of never-tuned-on game `seed` of `bench game --split unseen`: its printing,
        where its camera hangs and its evening's light, at the HQ camera's still size as the game
        was filmed."""
        size = (2028, 1520)
        printing, pose, light = unseen.game_table(seed, size)
        return cls(printing, table_seed, pose=pose, light=light, size=size)

    def on_edge(self, edge: str, along: float) -> np.ndarray:
        """The point of the grid's `edge` (top, right, bottom, left: clockwise) `along` its length,
        in the picture's pixels."""
        homography = self.pose.table_to_image(self.size) @ synthetic.board_to_table(self.light)
        mm = geometry.grid_corners_mm().reshape(-1, 1, 2).astype(np.float64)
        corners = cv2.perspectiveTransform(mm, homography).reshape(-1, 2).astype(np.float32)
        start, end = {"top": (0, 1), "right": (1, 2), "bottom": (2, 3), "left": (3, 0)}[edge]
        point: np.ndarray = corners[start] + along * (corners[end] - corners[start])
        return point

    def frame(self, scene: Scene, conditions: Conditions | None = None) -> np.ndarray:
        self.shots += 1
        return synthetic.render(scene, style=self.style, size=self.size, pose=self.pose,
                                conditions=conditions or self.light, seed=self.shots).frame

    def follow(self, boards: list[Scene], conditions: Conditions | None = None) -> list[BoardReading]:
        """The set-up read and agreed, then each board read after the one before was agreed."""
        first = self.observer.read(self.frame(Scene.setup()))
        assert first.ok, first.message
        self.observer.agree(shown(Scene.setup()))
        readings = []
        for board in boards:
            reading = self.observer.read(self.frame(board, conditions))
            readings.append(reading)
            assert reading.ok, reading.message  # no hand: never refused
            self.observer.agree(shown(board))
        return readings


def shown(scene: Scene) -> list[CellReading]:
    return [CellReading(t.cls, 1.0, t.dynasty, t.monument) for t in scene.cells]


def silent(scene: Scene, reading: BoardReading) -> list[tuple[int, str, str]]:
    return [(c, t.cls.value, r.cls.value) for c, (t, r) in enumerate(zip(scene.cells, reading.cells, strict=True))
            if r.cls not in (t.cls, CellClass.UNKNOWN)]


def unsure(scene: Scene, reading: BoardReading) -> int:
    return sum(r.cls is CellClass.UNKNOWN and t.cls is not CellClass.UNKNOWN
               for t, r in zip(scene.cells, reading.cells, strict=True))


def moves(count: int, seed: int) -> list[Scene]:
    """Boards one after another, each with a piece more: tiles (blue ones on the river), leaders,
    a catastrophe; random squares."""
    rng = np.random.default_rng(seed)
    board = Scene.setup()
    rivers = geometry.river_cells()
    boards = []
    for _ in range(count):
        free = [c for c, t in enumerate(board.cells) if t.cls in (CellClass.EMPTY_LAND, CellClass.EMPTY_RIVER)]
        cell = int(rng.choice(free))
        if cell in rivers:
            piece = CellTruth(CellClass.TILE_BLUE)
        else:
            kinds = [CellClass.TILE_RED, CellClass.TILE_GREEN, CellClass.TILE_BLACK, CellClass.CATASTROPHE, *LEADERS]
            kind = kinds[int(rng.integers(len(kinds)))]
            piece = CellTruth(kind, dynasty="bull" if kind.is_leader else None)
        board = board.with_cells({cell: piece})
        boards.append(board)
    return boards


@pytest.mark.parametrize("river", list(RiverArt))
def test_a_printing_nobody_tuned_on_is_followed_whatever_its_river(river: RiverArt) -> None:
    """A river printed as blue squares, or drawn across land-coloured squares."""
    table = Table(printing_where(lambda p: p.board.river is river))
    boards = moves(12, seed=5)
    readings = table.follow(boards)
    assert [silent(b, r) for b, r in zip(boards, readings, strict=True)] == [[]] * len(boards)
    assert sum(unsure(b, r) for b, r in zip(boards, readings, strict=True)) <= 2


@pytest.mark.parametrize("seed", [0, 149])
def test_leaders_whose_colour_shows_only_in_a_rim_are_never_named_another_colour(seed: int) -> None:
    """Also named, not left unsure: at printing 149 the figures' middles left one of these
    leaders unsure before their colour was looked for in the rim."""
    table = Table(printing_where(lambda p: p.pieces.leader is LeaderArt.RIM and p.seed >= seed))
    land = [c for c, t in enumerate(Scene.setup().cells) if t.cls is CellClass.EMPTY_LAND]
    table.observer.candidates = tuple(frozenset(LEADERS) | {CellClass.EMPTY_LAND} if c in land
                                      else frozenset({Scene.setup().cells[c].cls}) for c in range(CELLS))
    rng = np.random.default_rng(8)
    boards = [Scene.setup().with_cells({int(c): CellTruth(LEADERS[i % 4], dynasty="pot")
                                        for i, c in enumerate(rng.choice(land, 4, replace=False))})
              for _ in range(4)]
    readings = table.follow(boards)
    assert [silent(b, r) for b, r in zip(boards, readings, strict=True)] == [[]] * len(boards)
    assert sum(unsure(b, r) for b, r in zip(boards, readings, strict=True)) == 0


def test_a_rim_leader_is_named_its_colour_on_whatever_board_it_stands() -> None:
    """Never-tuned-on game 371's pale discs, their coloured rim a pixel wide in a square's picture:
    the rim ring is mostly the board beside the disc, and a river drawn across the land colours
    the board unlike the squares the calibration showed the leaders on. The rim ring there was
    nearer green than blue for a blue leader: the blue ones off squares 21 and 33, which both
    looks took for green, were named green, and the black and the blue ones off squares 15 and 16
    were left unsure. The pixels about the centre unlike the board are the disc's, whatever the
    board: a leader is named no colour they clearly deny, and the colour one look names where they
    name it too with much to spare. (The blue one off 21 and the green one off 26 are left unsure:
    both looks lean to another colour, or the rim shows its own without much to spare.)"""
    table = Table.of_game(371)
    land = [c for c, t in enumerate(Scene.setup().cells) if t.cls is CellClass.EMPTY_LAND]
    table.observer.candidates = tuple(frozenset(LEADERS) | {CellClass.EMPTY_LAND} if c in land
                                      else frozenset({Scene.setup().cells[c].cls}) for c in range(CELLS))
    put = [(26, CellClass.LEADER_GREEN, "pot"), (21, CellClass.LEADER_BLUE, "pot"),
           (15, CellClass.LEADER_BLACK, "pot"), (1, CellClass.LEADER_RED, "pot"), (16, CellClass.LEADER_BLUE, "bull"),
           (2, CellClass.LEADER_GREEN, "bull"), (18, CellClass.LEADER_RED, "bull"), (33, CellClass.LEADER_BLUE, "lion"),
           (66, CellClass.LEADER_RED, "lion")]
    boards = [Scene.setup().with_cells({c: CellTruth(cls, dynasty=d) for c, cls, d in put[: k + 1]})
              for k in range(len(put))]
    readings = table.follow(boards)
    assert [silent(b, r) for b, r in zip(boards, readings, strict=True)] == [[]] * len(boards)
    named = {c: reading.cells[c].cls for (c, _, _), reading in zip(put, readings, strict=True)}
    assert [named[c] for c in (15, 1, 16, 2, 18, 33, 66)] == [
        CellClass.LEADER_BLACK, CellClass.LEADER_RED, CellClass.LEADER_BLUE, CellClass.LEADER_GREEN,
        CellClass.LEADER_RED, CellClass.LEADER_BLUE, CellClass.LEADER_RED]


def test_a_rim_leader_is_told_by_its_rim_where_its_middle_shows_no_colour() -> None:
    """Pale discs with a coloured rim have alike middles: their colour is looked for in the rings
    where the calibration's examples tell the colours apart best, not the middle alone, where more
    colours are told apart than in the middle; a colour as one colour's examples show it there
    agrees with that colour and rules out those it is told from. The developed figures' colours
    are all told apart."""
    references = Table(printing_where(lambda p: p.pieces.leader is LeaderArt.RIM)).observer.calibration.references
    assert references is not None
    pairs = [(a, b) for a in LEADERS for b in LEADERS if a is not b]

    examples = references.examples_of(LEADERS)

    def told(rings: tuple[int, ...]) -> set[tuple[CellClass, CellClass]]:
        return {(a, b) for a, b in pairs if leaders.told_apart(a, b, leaders.at_rings(examples, rings))}

    kind = references.leader_colours
    assert kind.rings != (0,)
    assert len(told(kind.rings)) > len(told((0,)))
    white = np.ones(3, np.float32)
    for a, b in told(kind.rings):
        shown = kind.each[b]
        assert leaders.colour_agrees(b, shown, 1.0, white, kind, 1.0), b
        if a is CellClass.LEADER_BLACK or b is not CellClass.LEADER_BLACK:
            assert not leaders.colour_agrees(a, shown, 1.0, white, kind, 1.0), (a, b)
    for style in ("classic", "modern"):
        developed = Table(style).observer.calibration.references
        assert developed is not None
        assert all(leaders.told_apart(a, b, developed.leader_colours) for a, b in pairs)


def test_a_rim_leader_whose_rim_and_rings_name_two_colours_surely_is_neither() -> None:
    """Never-tuned-on game 1034 (pale discs with a coloured rim, a river drawn across the land, on a
    dark table): the first move put a green leader on G3. The rings named it green at 1.0; its rim,
    against the board's print around it, named it blue at 1.0, and the game took a blue leader. The
    two disagree surely: either may be wrong, and the square is unsure."""
    table = Table.of_game(1034)
    board = Scene.setup().with_cells({38: CellTruth(CellClass.LEADER_GREEN, dynasty="bull")})
    [reading] = table.follow([board])
    assert silent(board, reading) == []


@pytest.mark.parametrize(("square", "piece"), [(57, CellClass.TILE_BLACK), (155, CellClass.TILE_RED),
                                             (26, CellClass.LEADER_BLACK)])
def test_a_solid_tile_and_a_flat_figure_of_its_colour_are_told_apart_by_rings_near_their_own(
    square: int, piece: CellClass
) -> None:
    """Never-tuned-on game 1064 (solid tiles, flat discs of the same colours, a river drawn across
    the land): a tile and a leader of one colour differ only about the square's corners. The
    rings named each piece put down right at 1.0, as near it as the table's own pictures of it
    lie to one another; the pixels leaned to the other kind, not surely, and the players were
    asked at 11 of 146 moves. The rings so near their piece are believed."""
    table = Table.of_game(1064)
    board = Scene.setup().with_cells({square: CellTruth(piece, dynasty="bull" if piece.is_leader else None)})
    [reading] = table.follow([board])
    assert reading.cells[square].cls is piece


def test_a_leader_nearer_a_colour_not_told_from_its_own_is_named_only_surely() -> None:
    """Printing 172's blue and green rims are alike (never-tuned-on game 172: its first leader, a
    green disc, was read as blue at 0.62 and the game went on with a leader nobody put down). Where
    the ring is nearest a colour the calibration does not tell from the one read, the looks must
    be sure with much to spare, and the ring not surely nearer the other colour (never-tuned-on
    game 1148: a black-framed tile twelve times nearer the black tiles' colour, green to the
    pixels at 0.96, silently); nearest its own colour, the ring agrees however sure they are."""
    references = Table(unseen.random_printing(172)).observer.calibration.references
    assert references is not None
    white = np.ones(3, np.float32)
    kind = references.leader_colours
    alike = [(a, b) for a in LEADERS for b in LEADERS if a is not b and not leaders.told_apart(a, b, kind)]
    assert (CellClass.LEADER_BLUE, CellClass.LEADER_GREEN) in alike
    for a, b in alike:
        shown = kind.each[b]
        assert leaders.colour_agrees(b, shown, 1.0, white, kind, 0.6)
        assert not leaders.colour_agrees(a, shown, 1.0, white, kind, 0.6)
        assert not leaders.colour_agrees(a, shown, 1.0, white, kind, 0.95)
        between = 0.45 * kind.each[a] + 0.55 * kind.each[b]
        assert leaders.colour_agrees(a, between, 1.0, white, kind, 0.95)
        assert not leaders.colour_agrees(a, between, 1.0, white, kind, 0.6)


def test_a_narrow_border_and_things_beside_the_board_do_not_stop_the_reading() -> None:
    """A border of a few millimetres: beyond it the rim is the table, where the marker cards lie
    and where players put things down between moves."""
    table = Table(printing_where(lambda p: p.board.border_mm < 8))
    boards = moves(6, seed=7)
    table.follow(boards[:3])
    x, y = table.on_edge("bottom", 0.4)
    for board in boards[3:]:
        frame = table.frame(board)
        frame[int(y) + 8 : int(y) + 40, int(x) : int(x) + 70] = (60, 60, 170)  # a card put down by the board
        reading = table.observer.read(frame)
        assert reading.ok and silent(board, reading) == [], reading.message
        table.observer.agree(shown(board))


@pytest.mark.parametrize("pattern", [Pattern.MEANDER, Pattern.ZIGZAG])
def test_a_printed_border_in_a_shadow_keeps_its_print_an_arm_over_it_does_not(pattern: Pattern) -> None:
    """Somebody leaning in darkens the rim, the border's print stays: following, such a patch is
    no arm (`gate.pattern_kept`). An arm of any skin or sleeve over the same place hides it."""
    printing = printing_where(lambda p: p.board.pattern is pattern and p.board.border_mm > 12)
    table = Table(printing, seed=5)
    board = moves(3, seed=1)[-1]
    calibration = table.observer.calibration
    assert calibration is not None
    places = gate.rim_places(calibration.homography, calibration.image_size)

    def samples(frame: np.ndarray) -> np.ndarray:
        return gate.rim_samples(gate.small_image(frame), places)

    def under(mask: np.ndarray) -> np.ndarray:  # the rim patches an arm covers
        h, w = mask.shape
        x = np.clip((places[..., 0] * w).astype(int), 0, w - 1)
        y = np.clip((places[..., 1] * h).astype(int), 0, h - 1)
        covered: np.ndarray = mask[y, x].mean(axis=1) > 0.5
        return covered

    then = samples(table.frame(board))
    shaded = kept_in_shade = arm = kept_under_arm = 0
    rng = np.random.default_rng(4)
    for edge, along in (("bottom", 0.4), ("left", 0.5)):
        x, y = table.on_edge(edge, along) / np.array(SIZE)
        shade = replace(table.light, shadows=(Shadow(float(x), float(y), 0.3, 0.25, 20.0, 0.55),))
        now = samples(table.frame(board, shade))
        darker = now.mean(axis=(1, 2)) < 0.8 * then.mean(axis=(1, 2))
        shaded += int(darker.sum())
        kept_in_shade += int((gate.pattern_kept(now, then) & darker).sum())
        for _ in range(2):
            hand = replace(synthetic.random_hand(rng), edge=edge, along=along, reach=0.35)
            shot = synthetic.render(board, style=printing, size=SIZE, pose=table.pose,
                                    conditions=replace(table.light, hands=(hand,)), seed=9)
            covered = under(shot.hand_mask)
            kept = gate.pattern_kept(samples(shot.frame), then) & covered
            assert not (kept & np.roll(kept, 1)).any()  # an arm is never two patches kept side by side
            arm += int(covered.sum())
            kept_under_arm += int(kept.sum())
    assert shaded >= 20 and kept_in_shade >= 0.7 * shaded
    assert arm >= 20 and kept_under_arm <= 0.02 * arm


def test_a_plain_border_tells_nothing_of_a_shadow() -> None:
    """Without a print, a darker patch cannot show that it kept one: it stays unlike its agreed self."""
    rng = np.random.default_rng(1)
    then = np.full((8, 15, 3), 120.0, np.float32) + rng.normal(0, 1.0, (8, 15, 3)).astype(np.float32)
    assert not gate.pattern_kept(0.5 * then, then).any()


def test_a_bumped_board_is_read_whole_though_its_rim_now_shows_the_table() -> None:
    """Before any agreement (`companion read`, the start of a game) the rim is compared with the
    calibration's. After a bump, beyond a narrow border the rim is the table, which did not move
    with the board: that is not something lying over the edge. An arm still stops the reading."""
    table = Table(printing_where(lambda p: p.board.border_mm < 10 and p.table.surface is Surface.CHECKED))
    board = moves(4, seed=5)[-1]
    bumped = replace(table.light, board_shift_mm=(11.0, 2.0), board_rotation_deg=1.0)
    reading = table.observer.read(table.frame(board, bumped))
    assert reading.ok and "moved" in reading.message, reading.message
    assert silent(board, reading) == [] and unsure(board, reading) <= 1
    for edge in ("bottom", "left", "right", "top"):
        arm = synthetic.Hand(edge=edge, along=0.5, reach=0.45)
        assert not table.observer.read(table.frame(board, replace(bumped, hands=(arm,)))).ok, edge


@pytest.mark.parametrize("style", ["classic", "modern"])
def test_tiles_and_leaders_turned_any_way_and_off_centre(style: str) -> None:
    table = Table(style)
    boards = moves(8, seed=9)
    rng = np.random.default_rng(2)
    temples = geometry.start_temple_cells()  # as the set-up check saw them: only pieces put down in play
    turned = tuple((c, *rng.uniform(-0.12, 0.12, 2), float(rng.choice([30, 45, 90, 135, 180, 270])))
                   for c in range(CELLS) if c not in temples)
    readings = table.follow(boards, replace(table.light, poses=turned))
    assert [silent(b, r) for b, r in zip(boards, readings, strict=True)] == [[]] * len(boards)
    assert sum(unsure(b, r) for b, r in zip(boards, readings, strict=True)) <= 2


def test_a_lamp_switched_on_throwing_a_glare_several_squares_across() -> None:
    table = Table(printing_where(lambda p: p.board.river is RiverArt.SQUARES))
    boards = moves(6, seed=11)
    table.follow(boards[:3])
    lamp = replace(table.light, glare=synthetic.Glare(0.5, 0.5, 0.18, 0.8), lamp=0.6,
                   exposure=table.light.exposure * 1.1)
    for board in boards[3:]:
        reading = table.observer.read(table.frame(board, lamp))
        assert reading.ok and silent(board, reading) == [], reading.message
        table.observer.agree(shown(board))


@pytest.mark.parametrize("seed", [3, 4])
def test_a_plain_tile_put_down_under_a_glare_that_stays_is_never_the_bare_land_it_covers(seed: int) -> None:
    """A never-tuned-on game (printing 141): a lamp's glare had stood over E5-E7 since before the
    last agreement; a stained black tile put down there, washed pale by it, fitted its bare
    square's agreed picture a fifth darker better than any tile's picture, and the game went on
    without the tile, telling nobody. Only a figure or a monument casts a shadow: with none
    around, the agreed picture fits no darker than the light says."""
    printing = unseen.random_printing(141)
    table = Table(printing, seed=seed, pose=unseen.random_pose(np.random.default_rng([141, 1]), printing, SIZE))
    lamp = replace(table.light, glare=synthetic.Glare(0.40, 0.46, 0.17, 0.74))
    before = Scene.setup().with_cells({68: CellTruth(CellClass.TILE_BLACK), 83: CellTruth(CellClass.TILE_RED)})
    table.follow([before], lamp)
    for cell in (69, 84, 85, 100):  # F5, E6, F6, E7
        after = before.with_cells({cell: CellTruth(CellClass.TILE_BLACK)})
        reading = table.observer.read(table.frame(after, lamp))
        assert reading.ok and silent(after, reading) == [], reading.message


@pytest.mark.parametrize("piece", [CellClass.TILE_BLACK, CellClass.TILE_GREEN, CellClass.TILE_RED])
def test_a_tile_under_a_reflection_the_light_followed_roughly_is_named_only_the_colour_it_shows(
    piece: CellClass, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Never-tuned-on game 283 (pale tiles with a coloured disc): a lamp's reflection about a
    square across had burnt bare A5 nearly out for forty moves, and the light followed from
    agreement to agreement had traded its glare for brightness there (a brighter light and a
    stronger glare fit a nearly white square alike): glare 40 grey levels where the reflection
    added 93, gain 1.37 where the light was 1.02. The glare left on a black tile's disc lifted it
    to a grey, as near the green disc's pictures as the black one's, and both looks named it
    green with little to spare: a legal move nobody made. A white glare leaves the steps between
    channels as they were: the disc shows black. A tile is named only the colour it shows; a
    green or a red one shows its own."""
    printing, pose, light = unseen.game_table(283, SIZE)
    table = Table(printing, pose=pose, light=light)
    square = 4 * COLUMNS  # A5, at the left edge
    row, column = divmod(square, COLUMNS)
    side = geometry.GRID_WIDTH_MM / COLUMNS
    to_image = pose.table_to_image(SIZE) @ synthetic.board_to_table(light)

    def at(x: float, y: float) -> np.ndarray:
        seen: np.ndarray = cv2.perspectiveTransform(np.array([[[x * side, y * side]]]), to_image)[0, 0]
        return seen

    centre = at(column + 0.5, row + 0.5)
    across = float(np.linalg.norm(at(column + 1, row + 0.5) - at(column, row + 0.5)))
    reflection = synthetic.Glare(centre[0] / SIZE[0], centre[1] / SIZE[1], 1.07 * across / SIZE[0], 0.48)
    lamp = replace(light, glare=reflection)
    measured = Observer._light_now
    px = PX_PER_SQUARE
    on = (slice(row * px, (row + 1) * px), slice(column * px, (column + 1) * px))

    def followed(self: Observer, *args: object) -> tuple[np.ndarray, np.ndarray]:
        gain, glare = measured(self, *args)  # type: ignore[arg-type]
        glare[on] *= 40 / 93
        gain[on] *= 1.37 / 1.02
        return gain, glare

    monkeypatch.setattr(Observer, "_light_now", followed)
    tiles = frozenset({CellClass.TILE_RED, CellClass.TILE_GREEN, CellClass.TILE_BLACK, CellClass.EMPTY_LAND})
    table.observer.candidates = tuple(tiles if c == square else None for c in range(CELLS))
    assert table.observer.read(table.frame(Scene.setup(), lamp)).ok
    table.observer.agree(shown(Scene.setup()))
    board = Scene.setup().with_cells({square: CellTruth(piece)})
    reading = table.observer.read(table.frame(board, lamp))
    assert reading.ok and reading.changed == (square,), reading.message
    assert reading.cells[square].cls in ((CellClass.UNKNOWN, piece) if piece is CellClass.TILE_BLACK else (piece,))


def test_a_pale_tile_put_down_off_centre_is_named_the_colour_its_frame_and_symbol_show() -> None:
    """Never-tuned-on game 333 (pale tiles whose colour shows only in a frame and in the symbol,
    on a dark table), filmed at the HQ camera's still size: a black tile put down well off A3, the
    board showing along one side, was left unsure and asked about. Both looks saw a tile, neither
    surely of which colour (rings black 0.41, pixels green 0.12): the pale face that every colour
    shares weighs most in both. The ring where this table's tiles show their colour names it with
    much to spare, as for a leader whose colour shows only in its rim. A green one off P9 was
    asked about too: the centre, which the calibration chose alone, saw the symbol's colour shift
    as the tile lay off-centre (green by 0.26-0.47 where 0.9 is needed). The middle and the ring
    around it together, which misname fewer of the calibration's examples (12 of 324 against 21),
    name it green."""
    table = Table.of_game(333)
    black = Scene.setup().with_cells({32: CellTruth(CellClass.TILE_BLACK)})  # A3
    green = black.with_cells({143: CellTruth(CellClass.TILE_GREEN)})  # P9
    readings = table.follow([black, green])
    assert [silent(board, reading) for board, reading in zip([black, green], readings, strict=True)] == [[], []]
    assert readings[0].cells[32].cls is CellClass.TILE_BLACK
    assert readings[1].cells[143].cls is CellClass.TILE_GREEN


def test_a_monument_and_its_shadow_on_the_squares_beside_it() -> None:
    """A tall piece throws its shadow on its neighbours: they did not change."""
    table = Table(printing_where(lambda p: p.board.river is RiverArt.DRAWN))
    top = 4 * 16 + 5  # F5: land, with land around
    block = (top, top + 1, top + 16, top + 17)
    tiles = Scene.setup().with_cells({c: CellTruth(CellClass.TILE_RED) for c in block})
    monument = Scene.setup().with_cells({c: CellTruth(CellClass.MONUMENT, monument=("red", "blue")) for c in block})
    readings = table.follow([tiles, monument])
    changed = set(readings[1].changed or ())
    # The shadow's sharp edge may make a neighbour look changed (it does on Debian's OpenCV 4.6); it is
    # then read as what was agreed there, never as a piece.
    assert set(block) <= changed and len(changed - set(block)) <= 2
    assert silent(monument, readings[1]) == []


@pytest.mark.parametrize("colours", [("red", "green"), ("red", "blue"), ("red", "black")])
def test_a_monument_is_named_by_its_colours_however_bright_its_red(colours: tuple[str, str]) -> None:
    """Never-tuned-on game 283 (tower monuments): at set-up the red/green monument's red showed
    mostly its dark side, the red/blue one's its lit side. Built on F3 under a lamp a little
    warmer than at set-up, a red/green block with a plain green top was named red/blue, its red
    as bright as that one's: a legal move nobody made. A shade is the same colour darker: the
    colours are compared regardless of brightness, and each red monument is named its own when
    its block is a little darker or brighter than at set-up (the light not quite undone)."""
    printing, pose, light = unseen.game_table(283, SIZE)
    calibration = calibrated(printing, pose, light)
    references = calibration.references
    assert references is not None
    block = [37, 38, 53, 54]  # F3, G3, F4, G4
    built = Scene.setup().with_cells({c: CellTruth(CellClass.MONUMENT, monument=colours) for c in block})
    frame = synthetic.render(built, style=printing, size=SIZE, pose=pose, conditions=light, seed=3).frame
    patches = rectify.cells(rectify.rectify(frame, calibration.homography).astype(np.float32))[block]
    named = [monuments.name(patches * gain, monuments.that_may_stand({"red"}, ()), references)
             for gain in (0.85, 1.0, 1.15, 1.3)]
    assert all(name in (colours, None) for name in named), named  # never another monument: unnamed, it is asked
    # Its own at nearly every brightness (before: 4 of the 12 named); rendered on Debian's OpenCV 4.6,
    # the red/black block at 0.85 is left unnamed, which the game asks about.
    assert named.count(colours) >= 3, named


def test_a_monument_whose_colours_fit_no_candidate_is_not_named_the_one_they_lean_to() -> None:
    """Never-tuned-on game 423 (pyramid monuments): with red/blue standing, a red/green monument
    built on F2 under the evening's light, its green top lit where the set-up showed it dark, came
    3.7 times nearer red/black than red/green in the colours those two differ in, but far from
    both in all colours: named red/black, a legal move nobody made, the game went on silently
    wrong. A warmer light a little dimmer than at set-up shows the block as the game saw it."""
    printing, pose, light = unseen.game_table(423, SIZE)
    calibration = calibrated(printing, pose, light)
    references = calibration.references
    assert references is not None
    block = [21, 22, 37, 38]  # F2, G2, F3, G3
    candidates = monuments.that_may_stand({"red"}, {("red", "blue")})
    named = {}
    for colours in candidates:
        built = Scene.setup().with_cells({c: CellTruth(CellClass.MONUMENT, monument=colours) for c in block})
        frame = synthetic.render(built, style=printing, size=SIZE, pose=pose, conditions=light, seed=3).frame
        patches = rectify.cells(rectify.rectify(frame, calibration.homography).astype(np.float32))[block]
        named[colours] = [monuments.name(patches * gain * np.array(tint, np.float32), candidates, references)
                          for gain in (0.85, 1.0, 1.15, 1.3) for tint in ((1.0, 1.0, 1.0), (1.1, 1.0, 0.9))]
    # Never the other monument: unnamed, it is asked (before: red/green named red/black, warm and dim).
    assert all(name in (colours, None) for colours, names in named.items() for name in names), named
    # Blocks that look as at set-up are still named.
    assert all(names[2] == colours for colours, names in named.items()), named


@pytest.mark.parametrize("glare", [synthetic.Glare(0.5, 0.5, 0.08, 0.75), synthetic.Glare(0.6, 0.55, 0.1, 0.8)])
def test_plain_dark_tiles_under_a_glare_read_whole_are_neither_bare_land_nor_figures(glare: synthetic.Glare) -> None:
    """Never-tuned-on tables with stained wooden tiles (`companion bench vision --split unseen`):
    read whole, black tiles under a lamp's reflection were read as bare land with full
    confidence, 10 of the 36 squares read wrong surely. A plain tile's square is fitted as well by
    its bare pattern faded to nothing beneath the glare (brightness 0.2 of the board's around it,
    or less than none) as by a piece: the pattern shows only at about the brightness around it.
    Then the rings, their colours skewed by a glare followed roughly, took such a tile for a pale
    disc with a blue rim: under a glare the first look is checked by the second."""
    printing = unseen.random_printing(164763217)  # stained wooden tiles, pale discs with a coloured rim
    table = Table(printing)
    lamp = replace(table.light, glare=glare)
    rivers, temples = geometry.river_cells(), geometry.start_temple_cells()
    land = [c for c in range(CELLS) if c not in rivers | temples and 3 <= c // COLUMNS <= 7 and 5 <= c % COLUMNS <= 10]
    board = Scene.setup().with_cells({c: CellTruth(CellClass.TILE_BLACK) for c in land[::2]})
    reading = table.observer.read(table.frame(board, lamp))
    assert reading.ok, reading.message
    assert silent(board, reading) == []
    assert unsure(board, reading) <= 2


@pytest.mark.parametrize(("exposure", "lamp"), [(1.35, -0.5), (1.3, -0.7)])
def test_a_pale_tile_read_whole_is_named_only_the_colour_its_frame_shows(exposure: float, lamp: float) -> None:
    """Never-tuned-on tables with pale tiles whose colour shows only in a frame: read whole in a
    cool light the exposure nearly washes out, red tiles were read as black ones with confidence
    (as black tiles were read as red or green ones). The changed squares of a game were already
    named only the colour they show where this table's tiles show theirs; a board read whole is
    too."""
    table = Table(unseen.random_printing(404798141))  # pale tiles with a coloured frame
    light = replace(table.light, exposure=table.light.exposure * exposure, lamp=lamp)
    rivers, temples = geometry.river_cells(), geometry.start_temple_cells()
    land = [c for c in range(CELLS) if c not in rivers | temples and 1 <= c // COLUMNS <= 9 and 1 <= c % COLUMNS <= 14]
    board = Scene.setup().with_cells({c: CellTruth(CellClass.TILE_RED) for c in land[::3]})
    reading = table.observer.read(table.frame(board, light))
    assert reading.ok, reading.message
    assert silent(board, reading) == []


def test_a_treasure_coloured_like_its_tile_put_down_at_the_tiles_edge_is_never_read_a_bare_tile() -> None:
    """A table whose treasures show no colour a red tile does not (`treasure_colours` is None),
    read whole: a treasure put down at its temple tile's corner left most of the square to the
    tile, and was read as a red tile with confidence (the treasure taken: a move nobody made).
    Nothing there tells such a treasure from the tile: a red tile on a temple is left unsure."""
    printing = unseen.random_printing(383078977)  # pyramids, coloured like their tiles
    table = Table(printing, seed=4)
    assert table.observer.calibration is not None and table.observer.calibration.references is not None
    assert table.observer.calibration.references.treasure_colours is None
    for placement in range(1, 5):
        table.style = printing.put_down(placement)
        reading = table.observer.read(table.frame(Scene.setup()))
        assert reading.ok, reading.message
        assert silent(Scene.setup(), reading) == []


def test_a_treasure_anywhere_on_its_temple_is_seen_taken() -> None:
    table = Table(printing_where(lambda p: p.board.river is RiverArt.SQUARES), seed=4)
    temples = sorted(geometry.start_temple_cells())
    boards = [Scene.setup().with_cells({c: CellTruth(CellClass.TILE_RED) for c in temples[:n]}) for n in (1, 3)]
    readings = table.follow(boards)
    assert [silent(b, r) for b, r in zip(boards, readings, strict=True)] == [[]] * len(boards)
    assert readings[0].changed == (temples[0],) and readings[1].changed == tuple(temples[1:3])


def test_a_treasure_put_down_elsewhere_on_its_temple_than_at_calibration_is_not_read_a_tile() -> None:
    """A new game at a table calibrated before: every treasure stands somewhere else on its
    temple than it stood in the set-up picture, and the board is read whole (no agreed picture).
    Before its own colours were looked for anywhere on the square, 4 of these 40 were left unsure."""
    printing = unseen.random_printing(571923311)  # coins, some put down near the temple's edge
    table = Table(printing, seed=4)
    temples = sorted(geometry.start_temple_cells())
    read = []
    for placement in range(1, 5):
        table.style = printing.put_down(placement)
        reading = table.observer.read(table.frame(Scene.setup()))
        assert reading.ok, reading.message
        assert silent(Scene.setup(), reading) == []
        read += [reading.cells[c].cls is CellClass.TREASURE for c in temples]
    assert all(read)


@pytest.mark.parametrize(("edge", "radius"), [("right", 0.12), ("bottom", 0.12), ("top", 0.2), ("left", 0.2)])
def test_a_glare_over_the_boards_edge_read_whole_is_not_something_lying_there(edge: str, radius: float) -> None:
    """Before any agreement (`companion read`, a game resumed under a lamp switched on since the
    calibration) the rim is compared with the calibration's: a lamp's reflection across the edge
    brightens it, and squares it burns out are read again at a shorter exposure. An arm reaching
    in under the same lamp still stops the reading."""
    table = Table(printing_where(lambda p: p.board.river is RiverArt.SQUARES), seed=6)
    board = moves(4, seed=3)[-1]
    x, y = table.on_edge(edge, 0.5) / np.array(SIZE)
    lamp = replace(table.light, glare=synthetic.Glare(float(x), float(y), radius, 0.95), lamp=0.4)

    def shot(conditions: Conditions) -> Callable[[], np.ndarray]:
        return lambda: table.frame(board, conditions)

    reading = table.observer.read(table.frame(board, lamp), darker=shot(lamp.exposed(DARKER)))
    assert reading.ok, reading.message
    assert silent(board, reading) == []
    arm = replace(lamp, hands=(synthetic.Hand(edge=edge, along=0.5, reach=0.45),))
    assert not table.observer.read(table.frame(board, arm), darker=shot(arm.exposed(DARKER))).ok


def test_a_soft_shadow_across_the_boards_edge_read_whole_is_not_something_lying_there() -> None:
    """Somebody leaning in throws a soft shadow over the board's edge: where its edge crosses a
    rim patch it darkens the border and the table beside it unevenly, but every channel alike.
    A sleeve in the same shadow still stops the reading."""
    table = Table(unseen.random_printing(148), seed=4)
    board = moves(4, seed=3)[-1]
    x, y = table.on_edge("bottom", 0.6) / np.array(SIZE)
    shade = replace(table.light, shadows=(Shadow(float(x), float(y), 0.2, 0.3, 20.0, 0.55),))
    reading = table.observer.read(table.frame(board, shade))
    assert reading.ok, reading.message
    assert silent(board, reading) == []
    arm = replace(shade, hands=(synthetic.Hand(edge="bottom", along=0.6, reach=0.45),))
    assert not table.observer.read(table.frame(board, arm)).ok


@pytest.mark.parametrize(("seed", "x", "y", "darkness"), [
    (3, 0.314, 0.267, 0.57),  # the game's own shadow
    (5, 0.314, 0.267, 0.57),
    (4, 0.6, 0.3, 0.45),  # further right, crossing the river
])
def test_a_long_shadow_of_somebody_leaning_in_is_no_arm_reaching_in(
    seed: int, x: float, y: float, darkness: float
) -> None:
    """A never-tuned-on game (printing 221, its own camera and light): somebody leaning in threw a
    long shadow, a square and a half wide, from the board's edge across it, too narrow for the
    light followed from around each square to undo. The bare land in it came near plain tiles
    and figures and the reading was refused as an arm reaching in, at every look: the game
    stopped after seven moves. Squares side by side darkened alike are judged with room for a
    shadow on every picture, and show what was agreed."""
    printing, pose, light = unseen.game_table(221, SIZE)
    table = Table(printing, seed=seed, pose=pose, light=light)
    before = Scene.setup().with_cells({119: CellTruth(CellClass.LEADER_BLUE, dynasty="bull")})  # H8
    table.follow([before])
    shade = replace(table.light, shadows=(Shadow(x, y, 0.49, 0.09, 89.4, darkness),))
    after = before.with_cells({112: CellTruth(CellClass.LEADER_RED, dynasty="bull")})  # A8, at the edge
    reading = table.observer.read(table.frame(after, shade))
    assert reading.ok, reading.message
    assert silent(after, reading) == []
    assert reading.cells[112].cls is CellClass.LEADER_RED


def test_a_figure_seen_over_the_bare_land_beside_it_in_its_shadow_is_no_second_figure() -> None:
    """A never-tuned-on game (printing 312, its own camera and light, filmed at the HQ camera's
    still size): a red leader put down at G10 darkens the bare land at H10 beside it, which its
    agreed picture then fits only far darker than the light says, as G10's does: a long shadow,
    side by side. The rings of H10, measured under the light followed from around, named a second
    red leader there, sure enough but without much to spare, while the pixels did not see one: a
    legal move nobody made, at the game's 136th move. G10 is the red leader; H10 is bare land or
    unsure."""
    table = Table.of_game(312)
    table.follow([])
    after = Scene.setup().with_cells({150: CellTruth(CellClass.LEADER_RED, dynasty="bull")})  # G10
    reading = table.observer.read(table.frame(after))
    assert reading.ok, reading.message
    assert silent(after, reading) == []
    assert reading.cells[150].cls is CellClass.LEADER_RED


def test_a_red_disc_the_rings_take_for_a_red_tile_is_asked_about_where_the_pixels_see_a_disc() -> None:
    """Never-tuned-on game 361 (solid tiles, coloured discs, filmed at the HQ camera's still
    size): a red leader put down at A3, after red leaders of this table were seen and learnt at
    L2 and at C11. Red all round its centre, as a solid red tile is: the rings named a red tile,
    sure enough but without much to spare (0.6), the pixels, which see its shape, leaned to the
    red leader (0.42): a legal move nobody made, silently, at the game's 138th move. A3 is the red
    leader or unsure."""
    table = Table.of_game(361)
    leader = CellTruth(CellClass.LEADER_RED, dynasty="pot")
    setup = Scene.setup()
    table.follow([setup.with_cells({27: leader}), setup, setup.with_cells({162: leader}), setup])  # L2, C11
    after = setup.with_cells({32: leader})  # A3
    reading = table.observer.read(table.frame(after))
    assert reading.ok, reading.message
    assert silent(after, reading) == []


def test_a_glare_beside_a_marker_card_is_no_hand_over_it() -> None:
    """A never-tuned-on game (printing 271, its own camera and light, filmed at the HQ camera's
    still size): a lamp's reflection on the table just beside the bottom-left marker card, under
    somebody's shadow, washed out the card's white edge. The detector missed the marker and it was
    taken for a hand over it: the squares near that corner refused every look, 29 times, until the
    game was given up. Its pattern still shows where it lies: nothing covers it. A hand over the
    card in the same light still does."""
    table = Table.of_game(271)
    table.follow([])
    lamp = replace(table.light, glare=synthetic.Glare(0.22, 0.812, 0.046, 0.89),
                   shadows=(Shadow(0.317, 0.806, 0.555, 0.408, 96.4, 0.546),))
    after = Scene.setup().with_cells({161: CellTruth(CellClass.TILE_RED)})  # B11, beside the card
    reading = table.observer.read(table.frame(after, lamp))
    assert reading.ok, reading.message
    assert silent(after, reading) == [] and reading.cells[161].cls is CellClass.TILE_RED
    hand = replace(lamp, hands=(synthetic.Hand(edge="left", along=0.8, reach=0.3),))
    refused = table.observer.read(table.frame(after, hand))
    assert not refused.ok and "bottom-left marker" in refused.message


@pytest.mark.parametrize(("square", "darkness", "leader"), [
    (39, 0.4, CellClass.LEADER_BLUE),  # H3
    (42, 0.4, CellClass.LEADER_BLACK),  # K3
    (86, 0.4, CellClass.LEADER_BLACK),  # G6
    (101, 0.25, CellClass.LEADER_BLUE),  # F7
])
def test_a_pawns_shadow_over_bare_land_beside_it_is_no_piece(square: int, darkness: float, leader: CellClass) -> None:
    """A pawn put down under a lamp throws its shadow over the bare land at one corner of it. At
    a never-tuned-on game's table (stained wooden tiles, pawns) the shadowed land came near a plain
    unification tile by its rings, surely, while its pixels leaned to the bare land agreed there:
    the game asked about a tile nobody put down, three times in one game. Judged again with room for
    a shadow, those squares show what was agreed. (At this table, 24 such shadows on six squares,
    two darknesses, two figures: squares beside the figure read as a piece 23 → 8, none of these
    four now. Four printings, six squares, four corners: a tile put down in the shadow at once
    read bare 0 → 0.)"""
    table = Table(unseen.random_printing(112), seed=4)
    assert table.observer.read(table.frame(Scene.setup())).ok
    table.observer.agree(shown(Scene.setup()))
    figure = Scene.setup().with_cells({square: CellTruth(leader, dynasty="bull")})
    assert table.observer.calibration is not None
    row, col = divmod(square, COLUMNS)
    # The shadow's middle beyond the figure's top right corner, in the frame (squares to pixels).
    points = np.array([[col + 1.3, row - 0.3], [col, row], [col + 1, row]], np.float64).reshape(-1, 1, 2)
    centre, left, right = cv2.perspectiveTransform(points, np.linalg.inv(table.observer.calibration.homography))[:, 0]
    side = float(np.linalg.norm(right - left))
    reading = table.observer.read(shadowed(table.frame(figure), (float(centre[0]), float(centre[1])),
                                           (0.6 * side, 0.45 * side), 45, side / 6, darkness))
    assert reading.ok, reading.message
    assert reading.cells[square].cls is leader
    assert silent(figure, reading) == []


def _a_monument_at_the_edge(seed: int, block: tuple[int, ...], monument: tuple[str, str]) -> tuple[Table, Scene, Scene]:
    """A never-tuned-on game's own table (printing, camera, light at the HQ camera's still size),
    told where the monument stands: four red tiles on `block`, and the `monument` built on them."""
    table = Table.of_game(seed)
    red = Scene.setup().with_cells({c: CellTruth(CellClass.TILE_RED) for c in block})
    built = red.with_cells({c: CellTruth(CellClass.MONUMENT, monument=monument) for c in block})
    table.observer.tall = frozenset(block)  # the game tells where monuments stand
    return table, red, built


def test_tiles_taken_from_under_a_monuments_lean_at_the_edge_are_no_arm() -> None:
    """Never-tuned-on game 351 (filmed at the HQ camera's still size): a war took the red tiles at
    A10, B10, A11 and B11, in the bottom-left corner, from beside a monument standing on A8 to B9.
    Near the board's edge the monument leans outwards as the camera sees it, over the top of A10
    and B10: no picture shows bare land with a monument's side over it, and both looks named it
    with little to spare (pixels 0.39 and 0.43). Unsure squares joined to the edge were taken for
    an arm reaching in, and the still board was refused at every look. Named without the side
    facing the monument, they are the bare land they are; an arm over them is still refused."""
    block = (112, 113, 128, 129)  # A8, B8, A9, B9
    corner = (144, 145, 160, 161)  # A10, B10, A11, B11
    table, red, built = _a_monument_at_the_edge(351, block, ("red", "black"))
    boards = [built.with_cells({c: CellTruth(CellClass.TILE_RED) for c in corner[:n]}) for n in (1, 2, 3, 4)]
    table.follow([red, built, *boards])
    tiles = boards[-1]
    taken = tiles.with_cells({c: CellTruth(CellClass.EMPTY_LAND) for c in corner})
    reading = table.observer.read(table.frame(taken))
    assert reading.ok, reading.message
    assert silent(taken, reading) == []
    assert [reading.cells[c].cls for c in corner] == [CellClass.EMPTY_LAND] * 4
    # The board lies turned half round in this picture: its left edge, by A10, is on the right.
    arm = replace(table.light, hands=(synthetic.Hand(edge="right", along=0.34, reach=0.3),))
    assert not table.observer.read(table.frame(taken, arm)).ok


def test_tiles_a_war_took_off_in_a_row_along_the_edge_are_never_read_still_there() -> None:
    """Never-tuned-on game 394 (river drawn across land-coloured squares, filmed at the HQ camera's
    still size): a war took the blue tiles from F1 to I1, along the board's top edge, under a
    monument's lean. Past the edge the edge's parts are repeated, so the row taken off was most of
    the parts the light there is followed from, and passed for a glare; under it the agreed tiles'
    pictures came nearest, ring by ring, to the bare river, and G1 and H1 were read as the tiles
    still lying there. The game kept a tile owed there, and one put down on G1 later went unseen.
    Whether the agreed picture still fits is the pixels' to say: the squares are read bare or
    unsure, never as the tiles; the players excusing them (nothing lies there), they are read."""
    block = (22, 23, 38, 39)  # G2, H2, G3, H3
    row = (5, 6, 7, 8)  # F1 to I1, river squares
    table, red, built = _a_monument_at_the_edge(394, block, ("red", "blue"))
    boards = [built.with_cells({c: CellTruth(CellClass.TILE_BLUE) for c in row[:n]}) for n in (1, 2, 3, 4)]
    table.follow([red, built, *boards])
    taken = boards[-1].with_cells({c: CellTruth(CellClass.EMPTY_RIVER) for c in row})
    frame = table.frame(taken)
    reading = table.observer.read(frame)
    assert not reading.ok or silent(taken, reading) == []
    table.observer.excused = frozenset(row)  # as the players answer "nothing lies there"
    reading = table.observer.read(frame)
    assert reading.ok, reading.message
    assert silent(taken, reading) == []
    assert all(reading.cells[c].cls in (CellClass.EMPTY_RIVER, CellClass.UNKNOWN) for c in row)


def test_a_piece_taken_from_under_a_standing_monuments_lean_is_no_arm() -> None:
    """Never-tuned-on game 394 (cardboard, filmed at the HQ camera's still size): a war took the
    blue tiles at F1 to I1, along the top edge, from beside a monument standing on F2 to G3. Near
    the edge the monument leans outwards as the camera sees it, over F1 and G1: no picture shows
    bare river with its side over it, and F1 was left unsure. Joined to the edge through the
    squares taken beside it, that doubt was taken for an arm reaching in, and the still board was
    refused at every look, 9 times. Where a piece was taken from under a standing monument's lean
    the doubt is the monument's; an arm over the bare squares beside it (E1, E2) is still refused."""
    block = (21, 22, 37, 38)  # F2, G2, F3, G3
    river = (5, 6, 7, 8)  # F1, G1, H1, I1
    table, red, built = _a_monument_at_the_edge(394, block, ("red", "black"))
    tiles = built.with_cells({c: CellTruth(CellClass.TILE_BLUE) for c in river})
    table.follow([red, built, tiles])
    reading = table.observer.read(table.frame(built))
    assert reading.ok, reading.message
    assert reading.cells[5].cls in (CellClass.EMPTY_RIVER, CellClass.UNKNOWN)
    assert [reading.cells[c].cls for c in (7, 8)] == [CellClass.EMPTY_RIVER] * 2
    arm = replace(table.light, hands=(synthetic.Hand(edge="top", along=0.4, reach=0.3),))
    assert not table.observer.read(table.frame(built, arm)).ok


def _rim_of(table: Table, board: Scene) -> tuple[Callable[[Conditions], np.ndarray], np.ndarray]:
    """The rim's colours of `board` filmed at `table` under given conditions, and the rim's places."""
    assert table.observer.calibration is not None
    places = gate.rim_places(table.observer.calibration.homography, table.size)

    def rim(conditions: Conditions) -> np.ndarray:
        return gate.rim_colours(gate.small_image(table.frame(board, conditions)), places)

    return rim, places


def test_a_lamps_reflection_on_the_rim_at_the_agreement_gone_with_the_lamp_is_nothing_lying_there() -> None:
    """A never-tuned-on game (printing 372, its own camera and light, filmed at the HQ camera's
    still size): the board was agreed under a lamp whose reflection lay across the dark border at
    the grid's bottom-left corner; the lamp was switched off, and the border there was far darker
    than the agreed rim, by the white light the reflection had added. It was taken for something
    lying over the edge at every look, 34 times, and the game stalled. A sleeve over that corner
    in the same light still lies there."""
    table = Table.of_game(372)
    # The game's own lamp, over the top right of the picture (the camera sees the board upside down)
    lamp = replace(table.light, glare=synthetic.Glare(0.696, 0.321, 0.198, 0.548), lamp=0.6, exposure=1.39)
    off = replace(table.light, lamp=0.28, exposure=1.19)
    rim, places = _rim_of(table, moves(4, seed=3)[-1])
    agreed = rim(lamp)
    assert not gate.rim_unlike(rim(off), agreed, places).any()
    sleeve = replace(off, hands=(synthetic.Hand(edge="top", along=0.7, reach=0.3),))
    assert gate.rim_sides(gate.rim_unlike(rim(sleeve), agreed, places)) == ("bottom",)


def test_a_dark_tile_put_down_as_a_lamp_burns_out_most_of_the_board_is_seen() -> None:
    """A never-tuned-on game (printing 472, its own camera and light, at the HQ camera's still
    size): a lamp was switched on and the exposure rose, and the bright paper board burnt out over
    nearly three quarters of the picture. The light's change, fitted on the parts left, bent far
    past them (gains near 0 across the burnt-out side), the black tile just put down on J4 passed
    for the light there, and the game went on without it: a silent disagreement."""
    table = Table.of_game(472)
    leaders = {9: ("blue", "bull"), 11: ("red", "archer"), 16: ("blue", "pot"), 33: ("green", "archer"),
               47: ("black", "bull"), 53: ("black", "pot"), 76: ("green", "bull"), 103: ("blue", "archer"),
               112: ("black", "archer"), 133: ("green", "pot"), 171: ("red", "pot")}
    board = Scene.setup().with_cells({18: CellTruth(CellClass.TILE_GREEN)} | {
        c: CellTruth(CellClass(f"{colour} leader"), dynasty) for c, (colour, dynasty) in leaders.items()})
    # The game's own light as the board was agreed, and once the lamp was on
    before = replace(table.light, exposure=0.991, lamp=0.711)
    lamp = replace(before, exposure=1.176, lamp=1.0, glare=synthetic.Glare(0.543, 0.186, 0.077, 0.4))
    assert table.observer.read(table.frame(board, before)).ok
    table.observer.agree(shown(board))
    tile = board.with_cells({57: CellTruth(CellClass.TILE_BLACK)})
    reading = table.observer.read(table.frame(tile, lamp), darker=lambda: table.frame(tile, lamp.exposed(DARKER)))
    assert reading.ok, reading.message
    assert reading.changed == (57,) and reading.cells[57].cls is CellClass.TILE_BLACK


# Never-tuned-on game 432's board before its 84th move, row by row from A1: bare land (.) and river
# (~), tiles (r b g k), leaders (R B G K), treasures on their temples (t), monuments (m).
_GAME_432 = ("rKrgbb~b~.t.~...", ".rggbB.r....~k.t", ".Gg~btkr...k~~g.", "bb~bg...g....~~~",
             "kkkk....k.r.rt~~", ".r...mmkmmk.rR~.", "~~~~gmmBmmkk~~b.", "Rt.~~~brKrk.b.rr",
             ".rrkkK~b~b~~bBtR", "....gtk.g.g...r.", ".rrkr..ggGtg..g.")
_MAPPED = {".": CellClass.EMPTY_LAND, "~": CellClass.EMPTY_RIVER, "t": CellClass.TREASURE, "m": CellClass.MONUMENT,
           **{k: CellClass[f"TILE_{c}"] for k, c in zip("rbgk", ("RED", "BLUE", "GREEN", "BLACK"), strict=True)},
           **{k: CellClass[f"LEADER_{c}"] for k, c in zip("RBGK", ("RED", "BLUE", "GREEN", "BLACK"), strict=True)}}


def _game_432() -> Scene:
    monument = {85: ("red", "blue"), 88: ("red", "green")}  # F6 and I6, each the top left of its block
    blocks = {top + step: colours for top, colours in monument.items() for step in (0, 1, COLUMNS, COLUMNS + 1)}
    cells = {}
    for cell, mark in enumerate("".join(_GAME_432)):
        cls = _MAPPED[mark]
        cells[cell] = CellTruth(cls, dynasty="bull" if cls.is_leader else None, monument=blocks.get(cell))
    return Scene.setup().with_cells(cells)


@pytest.mark.parametrize("darkness", [0.35, 0.4])
def test_a_pawns_shadow_on_a_square_the_agreed_picture_shows_burnt_out_is_no_piece(darkness: float) -> None:
    """Never-tuned-on game 432 (pale framed tiles, coloured pawns, filmed at the HQ camera's still
    size): a lamp's reflection burns out the board's top right corner, at the agreement too. A
    green pawn put down at P1 is read unsure, so the squares there are read again at a shorter
    exposure, against an agreed picture that shows nothing of them. Under the light measured
    afresh, the pawn's shadow over the bare land at O1 came near a piece by the rings, without much
    to spare, the pixels not surely (a red tile at 0.51, pixels 0.16): a legal second action nobody
    made, silently, at the game's 86th move. (Here, a shadow drawn over O1, the pawn's own green
    at 0.60 and 0.74.) O1 is bare land or unsure."""
    table = Table.of_game(432)
    lamp = replace(table.light, glare=synthetic.Glare(0.777, 0.293, 0.137, 0.825), lamp=0.73, exposure=1.345)
    board = _game_432()
    for agreed in (Scene.setup(), board):  # the pieces of this table learnt under the lamp
        reading = table.observer.read(table.frame(agreed, lamp),
                                      darker=lambda scene=agreed: table.frame(scene, lamp.exposed(DARKER)))
        assert reading.ok, reading.message
        table.observer.agree(shown(agreed))
    # What may stand on O1 now: bare land, a tile, a catastrophe, or the green leader of the player to move.
    o1 = frozenset({CellClass.EMPTY_LAND, CellClass.TILE_RED, CellClass.TILE_GREEN, CellClass.TILE_BLACK,
                    CellClass.CATASTROPHE, CellClass.LEADER_GREEN})
    table.observer.candidates = tuple(o1 if c == 14 else frozenset(CellClass) - {CellClass.UNKNOWN}
                                      for c in range(CELLS))
    after = board.with_cells({15: CellTruth(CellClass.LEADER_GREEN, dynasty="archer")})  # P1
    assert table.observer.calibration is not None
    corners = np.array([[14.5, 0.5], [14, 0], [15, 0]], np.float64).reshape(-1, 1, 2)  # O1's middle, top side
    centre, left, right = cv2.perspectiveTransform(corners, np.linalg.inv(table.observer.calibration.homography))[:, 0]
    side = float(np.linalg.norm(right - left))

    def shaded(conditions: Conditions) -> np.ndarray:
        return shadowed(table.frame(after, conditions), (float(centre[0]), float(centre[1])),
                        (0.45 * side, 0.3 * side), 0, side / 8, darkness)

    reading = table.observer.read(shaded(lamp), darker=lambda: shaded(lamp.exposed(DARKER)))
    assert reading.ok, reading.message
    assert silent(after, reading) == []
    assert reading.cells[14].cls in (CellClass.EMPTY_LAND, CellClass.UNKNOWN)


@pytest.mark.parametrize("seed", [3, 4])
def test_a_shadow_lifted_from_a_plain_board_is_no_arm_reaching_in(seed: int) -> None:
    """Never-tuned-on game 453 (linen board, its own camera and light, filmed at the HQ camera's
    still size): somebody's shadow lay over the board's left half through the first three moves,
    and went as a black leader was put down at I8. The linen's print is too faint for the light
    followed from the agreed picture to undo the shadow's going there; the bare land it left was
    read surely as bare land but for D5, unsure, which joined to the left edge through the rest
    was taken for an arm reaching in, at every look: the game stalled. Measured afresh on the
    bare board, the light shows D5 bare too: the move is read. An arm over the same squares is
    still refused."""
    table = Table.of_game(453, table_seed=seed)
    shade = replace(table.light, exposure=1.09, lamp=-0.09,
                    shadows=(Shadow(0.333, 0.474, 0.234, 0.148, 159.5, 0.452),))  # the game's own
    board = Scene.setup()
    for cell, leader in ((53, CellClass.LEADER_BLACK), (105, CellClass.LEADER_RED), (158, CellClass.LEADER_GREEN)):
        board = board.with_cells({cell: CellTruth(leader, dynasty="archer")})  # F4, J7, O10
        reading = table.observer.read(table.frame(board, shade))
        assert reading.ok, reading.message
        table.observer.agree(shown(board))
    table.observer.tall = frozenset({53, 105, 158})  # as the companion tells it
    after = board.with_cells({120: CellTruth(CellClass.LEADER_BLACK, dynasty="bull")})  # I8
    lifted = replace(shade, exposure=1.1, lamp=-0.08, shadows=())
    reading = table.observer.read(table.frame(after, lifted))
    assert reading.ok, reading.message
    assert silent(after, reading) == []
    assert reading.cells[120].cls is CellClass.LEADER_BLACK
    arm = replace(lifted, hands=(synthetic.Hand(edge="left", along=0.5, reach=0.3),))
    assert not table.observer.read(table.frame(after, arm)).ok


def test_bare_land_a_monument_put_down_leans_over_is_no_piece() -> None:
    """Never-tuned-on game 432 (pale framed tiles, coloured pawns, filmed at the HQ camera's still
    size, under its lamp): a red and blue monument is built on the red tiles at F6 to G7 as a green
    pawn is taken off G5. As the camera sees it the monument leans over E6 beside it, bare land,
    whose rings and pixels both came near a red leader, surely (1.0): the tracker found a rule
    broken and the players had to put it right. Beside a monument put down, a piece nobody agreed
    is unsure, or what was agreed there."""
    table = Table.of_game(432)
    lamp = replace(table.light, glare=synthetic.Glare(0.777, 0.293, 0.137, 0.825), lamp=0.71, exposure=1.34)
    built = _game_432()
    block = (85, 86, 101, 102)  # F6, G6, F7, G7
    tiles = built.with_cells({**{c: CellTruth(CellClass.TILE_RED) for c in block},
                              70: CellTruth(CellClass.LEADER_GREEN, dynasty="bull")})  # G5
    for agreed in (Scene.setup(), tiles):
        reading = table.observer.read(table.frame(agreed, lamp),
                                      darker=lambda scene=agreed: table.frame(scene, lamp.exposed(DARKER)))
        assert reading.ok, reading.message
        table.observer.agree(shown(agreed))
    table.observer.tall = frozenset({88, 89, 104, 105})  # the monument standing at I6
    reading = table.observer.read(table.frame(built, lamp), darker=lambda: table.frame(built, lamp.exposed(DARKER)))
    assert reading.ok, reading.message
    assert [reading.cells[c].cls for c in block] == [CellClass.MONUMENT] * 4
    assert silent(built, reading) == []
    assert reading.cells[84].cls in (CellClass.EMPTY_LAND, CellClass.UNKNOWN)  # E6


@pytest.mark.parametrize(("square", "leader"), [
    (133, CellClass.LEADER_BLACK),  # F9
    (93, CellClass.LEADER_RED),  # N6
    (158, CellClass.LEADER_BLUE),  # O10
])
def test_a_pawns_long_shadow_over_the_bare_land_beside_it_is_no_piece(square: int, leader: CellClass) -> None:
    """Never-tuned-on game 432 (coloured pawns, filmed at the HQ camera's still size): a pawn put
    down throws a long soft shadow over the bare land on its left, which no light changing
    smoothly across that square follows. Both looks came near a red leader there, not surely: the
    game asked about nine such squares. Each pixel of that square is the agreed bare land's made
    darker alike in every channel, as closely as the squares that did not change are their own:
    it is bare land."""
    table = Table.of_game(432)
    table.follow([])
    after = Scene.setup().with_cells({square: CellTruth(leader, dynasty="bull")})
    reading = table.observer.read(table.frame(after))
    assert reading.ok, reading.message
    assert reading.cells[square].cls is leader
    assert reading.cells[square - 1].cls is CellClass.EMPTY_LAND
    assert silent(after, reading) == []


@pytest.mark.parametrize(("square", "leader", "piece"), [
    (133, CellClass.LEADER_BLACK, CellClass.TILE_BLACK),
    (93, CellClass.LEADER_RED, CellClass.TILE_GREEN),
    (158, CellClass.LEADER_BLUE, CellClass.CATASTROPHE),
])
def test_a_piece_put_down_in_a_pawns_shadow_is_never_the_bare_land_it_covers(
    square: int, leader: CellClass, piece: CellClass
) -> None:
    """As above, with a piece put down in that shadow in the same look: no shadow of the bare land
    explains it (a dark tile is darker than a shadow leaves, a coloured one of another colour)."""
    table = Table.of_game(432)
    table.follow([])
    after = Scene.setup().with_cells({square: CellTruth(leader, dynasty="bull"), square - 1: CellTruth(piece)})
    reading = table.observer.read(table.frame(after))
    assert reading.ok, reading.message
    assert silent(after, reading) == []
    assert reading.cells[square - 1].cls is not CellClass.EMPTY_LAND


@pytest.mark.parametrize(("square", "leader"), [
    (16, CellClass.LEADER_BLACK),  # A2
    (143, CellClass.LEADER_BLUE),  # P9
    (103, CellClass.LEADER_RED),  # H7
])
def test_a_pawns_shadow_on_a_greenish_board_is_no_green_leader(square: int, leader: CellClass) -> None:
    """Never-tuned-on game 482 (linen board, coloured pawns, filmed at the HQ camera's still
    size): a pawn's shadow falls on the bare land below it, which the rings took for a green
    leader, surely, the pixels not: a move nobody made, illegal there (the players were asked
    nine times in one game), legal elsewhere. The shadow explains every pixel of that square as
    closely as the squares around that did not change are their own: it is bare land. A green
    leader or a tile put down there in the same look is still seen."""
    below = square + COLUMNS
    for piece in (None, CellClass.LEADER_GREEN, CellClass.TILE_BLACK):
        table = Table.of_game(482)
        table.follow([])
        after = Scene.setup().with_cells({square: CellTruth(leader, dynasty="bull")})
        if piece is not None:
            after = after.with_cells({below: CellTruth(piece, dynasty="lion" if piece.is_leader else None)})
        reading = table.observer.read(table.frame(after))
        assert reading.ok, reading.message
        assert silent(after, reading) == [], piece
        seen = reading.cells[below].cls
        assert seen is CellClass.EMPTY_LAND if piece is None else seen is not CellClass.EMPTY_LAND, piece


def test_a_treasure_taken_off_its_temple_is_seen_taken_and_one_still_there_is_not() -> None:
    """Never-tuned-on game 513 (pale tiles with a coloured frame, coins, filmed at the HQ camera's
    still size): the coin taken from the temple at O9, with pale tiles and rim leaders around it.
    The coin is small: the pixels, each one's misfit capped, still fitted the agreed picture with
    the coin best, and the game listed "take the treasure from O9" as owed at every one of 74
    looks after it was taken. The rings are sure the temple is bare: it is the red tile. A coin
    still there, under a reflection or a shadow, is never read taken."""
    around = {126: CellTruth(CellClass.TILE_GREEN), 157: CellTruth(CellClass.TILE_GREEN),
              159: CellTruth(CellClass.TILE_GREEN), 143: CellTruth(CellClass.LEADER_BLUE, dynasty="bull"),
              158: CellTruth(CellClass.LEADER_BLACK, dynasty="lion")}
    board = Scene.setup().with_cells(around)
    temple = 142  # O9
    table = Table.of_game(513)
    table.follow([board])
    taken = board.with_cells({temple: CellTruth(CellClass.TILE_RED)})
    reading = table.observer.read(table.frame(taken))
    assert reading.ok, reading.message
    assert silent(taken, reading) == [] and reading.cells[temple].cls is CellClass.TILE_RED
    table = Table.of_game(513)
    table.follow([board])
    assert table.observer.calibration is not None
    row, col = divmod(temple, COLUMNS)
    middle = np.array([[[col + 0.5, row + 0.5]]], np.float64)
    x, y = cv2.perspectiveTransform(middle, np.linalg.inv(table.observer.calibration.homography))[0, 0]
    x, y = float(x) / table.size[0], float(y) / table.size[1]
    for light in (replace(table.light, glare=synthetic.Glare(x, y, 0.03, 0.6)),
                  replace(table.light, shadows=(Shadow(x, y, 0.06, 0.06, 0.0, 0.5),))):
        reading = table.observer.read(table.frame(board, light))
        assert reading.ok, reading.message
        assert silent(board, reading) == []


def _read_as_itself(game: int, square: int, leader: CellClass) -> None:
    """A leader put down alone on `square` after set-up, at never-tuned-on game `game`'s table, is
    read as itself, and nothing else is read wrong."""
    table = Table.of_game(game)
    table.follow([])
    after = Scene.setup().with_cells({square: CellTruth(leader, dynasty="bull")})
    reading = table.observer.read(table.frame(after))
    assert reading.ok, reading.message
    assert reading.cells[square].cls is leader
    assert silent(after, reading) == []


@pytest.mark.parametrize("leader", [CellClass.LEADER_GREEN, CellClass.LEADER_BLACK, CellClass.LEADER_BLUE])
def test_a_figures_pale_middle_is_no_witness_against_its_colour(leader: CellClass) -> None:
    """Never-tuned-on game 531 (a paper board whose print varies much, coloured octagons with a pale
    middle): of a green octagon put down on H3 only the pale middle and symbol lie further from the
    board than its own print does, so the pixels unlike the board showed no colour, the black
    leader's, surely, and the leader both looks named green with much to spare was left unsure
    (the game asked about such squares). Pixels showing no colour are no witness against one:
    the green leader is read green, and a black one is still read black."""
    _read_as_itself(531, 39, leader)


@pytest.mark.parametrize("leader", [CellClass.LEADER_GREEN, CellClass.LEADER_BLACK, CellClass.LEADER_RED])
def test_a_pale_discs_rim_names_its_colour_where_both_looks_are_unsure(leader: CellClass) -> None:
    """Never-tuned-on game 472 (pale discs with a coloured rim, a paper board with a river drawn
    across the land): a green disc put down on N2 showed both looks a leader, neither surely of
    which colour (both leaning to black), and the game asked. Its rim, the few pixels about its
    centre unlike the board, shows green with much to spare: it is read green. Discs of the
    other colours are still read as themselves."""
    _read_as_itself(472, 29, leader)


@pytest.mark.parametrize("piece", [None, CellClass.TILE_BLACK, CellClass.TILE_GREEN])
def test_the_board_a_war_bared_in_a_monuments_shadow_is_no_piece(piece: CellClass | None) -> None:
    """Never-tuned-on game 373 (stained wooden tiles, filmed at the HQ camera's still size, under
    its lamp): a war takes red tiles off around a red and black monument, K5 among them, just
    above it. The monument's shadow falls on the bare land there, which the light followed from
    the red tile's picture does not undo: it came near a black tile (0.77 in the game, 0.59 here),
    and the game went on silently with a black tile nobody put down. Named again with room for a
    shadow and without the side facing the monument, it is bare land. A tile put down there in
    the same look is still read as itself."""
    block = (89, 90, 105, 106)  # J6, K6, J7, K7
    monument = {c: CellTruth(CellClass.MONUMENT, monument=("red", "black")) for c in block}
    after = Scene.setup().with_cells({**monument, 56: CellTruth(CellClass.TILE_BLACK),
                                      **{c: CellTruth(CellClass.TILE_GREEN) for c in (58, 71, 73)}})
    before = after.with_cells({c: CellTruth(CellClass.TILE_RED) for c in (72, 74, 86, 87, 88, 91)})
    if piece is not None:
        after = after.with_cells({74: CellTruth(piece)})
    table = Table.of_game(373)
    lamp = replace(table.light, exposure=1.17, lamp=0.56, glare=synthetic.Glare(0.495, 0.45, 0.093, 0.763))
    table.follow([])
    for board in (before, after):
        reading = table.observer.read(table.frame(board, lamp),
                                      darker=lambda b=board: table.frame(b, lamp.exposed(DARKER)))
        assert reading.ok, reading.message
        if board is before:
            table.observer.agree(shown(before))
            table.observer.tall = frozenset(block)
    assert silent(after, reading) == []
    assert reading.cells[74].cls is (CellClass.EMPTY_LAND if piece is None else piece)


def test_a_tile_a_war_took_from_beside_a_monument_under_a_lamp_turned_up_is_not_read_still_there() -> None:
    """Never-tuned-on game 773 (pale tiles with a coloured disc on linen, filmed at the HQ camera's
    still size): a war took green tiles off from beside a red and green monument, J6 among them,
    in its shadow, while the lamp was turned up and threw a reflection nearby. Under the light
    followed from around, the green tile's own agreed picture fitted the bare land best, surely:
    the tile was kept, and the black tile put down there later went unseen. Named again with room
    for a shadow and without the side facing the monument, it is the bare land it is."""
    block = (87, 88, 103, 104)  # H6, I6, H7, I7
    taken_from = (73, 89, 90)  # J5, J6, K6
    monument = {c: CellTruth(CellClass.MONUMENT, monument=("red", "green")) for c in block}
    tiles = Scene.setup().with_cells({**monument, **{c: CellTruth(CellClass.TILE_GREEN) for c in taken_from}})
    taken = tiles.with_cells({c: CellTruth(CellClass.EMPTY_LAND) for c in taken_from})
    table = Table.of_game(773)
    then = replace(table.light, exposure=1.16, lamp=-0.05, glare=None)
    now = replace(table.light, exposure=1.4, lamp=0.24, glare=synthetic.Glare(0.835, 0.434, 0.17, 0.371))
    table.follow([])
    table.observer.tall = frozenset(block)
    for board, light in ((tiles, then), (taken, now)):
        reading = table.observer.read(table.frame(board, light),
                                      darker=lambda b=board, lit=light: table.frame(b, lit.exposed(DARKER)))
        assert reading.ok, reading.message
        if board is tiles:
            table.observer.agree(shown(tiles))
    assert silent(taken, reading) == []


@pytest.mark.parametrize(("game", "square", "leader"), [
    (432, 165, CellClass.LEADER_GREEN),  # coloured pawns on a dark table: F11
    (482, 56, CellClass.LEADER_RED),  # coloured pawns, a paper board: I4
    (371, 40, CellClass.LEADER_BLUE),  # pale discs with a coloured rim, a river drawn across land: I3
])
def test_a_games_first_move_is_read_against_the_set_up_picture(game: int, square: int, leader: CellClass) -> None:
    """Never-tuned-on games asked the players about their very first move, read whole with all the
    doubt of an absolute read: the pawn's shadow beside it left unsure (432) or read surely as a
    green leader nobody put down (482), a pale disc left unsure (371). The game starts from the
    set-up position the calibration's set-up picture shows: compared with it, the leader put down
    is read as itself and nothing else changed."""
    table = Table.of_game(game)
    table.shots = 2  # other pictures than the calibration's own (its set-up was taken with the renderer's seed 1)
    table.observer.expect_setup(shown(Scene.setup()))
    after = Scene.setup().with_cells({square: CellTruth(leader, dynasty="bull")})
    reading = table.observer.read(table.frame(after))
    assert reading.ok, reading.message
    assert reading.changed == (square,) and reading.low_confidence == ()
    assert reading.cells[square].cls is leader
    assert silent(after, reading) == []


def test_a_tile_in_the_lands_hue_a_shade_darker_is_no_shadow() -> None:
    """Never-tuned-on game 1523 (stained wooden tiles, an olive green on pale green-grey land): a
    green tile put down at M10, a red leader standing beside it. Its agreed bare picture fit best
    taken darker (0.6), as a shadow's; the rings were sure of the green tile (1.0). Judged again
    as in a shadow, without the rings, the bare land stood and the move went unseen. M10 is the
    green tile or unsure."""
    table = Table.of_game(1523)
    before = Scene.setup().with_cells({141: CellTruth(CellClass.LEADER_RED, dynasty="bull"),  # N9
                                       140: CellTruth(CellClass.TILE_BLUE), 155: CellTruth(CellClass.TILE_BLACK)})
    table.follow([before])
    after = before.with_cells({156: CellTruth(CellClass.TILE_GREEN)})  # M10
    reading = table.observer.read(table.frame(after))
    assert reading.ok, reading.message
    assert silent(after, reading) == []
    assert 156 in (reading.changed or ())


def test_a_lamps_reflection_gone_whose_soft_edge_the_light_fit_bends_to_is_nothing_lying_there() -> None:
    """Never-tuned-on game 1602 (a dark green striped border on a checked tablecloth): the board
    was agreed under a lamp whose reflection lay across the border at the bottom right. The lamp
    was switched off. The light fitted round the rim bent to the reflection's soft edge, its core
    then differed from that fit by less than the white light it had added, and the border there
    was taken for something lying over the edge at 34 looks: the game stalled. A sleeve over the
    bottom edge in the same light still lies there."""
    table = Table.of_game(1602)
    lamp = replace(table.light, exposure=1.4, lamp=0.77, glare=synthetic.Glare(0.807, 0.662, 0.16, 0.656))
    off = replace(lamp, glare=None, lamp=0.47, exposure=1.4 / 1.15)
    rim, places = _rim_of(table, moves(4, seed=3)[-1])
    agreed = rim(lamp)
    assert not gate.rim_unlike(rim(off), agreed, places).any()
    sleeve = replace(off, hands=(synthetic.Hand(edge="bottom", along=0.5, reach=0.3),))
    assert "bottom" in gate.rim_sides(gate.rim_unlike(rim(sleeve), agreed, places))


def test_a_pawn_taken_off_at_the_edge_in_a_drifted_light_is_no_arm() -> None:
    """Never-tuned-on game 1722 (solid tiles, coloured pawns, a paper board on a wooden table):
    after a war a black pawn was taken off O2 at the top edge and the uniting marker off N2,
    under a lamp dimmed since the calibration. Under the light followed from the agreed picture
    O2's bare land was read at 0.73 and O1 beside it was unlike its agreed picture: "something
    reaches in" at three looks. Measured afresh on the bare board, O2 is bare land surely: the
    board is read, and only those two squares changed."""
    table = Table.of_game(1722)
    before = Scene.setup().with_cells({
        11: CellTruth(CellClass.LEADER_RED, dynasty="bull"), 12: CellTruth(CellClass.TILE_BLUE),  # L1, M1
        13: CellTruth(CellClass.TILE_GREEN), 15: CellTruth(CellClass.TILE_RED),  # N1, P1
        27: CellTruth(CellClass.TILE_RED), 29: CellTruth(CellClass.UNIFICATION),  # L2, N2
        30: CellTruth(CellClass.LEADER_BLACK, dynasty="pot"), 43: CellTruth(CellClass.TILE_GREEN),  # O2, L3
        46: CellTruth(CellClass.TILE_RED), 47: CellTruth(CellClass.TILE_RED),  # O3, P3
    })
    agreed_light = replace(table.light, exposure=1.246, lamp=-0.430, light_falloff=0.444)
    table.follow([before], agreed_light)
    after = before.with_cells({29: CellTruth(CellClass.TILE_BLACK), 30: CellTruth(CellClass.EMPTY_LAND)})
    reading = table.observer.read(table.frame(after, replace(table.light, exposure=1.286, lamp=-0.485,
                                                                    light_falloff=0.448)))
    assert reading.ok, reading.message
    assert reading.changed == (29, 30) and reading.low_confidence == ()
    assert silent(after, reading) == []


def test_a_black_rimmed_disc_both_measures_name_is_not_the_colour_its_rim_seems() -> None:
    """Never-tuned-on game 1782 (pale discs with a coloured rim, pale framed tiles, a checked
    tablecloth), its third move: a black disc put down on E10 under a warm lamp. The rings (0.57)
    and the pixels (0.40) both named the black leader; the pixels unlike the board beside it
    seemed blue at 0.92, and the game took a blue leader. Calibrated and filmed with that game's
    own sensor noise (in which the rim seemed blue), E10 is the black leader or unsure."""
    table = Table.of_game(1782)
    table.observer = Observer(synthetic_calibration(table.pose, table.size, style=table.style, seed=1782,
                                                    conditions=table.light))
    game_camera = 1782 * 7919  # `CameraEyes`' camera seed: its frames are rendered at this plus their moment
    table.shots = game_camera + 11
    leaning = synthetic.Shadow(x=0.728, y=0.036, width=0.428, height=0.476, angle_deg=113.9, darkness=0.207)
    before = Scene.setup().with_cells({
        9: CellTruth(CellClass.LEADER_RED, dynasty="bull"), 112: CellTruth(CellClass.LEADER_RED, dynasty="archer"),
        169: CellTruth(CellClass.LEADER_BLACK, dynasty="archer"),  # J1, A8, J11
    })
    table.follow([before], replace(table.light, exposure=1.022, lamp=0.270, light_falloff=0.286, shadows=(leaning,)))
    after = before.with_cells({148: CellTruth(CellClass.LEADER_BLACK, dynasty="bull")})  # E10
    table.shots = game_camera + 19
    reading = table.observer.read(table.frame(after, replace(table.light, exposure=1.005, lamp=0.261,
                                                                    light_falloff=0.287, shadows=(leaning,))))
    assert reading.ok, reading.message
    assert silent(after, reading) == []
    assert 148 in (reading.changed or ()) or 148 in reading.low_confidence


@pytest.mark.parametrize(("game", "square"), [(1641, 85), (1723, 121)])  # F6, J8
def test_a_framed_tile_pushed_aside_is_never_read_as_another_colour(game: int, square: int) -> None:
    """Never-tuned-on games 1641 and 1723 (pale tiles with a coloured frame on olive land): a tile
    with a black frame put down a quarter of a square aside. Measured around the square's centre,
    its outer rings took in the land along one side, and the rings named a green tile (1641: at
    0.56, and the game took it silently; 1723: at 0.98). Measured again around where it lies, they
    name the black tile: F6 or J8 is the black tile or unsure, and the rest of the board as it was."""
    table = Table.of_game(game)
    table.follow([Scene.setup()])
    after = Scene.setup().with_cells({square: CellTruth(CellClass.TILE_BLACK)})
    reading = table.observer.read(table.frame(after))
    assert reading.ok, reading.message
    assert silent(after, reading) == []
    assert reading.changed == (square,)
