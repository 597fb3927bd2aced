"""Self-improvement (issue 8), measured exactly on a small no-limit game.

Libratus's third module fills the gaps of the blueprint's first-round action
abstraction where opponents bet. This experiment checks the acceptance item "on a small
no-limit game with an opponent that always uses one off-tree preflop size,
exploitability of our strategy against that size falls after one improvement run,
measured exactly", on no-limit Leduc, where the vector solver holds the whole game and
every value below is a best response over the full tree (no sampling).

Setup. Our blueprint is CFR+ on the game in a base abstraction whose first raise of the
first round has a gap (by default 1/2, 1 and 2 pot, plus all-in: gaps 1/2-1 and 1-2).
The opponent opens the first round with a size x inside a gap (0.75 pot by default). The
*evaluation game* is the tree of the base abstraction with x added to the first round's
first raise; our player never bets x there (probability zero), the opponent may.

Our strategy in the evaluation game, mirroring the agent (``blueprint_store/real_play.py``,
``blueprint_store/improve.py``):

- *Before*: randomized pseudo-harmonic translation of x into the base sizes, evaluated
  exactly as the mixture of its mappings (``ExtensionWalk`` without extensions; the
  same as ``subgame_experiments.TranslationWalk``).
- *Type 2*: x' = the pseudo-harmonic midpoint of the gap (A, B) holding x; the whole game
  re-solved (unsafe: the opponent's range for x' comes from the solve) with the first
  raise sizes {A, x', B}; at the opponent's first raise of the first round, x is
  translated among the base sizes and x'; where x' is picked the rest of the hand is
  played from the re-solve's tree, else the base blueprint's.
- *Type 1*: the whole game re-solved with x as the only first raise size (plus all-in,
  which the tree always offers); used for an opening raise within 0.01 pot of x (the
  agent's eight-hand history condition is taken as met: the opponent always opens x).

Each extension is solved for one position of the opponent, and only the opponent gets
the new opening sizes (``BetSizes.first_by_player``): we keep the blueprint's, so the
range we arrive with at the opponent's opening is close to the one we really play; the
agent uses an extension only when the raiser is in its position
(``blueprint_store.improve.extension_actions``, ``blueprint_store.real_play``).
The earlier design, both players' openings replaced in one re-solve used from either
position, is kept as rows of its own for comparison (``opponent=None``).

The re-solves are exact CFR+ of the whole game with the blueprint's iteration count,
where the agent's are MCCFR on its card abstraction; the first round's later raises
are the base's (1 pot by default, as ``improve.EXTENSION_RERAISES``).

Diagnostics: type 1 without all-in at the first raise (the issue's literal wording),
and both types with our first move kept as the blueprint's (``kept_first_move``: only
the subtree below our check re-solved, with our range there the blueprint's), which
removes the range mismatch that keeping our options alone does not.

Further rows: a *control* (type 2 in a gap the opponent never uses: nothing may
change), nested subgame solving (``subgame_experiments``, Table 2) as a reference, the
*best answer to x* with the blueprint kept elsewhere (``best_answer``): how far any
improvement that only changes our play after the x opening could go, and the *floor*
below which no such improvement can go (the opponent may always decline to open).

Measures, per seat of ours and as the mean over the seats (the exploitability
convention of ``cfr.exploitability``), in mbb/h:

- *vs x*: the opponent's best-response value when its first raise of the first round
  must be x (fold, check/call or x at that decision: no other size, no all-in): the
  exploitability of our strategy against that size. Computed in the evaluation game
  with the opponent's other opening raises removed (``restrict``). Unlike a full
  exploitability it has no floor of zero: it is what the x-opener wins; lower is
  better, and the differences between rows are exact.
- *full*: the opponent's unrestricted best response in the evaluation game.

Only ``protocol`` and ``solver`` are used; ``experiments/run_improvement_experiment.py`` runs it
and ``docs/self-improvement-experiment.md`` has a real run.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from experiments.subgame_experiments import (
    MAXMARGIN,
    Gap,
    Method,
    MixtureWalk,
    NestedWalk,
    Progress,
    Sizes,
    Solved,
    align,
    children_of,
    in_canonical_order,
    load_game,
    mbb,
    positions,
    pot_fraction_of,
    quiet,
    target,
    whole_game,
    write_ours,
)
from pokerbot.protocol.betting import CALL, Action, ActionType, BettingState, raise_to
from pokerbot.protocol.cards import RANK_CHARS, rank_of
from pokerbot.protocol.gamedef import GameDef
from pokerbot.solver import cfr, gadgets
from pokerbot.solver import ranges as rg
from pokerbot.solver.showdown_pass import compat_sums
from pokerbot.solver.subgame import Subgame, make_subgame, reach_slots
from pokerbot.solver.translation import pseudo_harmonic_midpoint, pseudo_harmonic_probability
from pokerbot.solver.tree import CHANCE, DECISION, BetSizes, PublicTree, sizes_for_round

#: An opening raise within this many pots of a type-1 extension's size uses it (the agent's tolerance).
TYPE1_TOLERANCE = 0.01


# --------------------------------------------------------------------------- setup
@dataclass(frozen=True)
class ImprovementSetup:
    """The game, the base abstraction and the iteration counts.

    ``first_raises``: pot fractions of the first round's first raise in the base
    abstraction (all-in is always added); ``reraises``: the first round's later raises
    (fractions of the pot after calling); ``later``: every raise of the later rounds.
    ``iterations``: CFR+ iterations of the blueprint and of each improvement re-solve
    (the same budget, so that a re-solve is as converged as the blueprint).
    ``nested_iterations``: the reference nested solves (0: no nested row);
    ``reference_iterations``: the best-answer reference solves (0: none);
    ``diagnostics``: also type 1 without all-in at the first raise."""

    game: str = "leduc.nolimit.2p"
    first_raises: tuple[float, ...] = (0.5, 1.0, 2.0)
    reraises: tuple[float, ...] = (1.0,)
    first_round_raises: int = 2
    later: tuple[float, ...] = (0.5, 1.0)
    later_raises: int = 3
    iterations: int = 2000
    nested_iterations: int = 1000
    nested_method: Method = MAXMARGIN
    reference_iterations: int = 10_000
    diagnostics: bool = False

    def sizes(self, first_raises: Sequence[float], opponent: int | None = None) -> dict[int, BetSizes]:
        """The base abstraction with ``first_raises`` as the first round's first raise
        sizes (the later raises and rounds unchanged: the re-solves and the
        evaluation game differ from the base only there): for both players, or with
        ``opponent`` (a position) for that player only, the other keeping the base's
        (``BetSizes.first_by_player``, as ``improve.extension_actions``)."""
        opening = tuple(sorted(first_raises))
        if opponent is None:
            first = BetSizes(bets=(opening, self.reraises), max_raises=self.first_round_raises)
        else:
            ours = tuple(sorted(self.first_raises))
            first = BetSizes(
                bets=(ours, self.reraises),
                max_raises=self.first_round_raises,
                first_by_player=tuple(opening if p == opponent else ours for p in (0, 1)),
            )
        return {0: first, 1: BetSizes(bets=(self.later,), max_raises=self.later_raises)}

    @property
    def base(self) -> dict[int, BetSizes]:
        return self.sizes(self.first_raises)

    def evaluation(self, x: float) -> dict[int, BetSizes]:
        """The evaluation game: the base with x among the first raise sizes."""
        if any(abs(x - f) < 1e-9 for f in self.first_raises):
            raise ValueError(f"{x} is a base size, not an off-tree one")
        return self.sizes(tuple(self.first_raises) + (x,))

    def gap(self, x: float) -> tuple[float, float]:
        """The neighbouring base sizes A < x < B."""
        fs = sorted(self.first_raises)
        for a, b in zip(fs, fs[1:]):
            if a < x < b:
                return a, b
        raise ValueError(f"{x} is not inside a gap of the base sizes {fs}")

    def gaps(self) -> list[tuple[float, float]]:
        fs = sorted(self.first_raises)
        return list(zip(fs, fs[1:]))


# --------------------------------------------------------------------------- extensions
@dataclass
class Extension:
    """A re-solve of the whole game with other first raise sizes, and how the agent uses
    it: "type1" for an opening within ``TYPE1_TOLERANCE`` of ``size``; "type2" when
    translation among the base sizes and ``size`` picks ``size``. ``opponent``: the
    position whose openings were changed, the only one it is used for; None: both
    players' openings changed, used for either (the design before the fix)."""

    kind: str
    size: float
    sizes: Sizes
    solved: Solved
    seconds: float = 0.0
    opponent: int | None = None
    #: the first round's actions before the root of its tree (its tree starts there)
    start: tuple[Action, ...] = ()

    @property
    def opening_sizes(self) -> tuple[float, ...]:
        """The opponent's first raise sizes in the re-solve."""
        s = self.sizes[0] if isinstance(self.sizes, dict) else self.sizes
        return s.fractions(0, self.opponent)

    def used_against(self, raiser: int, before: Sequence[Action] = ()) -> bool:
        """Whether the agent uses this extension for an opening by position ``raiser``
        after the first round's actions ``before`` (which must begin with ``start``)."""
        return (self.opponent is None or self.opponent == raiser) and tuple(before[: len(self.start)]) == self.start


