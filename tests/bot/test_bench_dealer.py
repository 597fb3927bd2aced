"""The dealer benchmark's setups, and that its compiled comparison plays the same
match as our dealer (same seed: same cards, same betting, same values)."""

from __future__ import annotations

import os

import pytest
from conftest import cli_json

from pokerbot.bot.bench import dealer as bench


def _state_lines(path: str) -> list[str]:
    # STATE:<hand>:<betting>:<cards>:<values>[:<names>]; the compiled loop logs no names
    with open(path) as f:
        return [":".join(line.rstrip("\n").split(":")[:5]) for line in f if line.startswith("STATE:")]


def test_compiled_loop_plays_the_same_match_as_our_dealer(tmp_path):
    compiled = bench.compiled_acpc_loop()
    assert compiled is not None, "the test environment has g++ and OpenSpiel's ACPC sources"
    ours, theirs = tmp_path / "ours", tmp_path / "compiled"
    ours.mkdir()
    theirs.mkdir()
    seconds, hands = bench.process_match(40, "ours", "compiled", str(ours), compiled)
    assert hands == 40 and seconds > 0
    seconds, hands = bench.process_match(40, "compiled", "processes", str(theirs), compiled)
    assert hands == 40 and seconds > 0
    lines = _state_lines(os.path.join(ours, "bench.log"))
    assert len(lines) == 40 and lines == _state_lines(os.path.join(theirs, "bench.log"))
    # call vs call: every hand checks down to a showdown
    assert all(line.split(":")[2] == "cc/cc/cc/cc" for line in lines)


@pytest.mark.slow  # about 11 s on 2 cores
def test_bench_dealer_prints_every_setup():
    r = cli_json("bench", "dealer", "--hands", "100", "--repeats", "1", "--json")
    assert r["compiled_available"]
    for key, *_ in bench.DEALER_SETUPS:
        assert r[f"hands_per_second_{key}"] > 0 and len(r[f"runs_{key}"]) == 1
