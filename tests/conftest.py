import contextlib
import json
import subprocess
import sys

from pokerbot.protocol.logs import configure

# Library code logs through structlog; keep test output to warnings and errors.
configure("warning")


import numpy as np  # noqa: E402
import pytest  # noqa: E402


def build_small_blueprint(path, iterations: int = 20_000, seed: int = 0, actions=None):
    """A real but quick hold'em blueprint: lossless preflop, cheap stand-in flop and
    turn tables (class number modulo 4: the k-means tables have their own tests),
    river buckets on the fly, the tiny action abstraction, MCCFR for a few seconds."""
    from pokerbot.blueprint_store.abstraction import HOLDEM_ROUNDS, CardAbstraction, CardAbstractionSpec, HoldemDeals
    from pokerbot.blueprint_store.actions import PRESET_ACTIONS
    from pokerbot.blueprint_store.indexer import HandIndexer
    from pokerbot.blueprint_store.store import BlueprintContents, write_blueprint
    from pokerbot.protocol.gamedef import bundled_game
    from pokerbot.solver import evaluator as ev
    from pokerbot.solver.betting_tree import build_betting_tree
    from pokerbot.solver.mccfr import MCCFR

    game = bundled_game("holdem.nolimit.2p")
    ix = HandIndexer(HOLDEM_ROUNDS)
    spec = CardAbstractionSpec(buckets=(169, 4, 4, 4))
    cards = CardAbstraction(
        spec,
        ix.index_many(ev.all_hole_pairs()).astype(np.uint16),
        (np.arange(ix.size(1)) % 4).astype(np.uint16),
        (np.arange(ix.size(2)) % 4).astype(np.uint16),
    )
    actions = actions or PRESET_ACTIONS["tiny"]
    tree = build_betting_tree(game, actions.sizes(), spec.buckets)
    solver = MCCFR(tree, game.big_blind, seed=seed)
    solver.train(HoldemDeals(cards), iterations, batch=10_000)
    write_blueprint(
        path,
        BlueprintContents(
            game,
            actions,
            cards,
            tree,
            solver.average_strategy().astype(np.float32),
            {"preset": "test", "iterations": solver.iterations},
        ),
    )
    return path


@pytest.fixture(scope="session")
def small_blueprint(tmp_path_factory):
    return build_small_blueprint(str(tmp_path_factory.mktemp("bp") / "small.bp"))


@contextlib.contextmanager
def capture_agent_logs():
    """The info-level events the agent logs inside the block (the suite runs at warning)."""
    import structlog
    from structlog.testing import capture_logs as capture

    from pokerbot.bot.agent import libratus as agent_module

    old = agent_module.log
    configure("info")
    try:
        with capture() as logs:
            # loggers are cached at first use: take one made under this configuration
            agent_module.log = structlog.get_logger("agent")
            yield logs
    finally:
        agent_module.log = old
        configure("warning")


def random_strategy(sub, seed: int):
    """A random mixed strategy on a subgame's tree: at each decision, per hand, action
    probabilities drawn uniformly from the simplex (rows: the tree's nodes)."""
    from pokerbot.solver.tree import DECISION

    rng = np.random.default_rng(seed)
    t = sub.tree
    s = np.zeros((t.num_nodes, len(sub.hands)))
    for n in range(t.num_nodes):
        if t.kind[n] == DECISION:
            f, m = t.first_child[n], t.num_children[n]
            s[f : f + m, :] = rng.dirichlet(np.ones(m), size=len(sub.hands)).T
    return s


def cli_json(*args: str) -> dict:
    """The JSON that ``pokerbot ARGS`` prints, run in a subprocess (a benchmark pins its
    process to one core); a failed run fails the test."""
    out = subprocess.run(
        [sys.executable, "-m", "pokerbot.bot.cli", *args], capture_output=True, text=True, timeout=300, check=True
    ).stdout
    return json.loads(out)


def state_at(tree, root, node):
    """The betting state at ``node`` of a subgame tree whose root is at ``root`` (not
    changed): the actions and board cards on the path to it replayed."""
    from pokerbot.solver.tree import CHANCE

    parent = {}
    for p in range(tree.num_nodes):
        for c in range(tree.first_child[p], tree.first_child[p] + tree.num_children[p]):
            parent[int(c)] = p
    steps = []
    n = node
    while n in parent:
        steps.append(n)
        n = parent[n]
    st = root.copy()
    for n in reversed(steps):
        if tree.kind[parent[n]] == CHANCE:
            st.deal_board_cards([int(tree.dealt[n])])
        else:
            st.apply(tree.actions[n])
    return st
