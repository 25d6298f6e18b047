"""A bounded load test on 127.0.0.1: 50 phones polling for a few seconds while a main loop runs.

The minute-long version with its figures is `companion bench phone`; this checks that every request
is answered and the pages keep changing, and prints the figures (no time is asserted: the machine
is shared)."""

from __future__ import annotations

from companion.bench.phone import measure


def test_fifty_phones_polling_are_all_answered_while_the_main_loop_runs() -> None:
    result = measure(clients=50, seconds=4.0, poll=1.0, alone=1.0)
    print(result)
    assert result.errors == 0
    assert set(result.statuses) <= {200, 304}
    assert result.requests >= 50  # every phone was answered at least once
    assert result.versions_seen >= 2  # and saw the game move
    assert result.alone.count > 0 and result.with_phones.count > 0
