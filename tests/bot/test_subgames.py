"""``pokerbot subgames``: the sample, the reach at its roots, resuming, and bad input."""

import json
import os

import numpy as np
import pytest

from pokerbot.bot.evaluation import subgames as sg
from pokerbot.bot.players.blueprint_player import BlueprintStrategy
from pokerbot.bot.players.strategy_query import HANDS, hand_index
from pokerbot.protocol.betting import BettingState
from pokerbot.protocol.gamedef import bundled_game

HUNL = bundled_game("holdem.nolimit.2p")


def config(blueprint, **more):
    settings = {"variants": ("blueprint",), "river_cards": 1, "sampling": "uniform", **more}
    return sg.SubgamesConfig(blueprint=blueprint, **settings)


def test_the_sample_is_keyed_and_reaches_the_turn_with_chips_behind(small_blueprint):
    c = config(small_blueprint)
    stores = (sg.store_of(small_blueprint),) * 2
    spots, hands = sg.sample_spots(c, 6, stores, HUNL)
    again, _ = sg.sample_spots(c, 3, stores, HUNL)
    assert again == spots[:3]  # the first subgames do not depend on how many are asked for
    assert hands >= 6 and {s.seat for s in spots} == {0, 1}
    for s in spots:
        root = s.root(HUNL)
        assert root.round == 2 and not root.actions[2] and root.raise_bounds() is not None
        assert len(root.board_cards) == 4
    other, _ = sg.sample_spots(config(small_blueprint, seed=1), 6, stores, HUNL)
    assert other != spots


def test_the_root_reach_is_the_chance_each_hand_played_the_line(small_blueprint):
    """The reach of the hand actually dealt is the product of the probabilities its
    player's strategy gave the actions it took; every hand the board blocks is 0."""
    c = config(small_blueprint)
    stores = (sg.store_of(small_blueprint),) * 2
    spot = sg.sample_spots(c, 1, stores, HUNL)[0][0]
    root = spot.root(HUNL)
    by_seat = [None, None]
    by_seat[spot.seat] = BlueprintStrategy(sg.key_of("A", 0, spot.deal, spot.seat), stores[0])
    by_seat[1 - spot.seat] = BlueprintStrategy(sg.key_of("B", 0, spot.deal, spot.seat), stores[1])
    reach = sg.root_reach(root, by_seat)
    deck = sg.keyed_deck(0, spot.deal)
    for p in (0, 1):
        h = hand_index(deck[2 * p : 2 * p + 2])
        assert reach[p, h] > 0  # the hand dealt played the line
        blocked = [i for i, pair in enumerate(HANDS.tolist()) if set(pair) & set(root.board_cards)]
        assert not reach[p, blocked].any()
    # one factor by hand: the first action's probability times the rest
    state = BettingState(HUNL, root.hand_id)
    first, actor = root.actions[0][0], root.actors[0][0]
    answer = by_seat[actor].action_probabilities(state, actor)
    assert np.all(reach[actor] <= answer.probability_of(first) + 1e-12)


def test_a_run_resumes_without_scoring_a_finished_subgame_again(small_blueprint, tmp_path, monkeypatch):
    out = str(tmp_path / "run")
    summary = sg.SubgamesRun(config(small_blueprint), 3, out, progress=False).run()
    assert summary["subgames"] == 3 and summary["variants"]["blueprint"]["ci95"] > 0
    path = os.path.join(out, "subgames.jsonl")
    lines = open(path).read().splitlines()
    with open(path, "w") as f:  # the last subgame cut by an interruption
        f.write("\n".join(lines[:2]) + "\n" + lines[2][:20])
    scored = []
    real = sg.score_spot
    monkeypatch.setattr(sg, "score_spot", lambda job: scored.append(job[1]["index"]) or real(job))
    again = sg.SubgamesRun(config(small_blueprint), 3, out, progress=False).run()
    assert scored == [2]
    assert again["variants"] == summary["variants"]
    rows = [json.loads(x) for x in open(path).read().splitlines()[:2]]
    assert [r["index"] for r in rows] == [0, 1]
    # extended, then shortened: only the new subgame is scored, the first ones stay
    scored.clear()
    longer = sg.SubgamesRun(config(small_blueprint), 4, out, progress=False).run()
    assert scored == [3] and longer["subgames"] == 4
    shorter = sg.SubgamesRun(config(small_blueprint), 3, out, progress=False).run()
    assert scored == [3] and shorter["variants"] == summary["variants"]
    assert shorter["hands_sampled"] == summary["hands_sampled"]


