"""The `companion` command: one sub-command per job, each in its own module.

Sub-commands are imported only when used, so `companion bench rules` works on a machine
without OpenCV or pygame, and a broken optional part never stops the others.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Sequence

# name -> (module, function, one-line help). Each function takes argv and returns an exit code.
COMMANDS: dict[str, tuple[str, str, str]] = {
    "demo": ("companion.sim.demo", "main", "play a whole simulated game at the table, no hardware needed"),
    "run": ("companion.app.run", "main", "the table companion itself (camera, screen, buttons)"),
    "replay": ("companion.sim.demo", "replay_main", "replay a saved game record on the screens"),
    "selfplay": ("companion.app.selfplay", "main", "print a self-played game move by move with the tally"),
    "read": ("companion.app.read", "main", "read still images of the board and print the grid"),
    "calibrate": ("companion.app.calibrate", "main", "calibrate the camera against the board"),
    "report": ("companion.app.report", "main", "make the post-game report (an HTML file) from a saved game record"),
    "bench": ("companion.bench", "main", "benchmarks: rules, vision, game, render, phone"),
    "doctor": ("companion.app.doctor", "main", "check camera, markers, GPIO, screen, disk and versions"),
}


def _usage() -> str:
    width = max(len(name) for name in COMMANDS)
    lines = ["usage: companion COMMAND [ARGS...]", "", "commands:"]
    lines += [f"  {name:<{width}}  {help_}" for name, (_, _, help_) in COMMANDS.items()]
    lines += ["", "`companion COMMAND --help` tells more."]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        print(_usage())
        return 0
    name, rest = args[0], args[1:]
    if name not in COMMANDS:
        print(f"companion: unknown command {name!r}\n\n{_usage()}", file=sys.stderr)
        return 2
    module_name, function_name, _ = COMMANDS[name]
    function: Callable[[list[str]], int] = getattr(importlib.import_module(module_name), function_name)
    return function(rest)
