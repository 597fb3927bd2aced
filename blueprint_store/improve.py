"""Self-improvement, step one: where do opponents bet that the blueprint has no size?

Libratus's third module (supplement, "Further details of the self-improvement
algorithm"): collect the opponents' first-round bet sizes as pot fractions, score each
gap between neighbouring abstraction sizes A < B by the sum over the opponent sizes x
inside it of min(x - A, B - x) (a size near an existing one costs little: translation
handles it), and add, for the best gaps, the pseudo-harmonic midpoint
(A + B + 2AB) / (A + B + 2) (the size a pseudo-harmonic translation between A and B is
least sure about).

A size is a fraction of the pot for a bet and of the pot after calling for a raise, at
a raise depth (number of raises before it in the round) - the convention of
``blueprint_store.actions``.
"""

from __future__ import annotations

import glob
import os
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pokerbot.protocol.betting import ActionType, BettingState
from pokerbot.protocol.gamedef import GameDef
from pokerbot.protocol.matchstate import MatchStateError, parse_state_line
from pokerbot.solver import translation
from pokerbot.solver.betting_tree import BettingTree, build_betting_tree
from pokerbot.solver.tree import DECISION, BetSizes

from .abstraction import HoldemDeals, Progress
from .actions import ActionAbstraction, pot_fraction
from .store import Blueprint, ExtensionContents, write_blueprint
from .train import mccfr_solver, run_schedule


def pseudo_harmonic_midpoint(a: float, b: float) -> float:
    """The size between A and B at which randomised pseudo-harmonic translation maps to
    each with probability one half: (A + B + 2AB) / (A + B + 2)."""
    if not 0 <= a < b:
        raise ValueError(f"need 0 <= A < B, got A={a}, B={b}")
    return translation.pseudo_harmonic_midpoint(a, b)


@dataclass(frozen=True)
class OpponentBet:
    depth: int  # raises before it in the round
    fraction: float
    all_in: bool
    hand: int
    name: str  # the opponent's name in the log
    position: int = -1  # the opponent's position in that hand


def first_round_bets(state: BettingState, us: int, names: list[str] | None = None) -> list[OpponentBet]:
    """The opponent's (not position ``us``'s) bets and raises in the first round of one hand."""
    game = state.game
    replay = BettingState(game, state.hand_id)
    out = []
    depth = 0
    for a, who in zip(state.actions[0], state.actors[0]):
        if a.type is ActionType.RAISE:
            if who != us and game.is_nolimit:
                out.append(
                    OpponentBet(
                        depth,
                        pot_fraction(a.size, replay.spent, who),
                        a.size >= game.stack[who],
                        state.hand_id,
                        names[who] if names else str(who),
                        who,
                    )
                )
            depth += 1
        replay.apply(a)
    return out


def log_files(paths: list[str]) -> list[str]:
    """Dealer logs (``*.log`` with STATE lines) under the given files or directories."""
    out = []
    for p in paths:
        if os.path.isdir(p):
            out.extend(sorted(glob.glob(os.path.join(p, "**", "*.log"), recursive=True)))
        elif os.path.exists(p):
            out.append(p)
        else:
            raise FileNotFoundError(f"no such log file or directory: {p}")
    return out


@dataclass
class CollectedBets:
    bets: list[OpponentBet]
    hands: int  # hands read
    skipped_lines: int  # lines that were not valid STATE lines of this game
    files: int


def collect_opponent_bets(paths: list[str], game: GameDef, us: str) -> CollectedBets:
    """Every first-round bet of every player whose name does not contain ``us``, from
    the dealer logs under ``paths``. Lines that are not STATE lines of ``game`` are
    counted and skipped (a log may be cut short or hold another game)."""
    bets: list[OpponentBet] = []
    hands = skipped = 0
    files = log_files(paths)
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if not line.startswith("STATE:"):
                    continue
                try:
                    logged = parse_state_line(line.rstrip("\r\n"), game)
                except (MatchStateError, ValueError):
                    skipped += 1
                    continue
                ours = [i for i, n in enumerate(logged.names) if us in n]
                if len(ours) != 1:  # not our match, or both seats match the name
                    skipped += 1
                    continue
                hands += 1
                bets.extend(first_round_bets(logged.state, ours[0], logged.names))
    return CollectedBets(bets, hands, skipped, len(files))