def test_pot_sampling_draws_by_the_pot_and_weighs_back_to_the_plain_mean():
    """Drawn in proportion to the pot and weighed by mean pot / pot, the estimate is the
    candidates' plain mean within its interval, and the interval is narrower than
    uniform sampling's when chips won follow the pot; the unweighted mean of the draws
    misses (negative control). Keyed: the first draws do not depend on how many."""
    pots = np.array([200, 300, 600, 600, 1200, 2400, 4000, 7200, 14400, 17280] * 3, dtype=float)
    values = pots * np.array([0.05, -0.03, 0.04, 0.02, -0.01, 0.06, 0.03, 0.05, 0.04, 0.02] * 3) + 3.0
    candidates = [sg.Spot(i, i, 0, (0, 1, 2, 3), "") for i in range(len(pots))]
    picks = sg.pick_by_pot(candidates, pots, 20_000, seed=0)
    assert sg.pick_by_pot(candidates, pots, 10, seed=0) == picks[:10]
    drawn = np.array([p.deal for p in picks])
    frequency = np.bincount(drawn, minlength=len(pots)) / len(drawn)
    expected = pots / pots.sum()
    assert np.all(np.abs(frequency - expected) <= 5 * np.sqrt(expected * (1 - expected) / len(drawn)))
    # the candidates are the whole population here: their mean pot is known exactly (variance 0)
    sample = sg.Sample(picks, 100, len(pots), float(pots.mean()), 0.0)
    mean, half = sg.estimate(values[drawn], pots[drawn], sample, "pot")
    assert abs(mean - values.mean()) <= half
    uniform_half = sg.Z95 * values.std(ddof=1) / np.sqrt(len(drawn))  # as many drawn uniformly
    assert half < uniform_half / 2
    wrong, wrong_half = sg.estimate(values[drawn], pots[drawn], sample, "uniform")
    assert abs(wrong - values.mean()) > 5 * wrong_half


def test_a_subgame_drawn_twice_is_scored_once(small_blueprint, tmp_path, monkeypatch):
    scored = []
    real = sg.score_spot
    monkeypatch.setattr(sg, "score_spot", lambda job: scored.append(job[1]["index"]) or real(job))
    c = config(small_blueprint, sampling="pot", candidates=2)
    summary = sg.SubgamesRun(c, 6, str(tmp_path / "run"), progress=False).run()
    rows = {r["index"]: r for r in map(json.loads, open(tmp_path / "run" / "subgames.jsonl"))}
    assert sorted(rows) == list(range(6)) and summary["subgames"] == 6
    assert len(scored) == len({(r["deal"], r["seat"]) for r in rows.values()}) <= 2
    by_spot = {}
    for r in rows.values():
        assert by_spot.setdefault((r["deal"], r["seat"]), r["values"]) == r["values"]
    assert summary["candidates"] == 2 and summary["sampling"] == "pot"


def test_bad_input_is_a_clear_error(small_blueprint, tmp_path):
    out = str(tmp_path / "run")
    cases = [
        (config(small_blueprint, opponent="nobody"), 2, "unknown opponent"),
        (config(small_blueprint, opponent="random"), 2, "range of sizes"),
        (sg.SubgamesConfig(blueprint=small_blueprint, variants=("blueprint", "magic")), 2, "variants must be"),
        (config(small_blueprint), 0, "must be positive"),
        (config(small_blueprint, river_cards=-1), 2, "river cards"),
        (config(str(tmp_path / "missing.bp")), 2, "no blueprint store"),
        (config(small_blueprint, sampling="by luck"), 2, "sampling must be"),
        (config(small_blueprint, variants=("blueprint", "agent")), 2, "give both or neither"),
        (config(small_blueprint, sampling="pot", candidates=0), 2, "candidates must be"),
        (config(small_blueprint, root="river"), 2, "root must be"),
        (config(small_blueprint, root="deal", sampling="pot"), 2, "sampling is uniform"),
        (config(small_blueprint, root="deal", flops=-1), 2, "flops must be"),
        (config(small_blueprint, variants=("blueprint", "p"), blueprints=(("p", {"purified_rounds": [4]}),)), 2, "0-3"),
        (config(small_blueprint, variants=("blueprint", "t"), blueprints=(("t", {"range_threshold": 1.0}),)), 2, "0-3"),
        (config(small_blueprint, variants=("blueprint",), blueprints=(("blueprint", {}),)), 2, "name is taken"),
    ]
    for c, n, message in cases:
        with pytest.raises(sg.SubgamesError, match=message):
            sg.SubgamesRun(c, n, out, progress=False).run()
    with pytest.MonkeyPatch.context() as m:  # our stores are no-limit: not for the limit game
        m.setattr(sg, "GAME", "holdem.limit.2p")
        with pytest.raises(sg.SubgamesError, match="trained for another game"):
            sg.SubgamesRun(config(small_blueprint), 2, out, progress=False).run()
    sg.SubgamesRun(config(small_blueprint), 1, out, progress=False).run()
    with pytest.raises(sg.SubgamesError, match="another run"):
        sg.SubgamesRun(config(small_blueprint, seed=5), 1, out, progress=False).run()


