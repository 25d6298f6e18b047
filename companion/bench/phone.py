"""`companion bench phone [--clients 50] [--seconds 60] [--json]`: phones polling while the main loop runs.

The phones' server runs in this process, as in `companion run`, beside a main loop that draws the
turn screen every frame (more than the real loop, which redraws only on a change), plays a move every
ten frames and hands the server a snapshot after each. The phones are another process (they are other
machines at the table): each keeps its own connection and asks for its page's live part every
`--poll` seconds, as the page's script does. Printed: the answers and their latency, and the main
loop's frame time first without phones, then with them. Traffic stays on 127.0.0.1, bounded in time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

FRAME_SECONDS = 0.05  # the main loop's pace in `companion run`
MOVE_EVERY = 10  # frames between two moves: the pages change twice a second, far faster than at a table


@dataclass
class Swarm:
    """What the phones saw."""

    statuses: Counter[int] = field(default_factory=Counter)
    latency_ms: list[float] = field(default_factory=list)
    errors: int = 0
    versions_seen: int = 0  # distinct versions of the pages received whole


@dataclass(frozen=True)
class Frames:
    median_ms: float
    p95_ms: float
    max_ms: float
    count: int
    cpu_median_ms: float  # the main thread's own CPU time: the rest of a frame is waiting (GIL, other processes)


@dataclass(frozen=True)
class Result:
    clients: int
    seconds: float
    poll: float
    requests: int
    statuses: dict[int, int]
    errors: int
    versions_seen: int
    latency_median_ms: float
    latency_p95_ms: float
    latency_max_ms: float
    alone: Frames
    with_phones: Frames
    follow_median_ms: float
    follow_max_ms: float


def _frames(times: list[tuple[float, float]]) -> Frames:
    ordered = sorted(wall for wall, _ in times)
    return Frames(statistics.median(ordered), ordered[int(0.95 * (len(ordered) - 1))], ordered[-1], len(ordered),
                  statistics.median(cpu for _, cpu in times))


class _MainLoop:
    """A stand-in for `companion run`'s loop: the turn screen drawn each frame, a move now and then."""

    def __init__(self, phones: Any) -> None:
        os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
        import pygame

        from companion.app.controller import Controller
        from companion.rules import Game, random_playout
        from companion.ui.render import Renderer

        pygame.display.init()
        self.surface = pygame.Surface((800, 480))
        self.renderer = Renderer()
        self.moves = random_playout(3, seed=7).actions
        self.controller = Controller(Game.new(3, seed=7))
        self.phones = phones
        self.follow_ms: list[float] = []

    def run(self, seconds: float) -> list[tuple[float, float]]:
        """(wall, CPU) milliseconds of each frame. Each run plays the same moves from the start of the
        game, so that runs with and without phones draw the same screens."""
        while self.controller.game.actions:
            self.controller.game.undo()
        times: list[tuple[float, float]] = []
        end = time.monotonic() + seconds
        frame = 0
        while time.monotonic() < end:
            began, cpu = time.perf_counter(), time.thread_time()
            game = self.controller.game
            if frame % MOVE_EVERY == 0:
                if len(game.actions) == len(self.moves):
                    while game.actions:  # the game is over: back to its start, and on
                        game.undo()
                game.apply(self.moves[len(game.actions)])
            before = time.perf_counter()
            self.phones.follow(self.controller)
            self.follow_ms.append((time.perf_counter() - before) * 1000)
            self.controller.asking = None
            self.renderer.draw(self.surface, self.controller.screen())
            spent = time.perf_counter() - began
            times.append((spent * 1000, (time.thread_time() - cpu) * 1000))
            frame += 1
            time.sleep(max(0.0, FRAME_SECONDS - spent))
        return times