@dataclass(frozen=True)
class Gap:
    depth: int
    low: float  # A
    high: float  # B
    score: float
    count: int  # opponent sizes inside
    most_common: float | None  # the most frequent opponent size inside (rounded to 0.01)

    @property
    def midpoint(self) -> float:
        return pseudo_harmonic_midpoint(self.low, self.high)


def score_gaps(bets: list[OpponentBet], abstraction: ActionAbstraction) -> list[Gap]:
    """Every gap between neighbouring first-round sizes of the abstraction, per raise
    depth, scored by the sum of min(x - A, B - x) over the opponent sizes x strictly
    inside it; best first. All-in bets are left out (the abstraction always has
    all-in)."""
    first = abstraction.rounds[0]
    gaps = []
    for depth in range(first.max_raises):
        sizes = sorted(set(first.bets[min(depth, len(first.bets) - 1)]))
        xs = [b.fraction for b in bets if b.depth == depth and not b.all_in]
        for a, b in zip(sizes, sizes[1:]):
            inside = [x for x in xs if a < x < b]
            score = sum(min(x - a, b - x) for x in inside)
            common = Counter(round(x, 2) for x in inside).most_common(1)
            gaps.append(Gap(depth, a, b, score, len(inside), common[0][0] if common else None))
    gaps.sort(key=lambda g: (-g.score, g.depth, g.low))
    return gaps


def most_common_size(bets: list[OpponentBet], abstraction: ActionAbstraction) -> tuple[int, float, int] | None:
    """Type 1's target: (depth, size, count) of the most frequent opponent first-round
    size (rounded to 0.01) that the abstraction lacks; None if there is none."""
    first = abstraction.rounds[0]
    counts: Counter = Counter()
    for b in bets:
        if b.all_in or b.depth >= first.max_raises:
            continue
        have = first.bets[min(b.depth, len(first.bets) - 1)]
        x = round(b.fraction, 2)
        if all(abs(x - s) > 0.005 for s in have):
            counts[(b.depth, x)] += 1
    if not counts:
        return None
    (depth, x), n = counts.most_common(1)[0]
    return depth, x, n


# ---------------------------------------------------------------------- step two: solve and store

#: Pot fractions of the raises after an added first raise (depth 1 and up): coarser
#: than the default preset's, as Libratus made the abstraction after the added size.
EXTENSION_RERAISES = (1.0,)
EXTENSION_MAX_RAISES = 3
#: MCCFR settings of the default preset (regrets in 1/100 big blind).
EXTENSION_PRUNE_THRESHOLD = -30_000_000.0
EXTENSION_REGRET_FLOOR = -31_000_000


def extension_actions(base: ActionAbstraction, opening_sizes: tuple[float, ...], opponent: int) -> ActionAbstraction:
    """The base abstraction where the opponent (position ``opponent``) opens the first
    round with ``opening_sizes`` while we keep the base's opening sizes (so that our
    range before the opponent's raise is the one we really play), and a coarse
    pot-size re-raise after any opening; later rounds as in the base."""
    b0 = base.rounds[0]
    ours = tuple(b0.fractions(0))
    first = BetSizes(
        bets=(ours, EXTENSION_RERAISES),
        max_raises=min(b0.max_raises, EXTENSION_MAX_RAISES),
        first_by_player=tuple(tuple(sorted(opening_sizes)) if p == opponent else ours for p in (0, 1)),
    )
    return ActionAbstraction((first,) + tuple(base.rounds[1:]))