def test_the_command_prints_the_table(small_blueprint, tmp_path, capsys):
    from pokerbot.bot.cli import main

    out = str(tmp_path / "cli")
    args = ["subgames", "--blueprint", small_blueprint, "--subgames", "2", "--variants", "blueprint"]
    more = ["--candidates", "40", "--workers", "1", "--out", out, "--no-progress", "--table"]
    assert main([*args, "--river-cards", "1", *more]) == 0
    text = capsys.readouterr().out
    assert "| blueprint |" in text and "root: turn; turn and river cards: 1 drawn at each" in text
    assert "2 subgames drawn in proportion to their pot from the first 40" in text
    assert main([*args, "--river-cards", "-2", "--out", str(tmp_path / "x"), "--no-progress"]) == 2
    assert "river cards" in capsys.readouterr().err


def test_the_blueprint_played_by_both_is_scored_in_both_seats(small_blueprint):
    """Self-play: the same public line with A in seat 0 and in seat 1 (the opponent the
    same blueprint with A's keys) sums to 0: the measure is zero-sum."""
    c = config(small_blueprint)
    store = sg.store_of(small_blueprint)
    spot = sg.sample_spots(c, 1, (store, store), HUNL)[0][0]
    root = spot.root(HUNL)
    players = [BlueprintStrategy(3, store), BlueprintStrategy(3, store)]
    reach = sg.root_reach(root, players)
    deciders = [sg.decider_for(p) for p in players]
    values = [sg.subgame_value(root, reach, deciders, seat).value for seat in (0, 1)]
    assert values[0] + values[1] == pytest.approx(0.0, abs=1e-6)


def test_every_variant_is_scored_by_its_own_play(small_blueprint, tmp_path, monkeypatch):
    from pokerbot.solver import cfr

    monkeypatch.setattr(cfr, "libratus_iterations", lambda pot, bb: 12)
    c = sg.SubgamesConfig(blueprint=small_blueprint, full_turn=(1, 12), river_cards=1)
    summary = sg.SubgamesRun(c, 2, str(tmp_path / "all"), progress=False).run()
    rows = [json.loads(x) for x in open(tmp_path / "all" / "subgames.jsonl")]
    for r in rows:
        assert set(r["values"]) == set(sg.VARIANTS) and all(np.isfinite(v) for v in r["values"].values())
        # the solving variants play otherwise than the blueprint
        assert len({round(v, 6) for v in r["values"].values()}) == len(sg.VARIANTS)
    assert set(summary["differences"]) == {f"{a} - blueprint" for a in sg.VARIANTS[1:]} | {
        "full - depth-limited",
        "river-only - depth-limited",
        "river-only - full",
    }


def raise_sizes(answer) -> set[int]:
    from pokerbot.protocol.betting import ActionType

    return {a.size for a in answer.actions if a.type is ActionType.RAISE}


