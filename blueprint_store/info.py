"""``pokerbot blueprint info``: what a store holds, in words and numbers."""

from __future__ import annotations

import json

from pokerbot.protocol.cards import RANK_CHARS
from pokerbot.solver.tree import DECISION

from .store import Blueprint


def hand_class_cards(name: str) -> list[int]:
    """A representative hole pair of a hand class like ``AA``, ``AKs``, ``72o``."""
    name = name.strip()
    if len(name) not in (2, 3) or name[0] not in RANK_CHARS or name[1] not in RANK_CHARS:
        raise ValueError(f"{name!r} is not a hand class like AA, AKs or 72o")
    r0, r1 = RANK_CHARS.index(name[0]), RANK_CHARS.index(name[1])
    if r0 == r1:
        if len(name) == 3:
            raise ValueError(f"{name!r}: a pair is neither suited nor offsuit")
        return [r0 * 4, r1 * 4 + 1]
    suited = name[2:] == "s"
    if len(name) == 3 and name[2] not in "so":
        raise ValueError(f"{name!r}: the third character must be s or o")
    if len(name) == 2:
        raise ValueError(f"{name!r}: say s (suited) or o (offsuit)")
    return [r0 * 4, r1 * 4 + (0 if suited else 1)]


def opening_strategy(bp: Blueprint, hand: str) -> list[tuple[str, float]]:
    """The first player's strategy at the root for a hand class."""
    cards = hand_class_cards(hand)
    probs = bp.probabilities(0, bp.bucket(0, cards, []))
    return [(str(a), float(p)) for a, p in zip(bp.child_actions(0), probs)]


def print_info(path: str, verify: bool = False, hands: list[str] | None = None) -> None:
    bp = Blueprint(path)
    if verify:
        bp.verify()
    h = bp.header
    t = bp.tree
    print(
        f"{path}: blueprint store, format {h['format']}, {bp.size_bytes / 1e6:.1f} MB"
        + (" (checksums verified)" if verify else "")
    )
    if verify:  # a full read as well: what subgames runs and ladder chunks identify the store by
        print(f"play digest: {bp.play_digest()} (SHA-256 of the strategy, cards and header, not the training figures)")
    game = bp.game
    print(
        f"game: {'no-limit' if game.is_nolimit else 'limit'}, {game.num_rounds} rounds, stacks {game.stack}, "
        f"blinds {game.blind}"
    )
    print(
        f"card abstraction: buckets per round {tuple(h['buckets'])}, "
        f"{json.dumps({k: v for k, v in h['cards'].items() if k != 'buckets'})}"
    )
    for r, s in enumerate(bp.actions.rounds):
        print(
            f"actions round {r + 1}: pot fractions by raise depth {[list(b) for b in s.bets]} + all-in, "
            f"at most {s.max_raises} raises"
        )
    per_round = [int(((t.kind == DECISION) & (t.round == r)).sum()) for r in range(game.num_rounds)]
    print(f"betting tree: {t.num_nodes:,} nodes, decisions per round {per_round}, {t.num_slots:,} strategy slots")
    tr = h.get("training", {})
    if tr:
        print(
            "training: "
            + ", ".join(
                f"{k} {v:,}" if isinstance(v, int) else (f"{k} {v:,.1f}" if isinstance(v, float) else f"{k} {v}")
                for k, v in tr.items()
                if k != "mccfr"
            )
        )
    for e in bp.extensions:
        tr = e.training_figures
        who = "either position" if e.opponent is None else f"position {e.opponent}"
        print(
            f"extension {e.kind}: first raise {e.size:.3f} pot by the opponent in {who} (its first raises "
            f"{list(e.actions.rounds[0].fractions(0, e.opponent))}), "
            f"{e.tree.num_nodes:,} nodes, {tr.get('iterations', 0):,} iterations in "
            f"{tr.get('train_seconds', 0):.0f} s"
        )
    for name, info in h["arrays"].items():
        print(f"  array {name}: {info['dtype']} {tuple(info['shape'])}")
    if hands:
        actions = [str(a) for a in bp.child_actions(0)]
        print(f"opening strategy of the first player to act ({' / '.join(actions)}), range-thresholded:")
        for hand in hands:
            opening = opening_strategy(bp, hand)
            print(f"  {hand:>4}: " + "  ".join(f"{a} {p:5.1%}" for a, p in opening))