def solve_base(setup: ImprovementSetup) -> tuple[GameDef, Solved, float]:
    """The game and our blueprint: CFR+ on the base abstraction; and the seconds taken."""
    t0 = time.perf_counter()
    game = load_game(setup.game)
    sub = whole_game(game, setup.base)
    return game, Solved(sub, cfr.solve(sub, setup.iterations).strategy), time.perf_counter() - t0


def type2_extension(
    game: GameDef, setup: ImprovementSetup, gap: tuple[float, float], opponent: int | None = None
) -> Extension:
    """Type 2 for the gap (A, B): add its pseudo-harmonic midpoint x' and re-solve the
    whole game with the first raise sizes {A, x', B} (unsafe: the opponent's range for
    x' is the solve's), as ``blueprint_store.improve.train_extension`` does: for the
    opponent in position ``opponent`` only (we keep the base's openings), or with None
    for both players (the design before the fix)."""
    a, b = gap
    mid = pseudo_harmonic_midpoint(a, b)
    return _extension(game, setup, "type2", mid, (a, mid, b), opponent=opponent)


def type1_extension(
    game: GameDef, setup: ImprovementSetup, x: float, all_in: bool = True, opponent: int | None = None
) -> Extension:
    """Type 1 for size x: the whole game re-solved with x as the only first raise size
    (fold, check/call, x and the all-in the tree always offers, as in
    ``blueprint_store.improve``): for the opponent in position ``opponent`` only (we
    keep the base's openings), or with None for both players (before the fix).
    ``all_in=False``: without the all-in there either, for the players whose openings
    changed (the issue's literal "only fold/check/call and that size"; a diagnostic)."""
    return _extension(game, setup, "type1", x, (x,), all_in, opponent)


