import contextlib
import json
import os
import subprocess
import sys

from pokerbot.protocol.logs import configure

# Library code logs through structlog; keep test output to warnings and errors.
configure("warning")


#: Set to 0 to run the tests without compiling the agent's kernels beside them.
WARM_ENV = "POKERBOT_TEST_WARM"


def pytest_sessionstart(session):
    """On a fresh clone every numba kernel compiles during the run: compile the agent's
    solver and evaluation kernels (and the evaluation's in double precision, which the
    metrics use) in a process of their own meanwhile, so that tests
    find them compiled (each kernel is still compiled once: ``solver.kernel_cache``; on
    a warm cache this only loads them). Under pytest-xdist the controller starts it."""
    if os.environ.get(WARM_ENV, "1") == "0" or (os.cpu_count() or 1) < 2:
        return
    if hasattr(session.config, "workerinput"):  # a pytest-xdist worker: the controller warms
        return
    session.config.stash[WARM_KEY] = subprocess.Popen(
        [sys.executable, "-m", "pokerbot.bot.cli", "warm", "--threads", "2", "--evaluation-first"]
        + ["--double-precision"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


#: The test folders in the order they run (or are handed to pytest-xdist's workers):
#: those that need few of the agent's solver kernels first, so that the warm-up process
#: has compiled them when the agent's tests (tests/bot) start; a folder not listed runs
#: after these.
FOLDER_ORDER = ("tests/protocol", "tests/blueprint_store", "tests/solver", "tests/experiments", "tests/bot")


def folder_rank(path: str) -> int:
    """Where a test file's folder comes in FOLDER_ORDER (files at the top level first)."""
    folder = os.path.dirname(path).replace(os.sep, "/")
    if folder == "tests":
        return -1
    for i, name in enumerate(FOLDER_ORDER):
        if folder == name or folder.startswith(name + "/"):
            return i
    return len(FOLDER_ORDER)


def pytest_collection_modifyitems(session, config, items):
    """Run the folders in FOLDER_ORDER, each file's tests in their own order."""
    items.sort(key=lambda item: folder_rank(os.path.relpath(str(item.path), str(config.rootpath))))


def pytest_sessionfinish(session):
    warm = session.config.stash.get(WARM_KEY, None)
    if warm is not None and warm.poll() is None:
        warm.terminate()
        warm.wait()


import numpy as np  # noqa: E402
import pytest  # noqa: E402

WARM_KEY = pytest.StashKey[subprocess.Popen]()


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
    """The info-level events the agent logs inside the block (the suite runs at warning):
    its decisions (``libratus``) and its solves (``solving``)."""
    import structlog
    from structlog.testing import capture_logs as capture

    from pokerbot.bot.agent import libratus, solving

    old = (libratus.log, solving.log)
    configure("info")
    try:
        with capture() as logs:
            # loggers are cached at first use: take ones made under this configuration
            libratus.log = solving.log = structlog.get_logger("agent")
            yield logs
    finally:
        libratus.log, solving.log = old
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


def digests_on_8_threads(script: str, folder: str, timeout: float) -> dict[str, str]:
    """Run ``script`` (``folder`` its argv[1]) in a new Python whose numba pool has 8
    threads (more than the machine may have); what it prints, pairs of a thread count
    and a digest, as a dict. A failed run fails the test."""
    env = {**os.environ, "NUMBA_NUM_THREADS": "8"}
    out = subprocess.run(
        [sys.executable, "-c", script, folder], env=env, capture_output=True, text=True, timeout=timeout, check=True
    ).stdout.split()
    return dict(zip(out[::2], out[1::2]))


def shuffled_deck(key: int | str) -> list[int]:
    """The 52 cards shuffled by a generator seeded with ``key``."""
    import random

    deck = list(range(52))
    random.Random(key).shuffle(deck)
    return deck


def play_in_memory(players, hand: int, deck: list[int], on_decision=None):
    """One hand of heads-up no-limit hold'em between ``players`` (by position) on
    ``deck`` (both hole pairs, then the board), no dealer: ``on_decision(state, seat,
    action)`` is called before each action is applied; an all-in runs the board out;
    each player is told the hand is over. Returns the final state."""
    from pokerbot.protocol.betting import BettingState
    from pokerbot.protocol.gamedef import bundled_game
    from pokerbot.protocol.matchstate import MatchState

    game = bundled_game("holdem.nolimit.2p")
    state = BettingState(game, hand, [deck[0:2], deck[2:4]])
    while not state.finished:
        need = game.total_board_cards(state.round)
        if len(state.board_cards) < need:
            state.deal_board_cards(deck[4 + len(state.board_cards) : 4 + need])
        seat = state.current_player
        action = players[seat].act(MatchState(seat, state))
        if on_decision is not None:
            on_decision(state, seat, action)
        state.apply(action)
    last = game.total_board_cards(game.num_rounds - 1)
    if not any(state.folded) and len(state.board_cards) < last:
        state.deal_board_cards(deck[4 + len(state.board_cards) : 4 + last])
    for seat in (0, 1):
        over = getattr(players[seat], "hand_over", None)
        if over is not None:
            over(MatchState(seat, state))
    return state


def logged_hand(players, hand: int, deck: list[int]):
    """``play_in_memory`` with each decision logged as ``pokerbot play --strategy-log``
    logs it (the player's answer for every hand, asked after it acted). Returns the
    final state and a log per position."""
    from pokerbot.bot.players.strategy_log import LoggedDecision
    from pokerbot.bot.players.strategy_query import query

    logs: list[dict] = [{}, {}]

    def log(state, seat, action):
        answer = query(players[seat], state, seat)
        key = (hand, state.betting_string())
        logs[seat][key] = LoggedDecision(hand, seat, key[1], tuple(state.board_cards), action, answer)

    return play_in_memory(players, hand, deck, log), logs


def record_solve_jobs(monkeypatch) -> list:
    """The ``SolveJob``s the agent runs in its own process from now on, in order (each
    still solved)."""
    from pokerbot.bot.agent import solving

    jobs: list = []
    real = solving.run_job

    def recorded(job):
        jobs.append(job)
        return real(job)

    monkeypatch.setattr(solving, "run_job", recorded)
    return jobs


def reach_along(solution, actions):
    """(node, reach): the node of ``solution``'s tree that ``actions`` lead to from its
    root, and both players' reach there by Bayes' rule (the root's reach times the
    solution's probability of each action, for the player who took it)."""
    tree = solution.sub.tree
    node, reach = 0, solution.sub.reach.copy()
    for a in actions:
        f, m = int(tree.first_child[node]), int(tree.num_children[node])
        nxt = next(c for c in range(f, f + m) if tree.actions[c] == a)
        reach[int(tree.player[node])] *= solution.strategy[nxt]
        node = nxt
    return node, reach


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


def decision_states(sub, root):
    """(node, its state) for each decision node of a subgame's tree whose root is at
    ``root`` (not changed), in preorder."""
    from pokerbot.solver.tree import DECISION

    t = sub.tree
    states = {0: root}
    for n in range(t.num_nodes):  # preorder: a parent's state before its children's
        st = states.pop(n)
        f, m = int(t.first_child[n]), int(t.num_children[n])
        for j in range(m):
            child = st.copy()
            if t.kind[n] == DECISION:
                child.apply(t.actions[f + j])
            else:
                child.deal_board_cards([int(t.dealt[f + j])])
            states[f + j] = child
        if t.kind[n] == DECISION:
            yield n, st
