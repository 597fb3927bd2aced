"""The subgame measure against play (issue 71's unbiasedness check).

On the subgames ``pokerbot subgames`` samples (A's blueprint against B's, the self-play
case by default: one abstraction, so no translation draws), per subgame:

- ``played``: A's chips in the hand as it was played to its end on the deal's real cards
  (the same players and keys as the sample: one draw of the subgame's outcome);
- ``simulated``: the mean of A's chips over ``--plays`` hands played from the subgame's
  root by the same blueprint players, the hole cards of each drawn by both players'
  reach at the root (card removal included), the river card uniform: what play
  averages to at that root, by another path than the walk (cards dealt, ``act``,
  the rules' own payoffs), with its standard error;
- ``exact``: the ``blueprint`` variant's exact value (every pair of hands by their
  reach, every river card unless ``--river-cards``);
- ``wrong``: the same with a wrong reach weight: B's range at the root taken as every
  hand alike (no Bayes update by B's actions): the negative control.

``simulated - exact`` must be 0 within its interval, subgame by subgame and pooled,
and so must ``played - exact`` pooled (a wide interval: one hand a subgame);
``simulated - wrong`` must not be.

    .venv/bin/python experiments/subgames_unbiased.py --blueprint blueprints/default.bp \\
        --subgames 200 --river-cards 4 --out /tmp/unbiased.jsonl
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time

import numpy as np

from pokerbot.bot.evaluation import subgame_value as sv
from pokerbot.bot.evaluation import subgames as sg
from pokerbot.bot.evaluation.stats import mean_interval
from pokerbot.bot.players.strategy_query import HANDS, live_hands
from pokerbot.protocol.gamedef import bundled_game
from pokerbot.protocol.matchstate import MatchState


def measure(config: sg.SubgamesConfig, spot: sg.Spot, stores: tuple, game, plays: int, before: dict | None) -> dict:
    """One subgame's row; ``before``: a row of an earlier run whose walked values are
    kept (only the simulation is made anew)."""
    root = spot.root(game)
    reach = sg.root_reach(root, sg.seat_players(config, spot.deal, spot.seat, stores))
    wrong = reach.copy()
    wrong[1 - spot.seat] = live_hands(root.board_cards)  # B's range: every hand alike
    out = {"index": spot.index, "played": sg.played_outcome(config, spot, stores, game)}
    out["simulated"], out["simulated_se"] = simulate(config, spot, stores, root, reach, plays)
    if before is not None:
        return {**out, "exact": before["exact"], "wrong": before["wrong"]}
    for name, r in (("exact", reach), ("wrong", wrong)):
        players = [sg.decider_for(p) for p in sg.seat_players(config, spot.deal, spot.seat, stores)]
        out[name] = sg.subgame_value(root, r, players, spot.seat, public_cards=sg.public_draw(config, spot)).value
    return out


def simulate(config, spot, stores, root, reach, plays: int) -> tuple[float, float]:
    """Mean and standard error of A's chips over ``plays`` hands from ``root``, hole
    cards drawn by the reach, river uniform, keyed by the subgame."""
    rng = np.random.default_rng(sg.key_of("simulate", config.seed, spot.index))
    hands = HANDS
    me, other = spot.seat, 1 - spot.seat
    cards = sv.card_matrix(hands)
    weight_me = reach[me] * sv.compatible_sums(cards, hands, reach[other])
    players = sg.seat_players(config, spot.deal, spot.seat, stores)
    out = np.empty(plays)
    for m in range(plays):
        h_me = rng.choice(len(hands), p=weight_me / weight_me.sum())
        w_other = np.where(sv.blocked_by(hands, hands[h_me].tolist()), 0.0, reach[other])
        h_other = rng.choice(len(hands), p=w_other / w_other.sum())
        state = root.copy()
        state.hand_id = 10**6 + m  # keyed choices differ from play to play
        state.deal_hole_cards(me, hands[h_me].tolist())
        state.deal_hole_cards(other, hands[h_other].tolist())
        used = set(state.board_cards) | set(hands[h_me].tolist()) | set(hands[h_other].tolist())
        river = int(rng.choice([c for c in range(52) if c not in used]))
        while not state.finished:
            if len(state.board_cards) < root.game.total_board_cards(state.round):
                state.deal_board_cards([river])
            p = state.current_player
            state.apply(players[p].act(MatchState(p, state)))
        if not any(state.folded) and len(state.board_cards) < 5:
            state.deal_board_cards([river])
        out[m] = state.payoffs()[me]
    return float(out.mean()), float(out.std(ddof=1) / math.sqrt(plays))


def paired(rows: list[dict], a: str, b: str) -> tuple[float, float]:
    return mean_interval(np.array([r[a] - r[b] for r in rows]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--blueprint", default="blueprints/default.bp")
    ap.add_argument("--opponent-blueprint", default=None)
    ap.add_argument("--subgames", type=int, default=200)
    ap.add_argument("--river-cards", type=int, default=0, help="0: every river card (default)")
    ap.add_argument("--plays", type=int, default=1000, help="simulated hands a subgame")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="/tmp/unbiased.jsonl", help="one line a subgame (resumable)")
    ap.add_argument("--walked-from", default=None, help="an earlier run's file: its walked values kept, plays anew")
    args = ap.parse_args()
    config = sg.SubgamesConfig(
        blueprint=args.blueprint,
        opponent_blueprint=args.opponent_blueprint,
        variants=("blueprint",),
        river_cards=args.river_cards,
        seed=args.seed,
    )
    config.verify()
    game = bundled_game(sg.GAME)
    stores = (sg.store_of(config.blueprint), sg.store_of(config.b_blueprint))
    spots, hands = sg.sample_spots(config, args.subgames, stores, game)
    done = sg.read_records(args.out)
    walked = sg.read_records(args.walked_from) if args.walked_from else {}
    t0 = time.perf_counter()
    with open(args.out, "a") as f:
        for spot in spots:
            if spot.index in done:
                continue
            row = measure(config, spot, stores, game, args.plays, walked.get(spot.index))
            done[spot.index] = row
            f.write(json.dumps(row) + "\n")
            f.flush()
    rows = [done[s.index] for s in spots]
    print(f"{len(rows)} subgames from {hands} hands, {time.perf_counter() - t0:.0f} s, pid {os.getpid()}")
    for name in ("played", "simulated", "exact", "wrong"):
        m, h = mean_interval(np.array([r[name] for r in rows]))
        print(f"{name:>7}: {m:+9.1f} ± {h:7.1f} chips")
    for a, b in (("played", "exact"), ("simulated", "exact"), ("simulated", "wrong")):
        m, h = paired(rows, a, b)
        verdict = "0 inside" if abs(m) <= h else "0 OUTSIDE"
        print(f"{a} - {b}: {m:+.1f} ± {h:.1f} chips ({verdict} the 95 % interval, pooled)")
    for b in ("exact", "wrong"):
        z = np.array([(r["simulated"] - r[b]) / r["simulated_se"] for r in rows])
        n = len(z)
        critical = n * (1 - 2 / (9 * n) + 1.645 * math.sqrt(2 / (9 * n))) ** 3  # Wilson-Hilferty, 95 %
        print(
            f"simulated - {b}, subgame by subgame: |z| > 1.96 in {int((abs(z) > 1.96).sum())} of {n} "
            f"(expected by chance: {0.05 * n:.1f}), largest |z| {abs(z).max():.1f}; "
            f"sum of z^2 {float((z**2).sum()):.1f} on {n} degrees of freedom (95 % point {critical:.1f})"
        )


if __name__ == "__main__":
    main()
