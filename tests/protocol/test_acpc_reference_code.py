"""Our rules against the ACPC reference code itself: OpenSpiel's wheel ships the
reference dealer's game.cc and rng.cc; a small driver (acpc/reference_driver.cc) is
compiled here and asked for deals, hand ranks and MATCHSTATE parses."""

from __future__ import annotations

import os
import shutil
import subprocess

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pokerbot.protocol.dealer import ReferenceDeal
from pokerbot.protocol.gamedef import bundled_game, bundled_game_text
from pokerbot.protocol.hand_rank import hand_strength
from pokerbot.protocol.matchstate import MatchStateError, format_matchstate, parse_matchstate

HERE = os.path.dirname(__file__)


def acpc_source_dir() -> str:
    import open_spiel

    return os.path.join(os.path.dirname(open_spiel.__file__), "games", "universal_poker", "acpc", "project_acpc_server")


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    compiler = shutil.which("g++") or shutil.which("c++")
    assert compiler, "a C++ compiler is needed to build the ACPC reference driver"
    out = tmp_path_factory.mktemp("acpc") / "driver"
    subprocess.run(
        [
            compiler,
            "-O1",
            "-w",
            "-I",
            acpc_source_dir(),
            os.path.join(HERE, "acpc", "reference_driver.cc"),
            "-o",
            str(out),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return out


class Reference:
    def __init__(self, driver, game_name, tmp_path):
        path = tmp_path / f"{game_name}.game"
        path.write_text(bundled_game_text(game_name))
        self.proc = subprocess.Popen([str(driver), str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(self, command: str, lines: int = 1) -> list[str]:
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        return [self.proc.stdout.readline().rstrip("\n") for _ in range(lines)]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


@pytest.mark.parametrize("game_name", ["holdem.nolimit.2p", "leduc.limit.2p", "kuhn.limit.2p", "flop.nolimit.2p"])
def test_deals_are_the_reference_dealers(driver, tmp_path, game_name):
    game = bundled_game(game_name)
    ref = Reference(driver, game_name, tmp_path)
    for seed in (0, 1, 42, 4_000_000_000):
        theirs = ref.ask(f"deal {seed} 50", 50)
        ours = ReferenceDeal(game, seed)
        for line in theirs:
            holes, board = ours.next_hand()
            assert [c for h in holes for c in h] + board == [int(x) for x in line.split()]
    ref.close()


def test_hand_ranks_order_like_the_reference(driver, tmp_path):
    ref = Reference(driver, "holdem.nolimit.2p", tmp_path)
    rng = np.random.default_rng(5)
    for size in (1, 2, 3, 4, 5, 6, 7):
        hands = [sorted(rng.choice(52, size, replace=False).tolist()) for _ in range(400)]
        theirs = np.array([int(ref.ask(f"rank {size} " + " ".join(map(str, h)))[0]) for h in hands])
        ours = np.array([hand_strength(h) for h in hands])
        # the same order, ties included
        assert (np.sign(ours[:, None] - ours[None, :]) == np.sign(theirs[:, None] - theirs[None, :])).all(), size
    ref.close()


LINES = [
    "MATCHSTATE:0:0:cr14979c/r19588c/cc/r19702f:8s2h|/7hAdTd/4s/Kc",
    "MATCHSTATE:1:3:r1112c/r19448r20000c//:2c8h|6cAs/9dKsJc/9c/Td",
    "MATCHSTATE:1:1::|Qs8d",
    "MATCHSTATE:0:12:r300r900c/r1800:AsKd|/2c7h9s",
]
ALPHABET = "MATCHSTE:0123456789rcf/|AKQJT98765432shdc"


@st.composite
def mutated(draw):
    text = draw(st.sampled_from(LINES))
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(text)))
        if draw(st.booleans()):
            text = text[:i] + draw(st.text(alphabet=ALPHABET, min_size=1, max_size=4)) + text[i:]
        else:
            text = text[:i] + text[i + draw(st.integers(1, 4)) :]
    return text


@pytest.fixture(scope="module")
def hunl_reference(driver, tmp_path_factory):
    ref = Reference(driver, "holdem.nolimit.2p", tmp_path_factory.mktemp("ms"))
    yield ref
    ref.close()


@settings(max_examples=600, deadline=None)
@given(st.one_of(st.sampled_from(LINES), mutated()))
@example("MATCHSTATE:0:0:cr14979c/r19588c/cc/r19702f:|/7hAdTd/4s/Kc")
@example("MATCHSTATE:1:3:r1112c/r19448r20000c//:|6cAs/9dKsJc/9c/Td")
def test_what_we_parse_the_reference_parses_the_same_way(hunl_reference, line):
    """Our parser is the stricter one: every line it accepts, the reference accepts
    and prints back exactly as we do. (Lines that lack hole cards the reference prints
    — the viewer's own, or anyone's at a showdown — are only checked for acceptance:
    the reference prints whatever its state held for those cards.)"""
    if not line.strip() or "\n" in line:
        return
    try:
        ms = parse_matchstate(line, bundled_game("holdem.nolimit.2p"))
    except MatchStateError:
        return
    printed = (0, 1) if ms.state.is_showdown else (ms.viewer,)
    if any(not ms.state.hole_cards[p] for p in printed):
        assert hunl_reference.ask(f"ms {line}")[0] != "ERR"  # accepted there too
        return
    ours = format_matchstate(ms)
    assert hunl_reference.ask(f"ms {line}")[0] == ours
