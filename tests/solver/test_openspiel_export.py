"""Our solutions of Kuhn and Leduc, evaluated by OpenSpiel: its exploitability of
the exported policy, and its best-response values against ours."""

import pytest

pyspiel = pytest.importorskip("pyspiel")
from open_spiel.python import policy as policy_lib  # noqa: E402
from open_spiel.python.algorithms import exploitability as os_expl  # noqa: E402

from pokerbot.protocol.betting import ActionType, BettingState  # noqa: E402
from pokerbot.protocol.cards import make_card  # noqa: E402
from pokerbot.protocol.gamedef import bundled_game  # noqa: E402
from pokerbot.solver import cfr  # noqa: E402
from pokerbot.solver.openspiel_export import export_policy  # noqa: E402
from pokerbot.solver.subgame import make_subgame  # noqa: E402
from pokerbot.solver.tree import BetSizes  # noqa: E402


def leduc_actions(ours, a):
    return {0: ActionType.FOLD, 1: ActionType.CALL, 2: ActionType.RAISE}[a]


def kuhn_actions(ours, a):
    facing_bet = ActionType.FOLD in ours
    if a == 0:
        return ActionType.FOLD if facing_bet else ActionType.CALL
    return ActionType.CALL if facing_bet else ActionType.RAISE


CASES = {
    "kuhn": ("kuhn_poker", "kuhn.limit.2p", lambda c: make_card(10 + c, 3), kuhn_actions, 1500),
    "leduc": ("leduc_poker", "leduc.limit.2p", lambda c: make_card(10 + c // 2, 2 + c % 2), leduc_actions, 2000),
}


def to_tabular(os_game, exported):
    tab = policy_lib.TabularPolicy(os_game)
    for key, probs in exported.items():
        row = tab.policy_for_key(key)
        row[:] = 0.0
        for a, p in probs:
            row[a] = p
    return tab


@pytest.mark.parametrize("name", list(CASES))
def test_openspiel_exploitability_and_best_responses_agree(name):
    os_name, ours_name, card_map, action_map, iterations = CASES[name]
    os_game = pyspiel.load_game(os_name)
    sub = make_subgame(BettingState(bundled_game(ours_name)), BetSizes())
    for iters in (5, iterations):  # a poor strategy and a good one
        strategy = cfr.solve(sub, iters).strategy
        tab = to_tabular(os_game, export_policy(sub, strategy, os_game, card_map, action_map))
        theirs = os_expl.exploitability(os_game, tab)
        ours = cfr.exploitability(sub, strategy)
        assert ours == pytest.approx(theirs, abs=1e-9)
        # each player's best-response value, ours against OpenSpiel's
        joint = cfr.joint_weight(sub)
        for p in (0, 1):
            br = os_expl.best_response(os_game, tab, p)["best_response_value"]
            mine = float(sub.reach[p] @ cfr.counterfactual_values(sub, strategy, p, best_response=True)) / joint
            assert mine == pytest.approx(br, abs=1e-9)
    assert theirs < 1e-3
