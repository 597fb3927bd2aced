"""The experiments of the safe-nested paper (Brown and Sandholm, NeurIPS 2017, Tables 1
and 2), in shape, on a small no-limit game whose whole tree the vector solver holds,
so that every exploitability here is exact: a best response over the full game tree.

Table 1 (subgame solving against a poor blueprint). A blueprint of the whole game is
computed, then every second-round subgame (each betting line that reaches the board
card, each board card) is re-solved for one player at a time with one method, the
re-solved strategies replace the blueprint there, and the exploitability of the
combined strategy is measured. The paper's blueprint was poor because of card
abstraction in that round; ours is too (``abstracted_cfr``: hands in the same equity
bucket share regrets, emulating an abstraction on top of the lossless vector solver),
or, as a second stand-in, lossless but stopped after a few CFR+ iterations.

Table 2 (nested solving for an off-tree bet size). The game has bet sizes of 0.5,
0.75 and 1 pot (one bet in the first round, three in the second); our player uses a
smaller abstraction without the 0.75 bets and an equilibrium of it, the opponent
uses the large one and best-responds. When the opponent bets 0.75 pot, we answer by
pseudo-harmonic translation or by solving a subgame (nested: a later 0.75 bet below
is solved again, with the last solution as the blueprint).

Conventions. Values are in chips; results in milli-big-blinds per hand (mbb/h) with
the game's big blind (Leduc: the ante). The exploitability of a strategy for both
seats is the mean, over the two seats, of what a best-responding opponent wins
against it (``cfr.exploitability``); the game's value cancels in that mean. Alternative
payoffs, gifts and margins are expected values per opponent hand (docs/design.md).

Only ``protocol`` and ``solver`` are used: this is library code, the script
``experiments/run_safe_nested_experiments.py`` runs it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from pokerbot.protocol.betting import CALL, Action, ActionType, BettingState, raise_to
from pokerbot.protocol.gamedef import GameDef, load_gamedef
from pokerbot.solver import cfr, gadgets
from pokerbot.solver import ranges as rg
from pokerbot.solver.showdown_pass import compat_sums
from pokerbot.solver.subgame import Subgame, make_subgame
from pokerbot.solver.translation import pseudo_harmonic_probability
from pokerbot.solver.tree import CHANCE, DECISION, FOLD_TERMINAL, SHOWDOWN, BetSizes, sizes_for_round
from pokerbot.solver.tree_pass import current_strategy

Progress = Callable[[str], None]
Sizes = BetSizes | dict[int, BetSizes]


def quiet(_: str) -> None:
    pass


# --------------------------------------------------------------------------- results
@dataclass(frozen=True)
class Row:
    """One line of a results table."""

    method: str
    mbb: float  # exploitability, mbb/h (both seats' mean)
    solves: int = 0  # subgames solved for it (both seats)
    gap_mbb: float | None = None  # its gadget solves' gap (``Gap``), mbb/h; None without a gadget
    seconds: float = 0.0
    note: str = ""


#: The paper's numbers (mbb/h). Table 1: 30,000 flop buckets (NLFH small and large),
#: 20,000 turn buckets (NLTH). Our rows are matched to theirs by name.
PAPER_TABLE1_COLUMNS = ("Small Flop Hold'em", "Large Flop Hold'em", "Turn Hold'em")
PAPER_TABLE1: dict[str, tuple[float, float, float]] = {
    "Blueprint": (91.28, 41.41, 345.5),
    "Unsafe": (5.514, 396.8, 79.34),
    "Resolve": (54.07, 23.11, 251.8),
    "Maxmargin": (43.43, 19.50, 234.4),
    "Reach-Maxmargin": (41.47, 18.80, 233.5),
    "Reach-Maxmargin (no split)": (25.88, 16.41, 175.5),
    "Estimated-Maxmargin": (24.23, 30.09, 76.44),  # the paper's "Estimate"
}
PAPER_TABLE2_COLUMNS = ("NLFH",)
PAPER_TABLE2: dict[str, tuple[float, ...]] = {
    "Randomized pseudo-harmonic translation": (1465.0,),
    "Resolve": (150.2,),
    "Reach-Maxmargin (Expensive)": (149.2,),
    "Unsafe (Expensive)": (148.3,),
    "Maxmargin": (122.0,),
    "Reach-Maxmargin": (119.1,),
}


def mbb(chips: float, game: GameDef) -> float:
    """Chips per hand in milli-big-blinds per hand."""
    return 1000.0 * chips / game.big_blind


def markdown_table(rows: list[Row]) -> str:
    """One experiment's rows in detail: exploitability, solves, gap, time."""
    lines = ["| Method | mbb/h | solves | solve gap (mbb/h) | seconds |", "|---|---:|---:|---:|---:|"]
    for r in rows:
        method = r.method + (f" ({r.note})" if r.note else "")
        gap = "" if r.gap_mbb is None else f"{r.gap_mbb:.3f}"
        lines.append(f"| {method} | {r.mbb:.2f} | {r.solves or ''} | {gap} | {r.seconds:.1f} |")
    return "\n".join(lines)


def markdown_comparison(
    ours: dict[str, list[Row]], paper: dict[str, tuple[float, ...]], paper_columns: tuple[str, ...]
) -> str:
    """Methods down, our columns (one per setup) then the paper's across (mbb/h)."""
    names: list[str] = []
    for rows in ours.values():
        names.extend(r.method for r in rows if r.method not in names)
    head = [f"ours: {c}" for c in ours] + [f"paper: {c}" for c in paper_columns]
    lines = ["| Method | " + " | ".join(head) + " |", "|---|" + "---:|" * len(head)]
    for name in names:
        cells = []
        for rows in ours.values():
            hit = [r for r in rows if r.method == name]
            cells.append(f"{hit[0].mbb:.2f}" if hit else "—")
        ref = paper.get(name)
        cells += [f"{v:g}" for v in ref] if ref is not None else ["—"] * len(paper_columns)
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