def _extension(
    game: GameDef,
    setup: ImprovementSetup,
    kind: str,
    size: float,
    opening: tuple[float, ...],
    all_in: bool = True,
    opponent: int | None = None,
) -> Extension:
    t0 = time.perf_counter()
    sizes = setup.sizes(opening, opponent)
    sub = whole_game(game, sizes)
    if not all_in:
        changed = (0, 1) if opponent is None else (opponent,)
        drop = {
            c
            for who in changed
            for n, st in opening_nodes(game, sub.tree, who)
            for c in children_of(sub.tree, n)
            if sub.tree.actions[c].type is ActionType.RAISE and sub.tree.actions[c].size == st.raise_bounds()[1]
        }
        sub, _ = restrict(sub, drop)
    solved = Solved(sub, cfr.solve(sub, setup.iterations).strategy)
    return Extension(kind, size, sizes, solved, time.perf_counter() - t0, opponent)


def kept_first_move(
    game: GameDef, setup: ImprovementSetup, base: Solved, kind: str, size: float, opening: tuple[float, ...]
) -> Extension:
    """Diagnostic: an extension for the opponent in the position that acts second, with
    our first move kept as the blueprint's: only the subtree below our check is
    re-solved (the opponent's openings ``opening`` plus all-in, ours later as the
    base's), with our range there the blueprint's (its probability of checking each
    hand) and the opponent's uniform: the whole-game re-solve with our strategy at the
    root frozen, since nothing else of the game meets that subtree. The extension's
    picture of the range we check with is then the one we really check with."""
    t0 = time.perf_counter()
    T = base.sub.tree
    check = next(c for c in children_of(T, 0) if T.actions[c] == CALL)
    us = int(T.player[0])
    st = BettingState(game)
    st.apply(CALL)
    size_all = rg.hole_hands(game).shape[0]
    reach = in_canonical_order(base.sub, base.reaches()[:, check], size_all)
    sizes = setup.sizes(opening, 1 - us)
    sub = make_subgame(st, sizes, reach=reach)
    solved = Solved(sub, cfr.solve(sub, setup.iterations).strategy)
    return Extension(kind, size, sizes, solved, time.perf_counter() - t0, 1 - us, (CALL,))


def per_position(make) -> tuple[Extension, Extension]:
    """``make(opponent)`` for the opponent in either position: the agent's pair of
    extensions for one size (one per position it saw the opponent raise from)."""
    return make(0), make(1)


def translation_weights(x: float, sizes: Sequence[float]) -> list[tuple[int, float]]:
    """(index into ``sizes``, probability) of randomized pseudo-harmonic translation of
    x (``translation.translate`` with a random generator, as exact probabilities):
    the nearest end outside the range, else the two neighbours."""
    order = sorted(range(len(sizes)), key=lambda i: sizes[i])
    if x <= sizes[order[0]]:
        return [(order[0], 1.0)]
    if x >= sizes[order[-1]]:
        return [(order[-1], 1.0)]
    for i, j in zip(order, order[1:]):
        a, b = sizes[i], sizes[j]
        if a <= x <= b:
            if a == b:
                return [(i, 1.0)]
            p = pseudo_harmonic_probability(a, b, x)
            return [(i, p), (j, 1.0 - p)] if 0.0 < p < 1.0 else [(i if p >= 1.0 else j, 1.0)]
    raise AssertionError("unreachable: x lies within the range")


def _player_fractions(sizes: Sizes, state: BettingState) -> tuple[float, ...]:
    """The raise sizes of the abstraction ``sizes`` for the player to act at ``state``
    (``_fractions`` with the per-position openings of ``BetSizes.first_by_player``)."""
    return sizes_for_round(sizes, state.round).fractions(state.num_raises(), state.current_player)


