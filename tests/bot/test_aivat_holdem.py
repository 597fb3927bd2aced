"""AIVAT on hold'em hands played in-process by our strategies, with their decisions
logged as ``pokerbot play --strategy-log`` logs them: a check-down between two calling
stations is worth exactly 0 after correction (the cards are all there is to it); the
check-down value's expectation over the next card is its value before it (what lets the
hold'em estimate skip enumerating cards), card removal included; against a mixing
strategy the corrected and raw results agree on average and the corrected one is less
noisy; logs round-trip and a missing decision is an error, not a silent guess."""

import numpy as np
import pytest
from conftest import logged_hand, shuffled_deck

from pokerbot.bot.evaluation.aivat import AIVATError, CheckDownValues, estimate, hand_events, two_sided
from pokerbot.bot.players.blueprint_player import BlueprintStrategy
from pokerbot.bot.players.strategy_log import LoggedDecision, StrategyLogWriter, read_strategy_log
from pokerbot.bot.players.strategy_query import HANDS, live_hands
from pokerbot.bot.strategies import make_strategy
from pokerbot.protocol.betting import BettingState
from pokerbot.protocol.gamedef import bundled_game

HUNL = bundled_game("holdem.nolimit.2p")
pytestmark = pytest.mark.timeout(600)


def play_logged(players, hand: int, seed: int):
    """One hand between ``players`` (by position) on a deck keyed by (seed, hand), each
    decision logged with the player's answer for every hand."""
    return logged_hand(players, hand, shuffled_deck(f"aivat-test:{seed}:{hand}"))


def test_two_calling_stations_are_worth_exactly_zero_after_correction():
    players = [make_strategy("call", 1), make_strategy("call", 2)]
    raw = []
    for hand in range(12):
        final, logs = play_logged(players, hand, 1)
        for seat in (0, 1):
            prior, events, payoff = hand_events(final, seat, logs[seat], logs[1 - seat])
            est = estimate(prior, events, payoff)
            assert est.value == pytest.approx(0.0, abs=1e-9)
            raw.append(final.payoffs()[seat])
    assert any(v != 0 for v in raw)  # the raw results are not


def test_the_check_down_value_is_a_martingale_over_the_next_card_with_card_removal():
    rng = np.random.default_rng(4)
    y, board = [12, 37], [0, 17, 34, 51]
    values = CheckDownValues(0, y)
    live = live_hands(y + board).astype(float)
    reach = live * rng.random(len(HANDS))  # any posterior over our hands
    state_value = 300.0 * (2 * values.equity(tuple(board)) - 1)
    before = reach @ state_value / reach.sum()
    expected = 0.0
    for c in [c for c in range(52) if c not in y + board]:
        keep = reach * live_hands([c])
        p_card = keep.sum() / reach.sum() / (52 - 2 - 2 - len(board) - 0)  # P(c | y, h), per hand uniform over 44
        after = keep @ (300.0 * (2 * values.equity(tuple(board + [c])) - 1)) / keep.sum()
        expected += p_card * after
    # sum over c of P(c) is 1: each hand of ours leaves 44 of the 46 unseen cards
    assert expected == pytest.approx(before, abs=1e-9)


def test_against_a_mixing_strategy_the_corrected_result_agrees_and_is_less_noisy(small_blueprint):
    bp = make_strategy("blueprint", 3, blueprint=small_blueprint)
    rnd = make_strategy("random", 4)
    raw, corrected = [], []
    for hand in range(300):
        players = [bp, rnd] if hand % 2 == 0 else [rnd, bp]
        final, logs = play_logged(players, hand, 7)
        seat = hand % 2  # the blueprint's position
        prior, events, payoff = hand_events(final, seat, logs[seat], logs[1 - seat])
        corrected.append(estimate(prior, events, payoff).value)
        raw.append(final.payoffs()[seat])
    raw, corrected = np.array(raw, float), np.array(corrected)
    diff = corrected - raw  # both unbiased for the same mean
    assert abs(diff.mean()) < 4 * diff.std(ddof=1) / np.sqrt(len(diff))
    assert corrected.std() < 0.8 * raw.std(), (corrected.std(), raw.std())