# --------------------------------------------------------------------------- methods
@dataclass(frozen=True)
class Method:
    """How a subgame is re-solved.

    ``gadget``: None (Unsafe: both ranges by Bayes from the strategy in force),
    "resolve" or "maxmargin". ``alternative``: the opponent's payoff for not entering:
    "best_response" (their best-response value against the strategy in force: the
    paper's Resolve and Maxmargin) or "blueprint" (their value when both follow it:
    Estimated-Maxmargin, what our agent does). ``gifts``: "none"; "lower_bound" (the
    paper's Reach: for each earlier opponent action, what a terminal action there
    would have given them over the action taken, if more; the theoretically safe
    split, the same expected gift in every subgame below a chance node);
    "lower_bound_no_split" (that, times the chance node's branching: the paper's
    aggressive variant); "estimated" (the agent's gifts: value before acting minus
    value of the action, both under the strategy in force). ``expensive`` (Table 2):
    solve from the node before the off-tree action, with the action added, rather
    than after it. ``alt_shift``: chips added to every alternative; only for showing
    that a broken gadget is caught."""

    name: str
    gadget: str | None = None
    alternative: str = "best_response"
    gifts: str = "none"
    expensive: bool = False
    alt_shift: float = 0.0

    @property
    def has_gap(self) -> bool:
        """Its solves promise the opponent at most a best-response alternative, so how
        far they fall short (``Gap``) is meaningful."""
        return self.gadget is not None and self.alternative == "best_response"

    @property
    def safe_in_theory(self) -> bool:
        """Never raises exploitability above the blueprint's (up to the solve's gap)."""
        return (
            self.gadget is not None
            and self.alternative == "best_response"
            and self.gifts in ("none", "lower_bound")
            and self.alt_shift == 0.0
        )


UNSAFE = Method("Unsafe")
RESOLVE = Method("Resolve", "resolve")
MAXMARGIN = Method("Maxmargin", "maxmargin")
REACH_MAXMARGIN = Method("Reach-Maxmargin", "maxmargin", gifts="lower_bound")
REACH_MAXMARGIN_NO_SPLIT = Method("Reach-Maxmargin (no split)", "maxmargin", gifts="lower_bound_no_split")
ESTIMATED_MAXMARGIN = Method("Estimated-Maxmargin", "maxmargin", alternative="blueprint")
REACH_ESTIMATED_MAXMARGIN = Method(
    "Reach-Estimated-Maxmargin (our agent)", "maxmargin", alternative="blueprint", gifts="estimated"
)
UNSAFE_EXPENSIVE = Method("Unsafe (Expensive)", expensive=True)
REACH_MAXMARGIN_EXPENSIVE = Method("Reach-Maxmargin (Expensive)", "maxmargin", gifts="lower_bound", expensive=True)

TABLE1_METHODS = (
    UNSAFE,
    RESOLVE,
    MAXMARGIN,
    REACH_MAXMARGIN,
    REACH_MAXMARGIN_NO_SPLIT,
    ESTIMATED_MAXMARGIN,
    REACH_ESTIMATED_MAXMARGIN,
)
TABLE2_METHODS = (
    RESOLVE,
    MAXMARGIN,
    REACH_MAXMARGIN,
    UNSAFE_EXPENSIVE,
    REACH_MAXMARGIN_EXPENSIVE,
    REACH_ESTIMATED_MAXMARGIN,
)
METHODS = {m.name: m for m in TABLE1_METHODS + TABLE2_METHODS}


# --------------------------------------------------------------------------- setups
def round_sizes(fractions: tuple[float, ...], raises: tuple[int, ...]) -> dict[int, BetSizes]:
    """An abstraction with the same pot fractions (plus all-in) for every bet and raise,
    at most ``raises[r]`` bets and raises in round r."""
    return {r: BetSizes(bets=(fractions,), max_raises=m) for r, m in enumerate(raises)}


@dataclass(frozen=True)
class Table1Setup:
    """Experiment 1. ``sizes``: the action abstraction of the whole game (blueprint and
    subgames alike, as in the paper, where only the card abstraction differed).
    The blueprint: ``blueprint_iterations`` of CFR+, with a card abstraction of
    ``blueprint_buckets`` equity buckets in the last round (``abstracted_cfr``), or
    none (None: then only the few iterations make it poor)."""

    game: str = "leduc.nolimit.2p"
    sizes: Sizes = field(default_factory=lambda: round_sizes((0.5, 1.0), (2, 3)))
    blueprint_iterations: int = 1000
    blueprint_buckets: int | None = 2
    subgame_iterations: int = 1000
    methods: tuple[Method, ...] = TABLE1_METHODS


@dataclass(frozen=True)
class Table2Setup:
    """Experiment 2. The large abstraction is the game the opponent plays; ours lacks
    ``offtree`` (fractions of the pot, first round then second)."""

    game: str = "leduc.nolimit.2p"
    fractions: tuple[float, ...] = (0.5, 0.75, 1.0)
    offtree: float = 0.75
    raises: tuple[int, ...] = (1, 3)  # the paper: one bet preflop, three on the flop
    blueprint_iterations: int = 2000
    subgame_iterations: int = 1000
    methods: tuple[Method, ...] = TABLE2_METHODS
    translation: bool = True  # also the randomized (and deterministic) pseudo-harmonic rows

    @property
    def large(self) -> dict[int, BetSizes]:
        return round_sizes(self.fractions, self.raises)

    @property
    def small(self) -> dict[int, BetSizes]:
        return round_sizes(tuple(f for f in self.fractions if f != self.offtree), self.raises)


#: The Table 1 setups the script runs, as the paper ran several games: a coarse card
#: abstraction of the last round (2 equity buckets) with a small and with a larger
#: action abstraction, and a lossless blueprint stopped after 30 CFR+ iterations.
TABLE1_SETUPS: dict[str, Table1Setup] = {
    "2 buckets, ½/1 pot": Table1Setup(),
    "2 buckets, ½/¾/1 pot": Table1Setup(sizes=round_sizes((0.5, 0.75, 1.0), (2, 3))),
    "30 iterations, ½/1 pot": Table1Setup(blueprint_buckets=None, blueprint_iterations=30),
}


# --------------------------------------------------------------------------- trees
def load_game(name: str) -> GameDef:
    """A bundled game by name (``leduc.nolimit.2p``) or a game file."""
    return load_gamedef(name)