# --------------------------------------------------------------------------- our strategy
class ExtensionWalk(MixtureWalk):
    """Our strategy for one seat in the evaluation game, as the agent plays it: the base
    blueprint with pseudo-harmonic translation, and at the opponent's first raise of
    the first round a possible switch to an extension's tree for the rest of the hand
    (``blueprint_store.real_play``). Randomized choices are kept as a mixture
    (``MixtureWalk``: solution 0 the base, i the i-th extension). With no extensions
    this is ``subgame_experiments.TranslationWalk``."""

    def __init__(
        self,
        game: GameDef,
        large: Subgame,
        base_sizes: Sizes,
        base: Solved,
        extensions: Sequence[Extension],
        us: int,
    ) -> None:
        super().__init__(game, large, base_sizes, base, us)
        self.extensions = list(extensions)
        for e in self.extensions:
            self.add_solution(e.sizes, e.solved)

    def raise_fractions(self, sizes: Sizes, state: BettingState) -> tuple[float, ...]:
        return _player_fractions(sizes, state)

    def translate(self, x: float, fractions: list[float]) -> list[tuple[int, float]]:
        return translation_weights(x, fractions)

    def map_opponent(
        self, s: int, st: BettingState, a: Action, sk: BettingState, k: int
    ) -> list[tuple[int, int, BettingState, float]]:
        """As ``MixtureWalk.map_opponent``, but at the opponent's first raise of the first
        round from the base, possibly into an extension (``_switch``)."""
        switched = self._switch(st, a, sk, k) if s == 0 and self._first_raise(st, a) else None
        if switched is None:
            return super().map_opponent(s, st, a, sk, k)
        return [(s2, j, self._state_after(s2, j, sk if s2 == s else None, st), p) for s2, j, p in switched]

    @staticmethod
    def _first_raise(st: BettingState, a: Action) -> bool:
        """The opponent's raise ``a`` is the first raise of the first round (the spot where
        the agent may switch to an extension)."""
        return a.type is ActionType.RAISE and st.round == 0 and st.num_raises() == 0

    def _state_after(self, s: int, j: int, sk: BettingState | None, st: BettingState) -> BettingState:
        """The betting state at node ``j`` of solution ``s``: from the state before it
        (``sk``) or, on a switch into an extension, replayed from the real state's
        checks and calls (only those come before the first raise)."""
        T = self.solutions[s][1].sub.tree
        if sk is None:
            sk = BettingState(self.game)
            for b in st.actions[0]:
                sk.apply(b)
        out = sk.copy()
        out.apply(T.actions[j])
        return out

    def _switch(self, st: BettingState, a: Action, sk: BettingState, k: int) -> list[tuple[int, int, float]] | None:
        """At the opponent's first raise ``a`` of the first round (real state ``st``, our
        base node ``k``, state ``sk``): (solution, node, probability) triples, as the
        agent chooses, among the extensions for the raiser's position: a type-1 extension
        for its size; else randomized translation among the base node's raise sizes
        below all-in and the type-2 sizes. None: no extension is in play (all-in, or
        none applies): the usual translation."""
        bounds = st.raise_bounds()
        if not self.extensions or bounds is None or a.size >= bounds[1]:
            return None  # all-in stays all-in, in the base
        x = pot_fraction_of(st, a.size)
        usable = [(i, e) for i, e in enumerate(self.extensions, 1) if e.used_against(st.current_player, st.actions[0])]
        for i, e in usable:
            if e.kind == "type1" and abs(x - e.size) <= TYPE1_TOLERANCE:
                return [(i, self._enter(i, st), 1.0)]
        T = self.blueprint.sub.tree
        top = sk.raise_bounds()[1]
        options: list[tuple[float, int, int]] = [  # (pot fraction, solution, node)
            (pot_fraction_of(sk, T.actions[j].size), 0, j)
            for j in children_of(T, k)
            if T.actions[j].type is ActionType.RAISE and T.actions[j].size < top
        ]
        exts = [(e.size, i, -1) for i, e in usable if e.kind == "type2"]
        if not exts or not options:
            return None
        options += exts
        out = []
        for idx, p in translation_weights(x, [o[0] for o in options]):
            _, s, j = options[idx]
            out.append((s, j, p) if s == 0 else (s, self._enter(s, st), p))
        return out

    def _enter(self, s: int, st: BettingState) -> int:
        """Extension ``s``'s raise child that an opening at real state ``st`` switches
        to: the node reached by the same checks and calls, then its raise closest in pot
        fraction to the extension's size (below all-in). Its tree starts after ``start``."""
        e = self.extensions[s - 1]
        T = e.solved.sub.tree
        k = 0
        sk = BettingState(self.game)
        for b in e.start:
            sk.apply(b)
        for b in st.actions[0][len(e.start) :]:
            k = next(j for j in children_of(T, k) if T.actions[j] == b)
            sk.apply(b)
        top = sk.raise_bounds()[1]
        raises = [
            (abs(pot_fraction_of(sk, T.actions[j].size) - e.size), j)
            for j in children_of(T, k)
            if T.actions[j].type is ActionType.RAISE and T.actions[j].size < top
        ]
        return min(raises)[1]


# --------------------------------------------------------------------------- measures
def opening_nodes(game: GameDef, tree: PublicTree, player: int) -> list[tuple[int, BettingState]]:
    """``player``'s decision nodes at the first raise of the first round (no raise yet in
    it), with their betting states."""
    out = []
    stack = [(0, BettingState(game))]
    while stack:
        n, st = stack.pop()
        if tree.kind[n] != DECISION or st.round != 0 or st.num_raises() > 0:
            continue
        if tree.player[n] == player:
            out.append((n, st))
        for c in children_of(tree, n):
            st2 = st.copy()
            st2.apply(tree.actions[c])
            stack.append((c, st2))
    return out


#: The ``PublicTree`` arrays with a row per node that keep their meaning in any subset of
#: the nodes (the child links do not: ``restrict`` lays them out again).
NODE_ROWS = ("kind", "player", "spent", "dealt", "board_of")


