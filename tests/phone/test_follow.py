"""The main loop's side: the codes on the screen, a snapshot after each change, the menu entry."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
pygame = pytest.importorskip("pygame")
cv2 = pytest.importorskip("cv2")
np = pytest.importorskip("numpy")

from companion.app.controller import Controller  # noqa: E402
from companion.app.run import Loop  # noqa: E402
from companion.commands import UiCommand  # noqa: E402
from companion.hardware.display import Display  # noqa: E402
from companion.phone.follow import Phones  # noqa: E402
from companion.phone.server import PhoneServer  # noqa: E402
from companion.rules import Game  # noqa: E402
from companion.sim.eyes import synthetic_calibration  # noqa: E402
from companion.ui.inputs import Inputs  # noqa: E402
from companion.ui.render import Renderer  # noqa: E402
from vision.observer import Observer  # noqa: E402
from vision.sim.camera import SyntheticCamera  # noqa: E402
from vision.sim.synthetic import CameraPose, Scene  # noqa: E402

SIZE = (1014, 760)


class Quiet:
    def ready(self) -> None: ...
    def watchdog(self) -> None: ...
    def status(self, text: str) -> None: ...
    def stopping(self) -> None: ...


@pytest.fixture
def server() -> Iterator[PhoneServer]:
    server = PhoneServer("127.0.0.1", 0)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def loop_with_phones(tmp_path: Path, server: PhoneServer, game: Game) -> Loop:
    pose = CameraPose()
    camera = SyntheticCamera(Scene.setup(), size=SIZE, pose=pose, seed=3)
    camera.start()
    renderer = Renderer()
    return Loop(Controller(game), camera, Observer(synthetic_calibration(pose, SIZE, seed=5), still_frames=2),
                Display((800, 480)), renderer, Inputs(renderer), Quiet(), tmp_path, phones=Phones(server))


def read_codes(surface: object, texts: set[str]) -> set[str]:
    """What a phone's camera reads in the QR codes on the screen: OpenCV's QR reader, on the picture
    enlarged twice (a phone's camera sees each pixel of the panel with several of its own). Debian's
    OpenCV is built without the decoder: there each code's modules are read off the screen instead
    and must be exactly those segno encodes for one of `texts`."""
    picture = pygame.surfarray.array3d(surface).swapaxes(0, 1)[:, :, ::-1].copy()
    big = cv2.resize(picture, None, fx=2, fy=2, interpolation=cv2.INTER_NEAREST)
    found, decoded, _, _ = cv2.QRCodeDetector().detectAndDecodeMulti(big)
    if found and any(decoded):
        return set(decoded)
    import segno

    matrices = {tuple(tuple(bool(m) for m in row) for row in segno.make(t, error="l", micro=False).matrix): t
                for t in texts}
    white = np.all(picture == 255, axis=2).astype(np.uint8)
    count, _, stats, _ = cv2.connectedComponentsWithStats(white, connectivity=4)
    read = set()
    for x, y, w, h, _ in stats[1:count]:
        if w != h or w < 40:
            continue
        for matrix, text in matrices.items():
            size = len(matrix)
            module = w // (size + 8)
            if module * (size + 8) != w:
                continue
            seen = tuple(tuple(bool(picture[y + (4 + r) * module + module // 2, x + (4 + c) * module + module // 2,
                                            0] == 0) for c in range(size)) for r in range(size))
            if seen == matrix:
                read.add(text)
    return read


def test_a_new_game_shows_every_seats_code_once_and_the_menu_shows_them_again(tmp_path: Path, server) -> None:
    game = Game.new(3, hidden_hands=True, names=("Anna", "Bo", "Cy"))
    loop = loop_with_phones(tmp_path, server, game)
    controller = loop.phase
    assert isinstance(controller, Controller)
    loop.step()
    screen = controller.screen()
    assert screen.name == "phones"
    assert [c.label for c in screen.codes] == ["Anna (archer)", "Bo (bull)", "Cy (pot)", "The table"]
    links = loop.phones.links
    assert [c.text for c in screen.codes] == [server.url(t) for t in (*links.seats, links.table)]
    assert read_codes(loop.display.surface, {c.text for c in screen.codes}) == {c.text for c in screen.codes}
    controller.handle(UiCommand.nav("close"))
    loop.step()
    assert controller.screen().name == "turn"
    controller.handle(UiCommand.nav("menu"))
    assert any(b.label == "Phones" for b in controller.screen().buttons)
    controller.handle(UiCommand.nav("phones"))
    assert controller.screen().name == "phones"


def test_the_server_gets_a_new_snapshot_after_each_change_only(tmp_path: Path, server) -> None:
    game = Game.new(2, hidden_hands=True)
    loop = loop_with_phones(tmp_path, server, game)
    loop.step()
    first = server.snapshot
    assert first is not None and first.version == 1
    loop.step()
    assert server.snapshot is first  # nothing changed: nothing rebuilt
    game.apply("pass")
    loop.step()
    second = server.snapshot
    assert second is not None and second.version == 2 and second.table.log == ("Player 1: passes",)
    assert second.links == first.links
    game.undo()
    loop.step()
    assert server.snapshot is not None and server.snapshot.version == 3 and server.snapshot.table.log == ()


def test_without_phones_the_menu_has_no_phones_entry() -> None:
    controller = Controller(Game.new(2, hidden_hands=True))
    controller.handle(UiCommand.nav("menu"))
    assert not any(b.label == "Phones" for b in controller.screen().buttons)
    controller.handle(UiCommand.nav("phones"))
    assert controller.screen().name != "phones"


@pytest.mark.parametrize("size", [(800, 480), (720, 1280)])
def test_four_seats_codes_fit_the_screen_and_scan(size: tuple[int, int], server) -> None:
    game = Game.new(4, hidden_hands=True)
    phones = Phones(server)
    controller = Controller(game)
    phones.follow(controller)
    surface = pygame.Surface(size)
    renderer = Renderer()
    renderer.draw(surface, controller.screen())
    assert all(t.fits for t in renderer.texts)
    assert read_codes(surface, {c.text for c in controller.phones}) == {c.text for c in controller.phones}


def test_a_fault_in_the_phones_turns_them_off_and_the_game_goes_on(tmp_path: Path, server: PhoneServer) -> None:
    loop = loop_with_phones(tmp_path, server, Game.new(2, hidden_hands=True))

    def broken(controller: object) -> None:
        raise RuntimeError("a bug in a page")

    assert loop.phones is not None and server.running
    loop.phones.follow = broken  # type: ignore[method-assign]
    loop.step()  # no exception reaches the main loop
    assert loop.phones is None and not server.running
    loop.step()