def whole_game(game: GameDef, sizes: Sizes) -> Subgame:
    """The whole game as one subgame from the first action (uniform ranges). Only games
    whose later rounds deal one board card at a time fit: the public tree does not
    expand a round dealing several cards (a flop) below the root."""
    try:
        return make_subgame(BettingState(game), sizes)
    except ValueError as e:
        raise ValueError(
            f"the whole game does not fit in one public tree ({e}); these experiments need "
            "a game whose later rounds deal one board card, e.g. leduc.nolimit.2p"
        ) from e


def children_of(tree, n: int) -> range:
    f = int(tree.first_child[n])
    return range(f, f + int(tree.num_children[n]))


def _parents(tree) -> np.ndarray:
    parent = np.full(tree.num_nodes, -1, dtype=np.int64)
    for n in np.nonzero(tree.num_children > 0)[0]:
        parent[children_of(tree, n)] = n
    return parent


def _path(parent: np.ndarray, node: int) -> list[int]:
    """Nodes from the root down to ``node``, both included."""
    out = [node]
    while parent[out[-1]] >= 0:
        out.append(int(parent[out[-1]]))
    return out[::-1]


def _state_along(game: GameDef, tree, path: list[int]) -> BettingState:
    """The betting state (and board) at the end of a root-to-node ``path``."""
    st = BettingState(game)
    for a, b in zip(path, path[1:]):
        if tree.kind[a] == CHANCE:
            st.deal_board_cards([int(tree.dealt[b])])
        else:
            st.apply(tree.actions[b])
    return st


def align(big, at: int, small) -> np.ndarray:
    """For each node of tree ``small`` (rooted at node ``at`` of tree ``big``, the same
    abstraction below), the matching node of ``big``: same actions, same cards."""
    out = np.full(small.num_nodes, -1, dtype=np.int64)
    out[0] = at
    stack = [0]
    while stack:
        k = stack.pop()
        n = int(out[k])
        if small.kind[k] != big.kind[n]:
            raise AssertionError(f"trees differ at node {k}")
        if small.kind[k] not in (DECISION, CHANCE):
            continue
        key = (lambda t, c: int(t.dealt[c])) if small.kind[k] == CHANCE else (lambda t, c: t.actions[c])
        theirs = {key(big, c): c for c in children_of(big, n)}
        for c in children_of(small, k):
            out[c] = theirs[key(small, c)]
            stack.append(c)
    return out


def _weights(sub: Subgame, our_reach: np.ndarray) -> np.ndarray:
    """N(c): the opponent hand c's weight from our reach (and chance): compatible sums."""
    out = np.zeros(sub.hands.shape[0])
    compat_sums(np.ascontiguousarray(our_reach, dtype=np.float64), sub.c1, sub.c2, sub.dup, out)
    return out


def in_canonical_order(sub: Subgame, values: np.ndarray, size: int) -> np.ndarray:
    """Per-hand values of ``sub`` (last axis) over all of the game's ``size`` hands in
    canonical order, zero for hands ``sub`` lacks (blocked by its board)."""
    values = np.asarray(values, dtype=np.float64)
    out = np.zeros(values.shape[:-1] + (size,))
    out[..., sub.hand_index] = values
    return out


def _violations(sub: Subgame, strategy: np.ndarray, opp: int, alt: np.ndarray) -> np.ndarray:
    """Per opponent hand of ``sub``: how much its best-response value in the subgame
    exceeds its alternative (0 if not, and for hands that cannot be there): how far a
    gadget solve falls short of its promise."""
    n = cfr.opponent_weights(sub, opp)
    br = gadgets.expected_per_hand(cfr.counterfactual_values(sub, strategy, opp, best_response=True), n)
    return np.where(n > 0, np.maximum(br - np.asarray(alt), 0.0), 0.0)


class Gap:
    """The solve gap of a method, as a bound on what its imperfect solves can cost: per
    seat, each opponent hand's largest violation over the subgames re-solved,
    weighted by the hand's probability; then the mean over the seats (the
    exploitability's convention). A hand's best-response value in the whole game
    rises by at most its largest violation in any subgame below, since it reaches
    them with total probability at most one."""

    def __init__(self, full: Subgame) -> None:
        size = full.hands.shape[0]
        prior = in_canonical_order(full, _weights(full, np.ones(size)), size)
        self.prior = prior / prior.sum()
        self.worst = np.zeros((2, size))

    def add(self, us: int, sub: Subgame, violations: np.ndarray) -> None:
        self.worst[us, sub.hand_index] = np.maximum(self.worst[us, sub.hand_index], violations)

    def chips(self) -> float:
        return float((self.worst @ self.prior).mean())


# --------------------------------------------------------------------------- blueprints
def equity_buckets(game: GameDef, board: tuple[int, ...], buckets: int) -> np.ndarray:
    """A card abstraction of the last round: each hand's showdown equity on the
    complete ``board`` against a uniformly random opponent hand (card removal
    included), cut into ``buckets`` equal-width bins. -1 for hands the board blocks."""
    hands = rg.hole_hands(game)
    s = rg.strengths_on_board(hands, list(board)).astype(np.int64)
    masks = rg.hand_masks(hands)
    live = s >= 0
    compat = ((masks[:, None] & masks[None, :]) == 0) & live[:, None] & live[None, :]
    wins = ((s[:, None] > s[None, :]) + 0.5 * (s[:, None] == s[None, :])) * compat
    equity = np.divide(wins.sum(1), compat.sum(1), out=np.zeros(len(hands)), where=compat.sum(1) > 0)
    out = np.minimum((equity * buckets).astype(np.int64), buckets - 1)
    out[~live] = -1
    return out