def restrict(sub: Subgame, drop: set[int]) -> tuple[Subgame, np.ndarray]:
    """``sub`` with the subtrees below the nodes in ``drop`` removed (a game in which
    those actions do not exist), and for each of its nodes the node of ``sub``. The
    nodes keep the tree's layout (depth-first, children contiguous); the parallel
    solver's blocks are not laid out (solve it with one thread)."""
    t = sub.tree
    old = [0]
    first = [-1]
    count = [0]
    stack = [0]
    while stack:
        m = stack.pop()
        o = old[m]
        if t.kind[o] not in (DECISION, CHANCE):
            continue
        kids = [c for c in children_of(t, o) if c not in drop]
        first[m] = len(old)
        count[m] = len(kids)
        placed = list(range(len(old), len(old) + len(kids)))
        old.extend(kids)
        first.extend([-1] * len(kids))
        count.extend([0] * len(kids))
        stack.extend(reversed(placed))
    idx = np.array(old, dtype=np.int64)
    tree = PublicTree(
        first_child=np.array(first, dtype=np.int32),
        num_children=np.array(count, dtype=np.int32),
        boards=t.boards,
        actions=[t.actions[i] for i in old],
        board=t.board,
        **{name: getattr(t, name)[idx] for name in NODE_ROWS},
    )
    return replace(sub, tree=tree, slot=reach_slots(tree), chance_weight=sub.chance_weight[idx]), idx


def x_only_game(
    game: GameDef, large: Subgame, x: float, opponent: int, keep_x: bool = True
) -> tuple[Subgame, np.ndarray]:
    """The evaluation game in which ``opponent``'s first raise of the first round can
    only be x (its other sizes and all-in removed there; with ``keep_x=False`` x too:
    it never raises first) and the other player never opens with x; with the node map
    of ``restrict``."""
    t = large.tree
    drop: set[int] = set()
    for who in (0, 1):
        for n, st in opening_nodes(game, t, who):
            x_to = target(st, x)
            for c in children_of(t, n):
                a = t.actions[c]
                if a.type is ActionType.RAISE and (a.size != x_to or not keep_x if who == opponent else a.size == x_to):
                    drop.add(c)
    return restrict(large, drop)


def best_response_value(sub: Subgame, strategy: np.ndarray, player: int) -> float:
    """``player``'s best-response value against the other player's part of ``strategy``,
    chips per hand (expected over the joint deal)."""
    compat = np.zeros(sub.hands.shape[0])
    compat_sums(sub.reach[1], sub.c1, sub.c2, sub.dup, compat)
    joint = float(sub.reach[0] @ compat)
    return float(sub.reach[player] @ cfr.counterfactual_values(sub, strategy, player, best_response=True)) / joint


@dataclass(frozen=True)
class Measure:
    """One strategy of ours against the x-opener and in the whole evaluation game:
    per seat of ours (0: we act first), mbb/h of what a best-responding opponent wins."""

    method: str
    vs_x: tuple[float, float]
    full: tuple[float, float] | None
    seconds: float = 0.0
    note: str = ""

    @property
    def vs_x_mean(self) -> float:
        return (self.vs_x[0] + self.vs_x[1]) / 2

    @property
    def full_mean(self) -> float | None:
        return None if self.full is None else (self.full[0] + self.full[1]) / 2


def measure(
    game: GameDef,
    large: Subgame,
    x: float,
    seats: list[np.ndarray],
    name: str,
    seconds: float = 0.0,
    note: str = "",
) -> Measure:
    """The measures of our strategy ``seats[us]`` (over the evaluation game ``large``)."""
    vs_x, full = [], []
    for us in (0, 1):
        opp = 1 - us
        full.append(mbb(best_response_value(large, seats[us], opp), game))
        rsub, idx = x_only_game(game, large, x, opp)
        vs_x.append(mbb(best_response_value(rsub, seats[us][idx], opp), game))
    return Measure(name, (vs_x[0], vs_x[1]), (full[0], full[1]), seconds, note)


def with_extensions(
    game: GameDef,
    large: Subgame,
    setup: ImprovementSetup,
    base: Solved,
    x: float,
    extensions: Sequence[Extension],
    name: str,
    note: str = "",
) -> Measure:
    """Our strategy with ``extensions`` (none: plain translation), measured."""
    t0 = time.perf_counter()
    seats = [ExtensionWalk(game, large, setup.base, base, extensions, us).run() for us in (0, 1)]
    return measure(game, large, x, seats, name, time.perf_counter() - t0 + sum(e.seconds for e in extensions), note)


def floor(game: GameDef, large: Subgame, setup: ImprovementSetup, base: Solved, x: float) -> Measure:
    """Reference: what the x-opener wins by never raising first (checking or calling
    there instead), against the blueprint: every strategy here keeps the blueprint on
    those lines, so none can hold the x-opener below this (it can always decline to
    open); only the x answers differ between the rows."""
    t0 = time.perf_counter()
    vs_x = []
    for us in (0, 1):
        opp = 1 - us
        strat = ExtensionWalk(game, large, setup.base, base, (), us).run()
        rsub, idx = x_only_game(game, large, x, opp, keep_x=False)
        vs_x.append(mbb(best_response_value(rsub, strat[idx], opp), game))
    return Measure(FLOOR, (vs_x[0], vs_x[1]), None, time.perf_counter() - t0, "no answer to x can do better")


