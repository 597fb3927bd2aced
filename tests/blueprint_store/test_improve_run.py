"""Self-improvement, step two: extensions solved, stored beside the base strategy in a
new store (the input untouched), and played: the blueprint player switches to a type-2
extension when the opponent's first raise translates to its size, and to a type-1
extension only while the opponent's last eight first raises were of its size."""

import hashlib

import numpy as np
import pytest
from conftest import build_small_blueprint, capture_agent_logs

from pokerbot.blueprint_store.actions import ActionAbstraction
from pokerbot.blueprint_store.improve import improve, plan_improvement
from pokerbot.blueprint_store.store import Blueprint, StoreError
from pokerbot.bot.players.blueprint_player import BlueprintStrategy
from pokerbot.protocol.betting import BettingState, apply_betting
from pokerbot.protocol.gamedef import bundled_game
from pokerbot.protocol.matchstate import MatchState, format_state_line
from pokerbot.solver.tree import BetSizes

HUNL = bundled_game("holdem.nolimit.2p")
pytestmark = pytest.mark.timeout(600)
#: two opening sizes, so that there is a gap between them
ACTIONS = ActionAbstraction(
    (BetSizes(bets=((0.5, 1.0), (1.0,)), max_raises=2),)
    + tuple(BetSizes(bets=((1.0,),), max_raises=1) for _ in range(3))
)
US, THEM = "A-libratus", "B-prober"