def test_the_on_tree_variant_bets_only_the_opponents_sizes(small_blueprint, tmp_path, monkeypatch):
    """On-tree solving (the supplement's middle column): the opening bets of A's turn
    solve are the opponent blueprint's (one pot, all-in) and unscaled; the full variant
    bets its own sizes (three quarters of the pot, scaled) at the same root."""
    from pokerbot.bot.players.strategy_query import query
    from pokerbot.protocol.betting import Action, ActionType

    store = sg.store_of(small_blueprint)
    c = config(small_blueprint, variants=("full", "on-tree"), full_turn=(1, 12))
    spot = next(s for s in sg.sample_spots(c, 8, (store, store), HUNL)[0] if s.seat == 0)
    root = spot.root(HUNL)
    assert root.current_player == 0  # A opens the turn
    all_in = HUNL.stack[0]
    sizes = {}
    for variant in c.variants:
        agent = sg.variant_strategy(c, variant, 3, (store, store))
        sizes[variant] = raise_sizes(query(agent, root, 0))
    assert sizes["on-tree"] == {root.spent[0] + root.pot, all_in}
    assert sizes["full"] - {all_in} and not sizes["full"] & {root.spent[0] + root.pot}
    # and after the opponent's pot-sized bet, a raise of one pot after the call
    state = root.copy()
    state.apply(Action(ActionType.CALL))
    state.apply(Action(ActionType.RAISE, state.spent[1] + state.pot))
    agent = sg.variant_strategy(c, "on-tree", 3, (store, store))
    raise_to = state.spent[1] + 2 * state.spent[1]  # to the bet, then one pot: the pot after the call
    assert raise_sizes(query(agent, state, 0)) == {min(raise_to, all_in), all_in}


def test_the_agent_variant_plays_as_its_options_say(small_blueprint, tmp_path, monkeypatch):
    """``--agent 'libratus --turn-solver depth-limited'`` is the depth-limited variant,
    bit for bit; ``--solve-round 4`` is the river-only variant."""
    from pokerbot.bot.cli.subgames import agent_spec
    from pokerbot.solver import cfr

    monkeypatch.setattr(cfr, "libratus_iterations", lambda pot, bb: 12)
    for spec, same in (
        ("libratus --turn-solver depth-limited", "depth-limited"),
        ("libratus --solve-round 4", "river-only"),
    ):
        c = config(small_blueprint, variants=(same, "agent"), agent=agent_spec(spec))
        sg.SubgamesRun(c, 1, str(tmp_path / same), progress=False).run()
        row = json.loads(open(tmp_path / same / "subgames.jsonl").readline())
        assert row["values"]["agent"] == row["values"][same]
    unsafe = config(
        small_blueprint, variants=("depth-limited", "agent"), agent=agent_spec("unsafe --turn-solver depth-limited")
    )
    sg.SubgamesRun(unsafe, 1, str(tmp_path / "unsafe"), progress=False).run()
    row = json.loads(open(tmp_path / "unsafe" / "subgames.jsonl").readline())
    assert row["values"]["agent"] != row["values"]["depth-limited"]  # the unsafe bot solves otherwise


@pytest.mark.slow  # about a minute on 2 cores (a Ray cluster and its workers' start-up)
def test_subgames_on_a_ray_cluster_equal_the_same_subgames_scored_here(small_blueprint, tmp_path):
    ray = pytest.importorskip("ray", reason="the cluster extra is not installed")
    from ray.cluster_utils import Cluster

    here = sg.SubgamesRun(config(small_blueprint), 3, str(tmp_path / "here"), progress=False).run()
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    c.add_node(num_cpus=1)
    try:
        there = sg.SubgamesRun(
            config(small_blueprint), 3, str(tmp_path / "there"), progress=False, ray_address=c.address
        ).run()
    finally:
        ray.shutdown()
        c.shutdown()
    assert there["variants"] == here["variants"] and there["subgames"] == 3


def test_named_agent_variants_play_as_their_options_say_on_the_same_draws(small_blueprint, tmp_path, monkeypatch):
    """``--agent-as NAME SPEC`` adds a variant per suspect: the same options as a
    standard variant score it bit for bit, other options otherwise; a name that is
    taken or not among the variants is refused."""
    from pokerbot.bot.cli.subgames import agent_spec
    from pokerbot.solver import cfr

    monkeypatch.setattr(cfr, "libratus_iterations", lambda pot, bb: 12)
    agents = (
        ("dl", agent_spec("libratus --turn-solver depth-limited")),
        ("dl-resolve", agent_spec("libratus --turn-solver depth-limited --gadget resolve")),
        ("dl-unsafe", agent_spec("unsafe --turn-solver depth-limited")),
    )
    c = config(small_blueprint, variants=("depth-limited", "dl", "dl-resolve", "dl-unsafe"), agents=agents)
    summary = sg.SubgamesRun(c, 2, str(tmp_path / "named"), progress=False).run()
    rows = [json.loads(line) for line in open(tmp_path / "named" / "subgames.jsonl")]
    assert all(r["values"]["dl"] == r["values"]["depth-limited"] for r in rows)
    assert any(r["values"]["dl-unsafe"] != r["values"]["dl"] for r in rows)
    assert "dl-resolve - depth-limited" in summary["differences"]
    for bad, words in (
        (config(small_blueprint, variants=("blueprint", "full"), agents=(("full", {}),)), "name is taken"),
        (config(small_blueprint, variants=("blueprint",), agents=agents[:1]), "not among the variants"),
    ):
        with pytest.raises(sg.SubgamesError, match=words):
            bad.verify()