def abstracted_cfr(game: GameDef, full: Subgame, iterations: int, buckets: int) -> np.ndarray:
    """CFR+ on the whole game with a card abstraction in the last round: there, hands
    in the same equity bucket (same public node) share one information set (their
    regrets and average strategies are summed, so they play alike), as a card-
    abstracted blueprint would; earlier rounds are lossless. Alternating updates,
    linear averaging, like ``cfr.solve``; evaluated with ``cfr.node_values``.
    Returns the average strategy (nodes, hands) of the abstract game."""
    t = full.tree
    if any(n != 1 for n in game.num_board_cards[1:]):
        raise ValueError("the card-abstracted blueprint needs one board card per later round")
    last = game.num_rounds - 1
    parent = _parents(t)
    board: list[tuple[int, ...]] = [tuple(t.board)] * t.num_nodes
    for n in range(1, t.num_nodes):  # parents come first
        p = int(parent[n])
        board[n] = board[p] + ((int(t.dealt[n]),) if t.kind[p] == CHANCE else ())
    H = full.hands.shape[0]
    rows_of = []
    groups: dict[tuple[int, ...], list[int]] = {}
    for i in (0, 1):
        rows = np.array(
            [c for n in np.nonzero((t.kind == DECISION) & (t.player == i))[0] for c in children_of(t, int(n))],
            dtype=np.int64,
        )
        rows_of.append((rows, parent[rows]))
    for n in np.nonzero(t.kind == DECISION)[0]:
        if len(board[n]) == game.total_board_cards(last):
            groups.setdefault(board[n], []).extend(children_of(t, int(n)))
    ties = []  # per complete board: its child rows and the (hands x hands) same-bucket matrix
    for b, rows in groups.items():
        bk = equity_buckets(game, b, buckets)[full.hand_index]
        same = ((bk[:, None] == bk[None, :]) & (bk[:, None] >= 0)).astype(np.float64)
        ties.append((np.array(rows, dtype=np.int64), same))

    def tie(a: np.ndarray) -> np.ndarray:
        for rows, same in ties:
            a[rows] = a[rows] @ same
        return a

    regret = np.zeros((t.num_nodes, H))
    avg = np.zeros((t.num_nodes, H))
    sigma = np.zeros((t.num_nodes, H))
    tmp = np.zeros(H)
    for it in range(1, iterations + 1):
        for i in (0, 1):
            current_strategy(regret, t.kind, t.player, t.first_child, t.num_children, -1, sigma, tmp)
            cfv, reaches = cfr.node_values(full, sigma, i)
            rows, par = rows_of[i]
            inst = np.zeros((t.num_nodes, H))
            inst[rows] = cfv[rows] - cfv[par]
            regret[rows] = np.maximum(regret[rows] + tie(inst)[rows], 0.0)
            w = np.zeros((t.num_nodes, H))
            w[rows] = it * reaches[i, par] * sigma[rows]
            avg[rows] += tie(w)[rows]
    return cfr.average_strategy(t, avg)


class Solved:
    """A strategy in force from some public state on (the blueprint of the whole game,
    or a nested solve's subgame), with the values that re-solving below it needs,
    computed once."""

    def __init__(self, sub: Subgame, strategy: np.ndarray) -> None:
        self.sub = sub
        self.strategy = strategy
        self.parent = _parents(sub.tree)
        self._cache: dict[tuple[str, int], np.ndarray] = {}

    def reaches(self) -> np.ndarray:
        """Both players' reaches at every node (2, nodes, hands)."""
        key = ("reach", -1)
        if key not in self._cache:
            self._cache[key] = cfr.node_values(self.sub, self.strategy, 0)[1]
        return self._cache[key]

    def values(self, player: int, best_response: bool) -> np.ndarray:
        """Counterfactual values of ``player`` at every node (nodes, hands)."""
        key = ("br" if best_response else "ev", player)
        if key not in self._cache:
            self._cache[key] = cfr.node_values(self.sub, self.strategy, player, best_response=best_response)[0]
        return self._cache[key]

    def weights(self, us: int, node: int) -> np.ndarray:
        return _weights(self.sub, self.reaches()[us, node])


def second_round_roots(tree) -> list[int]:
    """Decision nodes right below a chance node (the board card dealt, betting to come)."""
    out = []
    for x in np.nonzero(tree.kind == CHANCE)[0]:
        out.extend(int(y) for y in children_of(tree, int(x)) if tree.kind[y] == DECISION)
    return out


def _path_gifts(bp: Solved, us: int, path: list[int], kind: str) -> np.ndarray:
    """The opponent's gifts (expected chips per hand, whole-game hand order) from their
    actions along ``path``. "lower_bound": max(0, best terminal action's value - the
    taken action's), best-response values (the paper's lower bound: terminal values
    cannot change whatever other subgames do). "estimated": value before acting minus
    the taken action's, both when both follow the blueprint (Algorithm 2, line 12)."""
    t = bp.sub.tree
    opp = 1 - us
    gifts = np.zeros(bp.sub.hands.shape[0])
    for n, nxt in zip(path, path[1:]):
        if t.kind[n] != DECISION or t.player[n] != opp:
            continue
        gifts = gadgets.update_gifts(gifts, *_gift_values(bp, us, n, nxt, kind))
    return gifts