def measure(clients: int = 50, seconds: float = 60.0, poll: float = 1.0, alone: float = 15.0) -> Result:
    from companion.phone.follow import Phones
    from companion.phone.server import PhoneServer

    server = PhoneServer("127.0.0.1", 0, max_connections=max(64, clients + 8))
    server.start()
    try:
        phones = Phones(server)
        loop = _MainLoop(phones)
        quiet = loop.run(alone)
        assert phones.links is not None and server.listening is not None
        links = phones.links
        urls = [server.url(token) for token in (*links.seats, links.table)]
        swarm = subprocess.Popen([sys.executable, "-m", "companion.bench.phone", "--swarm", str(clients),
                                  str(seconds), str(poll), *urls], stdout=subprocess.PIPE, text=True)
        busy = loop.run(seconds)
        out, _ = swarm.communicate(timeout=seconds + 60)
    finally:
        server.stop()
    seen = json.loads(out)
    latency = sorted(seen["latency_ms"]) or [0.0]
    follow = sorted(loop.follow_ms)
    return Result(clients, seconds, poll, sum(seen["statuses"].values()), {int(k): v for k, v in
                                                                           seen["statuses"].items()},
                  seen["errors"], seen["versions_seen"], statistics.median(latency),
                  latency[int(0.95 * (len(latency) - 1))], latency[-1], _frames(quiet), _frames(busy),
                  statistics.median(follow), follow[-1])


async def _phone(url: str, until: float, poll: float, delay: float, seen: Swarm, versions: set[str]) -> None:
    import aiohttp

    await asyncio.sleep(delay)
    tag = ""
    async with aiohttp.ClientSession() as session:  # one connection per phone, kept alive
        while time.monotonic() < until:
            began = time.perf_counter()
            try:
                async with session.get(f"{url}/live", headers={"If-None-Match": tag} if tag else {}) as answer:
                    await answer.read()
                    seen.statuses[answer.status] += 1
                    if answer.status == 200:
                        tag = answer.headers.get("ETag", "")
                        versions.add(tag)
            except (aiohttp.ClientError, OSError):
                seen.errors += 1
            seen.latency_ms.append((time.perf_counter() - began) * 1000)
            await asyncio.sleep(max(0.0, poll - (time.perf_counter() - began)))


def _swarm(clients: int, seconds: float, poll: float, urls: list[str]) -> Swarm:
    if not all(url.startswith("http://127.0.0.1:") for url in urls):
        raise SystemExit("the load test only ever asks 127.0.0.1")
    seen, versions = Swarm(), set[str]()

    async def everyone() -> None:
        until = time.monotonic() + seconds
        await asyncio.gather(*(_phone(urls[i % len(urls)], until, poll, poll * i / clients, seen, versions)
                               for i in range(clients)))

    asyncio.run(everyone())
    seen.versions_seen = len(versions)
    return seen


def main(argv: list[str]) -> int:
    if argv and argv[0] == "--swarm":  # the phones' process, started by `measure`
        clients, seconds, poll, urls = int(argv[1]), float(argv[2]), float(argv[3]), argv[4:]
        seen = _swarm(clients, seconds, poll, urls)
        print(json.dumps({**asdict(seen), "statuses": dict(seen.statuses)}))
        return 0
    parser = argparse.ArgumentParser(prog="companion bench phone", description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0, help="how long the phones poll")
    parser.add_argument("--poll", type=float, default=1.0, help="seconds between a phone's requests")
    parser.add_argument("--alone", type=float, default=15.0, help="seconds of main loop measured without phones")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = measure(args.clients, args.seconds, args.poll, args.alone)
    if args.json:
        print(json.dumps(asdict(result)))
        return 0
    a, b = result.alone, result.with_phones
    print(f"{result.clients} phones polling every {result.poll:g} s for {result.seconds:g} s on 127.0.0.1")
    print(f"  answers: {result.requests} ({', '.join(f'{k}: {v}' for k, v in sorted(result.statuses.items()))}), "
          f"errors {result.errors}; {result.versions_seen} versions of the pages received")
    print(f"  latency: median {result.latency_median_ms:.1f} ms, p95 {result.latency_p95_ms:.1f} ms, "
          f"max {result.latency_max_ms:.1f} ms")
    for words, f in (("without phones", a), ("with the phones", b)):
        print(f"  main loop frame {words}: median {f.median_ms:.1f} ms, p95 {f.p95_ms:.1f} ms, max {f.max_ms:.1f} ms "
              f"({f.count} frames); its own CPU time, median {f.cpu_median_ms:.1f} ms")
    print(f"  snapshot for the phones on the main loop (each pass; built when the game changed): median "
          f"{result.follow_median_ms:.2f} ms, max {result.follow_max_ms:.2f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