def test_the_turn_bets_option_sets_the_turn_subgames_opening_sizes(small_blueprint):
    """``--turn-bets 0.5,1``: A's turn solve opens with half a pot, a pot (scaled by the
    hand's factor) and all-in, where the default opens with three quarters and all-in."""
    from pokerbot.bot.cli.subgames import agent_spec
    from pokerbot.bot.players.strategy_query import query
    from pokerbot.protocol.betting import ActionType

    store = sg.store_of(small_blueprint)
    two = ("two", agent_spec("libratus --turn-solver full --turn-bets 0.5,1"))
    c = config(small_blueprint, variants=("full", "two"), full_turn=(1, 12), agents=(two,))
    spot = next(s for s in sg.sample_spots(c, 8, (store, store), HUNL)[0] if s.seat == 0)
    root = spot.root(HUNL)
    opening = {}
    for variant in c.variants:
        agent = sg.variant_strategy(c, variant, 3, (store, store))
        bets = sorted(a.size - root.spent[0] for a in query(agent, root, 0).actions if a.type is ActionType.RAISE)
        opening[variant] = [
            round(b / root.pot / agent.scale_for(root.hand_id), 2) for b in bets if b < HUNL.stack[0] - root.spent[0]
        ]
    assert opening == {"full": [0.75], "two": [0.5, 1.0]}


def test_a_subgames_parts_add_up_to_its_value_by_turn_line_and_by_hand_class(small_blueprint, tmp_path):
    """Each scored subgame keeps, per variant, its value split by the turn's first
    betting and by our hand's class; both splits add up to the value."""
    c = config(small_blueprint, variants=("blueprint", "blueprint-purified"))
    sg.SubgamesRun(c, 3, str(tmp_path / "parts"), progress=False).run()
    rows = [json.loads(line) for line in open(tmp_path / "parts" / "subgames.jsonl")]
    for row in rows:
        for variant, value in row["values"].items():
            parts = row["parts"][variant]
            assert sum(parts["line"].values()) == pytest.approx(value, rel=1e-9, abs=1e-6)
            assert sum(parts["hand"].values()) == pytest.approx(value, rel=1e-9, abs=1e-6)
            assert set(parts["hand"]) == {"q1", "q2", "q3", "q4", "q5"}
            assert all(k.split()[0][0] in "AB" for k in parts["line"])


def test_turn_lines_and_hand_classes():
    from pokerbot.bot.evaluation.subgame_parts import hand_classes, turn_line
    from pokerbot.protocol.betting import apply_betting
    from pokerbot.protocol.cards import parse_cards

    board = parse_cards("2c7d9hKs")
    st = apply_betting(BettingState(HUNL, 1, None, board), "r300c/cc/cr750c/")
    # seat 0 acts first after the preflop: it checks, seat 1 bets 450 into 600 (raises to 750)
    assert turn_line(st, 0) == "Ac Br0.75" and turn_line(st, 1) == "Bc Ar0.75"
    st = apply_betting(BettingState(HUNL, 1, None, board), "r300c/cc/r20000")
    assert turn_line(st, 1) == "Bra" and turn_line(st, 0) == "Ara"
    classes = hand_classes(board)
    kk = hand_index(parse_cards("KhKd"))
    two_three = hand_index(parse_cards("4h3d"))  # no pair, no draw
    assert classes[kk] == 4 and classes[two_three] <= 1
    assert classes[hand_index(parse_cards("Kc2c"))] == -1 or classes[hand_index(parse_cards("2c3s"))] == -1