def nested(game: GameDef, large: Subgame, setup: ImprovementSetup, base: Solved, x: float) -> Measure:
    """Reference: nested subgame solving (``subgame_experiments``, Table 2) for the x
    opening, the base blueprint elsewhere."""
    t0 = time.perf_counter()
    gap = Gap(large)
    walks = [
        NestedWalk(
            game, large, setup.base, base, us, method=setup.nested_method, iterations=setup.nested_iterations, gap=gap
        )
        for us in (0, 1)
    ]
    seats = [w.run() for w in walks]
    return measure(
        game,
        large,
        x,
        seats,
        f"Nested {setup.nested_method.name} (reference)",
        time.perf_counter() - t0,
        f"{sum(w.solves for w in walks)} subgame solves",
    )


def best_answer(game: GameDef, large: Subgame, setup: ImprovementSetup, base: Solved, x: float) -> Measure:
    """Reference: the best any answer to the x opening can do when the blueprint is kept
    everywhere else (as every improvement here keeps it): below each opening of the
    opponent where x is possible, a Resolve solve whose alternative is the opponent's
    best-response value of its other options there (check or call: the x-opener has no
    other raise), our range from the blueprint. Resolve minimises, over our play below
    x, the sum over the opponent's hands of the better of the two, which is exactly the
    opponent's best-response value in the x-only game; its measured value is an upper
    bound on that minimum (tight as the solve converges)."""
    t0 = time.perf_counter()
    t = large.tree
    size = large.hands.shape[0]
    seats = []
    solves = 0
    for us in (0, 1):
        opp = 1 - us
        strat = ExtensionWalk(game, large, setup.base, base, (), us).run()
        bp = Solved(large, strat.copy())
        for n, st in opening_nodes(game, large.tree, opp):
            if not bp.reaches()[us, n].any():
                continue
            bet = raise_to(target(st, x))
            kx = next(c for c in children_of(t, n) if t.actions[c] == bet)
            w = bp.weights(us, n)
            v = bp.values(opp, True)
            alt = gadgets.offtree_alt_values(
                [
                    gadgets.expected_per_hand(v[c], w)
                    for c in children_of(t, n)
                    if t.actions[c].type is not ActionType.RAISE
                ]
            )
            after = st.copy()
            after.apply(bet)
            sub = make_subgame(after, setup.evaluation(x), reach=in_canonical_order(large, bp.reaches()[:, kx], size))
            alt_sub = in_canonical_order(large, alt, size)[sub.hand_index]
            solved = cfr.solve(sub, setup.reference_iterations, gadget=cfr.Gadget("resolve", opp, alt_sub))
            pos = positions(large, size)[sub.hand_index]
            write_ours(strat, sub.tree, align(t, kx, sub.tree), pos, solved.strategy, us)
            solves += 1
        seats.append(strat)
    return measure(
        game,
        large,
        x,
        seats,
        BEST,
        time.perf_counter() - t0,
        f"{solves} Resolve solves, {setup.reference_iterations} CFR+ iterations",
    )


# --------------------------------------------------------------------------- experiment
@dataclass
class Result:
    """The rows for one opponent size x."""

    x: float
    gap: tuple[float, float]
    midpoint: float
    rows: list[Measure] = field(default_factory=list)

    def row(self, prefix: str) -> Measure:
        return next(r for r in self.rows if r.method.startswith(prefix))


BEFORE = "Before: randomized pseudo-harmonic translation"
TYPE2 = "After type 2:"
TYPE1 = "After type 1:"
TYPE1_NO_ALL_IN = "After type 1 without the opponent's all-in at the first raise"
BOTH = "both players' openings changed"
TYPE2_BOTH = f"After type 2, {BOTH}"
TYPE1_BOTH = f"After type 1, {BOTH}"
TYPE1_NO_ALL_IN_BOTH = f"After type 1 without all-in at the first raise, {BOTH}"
KEPT = "our first move kept as the blueprint's"
TYPE2_KEPT = f"After type 2, {KEPT}"
TYPE1_KEPT = f"After type 1, {KEPT}"
CONTROL = "Control: type 2 in another gap"
BEST = "Best answer to x, blueprint elsewhere (reference)"
FLOOR = "Floor: the opponent never raises first"


