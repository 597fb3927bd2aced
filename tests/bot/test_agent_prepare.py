"""After ``prepare()``, no decision compiles or loads a numba kernel: a fresh process
prepares the agent, then plays a flop decision, a turn decision, a first river solve
and a nested re-solve, and no numba dispatcher gains a signature meanwhile (first-use
compilation took 3 to 12 s in a match before prepare covered the player's own
kernels). For the agent solving from the river, from the turn on two threads (the
kernels that run on threads are entry points of their own) and from the flop (a
warm-started depth-limited flop solve)."""

import subprocess
import sys

import pytest

pytestmark = pytest.mark.timeout(600)

SCRIPT = r"""
import sys, numba
from numba.core.registry import CPUDispatcher
import pokerbot.blueprint_store.abstraction
import pokerbot.blueprint_store.indexer
import pokerbot.solver.block_pass
import pokerbot.solver.cfr
import pokerbot.solver.leaf_pass
import pokerbot.solver.passes
import pokerbot.solver.showdown_pass
import pokerbot.solver.tree_pass
import pokerbot.solver.equity
import pokerbot.solver.evaluator
import pokerbot.solver.ranges
from pokerbot.bot.agent.libratus import LibratusAgent
from pokerbot.protocol.betting import BettingState, apply_betting
from pokerbot.protocol.gamedef import bundled_game
from pokerbot.protocol.matchstate import MatchState
from pokerbot.protocol.logs import configure
configure("warning")

MODULES = [pokerbot.blueprint_store.abstraction, pokerbot.blueprint_store.indexer, pokerbot.solver.cfr,
           pokerbot.solver.passes, pokerbot.solver.block_pass, pokerbot.solver.leaf_pass,
           pokerbot.solver.tree_pass, pokerbot.solver.showdown_pass, pokerbot.solver.equity,
           pokerbot.solver.evaluator, pokerbot.solver.ranges]

def compiled():
    out = {}
    for m in MODULES:
        for name, f in vars(m).items():
            if isinstance(f, CPUDispatcher):
                out[f"{m.__name__}.{name}"] = len(f.signatures)
    return out

solve_round, threads = sys.argv[2], int(sys.argv[3])
agent = LibratusAgent(solve_round=solve_round, threads=threads, seed=3, blueprint=sys.argv[1], solve_seconds=1.0)
agent.prepare()
before = compiled()
game = bundled_game("holdem.nolimit.2p")
flop = apply_betting(BettingState(game, 1, [[48, 49], [20, 30]]), "r300c/")
flop.deal_board_cards([0, 17, 34])
agent.act(MatchState(flop.current_player, flop))
turn = apply_betting(BettingState(game, 4, [[48, 49], [20, 30]]), "r300c/cc/")
turn.deal_board_cards([0, 17, 34, 51])
agent.act(MatchState(turn.current_player, turn))
river = apply_betting(BettingState(game, 2, [[48, 49], [20, 30]]), "r300c/cc/cc/")
river.deal_board_cards([0, 17, 34, 51, 22])
me = 1 - river.current_player
agent.act(MatchState(me, apply_betting(river.copy(), "r300c/cc/cc/c", len("r300c/cc/cc/"))))
tree = agent.solution.sub.tree
f, m = int(tree.first_child[0]), int(tree.num_children[0])
check = next(c for c in range(f, f + m) if str(tree.actions[c]) == "c")
f2, m2 = int(tree.first_child[check]), int(tree.num_children[check])
bet = next(str(tree.actions[c]) for c in range(f2, f2 + m2) if str(tree.actions[c])[0] == "r")
odd = f"r{int(bet[1:]) + (20000 - int(bet[1:])) // 3 + 7}"
st = apply_betting(river.copy(), "r300c/cc/cc/c" + bet + odd, len("r300c/cc/cc/"))
agent.act(MatchState(me, st))
assert agent.solution.kind == "nested", agent.solution.kind
after = compiled()
grew = {k: (before.get(k, 0), v) for k, v in after.items() if v != before.get(k, 0)}
print("GREW", grew)
sys.exit(1 if grew else 0)
"""


# two threads: the parallel kernels' own compile (about 45 s on an empty cache) in the slow run
@pytest.mark.parametrize(
    "solve_round,threads", [("river", 1), pytest.param("turn", 2, marks=pytest.mark.slow), ("flop", 1)]
)
def test_no_kernel_is_compiled_during_decisions_after_prepare(small_blueprint, solve_round, threads):
    r = subprocess.run(
        [sys.executable, "-c", SCRIPT, small_blueprint, solve_round, str(threads)],
        capture_output=True,
        text=True,
        timeout=500,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "GREW {}" in r.stdout
