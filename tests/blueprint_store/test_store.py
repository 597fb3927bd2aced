"""The blueprint store: round trip, lookups with range thresholding, reach along a
line, and clear errors for truncated, corrupt or mismatched files."""

import dataclasses
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from pokerbot.blueprint_store.abstraction import hand_buckets
from pokerbot.blueprint_store.store import (
    FORMAT_VERSION,
    RANGE_THRESHOLD,
    Blueprint,
    OffTreeError,
    StoreError,
    apply_threshold,
    play_digest,
    write_blueprint,
)
from pokerbot.protocol.betting import BettingState, apply_betting
from pokerbot.protocol.gamedef import bundled_game
from pokerbot.solver.tree import DECISION

HUNL = bundled_game("holdem.nolimit.2p")


def test_round_trip_and_verify(small_blueprint):
    bp = Blueprint(small_blueprint)
    bp.verify()
    bp.check_game(HUNL)
    assert bp.header["format"] == FORMAT_VERSION
    assert bp.tree.num_slots == bp.strategy.shape[0]
    assert bp.cards.flop.shape == (1_286_792,) and bp.cards.turn.shape == (55_190_538,)
    # every decision's probabilities form a distribution for every bucket
    for n in np.nonzero(bp.tree.kind == DECISION)[0][:40]:
        for b in range(bp.tree.buckets[bp.tree.round[n]]):
            p = bp.probabilities(int(n), b, threshold=False)
            assert p.sum() == pytest.approx(1.0, abs=1e-5) and (p >= 0).all()