def digest(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def dealer_log(path, betting: str, names: list[str], hands: int) -> str:
    """A dealer log of ``hands`` hands with the same betting, seats named ``names``."""
    lines = []
    for h in range(hands):
        st = apply_betting(BettingState(HUNL, h, [[0, 1], [2, 3]], [8, 9, 10, 11, 12]), betting)
        lines.append(format_state_line(st, st.payoffs(), names))
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def improve_logged(base, logs, out, lines: list, **options):
    """``improve`` for our Libratus agent on one thread, its log messages appended to
    ``lines``."""
    return improve(base, logs, out, us="libratus", threads=1, log=lines.append, **options)


def opens(tmp_path, size_to: int, hands: int):
    """A dealer log where the opponent (position 1: first to act preflop) opens to ``size_to``."""
    return dealer_log(tmp_path / f"opens{size_to}.log", f"r{size_to}f", [US, THEM], hands)


@pytest.fixture(scope="module")
def improved(tmp_path_factory):
    d = tmp_path_factory.mktemp("improve")
    base = build_small_blueprint(str(d / "base.bp"), iterations=10_000, actions=ACTIONS)
    logs = opens(d, 250, 30)  # 150 over a 200 pot after calling: 0.75, in the gap (0.5, 1.0)
    before = digest(base)
    lines: list = []  # log messages, and progress calls as tuples
    summary = improve_logged(
        base, [logs], str(d / "improved.bp"), lines, k=3, seconds=4.0, progress=lambda *a: lines.append(a)
    )
    assert digest(base) == before  # the input store is never written to
    return base, str(d / "improved.bp"), summary, lines, d


def test_improve_reports_each_extensions_training_as_its_own_phase(improved):
    _, _, _, lines, _ = improved
    calls = [x for x in lines if isinstance(x, tuple)]
    phases = list(dict.fromkeys(c[0] for c in calls))
    assert phases == ["type2 0.714 pot", "type1 0.750 pot"]  # an equal share of the 4 s each
    for phase in phases:
        done = [c[1] for c in calls if c[0] == phase]
        assert done == sorted(done) and done[-1] == pytest.approx(2.0)
    assert {(c[2], c[3]) for c in calls} == {(2.0, "s")}
    assert not [x for x in lines if isinstance(x, str) and "left" in x]  # no periodic lines beside the bars


def test_improve_adds_the_midpoint_and_the_most_common_size(improved):
    base, out, summary, lines, _ = improved
    # the opponent opened from position 1 only: one extension of each kind, for that position
    assert [(a["kind"], a["opponent"]) for a in summary["added"]] == [("type2", 1), ("type1", 1)]
    assert summary["added"][0]["size"] == pytest.approx(2.5 / 3.5)  # the pseudo-harmonic midpoint of 0.5 and 1
    assert summary["added"][1]["size"] == pytest.approx(0.75)
    assert any("gap 0.50-1.00" in line for line in lines) and any("wrote" in line for line in lines)
    bp = Blueprint(out)
    bp.verify()
    assert [(e.kind, round(e.size, 3)) for e in bp.extensions] == [("type2", 0.714), ("type1", 0.75)]
    t2, t1 = bp.extensions
    root_raises = [a.size for a in t2.child_actions(0) if a.type.name == "RAISE"]
    # SB opens: pot 150, after calling 200: 0.5 -> 200, 0.714 -> 243, 1.0 -> 300, and all-in
    assert root_raises[:3] == [200, 243, 300] and root_raises[-1] == 20000
    assert [a.size for a in t1.child_actions(0) if a.type.name == "RAISE"] == [250, 20000]
    # we (position 0) keep the base's first raises, after the opponent's limp
    b0 = Blueprint(base)
    limp = [a.size for a in b0.child_actions(int(b0.tree.first_child[0]) + 1) if a.type.name == "RAISE"]
    for e in (t2, t1):
        assert e.opponent == 1
        assert [a.size for a in e.child_actions(int(e.tree.first_child[0]) + 1) if a.type.name == "RAISE"] == limp
    for e in (t2, t1):
        p = e.probabilities(0, 5)
        assert p.shape == (len(e.child_actions(0)),) and p.sum() == pytest.approx(1.0)
    # the base part is the input's, unchanged
    b0 = Blueprint(base)
    np.testing.assert_array_equal(np.asarray(bp.strategy), np.asarray(b0.strategy))
    assert Blueprint(base).extensions == []


def test_a_second_run_does_not_add_the_same_sizes_and_refuses_to_overwrite_its_input(improved):
    base, out, _, _, d = improved
    plan = plan_improvement(Blueprint(out), [str(p) for p in d.glob("*.log")], "libratus", k=3)
    assert plan.type2 == [] and plan.type1 is None
    with pytest.raises(ValueError, match="new file"):
        improve(out, [str(p) for p in d.glob("*.log")], out, seconds=1.0)


def facing_open(size_to: int, hand: int):
    st = BettingState(HUNL, hand, [[40, 44], [2, 3]])  # we are position 0, the big blind
    return MatchState(0, apply_betting(st, f"r{size_to}"))


def test_the_player_switches_to_a_type2_extension_by_translation(improved):
    _, out, _, _, _ = improved
    player = BlueprintStrategy(seed=1, blueprint=out)
    player.act(facing_open(243, 1))  # exactly the added size
    assert player.play.view.kind == "type2"
    player.act(facing_open(200, 2))  # exactly a base size
    assert player.play.view.kind == "base"
    # the opponent in position 0 raising 0.714 after our limp: these extensions answer position 1 only
    st = apply_betting(BettingState(HUNL, 3, [[2, 3], [40, 44]]), "cr243")
    player.act(MatchState(1, st))
    assert player.play.view.kind == "base"
    kinds = []
    for h in range(200):  # 0.6 pot: between 0.5 and 0.714, mapped to either by pseudo-harmonic odds
        player.act(facing_open(220, 100 + h))
        kinds.append(player.play.view.kind)
    share = kinds.count("type2") / len(kinds)
    # P(0.714 | x = 0.6, A = 0.5, B = 0.714) = 1 - (B - x)(1 + A) / ((B - A)(1 + x))
    want = 1 - (2.5 / 3.5 - 0.6) * 1.5 / ((2.5 / 3.5 - 0.5) * 1.6)
    assert abs(share - want) < 0.12


def test_the_agent_logs_the_extension_it_plays(improved):
    """The Libratus agent's decision log says which extension a hand switched to, so a
    match's logs show where the improvement was used."""
    from pokerbot.bot.agent.libratus import LibratusAgent

    _, out, _, _, _ = improved
    agent = LibratusAgent(seed=1, blueprint=out)
    with capture_agent_logs() as logs:
        agent.act(facing_open(243, 1))  # exactly the type-2 size
        agent.act(facing_open(200, 2))  # a base size
    lines = [e for e in logs if e["event"] == "decision"]
    assert [e.get("extension") for e in lines] == ["type2 0.714", None]


def test_type1_is_used_only_after_eight_opens_of_its_size(improved):
    _, out, _, _, _ = improved
    player = BlueprintStrategy(seed=2, blueprint=out)
    kinds = []
    for h in range(10):
        ms = facing_open(250, h)
        player.act(ms)
        kinds.append(player.play.view.kind)
        final = apply_betting(ms.state.copy(), "f", len(ms.state.betting_string()))
        player.hand_over(MatchState(0, final))
    assert "type1" not in kinds[:8] and kinds[8:] == ["type1", "type1"]
    ms = facing_open(300, 20)  # another size: the history no longer supports type 1
    player.act(ms)
    player.hand_over(MatchState(0, apply_betting(ms.state.copy(), "f", len(ms.state.betting_string()))))
    player.act(facing_open(250, 21))
    assert player.play.view.kind != "type1"


def test_the_agent_plays_type1_after_eight_opens_of_its_size(improved):
    """The same rule through the Libratus agent: it must pass the ends of hands on to
    its blueprint player, which keeps the opponent's size history."""
    from pokerbot.bot.agent.libratus import LibratusAgent

    _, out, _, _, _ = improved
    agent = LibratusAgent(seed=2, blueprint=out)
    with capture_agent_logs() as logs:
        for h in range(10):
            ms = facing_open(250, h)
            agent.act(ms)
            agent.hand_over(MatchState(0, apply_betting(ms.state.copy(), "f", len(ms.state.betting_string()))))
    used = [e.get("extension") for e in logs if e["event"] == "decision"]
    assert not any(u and u.startswith("type1") for u in used[:8])
    assert used[8:] == ["type1 0.750", "type1 0.750"]


def test_a_damaged_extension_is_refused(improved, tmp_path):
    _, out, _, _, _ = improved
    bp = Blueprint(out)
    import msgpack

    from pokerbot.blueprint_store import store

    raw = open(out, "rb").read()
    magic, version, crc, length = store.PREAMBLE.unpack(raw[: store.PREAMBLE.size])
    header = msgpack.unpackb(raw[store.PREAMBLE.size : store.PREAMBLE.size + length], raw=False)
    header["extensions"][0]["kind"] = "type9"
    body = msgpack.packb(header, use_bin_type=True)
    assert len(body) <= length
    body = body + b"\x00" * 0  # same array offsets: write the shorter header in place
    import zlib

    bad = tmp_path / "bad.bp"
    bad.write_bytes(
        store.PREAMBLE.pack(magic, version, zlib.crc32(body), len(body)) + body + raw[store.PREAMBLE.size + len(body) :]
    )
    with pytest.raises(StoreError, match="extension"):
        Blueprint(str(bad))
    assert len(bp.extensions) == 2


def test_info_lists_the_extensions(improved, capsys):
    from pokerbot.blueprint_store.info import print_info

    _, out, _, _, _ = improved
    print_info(out, True, [])
    text = capsys.readouterr().out
    assert "extension type2: first raise 0.714 pot by the opponent in position 1" in text
    assert "extension type1: first raise 0.750 pot by the opponent in position 1" in text
    assert f"play digest: {Blueprint(out).play_digest()} " in text  # --verify prints it


def raises_after_our_limp(tmp_path, size_to: int, hands: int):
    """A dealer log where the opponent (position 0, the big blind) raises to
    ``size_to`` after our limp, and we fold."""
    return dealer_log(tmp_path / f"raises{size_to}.log", f"cr{size_to}f", [THEM, US], hands)


def test_our_first_move_is_kept_when_the_opponent_raises_after_it(improved, tmp_path):
    base, _, _, _, _ = improved
    logs = raises_after_our_limp(tmp_path, 250, 30)  # 150 over a 200 pot: 0.75 again
    lines = []
    summary = improve_logged(base, [logs], str(tmp_path / "improved.bp"), lines, k=1, seconds=2.0, type1=False)
    assert summary["added"] == [{"kind": "type2", "size": pytest.approx(2.5 / 3.5), "opponent": 0}]
    assert any("first move kept" in line for line in lines)
    b0 = Blueprint(base)
    (ext,) = Blueprint(str(tmp_path / "improved.bp")).extensions
    assert ext.training_figures["kept_first_move"] is True
    # our first move (position 1, the small blind) is the blueprint's, bucket by bucket
    assert ext.child_actions(0) == b0.child_actions(0)
    buckets = int(b0.tree.buckets[0])
    for k in range(buckets):
        np.testing.assert_allclose(ext.probabilities(0, k, threshold=False), b0.probabilities(0, k), atol=1e-6)
    # below our limp the opponent's first raises are the new ones, and were trained
    limp = int(ext.tree.first_child[0]) + [a.type.name for a in ext.child_actions(0)].index("CALL")
    assert [a.size for a in ext.child_actions(limp) if a.type.name == "RAISE"][:3] == [200, 243, 300]
    trained = [
        not np.allclose(ext.probabilities(limp, k, threshold=False), 1 / ext.tree.num_children[limp])
        for k in range(buckets)
    ]
    assert sum(trained) > buckets // 2
    # below our own opening raise nothing was solved: the average strategy is uniform
    ours = int(ext.tree.first_child[0]) + [a.type.name for a in ext.child_actions(0)].index("RAISE")
    for k in range(buckets):
        np.testing.assert_allclose(ext.probabilities(ours, k, threshold=False), 1 / ext.tree.num_children[ours])