def test_two_sided_estimates_cancel_in_a_duplicate_pair_played_alike(small_blueprint):
    """Two copies of one strategy with one seed (common random numbers) play both seat
    orders of the same deals alike, so the raw results of a pair cancel. The two-sided
    estimate cancels too; the one-sided one (negative control) does not."""
    a1, b1 = (make_strategy("blueprint", 9, blueprint=small_blueprint) for _ in range(2))
    a2, b2 = (make_strategy("blueprint", 9, blueprint=small_blueprint) for _ in range(2))
    one_sided = []
    for hand in range(30):
        first, logs1 = play_logged([a1, b1], hand, 2)  # A in position 0
        second, logs2 = play_logged([b2, a2], hand, 2)  # A in position 1, the same deal
        assert first.payoffs()[0] + second.payoffs()[1] == 0
        pair = two_sided(first, 0, logs1[0], logs1[1]).value + two_sided(second, 1, logs2[1], logs2[0]).value
        assert pair == pytest.approx(0.0, abs=1e-6)
        one_sided.append(
            estimate(*hand_events(first, 0, logs1[0], logs1[1])).value
            + estimate(*hand_events(second, 1, logs2[1], logs2[0])).value
        )
    assert max(abs(v) for v in one_sided) > 1.0


def test_a_log_round_trips_skips_a_cut_line_and_a_missing_decision_is_an_error(tmp_path):
    players = [make_strategy("random", 5), make_strategy("call", 6)]
    final, logs = play_logged(players, 0, 3)
    path = str(tmp_path / "s.jsonl")
    w = StrategyLogWriter(path)
    for d in logs[0].values():
        w.write(d.hand, d.seat, _state_at(final, d.betting), d.taken, d.answer)
    w.close()
    with open(path, "a") as f:
        f.write('{"hand": 1, "seat": 0, "betting": "r3')  # cut by an interruption
    back = read_strategy_log(path, HUNL)
    assert back.keys() == logs[0].keys()
    for k, d in back.items():
        assert d.taken == logs[0][k].taken and d.answer.actions == logs[0][k].answer.actions
        assert d.answer.raise_range == logs[0][k].answer.raise_range
        assert np.allclose(d.answer.probabilities, logs[0][k].answer.probabilities, atol=1e-7)
    with pytest.raises(AIVATError, match="no logged decision"):
        hand_events(final, 0, {}, None)


def _state_at(final: BettingState, betting: str) -> BettingState:
    from pokerbot.protocol.betting import apply_betting

    return apply_betting(BettingState(HUNL, final.hand_id, final.hole_cards), betting)


