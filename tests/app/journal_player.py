"""A companion that plays forever: random legal actions and takebacks, each journaled.

Run by test_journal_sigkill.py, which kills it with SIGKILL at random moments. On start it resumes
the unfinished game (or starts a new one), then prints the number of every line it has journaled,
so the test knows what was acknowledged before the kill.
"""

import random
import sys

from companion.app import journal
from companion.app.journal import Journal
from companion.rules import Game


def main(directory: str, seed: int) -> None:
    rng = random.Random(seed)
    while True:
        path = journal.unfinished(directory)
        if path is not None:
            resumed = journal.resume(path)
            game, record = resumed.game, resumed.journal
        else:
            game = Game.new(rng.choice((2, 3, 4)), seed=rng.randrange(2**32))
            record = Journal.start(directory, game)
        print(f"{record.path.name} {record.seq}", flush=True)
        while not game.state.over:
            if game.actions and rng.random() < 0.1:
                record.undo(game)
            else:
                record.apply(game, rng.choice(game.legal_actions()))
            print(f"{record.path.name} {record.seq}", flush=True)
        record.close()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