def test_an_agent_variants_own_full_turn_solve_wins_over_the_runs(small_blueprint):
    """``--full-turn K:N`` inside an agent's options fixes that variant's turn solve; the
    run's ``--full-turn`` stands for the others."""
    from pokerbot.bot.cli.subgames import agent_spec

    store = sg.store_of(small_blueprint)
    longer = ("longer", agent_spec("libratus --turn-solver full --full-turn 4:30"))
    same = ("same", agent_spec("libratus --turn-solver full"))
    c = config(small_blueprint, variants=("full", "longer", "same"), full_turn=(1, 12), agents=(longer, same))
    made = {v: sg.variant_strategy(c, v, 3, (store, store)).full_turn for v in c.variants}
    assert made == {"full": (1, 12), "longer": (4, 30), "same": (1, 12)}


def test_an_opponent_model_of_our_own_store_scores_as_our_ranges_in_self_play(small_blueprint, tmp_path, monkeypatch):
    """``--opponent-model PATH`` in an agent variant: in self-play, the opponent's own
    store is ours, so the variant scores bit for bit as our ranges as played; the
    default (pooled) ranges differ from them (and change the scores here, where the
    model was exact), and ``--opponent-ranges played`` is parsed into the agent."""
    from pokerbot.bot.cli.subgames import agent_spec
    from pokerbot.solver import cfr

    monkeypatch.setattr(cfr, "libratus_iterations", lambda pot, bb: 12)
    model = agent_spec(f"libratus --turn-solver depth-limited --opponent-model {small_blueprint}")
    played = agent_spec("libratus --turn-solver depth-limited --opponent-ranges played")
    assert model["opponent_model"] == small_blueprint and played["opponent_ranges"] == "played"
    agents = (("dl-model", model), ("dl-played", played))
    c = config(small_blueprint, variants=("depth-limited", "dl-model", "dl-played"), agents=agents)
    agent = sg.variant_strategy(c, "dl-model", 1, (sg.store_of(small_blueprint),) * 2)
    assert agent.opponent_model is not None and agent.opponent_model.bp is sg.store_of(small_blueprint)
    assert sg.variant_strategy(c, "depth-limited", 1, (sg.store_of(small_blueprint),) * 2).opponent_ranges == "pooled"
    sg.SubgamesRun(c, 3, str(tmp_path / "model"), progress=False).run()
    rows = [json.loads(line) for line in open(tmp_path / "model" / "subgames.jsonl")]
    assert all(r["values"]["dl-model"] == r["values"]["dl-played"] for r in rows)
    assert any(r["values"]["dl-played"] != r["values"]["depth-limited"] for r in rows)


def test_flop_and_deal_roots(small_blueprint):
    """Rooted at the flop: hands that reach the flop with chips behind, the flop's first
    decision; rooted at the deal: every deal twice, A in each seat, no board and no
    betting, both players' reach 1 for every hand."""
    store = sg.store_of(small_blueprint)
    flop, hands = sg.sample_spots(config(small_blueprint, root="flop"), 6, (store, store), HUNL)
    turn, turn_hands = sg.sample_spots(config(small_blueprint), 6, (store, store), HUNL)
    assert hands <= turn_hands  # the flop is reached at least as often as the turn
    for s in flop:
        root = s.root(HUNL)
        assert root.round == 1 and not root.actions[1] and len(root.board_cards) == 3
        assert root.raise_bounds() is not None
    deal, dealt = sg.sample_spots(config(small_blueprint, root="deal"), 5, (store, store), HUNL)
    assert dealt == 5 and [(s.deal, s.seat) for s in deal] == [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0)]
    root = deal[0].root(HUNL)
    assert root.round == 0 and not root.board_cards and root.pot == 150 and root.current_player == 1
    reach = sg.root_reach(root, [BlueprintStrategy(1, store), BlueprintStrategy(2, store)])
    assert np.array_equal(reach, np.ones_like(reach))