def test_a_match_with_aivat_reports_it_beside_the_others_and_its_csv_adds_up(tmp_path, capsys):
    import csv
    import json

    from pokerbot.bot.cli import main

    out = tmp_path / "m"
    assert (
        main(
            [
                "match",
                "random",
                "raise-pot",
                "--hands",
                "6",
                "--duplicate",
                "--aivat",
                "--out",
                str(out),
                "--no-progress",
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "A-random                 AIVAT" in printed and "duplicate with AIVAT" in printed
    summary = json.loads((out / "summary.json").read_text())
    assert summary["aivat"]["two_sided"] and summary["aivat"]["fallback_hands"] == 0
    assert all(m["A"]["aivat"]["hands"] == 6 for m in summary["matches"])
    assert summary["duplicate"]["aivat"]["hands"] == 6
    with open(out / "aivat.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 12
    for r in rows:
        parts = sum(float(r[k]) for k in ("observed", "chance", "own", "opponent"))
        assert float(r["aivat"]) == pytest.approx(parts, abs=1e-4)
    mean = np.mean([float(r["aivat"]) for r in rows if r["run"] == "match1"]) / HUNL.big_blind * 1000
    assert summary["matches"][0]["A"]["aivat"]["mbb_per_hand"] == pytest.approx(mean, abs=1e-3)

    # the same from the logs alone, as for a match against an outside program
    assert (
        main(
            [
                "aivat",
                str(out / "match1.log"),
                "--player",
                "A-random",
                "--strategy-log",
                str(out / "match1.A-random.strategy.jsonl"),
                "--json",
            ]
        )
        == 0
    )
    alone = json.loads(capsys.readouterr().out)
    assert not alone["two_sided"] and alone["hands"] == 6
    assert alone["raw"]["mbb_per_hand"] == pytest.approx(summary["matches"][0]["A"]["raw"]["mbb_per_hand"])


def test_aivat_needs_our_strategy_logs(tmp_path, capsys):
    from pokerbot.bot.cli import main

    assert main(["match", "/bin/false", "call", "--hands", "2", "--aivat", "--out", str(tmp_path / "x")]) == 2
    assert "player A to be one of our strategies" in capsys.readouterr().err
    log = tmp_path / "d.log"
    log.write_text("STATE:0:f:2c3c|4d5d:-50|50:A|B\n")
    assert main(["aivat", str(log), "--player", "C", "--strategy-log", str(tmp_path / "none.jsonl")]) == 2
    assert "pokerbot aivat:" in capsys.readouterr().err


def test_a_corrupt_decision_costs_only_its_hand(tmp_path):
    """A hand whose logged decision cannot be decoded falls back to its all-in adjusted
    value and says why; the other hands are corrected."""
    from pokerbot.bot.evaluation.aivat import correct_match
    from pokerbot.protocol.matchstate import format_state_line

    players = [make_strategy("random", 5), make_strategy("call", 6)]
    dealer, ours = tmp_path / "m.log", tmp_path / "ours.jsonl"
    w = StrategyLogWriter(str(ours))
    with open(dealer, "w") as f:
        for hand in range(4):
            final, logs = play_logged(players, hand, 3)
            f.write(format_state_line(final, final.payoffs(), ["A-random", "B-call"]) + "\n")
            for d in logs[0].values():
                w.write(d.hand, d.seat, _state_at(final, d.betting), d.taken, d.answer)
    w.close()
    lines = ours.read_text().splitlines()
    first = [i for i, x in enumerate(lines) if x.startswith('{"hand":1,')][0]
    lines[first] = lines[first].replace('"probabilities":"', '"probabilities":"AAAA')  # valid base64, not zlib
    ours.write_text("\n".join(lines) + "\n")
    rows = correct_match(str(dealer), HUNL, "A-random", str(ours))
    assert [r.fallback for r in rows] == [False, True, False, False]
    assert "corrupt probabilities" in rows[1].error and rows[1].aivat == rows[1].allin_adjusted


def test_a_strategys_own_values_round_trip_and_replace_check_down_values_at_its_decisions(tmp_path, small_blueprint):
    """Values logged with a decision come back (float32); AIVAT with ``solver_values``
    uses them at that player's decisions: given the check-down columns themselves, or
    those shifted by a constant, it gives the check-down estimate exactly, given values
    that differ by hand and action another estimate (whose expectation is the same: the Leduc tests
    enumerate that for any value function)."""
    from dataclasses import replace

    players = [BlueprintStrategy(seed=5, blueprint=small_blueprint), make_strategy("call", 6)]
    for hand in range(40):
        final, logs = play_logged(players, hand, 4)
        if sum(len(d.answer.actions) > 1 for d in logs[0].values()) >= 2:
            break
    values = CheckDownValues(0, final.hole_cards[1])
    board_at = {k: tuple(d.board) for k, d in logs[0].items()}
    same, shifted, other = {}, {}, {}
    by_hand = (np.arange(len(HANDS)) % 7 * 100.0)[:, None]
    for k, d in logs[0].items():
        state = _state_at(final, d.betting)
        state.board_cards = list(board_at[k])
        columns = values.columns(state, d.answer, board_at[k])
        by_action = by_hand * np.arange(1, columns.shape[1] + 1)
        for table, v in ((same, columns), (shifted, columns + 500), (other, columns + by_action)):
            table[k] = LoggedDecision(d.hand, d.seat, d.betting, d.board, d.taken, replace(d.answer, values=v))
    path = str(tmp_path / "v.jsonl")
    w = StrategyLogWriter(path)
    for d in other.values():
        w.write(d.hand, d.seat, _state_at(final, d.betting), d.taken, d.answer)
    w.close()
    back = read_strategy_log(path, HUNL)
    for k, d in back.items():
        assert np.allclose(d.answer.values, other[k].answer.values, rtol=1e-6)
    plain = estimate(*hand_events(final, 0, logs[0])).value
    assert estimate(*hand_events(final, 0, same, solver_values=True)).value == pytest.approx(plain, rel=1e-9)
    # a constant shift cancels; the blueprint's probabilities are single precision (they
    # sum to 1 within about 1e-7), so it cancels to about 500 x 1e-7 chips a decision
    shifted_value = estimate(*hand_events(final, 0, shifted, solver_values=True)).value
    assert shifted_value == pytest.approx(plain, rel=1e-9, abs=1e-3)
    assert estimate(*hand_events(final, 0, back, solver_values=False)).value == pytest.approx(
        plain, rel=1e-6
    )  # float32 in the log
    assert estimate(*hand_events(final, 0, back, solver_values=True)).value != pytest.approx(plain, abs=1e-3)