def _gift_values(sol: Solved, us: int, n: int, taken: int, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """The two values whose difference is the opponent's gift for taking child ``taken``
    of its node ``n`` (expected chips per hand, ``sol``'s hand order): (the reference,
    the taken action's value). The reference, with ``kind`` "estimated": the value
    before acting, both following ``sol`` (Algorithm 2, line 12); else the best of the
    taken action's and the terminal actions' best-response values (the paper's lower
    bound: terminal values cannot change whatever other subgames do)."""
    w = sol.weights(us, n)
    if kind == "estimated":
        v = sol.values(1 - us, False)
        return gadgets.expected_per_hand(v[n], w), gadgets.expected_per_hand(v[taken], w)
    t = sol.sub.tree
    v = sol.values(1 - us, True)
    value = gadgets.expected_per_hand(v[taken], w)
    best = value
    for c in children_of(t, n):
        if t.kind[c] in (FOLD_TERMINAL, SHOWDOWN):
            best = np.maximum(best, gadgets.expected_per_hand(v[c], w))
    return best, value


def resolve_second_round(
    game: GameDef, bp: Solved, sizes: Sizes, y: int, us: int, method: Method, iterations: int
) -> tuple[Subgame, np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """Re-solve the subgame at whole-game node ``y`` for player ``us`` with ``method``
    against the blueprint ``bp``. Returns (the subgame, the whole-game node of each of
    its nodes, the whole-game hand position of each of its hands, its solved
    strategy, its violations (``_violations``; zeros without a gadget)), or None
    when we never reach ``y``."""
    full, t = bp.sub, bp.sub.tree
    opp = 1 - us
    size = full.hands.shape[0]
    reaches = bp.reaches()
    if not reaches[us, y].any():
        return None
    path = _path(bp.parent, y)
    sub = make_subgame(_state_along(game, t, path), sizes, reach=in_canonical_order(full, reaches[:, y], size))
    pos = positions(full, size)[sub.hand_index]
    gadget = None
    alt = np.zeros(0)
    if method.gadget is not None:
        w = bp.weights(us, y)
        v = bp.values(opp, method.alternative == "best_response")
        alt_full = gadgets.expected_per_hand(v[y], w)
        if method.gifts != "none":
            g = _path_gifts(bp, us, path, "estimated" if method.gifts == "estimated" else "lower_bound")
            if method.gifts == "lower_bound_no_split":
                g = g / full.chance_weight[bp.parent[y]]  # times the chance node's branching
            alt_full = alt_full + g
        alt = alt_full[pos] + method.alt_shift
        gadget = cfr.Gadget(method.gadget, opp, alt)
    solved = cfr.solve(sub, iterations, gadget=gadget).strategy
    viol = _violations(sub, solved, opp, alt) if gadget is not None else np.zeros(sub.hands.shape[0])
    return sub, align(t, y, sub.tree), pos, solved, viol


def positions(sub: Subgame, size: int) -> np.ndarray:
    """Canonical hand index -> position among ``sub``'s hands (-1 where absent)."""
    out = np.full(size, -1, dtype=np.int64)
    out[sub.hand_index] = np.arange(sub.hand_index.size)
    return out


def write_ours(combined: np.ndarray, tree, nodes: np.ndarray, pos: np.ndarray, strategy: np.ndarray, us: int) -> None:
    """Copy ``us``'s part of a subgame strategy into a whole-game strategy."""
    for k in np.nonzero((tree.kind == DECISION) & (tree.player == us))[0]:
        for c in children_of(tree, int(k)):
            combined[nodes[c], pos] = strategy[c]


def blueprint_for_table1(setup: Table1Setup) -> tuple[GameDef, Solved]:
    """The game and the Table 1 blueprint (see ``Table1Setup``)."""
    game = load_game(setup.game)
    full = whole_game(game, setup.sizes)
    if setup.blueprint_buckets is None:
        return game, Solved(full, cfr.solve(full, setup.blueprint_iterations).strategy)
    return game, Solved(full, abstracted_cfr(game, full, setup.blueprint_iterations, setup.blueprint_buckets))


def blueprint_note(setup: Table1Setup) -> str:
    if setup.blueprint_buckets is None:
        return f"{setup.blueprint_iterations} CFR+ iterations, no card abstraction"
    return f"{setup.blueprint_buckets} equity buckets in the last round, {setup.blueprint_iterations} CFR+ iterations"


def table1_method(game: GameDef, bp: Solved, setup: Table1Setup, method: Method, progress: Progress = quiet) -> Row:
    """Re-solve every second-round subgame for both seats with ``method``, keep the
    blueprint elsewhere, and measure the combined strategy's exploitability."""
    t0 = time.perf_counter()
    combined = bp.strategy.copy()
    roots = second_round_roots(bp.sub.tree)
    solves = 0
    gap = Gap(bp.sub)
    for us in (0, 1):
        for y in roots:
            out = resolve_second_round(game, bp, setup.sizes, y, us, method, setup.subgame_iterations)
            if out is None:
                continue
            sub, nodes, pos, strategy, viol = out
            write_ours(combined, sub.tree, nodes, pos, strategy, us)
            gap.add(us, sub, viol)
            solves += 1
        progress(f"table 1, {method.name}: seat {us} done ({len(roots)} subgames)")
    expl = cfr.exploitability(bp.sub, combined)
    return Row(
        method.name,
        mbb(expl, game),
        solves,
        mbb(gap.chips(), game) if method.has_gap else None,
        time.perf_counter() - t0,
    )


def run_table1(setup: Table1Setup = Table1Setup(), progress: Progress = quiet) -> list[Row]:
    """Experiment 1: the blueprint's row, then one row per method."""
    t0 = time.perf_counter()
    game, bp = blueprint_for_table1(setup)
    rows = [
        Row(
            "Blueprint",
            mbb(cfr.exploitability(bp.sub, bp.strategy), game),
            seconds=time.perf_counter() - t0,
            note=blueprint_note(setup),
        )
    ]
    progress(
        f"table 1: {bp.sub.tree.num_nodes} nodes, {len(second_round_roots(bp.sub.tree))} second-round "
        f"subgames, blueprint {rows[0].mbb:.2f} mbb/h"
    )
    for m in setup.methods:
        rows.append(table1_method(game, bp, setup, m, progress))
        progress(f"table 1, {m.name}: {rows[-1].mbb:.2f} mbb/h ({rows[-1].seconds:.1f} s)")
    return rows


# --------------------------------------------------------------------------- Table 2
def target(state: BettingState, fraction: float) -> int:
    """The raise-to total of a pot-fraction bet at ``state`` (as ``tree.abstract_actions``
    computes it, clamped to the legal bounds)."""
    p = state.current_player
    base = state.pot + state.max_spent - state.spent[p]  # the pot after calling
    lo, hi = state.raise_bounds()
    return min(max(state.max_spent + int(round(fraction * base)), lo), hi)


def pot_fraction_of(state: BettingState, to: int) -> float:
    """A raise-to total as a fraction of the pot after calling."""
    p = state.current_player
    base = state.pot + state.max_spent - state.spent[p]
    return (to - state.max_spent) / base


def abstract_label(state: BettingState, action: Action, fractions: tuple[float, ...]) -> float | str | None:
    """What a raise is in an abstraction at ``state``: "allin", one of ``fractions``, or
    None (not in it)."""
    if state.raise_bounds() is None:
        return None
    if action.size == state.raise_bounds()[1]:
        return "allin"
    for f in fractions:
        if target(state, f) == action.size:
            return f
    return None


def relabel(state: BettingState, label: float | str | None) -> Action:
    """The raise of ``label`` at ``state`` (a call when no raise is possible there)."""
    if state.raise_bounds() is None or label is None:
        return CALL
    return raise_to(state.raise_bounds()[1] if label == "allin" else target(state, label))


def _fractions(sizes: Sizes, state: BettingState) -> tuple[float, ...]:
    return sizes_for_round(sizes, state.round).fractions(state.num_raises())


class Walk:
    """Our strategy for one seat in the large game's tree, built by walking it from the
    root: where the opponent's actions are all in our abstraction we play the
    blueprint (or the nested solution in force), and an off-tree bet is handled by
    translation or by a nested solve."""

    def __init__(self, game: GameDef, large: Subgame, small: Sizes, blueprint: Solved, us: int) -> None:
        self.game = game
        self.large = large
        self.small = small
        self.blueprint = blueprint
        self.us = us
        self.size = large.hands.shape[0]  # hands are in the large tree's order throughout
        t = large.tree
        self.out = np.zeros((t.num_nodes, self.size))  # uniform until set: nodes we never reach
        for n in np.nonzero(t.kind == DECISION)[0]:
            self.out[children_of(t, int(n))] = 1.0 / t.num_children[n]
        self.solves = 0


#: A node a ``MixtureWalk`` maps to: (solution: 0 the blueprint, i the i-th other; its node).
MixtureKey = tuple[int, int]
#: The nodes a real node maps to, each with its betting state and our reach under it.
Mapped = dict[MixtureKey, tuple[BettingState, np.ndarray]]


class MixtureWalk(Walk):
    """A walk that keeps randomized mappings as a mixture: each real node holds the
    (solution, node) pairs it maps to with our reach under each, and our behaviour
    there is their reach-weighted mix (exact, no sampling). Solution 0 is the
    blueprint; a subclass may add more (``add_solution``) and switch into them
    (``map_opponent``); ``translate`` reads an off-tree raise, ``raise_fractions``
    says which raise sizes an abstraction has at a state. Our own raises are mapped
    back by pot fraction."""

    def __init__(self, game: GameDef, large: Subgame, small: Sizes, blueprint: Solved, us: int) -> None:
        super().__init__(game, large, small, blueprint, us)
        self.hands = rg.hole_hands(game)[large.hand_index]
        self.solutions: list[tuple[Sizes, Solved]] = []  # (abstraction, solution)
        self.pos: list[np.ndarray] = []  # per solution, each hand's position in its solve
        self.add_solution(small, blueprint)

    def add_solution(self, sizes: Sizes, solved: Solved) -> None:
        """A solution the walk may map into (the next index of ``solutions``)."""
        self.solutions.append((sizes, solved))
        # hands are in the large tree's order throughout; every tree starts at the root or,
        # for a subclass's solution that starts later, after its first actions
        self.pos.append(positions(solved.sub, self.size)[self.large.hand_index])

    def run(self) -> np.ndarray:
        root = BettingState(self.game)
        self._walk(0, root, {(0, 0): (root, np.ones(self.size))})
        return self.out

    def raise_fractions(self, sizes: Sizes, state: BettingState) -> tuple[float, ...]:
        """The raise sizes of the abstraction ``sizes`` at ``state``."""
        return _fractions(sizes, state)

    def translate(self, x: float, fractions: list[float]) -> list[tuple[int, float]]:
        """(index into ``fractions``, ascending, probability) pairs an off-tree raise of
        pot fraction ``x`` is read as."""
        raise NotImplementedError

    def map_opponent(
        self, s: int, st: BettingState, a: Action, sk: BettingState, k: int
    ) -> list[tuple[int, int, BettingState, float]]:
        """Where the opponent's action ``a`` at the real state ``st`` takes us from node
        ``k`` of solution ``s`` (state ``sk``): (solution, node, its state, probability)
        quadruples, here within solution ``s`` (``map_theirs_in``)."""
        T = self.solutions[s][1].sub.tree
        out = []
        for j, p in self.map_theirs_in(s, st, a, sk, k):
            sj = sk.copy()
            sj.apply(T.actions[j])
            out.append((s, j, sj, p))
        return out

    def map_theirs_in(self, s: int, st: BettingState, a: Action, sk: BettingState, k: int) -> list[tuple[int, float]]:
        """Where the opponent's action ``a`` at the real state ``st`` takes us from node
        ``k`` of solution ``s`` (state ``sk``): (child, probability) pairs; an action in
        the abstraction maps to itself (same pot fraction, or all-in), another raise by
        ``translate`` among the node's raises."""
        sizes, sol = self.solutions[s]
        T = sol.sub.tree
        kids = {T.actions[j]: j for j in children_of(T, k)}
        if a.type is not ActionType.RAISE:
            return [(kids.get(a, kids[CALL]), 1.0)]
        raises = sorted(
            (pot_fraction_of(sk, T.actions[j].size), j) for j in kids.values() if T.actions[j].type is ActionType.RAISE
        )
        if not raises:
            return [(kids[CALL], 1.0)]
        label = abstract_label(st, a, self.raise_fractions(sizes, st))
        if label is not None:  # in the abstraction: the same pot fraction (or all-in) here
            return [(kids[relabel(sk, label)], 1.0)]
        return [(raises[i][1], p) for i, p in self.translate(pot_fraction_of(st, a.size), [f for f, _ in raises])]

    def _walk(self, n: int, st: BettingState, entries: Mapped) -> None:
        L = self.large.tree
        kind = L.kind[n]
        if kind not in (DECISION, CHANCE) or not entries:
            return
        if kind == CHANCE:
            for c in children_of(L, n):
                d = int(L.dealt[c])
                live = ~rg.blocked_by(self.hands, (d,))
                nxt: Mapped = {}
                for (s, k), (sk, w) in entries.items():
                    T = self.solutions[s][1].sub.tree
                    if T.kind[k] == CHANCE:
                        j = next(j for j in children_of(T, k) if T.dealt[j] == d)
                        sj = sk.copy()
                        sj.deal_board_cards([d])
                        add_mapped_weight(nxt, (s, j), sj, w * live)
                    else:  # our mapped line has no betting left (an all-in there): nothing to map
                        add_mapped_weight(nxt, (s, k), sk, w * live)
                st2 = st.copy()
                st2.deal_board_cards([d])
                self._walk(c, st2, nxt)
            return
        actor = int(L.player[n])
        children = {L.actions[c]: c for c in children_of(L, n)}
        by_child: dict[int, Mapped] = {c: {} for c in children.values()}
        if actor == self.us:
            total = np.zeros(self.size)
            for (s, k), (sk, w) in entries.items():
                sizes, sol = self.solutions[s]
                T = sol.sub.tree
                total += w
                if T.kind[k] == DECISION and T.player[k] == actor:
                    for j in children_of(T, k):
                        b = T.actions[j]
                        a = (
                            b
                            if b.type is not ActionType.RAISE
                            else relabel(st, abstract_label(sk, b, self.raise_fractions(sizes, sk)))
                        )
                        c = children.get(a, children[CALL])
                        sj = sk.copy()
                        sj.apply(b)
                        add_mapped_weight(by_child[c], (s, j), sj, w * sol.strategy[j, self.pos[s]])
                else:
                    add_mapped_weight(by_child[children[CALL]], (s, k), sk, w)
            for c, e in by_child.items():
                reach = sum((w for _, w in e.values()), np.zeros(self.size))
                self.out[c] = np.divide(reach, total, out=np.full(self.size, 1.0 / len(children)), where=total > 0)
        else:
            for a, c in children.items():
                for (s, k), (sk, w) in entries.items():
                    T = self.solutions[s][1].sub.tree
                    if not (T.kind[k] == DECISION and T.player[k] == actor):
                        add_mapped_weight(by_child[c], (s, k), sk, w)
                        continue
                    for s2, j, sj, p in self.map_opponent(s, st, a, sk, k):
                        add_mapped_weight(by_child[c], (s2, j), sj, w * p)
        for a, c in children.items():
            st2 = st.copy()
            st2.apply(a)
            self._walk(c, st2, by_child[c])


class TranslationWalk(MixtureWalk):
    """Pseudo-harmonic translation: an off-tree bet of pot fraction x is read as its
    neighbours A < x < B in our abstraction at the node it is mapped to, A with
    probability (B - x)(1 + A) / ((B - A)(1 + x)) (randomized) or the likelier one
    (deterministic); we then play the blueprint there, mapping our own raises back by
    pot fraction. The randomization is kept for the rest of the hand, so our strategy
    in the real tree is the mixture over the mappings weighted by our reach under
    each (computed exactly, no sampling)."""

    def __init__(
        self, game: GameDef, large: Subgame, small: Sizes, blueprint: Solved, us: int, randomized: bool = True
    ) -> None:
        super().__init__(game, large, small, blueprint, us)
        self.randomized = randomized

    def map_theirs(self, st: BettingState, a: Action, sk: BettingState, k: int) -> list[tuple[int, float]]:
        """Where the opponent's action ``a`` at the real state ``st`` takes us from our
        node ``k`` (state ``sk``): (our child, probability) pairs."""
        return self.map_theirs_in(0, st, a, sk, k)

    def translate(self, x: float, fractions: list[float]) -> list[tuple[int, float]]:
        if x <= fractions[0]:
            return [(0, 1.0)]
        if x >= fractions[-1]:
            return [(len(fractions) - 1, 1.0)]
        for i, (fa, fb) in enumerate(zip(fractions, fractions[1:])):
            if fa <= x <= fb:
                p = pseudo_harmonic_probability(fa, fb, x)
                if not self.randomized:
                    p = 1.0 if p >= 0.5 else 0.0
                return [(i, p), (i + 1, 1.0 - p)]
        raise AssertionError("unreachable: x lies within the range")


def add_mapped_weight(entries: Mapped, k: MixtureKey, st: BettingState, w: np.ndarray) -> None:
    """Add weight ``w`` to mapped node ``k`` (state ``st``), merging equal nodes."""
    if k in entries:
        entries[k] = (entries[k][0], entries[k][1] + w)
    else:
        entries[k] = (st, w)


class NestedWalk(Walk):
    """Nested subgame solving: the strategy in force is the blueprint until the
    opponent makes an off-tree bet; then a subgame is solved (after the bet, or for the
    expensive methods from the node before it with the bet added) and its solution is
    in force below, until the next off-tree bet, which is solved again with that
    solution as the blueprint. Alternatives: the opponent's best value among the
    actions our abstraction had at that node (plus gifts for Reach)."""

    def __init__(
        self,
        game: GameDef,
        large: Subgame,
        small: Sizes,
        blueprint: Solved,
        us: int,
        method: Method,
        iterations: int,
        gap: Gap,
        progress: Progress = quiet,
    ) -> None:
        super().__init__(game, large, small, blueprint, us)
        self.method = method
        self.gap = gap
        self.iterations = iterations
        self.progress = progress

    def run(self) -> np.ndarray:
        self._walk(0, BettingState(self.game), self.blueprint, 0, np.zeros(self.size))
        return self.out

    def _walk(self, n: int, st: BettingState, sol: Solved, k: int, gifts: np.ndarray) -> None:
        L, T = self.large.tree, sol.sub.tree
        kind = L.kind[n]
        if kind not in (DECISION, CHANCE):
            return
        if T.kind[k] != kind:
            raise AssertionError(f"the large tree and the solution differ at {st.betting_string()!r}")
        if kind == CHANCE:
            for c in children_of(L, n):
                d = int(L.dealt[c])
                st2 = st.copy()
                st2.deal_board_cards([d])
                self._walk(c, st2, sol, next(j for j in children_of(T, k) if T.dealt[j] == d), gifts)
            return
        ours = {T.actions[j]: j for j in children_of(T, k)}
        if L.player[n] == self.us:
            pos = positions(sol.sub, self.size)[self.large.hand_index]
            have = pos >= 0
            for c in children_of(L, n):
                j = ours.get(L.actions[c])
                self.out[c, have] = 0.0 if j is None else sol.strategy[j, pos[have]]
            for c in children_of(L, n):
                j = ours.get(L.actions[c])
                if j is not None:
                    st2 = st.copy()
                    st2.apply(L.actions[c])
                    self._walk(c, st2, sol, j, gifts)
            return
        for c in children_of(L, n):
            a = L.actions[c]
            st2 = st.copy()
            st2.apply(a)
            j = ours.get(a)
            if j is not None:
                self._walk(c, st2, sol, j, gifts + self._gift(sol, k, j))
            else:
                sol2, k2 = self._solve(sol, k, st, a, gifts)
                self._walk(c, st2, sol2, k2, gifts)

    def _gift(self, sol: Solved, k: int, j: int) -> np.ndarray:
        """The opponent's gift for taking child ``j`` of their node ``k`` (Reach)."""
        if self.method.gifts == "none":
            return np.zeros(self.size)
        reference, taken = _gift_values(sol, self.us, k, j, self.method.gifts)
        return in_canonical_order(sol.sub, gadgets.update_gifts(np.zeros(taken.size), reference, taken), self.size)

    def _solve(self, sol: Solved, k: int, st: BettingState, a: Action, gifts: np.ndarray) -> tuple[Solved, int]:
        """The nested solve for the opponent's off-tree action ``a`` at our node ``k``
        (real state ``st``, before ``a``): the new solution in force and our node
        there matching the state after ``a``."""
        m = self.method
        opp = 1 - self.us
        reach = in_canonical_order(sol.sub, sol.reaches()[:, k], self.size)
        if m.expensive:
            sub = make_subgame(st, self.small, reach=reach, extra_root_raises=(a.size,))
        else:
            after = st.copy()
            after.apply(a)
            sub = make_subgame(after, self.small, reach=reach)
        gadget = None
        alt = np.zeros(0)
        if m.gadget is not None:
            w = sol.weights(self.us, k)
            v = sol.values(opp, m.alternative == "best_response")
            best = gadgets.offtree_alt_values(
                [gadgets.expected_per_hand(v[j], w) for j in children_of(sol.sub.tree, k)]
            )
            alt_all = in_canonical_order(sol.sub, best, self.size) + (gifts if m.gifts != "none" else 0.0)
            alt = alt_all[sub.hand_index] + m.alt_shift
            gadget = cfr.Gadget(m.gadget, opp, alt)
        solved = Solved(sub, cfr.solve(sub, self.iterations, gadget=gadget).strategy)
        self.solves += 1
        if gadget is not None:
            self.gap.add(self.us, sub, _violations(sub, solved.strategy, opp, alt))
        if self.solves % 200 == 0:
            self.progress(f"table 2, {m.name}, seat {self.us}: {self.solves} nested solves")
        k2 = 0
        if m.expensive:
            k2 = next(j for j in children_of(sub.tree, 0) if sub.tree.actions[j] == a)
        return solved, k2


def blueprint_for_table2(setup: Table2Setup) -> tuple[GameDef, Subgame, Solved]:
    """The game, its tree in the large abstraction, and our blueprint: an equilibrium
    (CFR+) of the small abstraction."""
    game = load_game(setup.game)
    large = whole_game(game, setup.large)
    small = whole_game(game, setup.small)
    return game, large, Solved(small, cfr.solve(small, setup.blueprint_iterations).strategy)


def seat_profile(large: Subgame, seats: list[np.ndarray]) -> np.ndarray:
    """One strategy over the large tree: each player's nodes from that seat's walk."""
    t = large.tree
    out = seats[0].copy()
    for n in np.nonzero((t.kind == DECISION) & (t.player == 1))[0]:
        out[children_of(t, int(n))] = seats[1][children_of(t, int(n))]
    return out


def table2_translation(game: GameDef, large: Subgame, bp: Solved, setup: Table2Setup, randomized: bool = True) -> Row:
    t0 = time.perf_counter()
    seats = [TranslationWalk(game, large, setup.small, bp, us, randomized=randomized).run() for us in (0, 1)]
    name = "Randomized pseudo-harmonic translation" if randomized else "Deterministic pseudo-harmonic translation"
    return Row(name, mbb(cfr.exploitability(large, seat_profile(large, seats)), game), seconds=time.perf_counter() - t0)


def table2_method(
    game: GameDef, large: Subgame, bp: Solved, setup: Table2Setup, method: Method, progress: Progress = quiet
) -> Row:
    t0 = time.perf_counter()
    gap = Gap(large)
    walks = [
        NestedWalk(
            game,
            large,
            setup.small,
            bp,
            us,
            method=method,
            iterations=setup.subgame_iterations,
            gap=gap,
            progress=progress,
        )
        for us in (0, 1)
    ]
    seats = [w.run() for w in walks]
    return Row(
        method.name,
        mbb(cfr.exploitability(large, seat_profile(large, seats)), game),
        solves=sum(w.solves for w in walks),
        gap_mbb=mbb(gap.chips(), game) if method.has_gap else None,
        seconds=time.perf_counter() - t0,
    )


def run_table2(setup: Table2Setup = Table2Setup(), progress: Progress = quiet) -> list[Row]:
    """Experiment 2: our blueprint against an opponent kept to our abstraction (the
    floor), then translation, then each nested-solving method."""
    t0 = time.perf_counter()
    game, large, bp = blueprint_for_table2(setup)
    rows = [
        Row(
            "Blueprint, opponent without the off-tree size",
            mbb(cfr.exploitability(bp.sub, bp.strategy), game),
            seconds=time.perf_counter() - t0,
            note=f"{setup.blueprint_iterations} CFR+ iterations",
        )
    ]
    progress(
        f"table 2: large tree {large.tree.num_nodes} nodes, ours {bp.sub.tree.num_nodes}; "
        f"blueprint {rows[0].mbb:.2f} mbb/h in its own abstraction"
    )
    if setup.translation:
        for randomized in (True, False):
            rows.append(table2_translation(game, large, bp, setup, randomized))
            progress(f"table 2, {rows[-1].method}: {rows[-1].mbb:.2f} mbb/h")
    for m in setup.methods:
        rows.append(table2_method(game, large, bp, setup, m, progress))
        progress(f"table 2, {m.name}: {rows[-1].mbb:.2f} mbb/h ({rows[-1].solves} solves, {rows[-1].seconds:.1f} s)")
    return rows