def test_rooted_at_the_deal_both_seats_walk_the_same_cards(small_blueprint, tmp_path):
    """The two seats of a deal walk the same keyed flops, turns and rivers: in self-play
    their values cancel exactly (a duplicate pair); rooted at the flop, the walk deals
    the turn and the river one at a time, also to a hand all in on the flop."""
    c = config(small_blueprint, root="deal", flops=1)
    summary = sg.SubgamesRun(c, 4, str(tmp_path / "deal"), progress=False).run()
    rows = sorted((json.loads(x) for x in open(tmp_path / "deal" / "subgames.jsonl")), key=lambda r: r["index"])
    for first, second in (rows[0:2], rows[2:4]):
        assert first["deal"] == second["deal"] and (first["seat"], second["seat"]) == (0, 1)
        assert first["values"]["blueprint"] + second["values"]["blueprint"] == pytest.approx(0.0, abs=1e-6)
        assert abs(first["values"]["blueprint"]) > 1.0
    assert summary["share"] == 1.0 and summary["sampling"] == "uniform"
    spot = sg.Spot(0, 0, 0, (), "")
    draw = sg.public_draw(config(small_blueprint, root="deal", flops=2, river_cards=3), spot)
    flops = draw(BettingState(HUNL, 0, None, []))
    assert len(flops) == 2 and all(len(f) == 3 for f in flops)
    assert draw(BettingState(HUNL, 0, None, []))[0] == flops[0]  # keyed
    assert len(draw(BettingState(HUNL, 0, None, list(flops[0])))) == 3  # turn cards, one each
    assert sg.public_draw(config(small_blueprint, root="deal", flops=0, river_cards=0), spot) is None


def test_a_blueprint_variant_plays_the_early_rounds_as_its_options_say(small_blueprint):
    """``--blueprint-as``: purified preflop play puts each hand's whole weight on one of
    fold, call and raise; a threshold of 0 plays the store as trained (actions below
    4 % kept); the default thresholds at 4 % or more (``PLAY_THRESHOLD``)."""
    from pokerbot.bot.cli.subgames import SpecError, blueprint_spec
    from pokerbot.bot.players.strategy_query import query

    assert blueprint_spec("--purify preflop,flop --threshold 0") == {"purified_rounds": [0, 1], "range_threshold": 0.0}
    for bad in ("--purify preflop,showdown", "--threshold 1.5", "--magic"):
        with pytest.raises(SpecError):
            blueprint_spec(bad)
    store = sg.store_of(small_blueprint)
    blueprints = (("pure", blueprint_spec("--purify preflop")), ("raw", blueprint_spec("--threshold 0")))
    c = config(small_blueprint, variants=("blueprint", "pure", "raw"), blueprints=blueprints)
    root = BettingState(HUNL, 0)
    answers = {v: query(sg.variant_strategy(c, v, 3, (store, store)), root, 1) for v in c.variants}
    rows = {v: a.probabilities for v, a in answers.items()}
    kinds = np.array([a.type.value for a in answers["pure"].actions])
    one_group = [len({kinds[j] for j in np.nonzero(row > 0)[0]}) == 1 for row in rows["pure"]]
    assert all(one_group)
    assert not all(len({kinds[j] for j in np.nonzero(row > 0)[0]}) == 1 for row in rows["blueprint"])
    from pokerbot.blueprint_store.store import RANGE_THRESHOLD

    assert ((rows["blueprint"] == 0) | (rows["blueprint"] >= RANGE_THRESHOLD - 1e-9)).all()
    assert ((rows["raw"] > 0) & (rows["raw"] < RANGE_THRESHOLD)).any()  # what thresholding drops


def test_range_thresholding_drops_an_action_only_where_every_hand_plays_it_under(small_blueprint):
    """``--range-threshold T`` (Libratus's rule): at the preflop root an action is played
    by no hand exactly when no hand plays it at T or more as trained, and each hand's
    row is its trained row over the kept actions, renormalised; the per-hand rule at
    the same T drops more (the negative control: the two rules differ here)."""
    from pokerbot.bot.cli.subgames import SpecError, blueprint_spec
    from pokerbot.bot.players.strategy_query import query

    assert blueprint_spec("--range-threshold 0.04") == {
        "purified_rounds": [],
        "range_threshold": 0.04,
        "threshold_rule": "range",
    }
    with pytest.raises(SpecError):
        blueprint_spec("--threshold 0.04 --range-threshold 0.04")
    store = sg.store_of(small_blueprint)
    root = BettingState(HUNL, 0)
    raw_c = config(
        small_blueprint, variants=("blueprint", "raw"), blueprints=(("raw", blueprint_spec("--threshold 0")),)
    )
    raw = query(sg.variant_strategy(raw_c, "raw", 3, (store, store)), root, 1).probabilities
    live = raw.sum(axis=1) > 0
    column_max = raw[live].max(axis=0)
    assert column_max.min() < 1
    t = float(column_max.min()) + 1e-6  # drops the action(s) no hand plays more than that
    blueprints = (("range", blueprint_spec(f"--range-threshold {t}")), ("hand", blueprint_spec(f"--threshold {t}")))
    c = config(small_blueprint, variants=("blueprint", "range", "hand"), blueprints=blueprints)
    rows = {v: query(sg.variant_strategy(c, v, 3, (store, store)), root, 1).probabilities for v in ("range", "hand")}
    kept = column_max >= t
    assert not kept.all() and kept.any()
    expected = np.where(kept, raw, 0.0)
    expected[live] /= expected[live].sum(axis=1, keepdims=True)
    assert np.allclose(rows["range"], expected, atol=1e-12)
    assert not rows["range"][:, ~kept].any() and (rows["range"][live][:, kept] > 0).any(axis=0).all()
    assert not np.allclose(rows["hand"], rows["range"])  # per hand, more is dropped


