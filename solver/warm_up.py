"""Every kernel a solve uses, loaded (on a fresh machine: compiled) before the first
hand, on a small spot: kernels depend on the types of their arguments only, so it
covers every subgame's."""

from __future__ import annotations

from collections.abc import Callable

#: The stages of ``load_solver_kernels``, in order (for progress lines).
SOLVER_STAGES = ("hand strengths and subgames", "the solver on one thread", "evaluation", "the solver on threads")


def load_solver_kernels(
    threads: int = 1,
    stage: Callable[[str], None] | None = None,
    evaluation_first: bool = False,
    double_precision: bool = False,
) -> None:
    """Load (on a fresh machine: compile) every kernel the agent's solves and its
    evaluations in play use: a small depth-limited turn subgame (the river after each
    open line continued by fixed strategies) solved on one thread, plain, with a gadget
    and from a warm start, and evaluated in the solve's precision (``SOLVE_DTYPE``); with
    ``threads`` > 1 also solved (plain and from a warm start) and evaluated on threads.
    ``double_precision``: the evaluation in double precision too (the metrics': best
    responses, exploitability; the tools and the tests use them, the agent does not).
    Kernels depend on the types of their arguments only, so this spot covers every
    subgame's. ``stage(name)`` is told each of SOLVER_STAGES as it starts.
    ``evaluation_first``: the evaluation's kernels before the solver's (a second
    process started with it compiles them while the first compiles the solver's; each
    then loads what the other compiled)."""
    import numpy as np

    from pokerbot.protocol.betting import Action, BettingState, apply_betting
    from pokerbot.protocol.cards import parse_cards
    from pokerbot.protocol.gamedef import bundled_game

    from .cfr import SOLVE_DTYPE, Gadget, WarmStart, average_strategy, node_values, opponent_weights, solve
    from .depth_limited import attach_continuations, normalised_leaf_strategy
    from .ranges import hole_hands
    from .subgame import make_subgame
    from .tree import DECISION, LEAF, BetSizes, build_tree

    def tell(i: int) -> None:
        if stage is not None:
            stage(SOLVER_STAGES[i])

    tell(0)
    game = bundled_game("holdem.nolimit.2p")
    state = apply_betting(BettingState(game, 0, None, parse_cards("QsJh2h8d")), "r300c/cc/")
    sub = make_subgame(state, {2: BetSizes(bets=((1.0,),), max_raises=1)}, leaf_round=3)
    river = BetSizes(bets=((1.0,),), max_raises=1)
    trees, strategies = [], []
    t = sub.tree
    parent = {
        int(c): p for p in range(t.num_nodes) for c in range(t.first_child[p], t.first_child[p] + t.num_children[p])
    }
    for leaf in np.nonzero(sub.tree.kind == LEAF)[0]:
        line: list[Action] = []
        n = int(leaf)
        while n in parent:
            a = sub.tree.actions[n]
            assert a is not None  # every node below the root has the action into it
            line.append(a)
            n = parent[n]
        st = state.copy()
        for a in reversed(line):
            st.apply(a)
        st.deal_board_cards([next(c for c in range(52) if c not in st.board_cards)])
        ct = build_tree(st, river)
        uniform = np.zeros((ct.num_nodes, 2, 1))
        for d in np.nonzero(ct.kind == DECISION)[0]:
            uniform[ct.first_child[d] : ct.first_child[d] + ct.num_children[d]] = 1.0 / ct.num_children[d]
        trees.append(ct)
        strategies.append(uniform)
    hands = hole_hands(game)
    buckets = np.zeros((52, len(hands)), dtype=np.int64)
    for card in range(52):
        buckets[card, (hands[:, 0] == card) | (hands[:, 1] == card)] = -1
    attach_continuations(sub, trees, strategies, buckets)
    H = sub.hands.shape[0]

    def solver() -> None:
        tell(1)
        r = solve(sub, 2, card_samples=1, seed=1)
        solve(sub, 2, card_samples=1, gadget=Gadget("maxmargin", 0, np.zeros(H)))
        solve(sub, 1, card_samples=1, warm_start=WarmStart(r.strategy, 2, deals=1))

    uniform_strategy = average_strategy(t, np.ones((t.num_nodes, H), dtype=np.float32))
    average_strategy(t, np.ones((t.num_nodes, H), dtype=SOLVE_DTYPE), in_place=True)  # a full-depth turn answer
    leaves = len(trees)  # one continuation tree a leaf
    uniform_mix = normalised_leaf_strategy(np.ones((2, leaves, 2, H), dtype=np.float32))

    precisions = (SOLVE_DTYPE, np.float64) if double_precision else (SOLVE_DTYPE,)

    def evaluation() -> None:
        tell(2)
        for dtype in precisions:
            for p in (0, 1):
                node_values(sub, uniform_strategy, p, leaf_strategy=uniform_mix, leaf_sample=1, dtype=dtype)
        opponent_weights(sub, 0)

    for part in (evaluation, solver) if evaluation_first else (solver, evaluation):
        part()
    if threads > 1:
        tell(3)
        solve(sub, 2, card_samples=1, threads=2)
        solve(sub, 1, card_samples=1, threads=2, warm_start=WarmStart(uniform_strategy, 2, deals=1))
        for dtype in precisions:
            node_values(sub, uniform_strategy, 0, leaf_strategy=uniform_mix, leaf_sample=1, threads=2, dtype=dtype)
