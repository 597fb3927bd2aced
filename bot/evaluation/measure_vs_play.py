"""The subgame measure (``pokerbot subgames``) against hands played on a dealer between
the same two blueprints: what the measure estimates at each root, per hand (mbb),
against the mean of the same quantity over the played hands, and the share of hands
that reach each root.

A run rooted at the deal estimates A's whole-hand result; one rooted at the flop (the
turn) estimates A's result in the hands that reach the flop's (the turn's) first
decision with chips behind, times their share of all hands: the played counterpart is
the mean over all hands of A's result where the hand reached that root, 0 elsewhere.
Played hands are scored all-in adjusted (exact over the boards left), the two seat
orders of a duplicate match paired by deal; the measure's and play's intervals are
independent, so the difference's interval is the two in quadrature.

    .venv/bin/python -m pokerbot.bot.evaluation.measure_vs_play MATCH_DIR [MATCH_DIR ...] \
        --deal RUN --flop RUN --turn RUN

Several match folders (parts with different deal seeds) are pooled by deal.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence

import numpy as np

from pokerbot.bot.evaluation.match_log import read_match_log
from pokerbot.bot.evaluation.stats import Z95, mean_interval
from pokerbot.protocol.betting import BettingState
from pokerbot.protocol.gamedef import GameDef

#: The round of each root's first decision.
ROOT_ROUNDS = {"flop": 1, "turn": 2}


def reached(state: BettingState, round_: int) -> bool:
    """Whether the hand reached ``round_``'s first decision with a bet still possible
    (the measure's roots: not all in, not folded before)."""
    game = state.game
    replay = BettingState(game, state.hand_id, [list(h) for h in state.hole_cards])
    for r in range(round_):
        for a in state.actions[r]:
            replay.apply(a)
        if replay.finished:
            return False
    if replay.round != round_:
        return False
    return replay.raise_bounds() is not None


def played_per_deal(match_dir: str, game: GameDef, label: str = "A-") -> dict[str, np.ndarray]:
    """Per deal played in both seat orders, A's mean (mbb) over the two: of its whole
    result (``deal``) and of its result where the hand reached each root (``flop``,
    ``turn``); and, per hand, whether it reached each root (``reached_flop``, ...)."""
    from pokerbot.bot.evaluation.match_log import read_logged_hands

    runs = {}
    for run in ("match1", "match2"):
        path = os.path.join(match_dir, f"{run}.log")
        results, _ = read_match_log(path, game)  # all-in adjusted
        logged, _ = read_logged_hands(path, game)  # the states, for the roots
        if len(results) != len(logged):
            raise ValueError(f"{path}: {len(results)} results for {len(logged)} hands")
        runs[run] = {r.hand: (r, h.state) for r, h in zip(results, logged)}
    deals = sorted(runs["match1"].keys() & runs["match2"].keys())
    scale = 1000.0 / game.big_blind
    out: dict[str, list[float]] = {"deal": [], **{r: [] for r in ROOT_ROUNDS}}
    flags: dict[str, list[bool]] = {r: [] for r in ROOT_ROUNDS}
    for d in deals:
        whole = 0.0
        parts = dict.fromkeys(ROOT_ROUNDS, 0.0)
        for run in ("match1", "match2"):
            result, state = runs[run][d]
            chips = result.adjusted[next(i for i, n in enumerate(result.names) if n.startswith(label))]
            whole += chips
            for root, round_ in ROOT_ROUNDS.items():
                hit = reached(state, round_)
                flags[root].append(hit)
                parts[root] += chips if hit else 0.0
        out["deal"].append(scale * whole / 2)
        for root in ROOT_ROUNDS:
            out[root].append(scale * parts[root] / 2)
    played = {k: np.array(v) for k, v in out.items()}
    for root in ROOT_ROUNDS:
        played[f"reached_{root}"] = np.array(flags[root], dtype=float)
    return played


def played_in_parts(match_dirs: Sequence[str], game: GameDef, label: str = "A-") -> dict[str, np.ndarray]:
    """``played_per_deal`` of several duplicate matches (different deal seeds), pooled."""
    parts = [played_per_deal(d, game, label) for d in match_dirs]
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def compare(played: dict[str, np.ndarray], measured: dict[str, dict]) -> dict:
    """Per root: play's mean and interval, the measure's (``summary.json`` of a
    ``pokerbot subgames`` run: its ``blueprint`` variant), their difference with its
    interval and whether it is inside; and each root's share of hands, played and
    sampled."""
    rows = {}
    for root, summary in measured.items():
        xs = played[root]
        mean, half = mean_interval(xs)
        est = summary["variants"]["blueprint"]
        diff = est["mbb_per_hand"] - mean
        diff_half = math.hypot(est["mbb_ci95"], half)
        row = {
            "played": mean,
            "played_ci95": half,
            "deals": len(xs),
            "measured": est["mbb_per_hand"],
            "measured_ci95": est["mbb_ci95"],
            "difference": diff,
            "difference_ci95": diff_half,
            "inside": abs(diff) <= diff_half,
        }
        if root in ROOT_ROUNDS:
            flags = played[f"reached_{root}"]
            share = float(flags.mean())
            share_half = float(Z95 * math.sqrt(share * (1 - share) / len(flags)))
            row.update(played_share=share, played_share_ci95=share_half, sampled_share=summary["share"])
            n = summary["candidates"]
            sampled_half = Z95 * math.sqrt(summary["share"] * (1 - summary["share"]) / max(1, n / summary["share"]))
            row["shares_agree"] = abs(share - summary["share"]) <= math.hypot(share_half, sampled_half)
        rows[root] = row
    return rows


def table(rows: dict) -> str:
    lines = [
        "| root | played, mbb/hand (95 %) | measured | measured - played | inside | share of hands: played; sampled |",
        "|---|---:|---:|---:|---|---|",
    ]
    for root, r in rows.items():
        share = ""
        if "played_share" in r:
            share = f"{r['played_share']:.4f} ± {r['played_share_ci95']:.4f}; {r['sampled_share']:.4f}"
            share += "" if r["shares_agree"] else " (differ)"
        lines.append(
            f"| {root} | {r['played']:+.1f} ± {r['played_ci95']:.1f} ({r['deals']:,} deals) | "
            f"{r['measured']:+.1f} ± {r['measured_ci95']:.1f} | {r['difference']:+.1f} ± {r['difference_ci95']:.1f} | "
            f"{'yes' if r['inside'] else 'NO'} | {share} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    import argparse

    from pokerbot.protocol.gamedef import DEFAULT_GAME, load_gamedef

    p = argparse.ArgumentParser(description="the subgame measure against hands played between the same blueprints")
    p.add_argument(
        "match", nargs="+", help="duplicate matches of the two blueprints (pokerbot match --duplicate: match*.log)"
    )
    for root in ("deal", *ROOT_ROUNDS):
        p.add_argument(f"--{root}", default=None, help=f"a pokerbot subgames run rooted at the {root} (its --out)")
    p.add_argument("--game", default=DEFAULT_GAME)
    args = p.parse_args(argv)
    game = load_gamedef(args.game)
    measured = {}
    for root in ("deal", *ROOT_ROUNDS):
        folder = getattr(args, root)
        if folder is not None:
            with open(os.path.join(folder, "summary.json")) as f:
                measured[root] = json.load(f)
    print(table(compare(played_in_parts(args.match, game), measured)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