def test_a_blueprint_walked_incrementally_answers_as_asked_from_the_root(small_blueprint, tmp_path, monkeypatch):
    """``BlueprintDecider`` carries the blueprint's walk down each line instead of
    walking from the root at each question: the same value, to rounding, against an
    opponent whose half-pot bets our tree lacks (translated at random, the draws carried
    along the line as a question from the root draws them)."""
    from conftest import build_small_blueprint

    from pokerbot.blueprint_store.actions import ActionAbstraction
    from pokerbot.bot.evaluation.subgame_value import BlueprintDecider, QueriedDecider
    from pokerbot.solver.tree import BetSizes

    actions = ActionAbstraction(tuple(BetSizes(bets=((0.5, 1.0), (1.0,)), max_raises=2) for _ in range(4)))
    other = build_small_blueprint(str(tmp_path / "mixed.bp"), 5_000, actions=actions)
    stores = (sg.store_of(small_blueprint), sg.store_of(other))
    c = config(small_blueprint, opponent_blueprint=other, root="flop")
    spot = sg.sample_spots(c, 1, stores, HUNL)[0][0]
    root = spot.root(HUNL)
    reach = sg.root_reach(root, sg.seat_players(c, spot.deal, spot.seat, stores))
    draw = sg.public_draw(c, spot)
    from pokerbot.blueprint_store import real_play

    translated = []
    real_translate = real_play.translate
    monkeypatch.setattr(real_play, "translate", lambda *a, **k: translated.append(1) or real_translate(*a, **k))
    values = []
    for decider in (QueriedDecider, BlueprintDecider):
        players = [decider(BlueprintStrategy(5, stores[0])), decider(BlueprintStrategy(6, stores[1]))]
        values.append(sg.subgame_value(root, reach, players, 0, public_cards=draw))
    assert values[1].value == pytest.approx(values[0].value, rel=1e-12, abs=1e-9)
    assert values[1].decisions == values[0].decisions > 20
    assert isinstance(sg.decider_for(BlueprintStrategy(5, stores[0])), BlueprintDecider)
    assert translated  # the opponent's sizes were translated on the way


def test_rooted_at_the_deal_the_interval_is_over_deals():
    """The two seats of a deal walk the same cards: the summary averages them first, so
    that self-play's exactly opposite seats give 0 ± 0, not an interval from seats
    treated as independent draws; an odd count is refused."""
    c = sg.SubgamesConfig(blueprint="x.bp", variants=("blueprint",), sampling="uniform", root="deal")
    records = [
        {"deal": d, "seat": s, "pot": 150, "values": {"blueprint": (40.0 + d) * (1 if s == 0 else -1)},
         "seconds": {"blueprint": 1.0}}
        for d in range(5) for s in (0, 1)
    ]  # fmt: skip
    sample = sg.Sample([], 10, 10, 150.0, 0.0)
    summary = sg.summarize(records, c, sample, 100)
    assert summary["deals"] == 5 and summary["subgames"] == 10
    assert summary["variants"]["blueprint"]["mean"] == 0.0 and summary["variants"]["blueprint"]["ci95"] == 0.0
    with pytest.raises(sg.SubgamesError, match="even count"):
        sg.SubgamesRun(c, 3, "unused", progress=False).run()