def run(
    setup: ImprovementSetup = ImprovementSetup(), sizes: Sequence[float] = (0.75,), progress: Progress = quiet
) -> tuple[list[Result], dict]:
    """The experiment for each opponent size in ``sizes``: before, after type 2 and
    after type 1 as the agent does them now (one extension per opponent position, the
    opponent's openings changed, ours the base's), the same with both players'
    openings changed (the design before the fix), with ``diagnostics`` type 1 without
    all-in (both designs), the control (per-position type 2 in a gap the opponent never
    uses, when the base has another gap), and the references. Returns the results and
    run facts (tree sizes, the blueprint's own exploitability, the first-round ranges
    of every solve (``first_round_ranges``), seconds)."""
    t0 = time.perf_counter()
    game, base, secs = solve_base(setup)
    own = mbb(cfr.exploitability(base.sub, base.strategy), game)
    progress(
        f"blueprint: {base.sub.tree.num_nodes} nodes, {setup.iterations} CFR+ iterations, {secs:.1f} s, "
        f"{own:.3f} mbb/h in its own abstraction"
    )
    facts: dict = {"base_nodes": base.sub.tree.num_nodes, "base_mbb": own, "base_seconds": secs, "ranges": {}}
    type2: dict[tuple[tuple[float, float], int | None], Extension] = {}
    kept2: dict[tuple[float, float], Extension] = {}

    def report(e: Extension) -> None:
        who = "both players" if e.opponent is None else f"the opponent in position {e.opponent}"
        who += ", re-solved below our check" if e.start else ""
        progress(
            f"type {e.kind[-1]} for {e.size:.3f} pot, {who}: its first raises "
            f"{', '.join(f'{f:.3f}' for f in e.opening_sizes)}, {e.solved.sub.tree.num_nodes} nodes, "
            f"{e.seconds:.1f} s"
        )

    def type2_for(gap: tuple[float, float], opponent: int | None) -> Extension:
        if (gap, opponent) not in type2:
            type2[gap, opponent] = e = type2_extension(game, setup, gap, opponent)
            report(e)
        return type2[gap, opponent]

    def type1_for(x: float, opponent: int | None, all_in: bool = True) -> Extension:
        e = type1_extension(game, setup, x, all_in, opponent)
        report(e)
        return e

    results = []
    root = BettingState(game)
    for x in sizes:
        gap = setup.gap(x)
        if target(root, x) in {target(root, f) for f in setup.first_raises}:
            raise ValueError(f"{x} pot is the same bet in chips as a base size here: not off-tree")
        res = Result(x, gap, pseudo_harmonic_midpoint(*gap))
        large = whole_game(game, setup.evaluation(x))
        progress(
            f"x = {x:.3f} pot (gap {gap[0]:g}-{gap[1]:g}, midpoint {res.midpoint:.3f}): "
            f"evaluation game {large.tree.num_nodes} nodes"
        )

        def add(m: Measure) -> None:
            res.rows.append(m)
            full = "" if m.full_mean is None else f", full {m.full_mean:.2f}"
            progress(
                f"x = {x:.3f}: {m.method}: vs x {m.vs_x_mean:.2f} mbb/h (seats {m.vs_x[0]:.2f}, "
                f"{m.vs_x[1]:.2f}){full} ({m.seconds:.1f} s)"
            )

        def add_ours(extensions: Sequence[Extension], name: str, note: str = "") -> None:
            """A row: our strategy with ``extensions`` (none: plain translation), measured."""
            add(with_extensions(game, large, setup, base, x, extensions, name, note))

        add_ours((), BEFORE)
        mid = pseudo_harmonic_midpoint(*gap)
        p = dict(translation_weights(x, [gap[0], mid, gap[1]])).get(1, 0.0)
        maps = f"x maps to x' with probability {p:.3f}"
        e2s = per_position(lambda o: type2_for(gap, o))
        add_ours(e2s, f"{TYPE2} x' = {mid:.3f} added to the opponent's openings", f"{maps}; ours the base's")
        e1s = per_position(lambda o: type1_for(x, o))
        add_ours(e1s, f"{TYPE1} x the opponent's only opening", "ours the base's")
        add_ours((type2_for(gap, None),), f"{TYPE2_BOTH}: x' = {mid:.3f}", f"before the fix; {maps}")
        e1b = type1_for(x, None)
        add_ours((e1b,), f"{TYPE1_BOTH}: x only", "before the fix")
        facts["ranges"][x] = ranges = {
            "blueprint": first_round_ranges(game, base, 1.0),
            "type 2 (opponent in position 1)": first_round_ranges(game, e2s[1].solved, mid),
            "type 1 (opponent in position 1)": first_round_ranges(game, e1s[1].solved, x),
            f"type 2, {BOTH}": first_round_ranges(game, type2_for(gap, None).solved, mid),
            f"type 1, {BOTH}": first_round_ranges(game, e1b.solved, x),
        }
        if setup.diagnostics:
            e1n = per_position(lambda o: type1_for(x, o, False))
            add_ours(e1n, TYPE1_NO_ALL_IN, "diagnostic: the issue's wording, for the opponent only")
            e1nb = type1_for(x, None, False)
            add_ours((e1nb,), TYPE1_NO_ALL_IN_BOTH, "diagnostic: the issue's wording, before the fix")
            ranges["type 1 without the opponent's all-in (opponent in position 1)"] = first_round_ranges(
                game, e1n[1].solved, x
            )
            ranges[f"type 1 without all-in, {BOTH}"] = first_round_ranges(game, e1nb.solved, x)
            if gap not in kept2:
                kept2[gap] = kept_first_move(game, setup, base, "type2", mid, (gap[0], mid, gap[1]))
                report(kept2[gap])
            e1k = kept_first_move(game, setup, base, "type1", x, (x,))
            report(e1k)
            add_ours(
                (e2s[0], kept2[gap]),
                f"{TYPE2_KEPT}: x' = {mid:.3f}",
                "diagnostic: re-solved below our check, our range the blueprint's",
            )
            add_ours(
                (e1s[0], e1k), f"{TYPE1_KEPT}: x", "diagnostic: re-solved below our check, our range the blueprint's"
            )
            ranges[f"type 2, {KEPT}"] = first_round_ranges(game, kept2[gap].solved, mid, kept2[gap].start)
            ranges[f"type 1, {KEPT}"] = first_round_ranges(game, e1k.solved, x, e1k.start)
        others = [g for g in setup.gaps() if g != gap]
        if others:
            ecs = per_position(lambda o: type2_for(others[-1], o))
            ec = ecs[0]
            add_ours(
                ecs,
                f"{CONTROL} ({ec.opening_sizes[0]:g}-{ec.opening_sizes[-1]:g}, x' = {ec.size:.3f})",
                "the opponent never bets there",
            )
        if setup.nested_iterations:
            add(nested(game, large, setup, base, x))
        if setup.reference_iterations:
            add(best_answer(game, large, setup, base, x))
        add(floor(game, large, setup, base, x))
        results.append(res)
    facts["seconds"] = time.perf_counter() - t0
    return results, facts