def test_the_play_digest_ignores_training_figures_and_sees_the_strategy(small_blueprint, tmp_path):
    """A store written again with other training figures (times, machine) plays the same
    and has the same play digest though its bytes differ; one probability changed gives
    another digest (the control that the digest reads the arrays)."""
    contents = Blueprint(small_blueprint).contents()
    again = tmp_path / "again.bp"
    write_blueprint(again, dataclasses.replace(contents, training={**contents.training, "seconds": 12345.6}))
    with open(small_blueprint, "rb") as f, open(again, "rb") as g:
        assert f.read() != g.read()
    assert play_digest(again) == play_digest(small_blueprint) == Blueprint(again).play_digest()
    strategy = np.array(contents.strategy)
    strategy[len(strategy) // 2] += 1e-6
    changed = tmp_path / "changed.bp"
    write_blueprint(changed, dataclasses.replace(contents, strategy=strategy))
    assert play_digest(changed) != play_digest(small_blueprint)


def test_lookup_follows_the_betting_and_thresholds_early_rounds(small_blueprint):
    bp = Blueprint(small_blueprint)
    root = BettingState(HUNL)
    assert bp.node_of(root) == 0
    acts = bp.child_actions(0)
    assert [str(a) for a in acts] == ["f", "c", "r300", "r20000"]
    state = apply_betting(BettingState(HUNL), "r300c/")
    node = bp.node_of(state)
    assert bp.tree.round[node] == 1 and bp.tree.kind[node] == DECISION
    for n in (0, node):  # rounds 0 and 1: nothing under 4 % survives, unless it is the largest
        for b in range(bp.tree.buckets[bp.tree.round[n]]):
            p = bp.probabilities(n, b)
            assert ((p == 0) | (p >= RANGE_THRESHOLD - 1e-9)).all()
    with pytest.raises(OffTreeError) as e:
        bp.node_of(apply_betting(BettingState(HUNL), "r250"))
    assert e.value.node == 0
    actions, probs = bp.strategy_for(state.copy(), [48, 49])
    assert len(actions) == len(probs) and probs.sum() == pytest.approx(1.0)


def test_threshold_keeps_the_largest_and_renormalises():
    assert np.allclose(apply_threshold(np.array([0.02, 0.5, 0.48])), [0, 0.5 / 0.98, 0.48 / 0.98])
    assert np.allclose(apply_threshold(np.array([0.03, 0.03, 0.94])), [0, 0, 1])


def test_reach_is_the_product_of_the_players_probabilities(small_blueprint):
    bp = Blueprint(small_blueprint)
    # preflop raise (player 0... whoever acts first), call; then on the flop a check
    line = [(0, 2)]
    n1 = int(bp.tree.first_child[0]) + 2
    line.append((n1, 1))
    n2 = int(bp.tree.first_child[n1]) + 1
    board = [0, 17, 34]
    line.append((n2, 0))
    p0 = int(bp.tree.player[0])
    reach = bp.reach(line, p0, board)
    pre = hand_buckets(bp.cards, 0, [])
    flop = hand_buckets(bp.cards, 1, board)
    for h in (5, 200, 1000):
        expected = bp.probabilities(0, int(pre[h]))[2]
        if int(bp.tree.player[n2]) == p0:
            expected *= bp.probabilities(n2, int(flop[h]))[0]
        blocked = flop[h] < 0
        assert reach[h] == pytest.approx(0.0 if blocked else expected)
    assert (reach[flop < 0] == 0).all()


def corrupt_copy(src, dst, at, data):
    shutil.copy(src, dst)
    with open(dst, "r+b") as f:
        f.seek(at)
        f.write(data)
    return dst


def test_bad_files_give_clear_errors(small_blueprint, tmp_path):
    size = os.path.getsize(small_blueprint)
    trunc = tmp_path / "trunc.bp"
    with open(small_blueprint, "rb") as f, open(trunc, "wb") as g:
        g.write(f.read(size // 2))
    with pytest.raises(StoreError, match="truncated"):
        Blueprint(trunc)
    (tmp_path / "tiny.bp").write_bytes(b"PKB")
    with pytest.raises(StoreError, match="too short"):
        Blueprint(tmp_path / "tiny.bp")
    with pytest.raises(StoreError, match="bad magic"):
        Blueprint(corrupt_copy(small_blueprint, tmp_path / "magic.bp", 0, b"NOTABLUE"))
    with pytest.raises(StoreError, match="format 99"):
        Blueprint(corrupt_copy(small_blueprint, tmp_path / "ver.bp", 8, (99).to_bytes(4, "little")))
    with pytest.raises(StoreError, match="header is corrupt"):
        Blueprint(corrupt_copy(small_blueprint, tmp_path / "head.bp", 40, b"\xff\xfe"))
    bp = Blueprint(small_blueprint)
    at = bp.header["arrays"]["strategy"]["offset"] + 16
    damaged = Blueprint(corrupt_copy(small_blueprint, tmp_path / "data.bp", at, b"\x12\x34\x56\x78"))
    with pytest.raises(StoreError, match="'strategy' is corrupt"):
        damaged.verify()
    with pytest.raises(StoreError, match="another game"):
        bp.check_game(bundled_game("holdem.limit.2p"))
    with pytest.raises(StoreError, match="cannot read"):
        Blueprint(tmp_path / "missing.bp")


def test_a_second_process_shares_the_pages(small_blueprint):
    """Opening maps the file: touching every strategy page in another process adds
    mostly shared (file-backed) memory, not private copies."""
    code = (
        "import sys, numpy as np\n"
        "from pokerbot.blueprint_store.store import Blueprint\n"
        "bp = Blueprint(sys.argv[1])\n"
        "s = float(np.asarray(bp.cards.turn[::2048], dtype=np.float64).sum())\n"
        "rss = {}\n"
        "for line in open('/proc/self/smaps_rollup'):\n"
        "    k, v = line.split(':', 1)\n"
        "    rss[k] = int(v.split()[0]) if v.split() and v.split()[0].isdigit() else 0\n"
        "print(rss['Private_Clean'] + rss['Private_Dirty'], rss['Shared_Clean'] + rss['Private_Clean'])\n"
    )
    if not os.path.exists("/proc/self/smaps_rollup"):
        pytest.skip("no /proc/self/smaps_rollup on this system")
    out = subprocess.run(
        [sys.executable, "-c", code, small_blueprint],
        capture_output=True,
        text=True,
        check=True,
        cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))),
    )
    private_kb, file_kb = map(int, out.stdout.split())
    turn_kb = 55_190_538 * 2 // 1024
    # the touched turn table is file-backed: resident, but not a private anonymous copy
    assert file_kb > turn_kb // 4


def test_a_written_store_is_readable_by_other_users(small_blueprint, tmp_path):
    import os
    import stat

    from pokerbot.blueprint_store.store import Blueprint, write_blueprint

    out = tmp_path / "copy.bp"
    old = os.umask(0o022)
    try:
        write_blueprint(out, Blueprint(small_blueprint).contents())
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o644  # not mkstemp's 0600: a container's player must read it