def train_extension(
    base: Blueprint,
    kind: str,
    size: float,
    opening_sizes: tuple[float, ...],
    opponent: int,
    seconds: float,
    threads: int | None = None,
    seed: int = 0,
    batch: int = 20_000,
    log: Callable[[str], None] = print,
    keep_first_move: bool = True,
    progress: Progress | None = None,
) -> ExtensionContents:
    """Solve the game again with ``opening_sizes`` as the first raise sizes of the first
    round (the added size and, for type 2, its sibling sizes too: the opponent's range
    for the added size is then found in the solve, as in Libratus's unsafe subgame
    solving with a default sibling offered), with the base's card abstraction, for
    ``seconds`` of MCCFR. With ``keep_first_move`` (the default), when we act before
    the opponent's first raise only the subtree below our check/call is solved, our
    first move frozen to the blueprint's (``kept_first_move``): a whole-game re-solve
    would shift our range there away from the one we really play (on Leduc that shift
    cost type 1 most of its gain; see docs/self-improvement-experiment.md)."""
    threads = threads or os.cpu_count() or 1
    actions = extension_actions(base.actions, opening_sizes, opponent)
    tree = build_betting_tree(base.game, actions.sizes(), base.tree.buckets)
    log(
        f"{kind} extension for size {size:.3f}, opponent in position {opponent} "
        f"(its first raises {', '.join(f'{x:.3f}' for x in sorted(opening_sizes))}):"
        f" {tree.num_nodes:,} nodes, {tree.num_slots:,} slots ({tree.memory_bytes() / 1e6:.0f} MB)"
    )
    solver = mccfr_solver(tree, base.game, EXTENSION_PRUNE_THRESHOLD, EXTENSION_REGRET_FLOOR, seed)
    kept = kept_first_move(base, tree, opponent) if keep_first_move else None
    if kept is not None:
        action, reach, root_strategy = kept
        solver.keep_root_action(action, reach)
        log(
            f"our first move kept as the blueprint's: solving only below it "
            f"(reached by {np.count_nonzero(reach):,} of {len(reach):,} buckets)"
        )
    deals = HoldemDeals(base.cards, threads=threads)
    shown: Progress | None = None
    if progress is not None:
        report = progress

        def shown(phase: str, done: float, total: float, unit: str, status: str) -> None:
            report(f"{kind} {size:.3f} pot", done, total, unit, status)

    elapsed = run_schedule(solver, deals, seconds, batch, threads, log, progress=shown)
    strategy = solver.average_strategy()
    if kept is not None:
        # the agent reads our range at the switch from this tree: the blueprint's root
        strategy[int(tree.slot_offset[0]) : int(tree.slot_offset[0]) + root_strategy.size] = root_strategy.ravel()
    figures = {
        "kind": kind,
        "size": size,
        "opening_sizes": list(opening_sizes),
        "opponent": opponent,
        "iterations": solver.iterations,
        "kept_first_move": kept is not None,
        "train_seconds": elapsed,
        "threads": threads,
        "seed": seed,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    return ExtensionContents(kind, size, actions, tree, strategy.astype(np.float32), figures, opponent=opponent)


def kept_first_move(base: Blueprint, tree: BettingTree, opponent: int) -> tuple[int, np.ndarray, np.ndarray] | None:
    """When our first move comes before the opponent's first raise (we act first in
    the first round, the opponent second), the extension must not change it: the
    agent switches to the extension only after that move, so our range there is the
    blueprint's. Returns (the root's check/call child, the probability per bucket that
    the blueprint takes it - range-thresholded, as the agent plays it - and the
    blueprint's root strategy per bucket and action); None when the opponent acts
    first (nothing of ours comes before its raise)."""
    if int(tree.player[0]) == opponent or tree.kind[0] != DECISION:
        return None
    f, m = int(tree.first_child[0]), int(tree.num_children[0])
    kids = [tree.actions[c] for c in range(f, f + m)]
    base_kids = base.child_actions(0)
    if kids != base_kids:
        raise ValueError(f"the extension's first decision {kids} differs from the blueprint's {base_kids}")
    calls = [i for i, a in enumerate(base_kids) if a.type is ActionType.CALL]  # the same actions as kids
    if len(calls) != 1:
        raise ValueError(f"the first decision has {len(calls)} check/call actions")
    b = int(base.tree.buckets[int(base.tree.round[0])])
    root = np.array([base.probabilities(0, k, threshold=True) for k in range(b)])
    return calls[0], root[:, calls[0]].copy(), root


@dataclass
class ImprovementPlan:
    type2: list[Gap]  # gaps to fill, best first
    type1: tuple[int, float, int] | None  # (depth, size, count) of the most common missing size
    collected: CollectedBets

    def positions(self, low: float, high: float) -> list[int]:
        """The positions from which the opponent made first raises in (low, high]."""
        return sorted(
            {
                b.position
                for b in self.collected.bets
                if b.depth == 0 and not b.all_in and low < b.fraction <= high and b.position >= 0
            }
        )

    def jobs(self) -> list[tuple[str, float, tuple[float, ...], int]]:
        """(kind, size, the opponent's opening sizes, the opponent's position) per
        extension to solve: one per position the opponent used the sizes from."""
        out: list[tuple[str, float, tuple[float, ...], int]] = []
        for g in self.type2:
            out += [("type2", g.midpoint, (g.low, g.midpoint, g.high), p) for p in self.positions(g.low, g.high)]
        if self.type1:
            x = self.type1[1]
            out += [("type1", x, (x,), p) for p in self.positions(x - 0.005, x + 0.005)]
        return out


def plan_improvement(base: Blueprint, paths: list[str], us: str, k: int, type1: bool = True) -> ImprovementPlan:
    """What to add: the ``k`` best-scoring gaps of the first raise (depth 0) that no
    extension of ``base`` fills yet, and the most common missing size (type 1)."""
    got = collect_opponent_bets(paths, base.game, us)
    have = {(e.kind, round(e.size, 3)) for e in base.extensions if e.size is not None}  # all extensions have one
    gaps = [
        g
        for g in score_gaps(got.bets, base.actions)
        if g.depth == 0 and g.score > 0 and ("type2", round(g.midpoint, 3)) not in have
    ][:k]
    common = most_common_size(got.bets, base.actions) if type1 else None
    if common is not None and (common[0] != 0 or ("type1", round(common[1], 3)) in have):
        common = None
    return ImprovementPlan(gaps, common, got)


def improve(
    base_path: str,
    paths: list[str],
    out: str,
    us: str = "libratus",
    k: int = 3,
    seconds: float = 3600.0,
    type1: bool = True,
    threads: int | None = None,
    seed: int = 0,
    log: Callable[[str], None] = print,
    progress: Progress | None = None,
) -> dict:
    """One self-improvement run: read the logs, pick the gaps, solve each addition for
    an equal share of ``seconds``, and write a new store at ``out`` holding the base
    and every extension (old and new). The input store is never written to; the new
    one appears atomically, so an interrupted run leaves both valid."""
    if os.path.exists(out) and os.path.samefile(out, base_path):
        raise ValueError(f"--out must be a new file, not the input store {base_path}")
    base = Blueprint(base_path)
    plan = plan_improvement(base, paths, us, k, type1)
    c = plan.collected
    log(
        f"read {c.hands:,} hands from {c.files} log file(s) ({c.skipped_lines} lines skipped): "
        f"{len(c.bets):,} opponent first-round raises"
    )
    for g in plan.type2:
        log(f"gap {g.low:.2f}-{g.high:.2f} pot: score {g.score:.2f} from {g.count} bets; adding {g.midpoint:.3f} pot")
    if plan.type1:
        log(f"most common missing size: {plan.type1[1]:.2f} pot ({plan.type1[2]} bets)")
    jobs = plan.jobs()
    if not jobs:
        log("nothing to add: no opponent first raise fell in a gap")
    contents = base.contents()
    for i, (kind, size, sizes, opponent) in enumerate(jobs):
        contents.extensions.append(
            train_extension(
                base, kind, size, sizes, opponent, seconds / len(jobs), threads, seed + i, log=log, progress=progress
            )
        )
    write_blueprint(out, contents)
    log(f"wrote {out} ({os.path.getsize(out) / 1e6:.0f} MB) with {len(contents.extensions)} extension(s)")
    return {
        "hands": c.hands,
        "bets": len(c.bets),
        "added": [{"kind": k_, "size": s_, "opponent": p} for k_, s_, _, p in jobs],
        "extensions": len(contents.extensions),
        "out": out,
    }