def first_round_ranges(game: GameDef, solved: Solved, size: float, start: tuple[Action, ...] = ()) -> dict:
    """The first round's opening in a solve of the whole game, per rank of the private
    card ("ranks", low to high; the suits are symmetric, so averaged): "check", the
    first player's probability of checking at the root; after that check, the second
    player's probability of opening with the raise nearest ``size`` pot below all-in
    ("open"; its size "open_size") and of going all-in ("all-in"; None when the solve
    has no all-in there). When the first player acts before the opponent's opening
    (the seat where an extension's picture of our range matters), "check" is the range
    we arrive with and "open" the opponent's range for that size in the solve. With
    ``start`` = (check,) the solve starts after the first player's check ("check" None:
    not the solve's)."""
    t = solved.sub.tree
    cards = solved.sub.hands[:, 0]
    ranks = sorted({rank_of(int(c)) for c in cards})
    st = BettingState(game)

    def by_rank(node: int) -> tuple[float, ...]:
        return tuple(float(solved.strategy[node, [rank_of(int(c)) == r for c in cards]].mean()) for r in ranks)

    check = 0 if start == (CALL,) else next(c for c in children_of(t, 0) if t.actions[c] == CALL)
    st.apply(CALL)
    top = st.raise_bounds()[1]
    raises = [
        (abs(pot_fraction_of(st, t.actions[c].size) - size), c)
        for c in children_of(t, check)
        if t.actions[c].type is ActionType.RAISE and t.actions[c].size < top
    ]
    all_in = [c for c in children_of(t, check) if t.actions[c].type is ActionType.RAISE and t.actions[c].size == top]
    d, k = min(raises)
    return {
        "ranks": "".join(RANK_CHARS[r] for r in ranks),
        "check": by_rank(check) if check else None,
        "open": by_rank(k),
        "open_size": pot_fraction_of(st, t.actions[k].size),
        "all-in": by_rank(all_in[0]) if all_in else None,
    }


def markdown(results: list[Result]) -> str:
    """One table: per opponent size, each row's exploitability against x (per seat and
    mean), what opening x gains the opponent (the mean over the floor: zero when no
    opening with x pays), and the exploitability in the whole evaluation game (mean),
    mbb/h."""
    lines = [
        "| x (pot) | Our strategy | vs x, we act first | vs x, we act second | **vs x, mean** "
        "| gain from opening x | full BR, mean | note |",
        "|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for r in results:
        low = next((m for m in r.rows if m.method == FLOOR), None)
        for m in r.rows:
            full = "—" if m.full_mean is None else f"{m.full_mean:.2f}"
            over = "—" if low is None else f"{m.vs_x_mean - low.vs_x_mean:.2f}"
            lines.append(
                f"| {r.x:.3f} | {m.method} | {m.vs_x[0]:.2f} | {m.vs_x[1]:.2f} | **{m.vs_x_mean:.2f}** "
                f"| {over} | {full} | {m.note} |"
            )
    return "\n".join(lines)


def ranges_markdown(ranges: dict[float, dict[str, dict]]) -> str:
    """The ``first_round_ranges`` of the run's solves (``run``'s ``facts["ranges"]``), one
    table: per opponent size and solve, the first player's check probability by rank and
    the second player's, after that check, opening (with the size nearest x, or x') and
    all-in probabilities by rank."""
    lines = [
        "| x (pot) | solve | first player checks | then second player opens (size) | then all-in |",
        "|---|---|---|---|---|",
    ]

    def triple(v: tuple[float, ...] | None, ranks: str) -> str:
        return "—" if v is None else " / ".join(f"{r} {p:.2f}" for r, p in zip(ranks, v))

    for x, solves in ranges.items():
        for name, r in solves.items():
            lines.append(
                f"| {x:.3f} | {name} | {triple(r['check'], r['ranks'])} | {triple(r['open'], r['ranks'])} "
                f"({r['open_size']:.3f}) | {triple(r['all-in'], r['ranks'])} |"
            )
    return "\n".join(lines)
