"""Strength that decides: what each variant of our agent wins in turn subgames, in
expectation over every pair of private hands (the Libratus supplement's Table S1), and
the same rooted at the flop or at the deal (the whole hand).

Subgames are sampled from hands our blueprint (A's) plays against the opponent (B), A
in both seats of each deal (keyed decks: the same sample whatever else ran): a hand
that reaches the turn (``root`` flop: the flop) with chips behind gives a subgame
rooted at that round's first decision; rooted at the deal, each deal gives two, A in
each seat, and the flops below are drawn (``flops``). Both players' reach there is the
product of what their strategies would do with each hand at each of their decisions on
the line (the strategy API). Each subgame
is then scored exactly for each variant of A against B (``subgame_value``): A's
expected net chips for the hand over every pair of hands, by their reach, card
removal included; every public line B's or A's strategy takes with positive
probability is walked, and the agent variants answer each decision as they play the
line (their turn solve, the safe re-solves after B's bets, the river solves). Solves
are bounded by iteration counts, not the clock, so any machine computes the same table.

Variants (``VARIANTS``): ``blueprint`` (no solving; by flag ``blueprint-purified``, with
fold-call-bet purification on the turn and river); ``depth-limited`` (the turn
solved to its end with the blueprint's river continuations at its leaves, 1,000 /
1,900 iterations, the river solved anew); ``full`` (the turn solved to the end of the
hand, ``full_turn`` river cards a pass and iterations: by default about what the agent's
turn solve runs in play on 2 cores, ``FULL_TURN_2_CORES``); ``river-only`` (the blueprint on the turn, the river
solved); by flag ``on-tree`` (the full variant with only B's blueprint's bet sizes) and
``agent`` (options as ``pokerbot play`` takes them). The result per variant: mean chips
over subgames with a 95 % interval, the paired differences between variants, and the
same in mbb per hand: times the share of hands that reach such a subgame. By default
the scored subgames are drawn from the first 10,000 in proportion to their pot and
weighed back (``estimate``): unbiased, and far fewer are needed for an interval.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import random
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from pokerbot.blueprint_store.store import play_digest
from pokerbot.bot.evaluation.run_identity import claim, open_results
from pokerbot.bot.evaluation.stats import Z95, mean_interval
from pokerbot.bot.evaluation.subgame_parts import SubgameParts, hand_classes
from pokerbot.bot.evaluation.subgame_value import Decider, cards_to_deal, decider_for, subgame_value
from pokerbot.bot.players.strategy_query import HANDS, live_hands, query
from pokerbot.protocol.betting import BettingState, apply_betting
from pokerbot.protocol.cards import cards_to_str
from pokerbot.protocol.gamedef import GameDef, bundled_game
from pokerbot.protocol.matchstate import MatchState

VARIANTS = ("blueprint", "depth-limited", "full", "river-only")
#: Where a subgame is rooted, and the round of its root: the turn's first decision (Table
#: S1), the flop's, or the deal (the whole hand).
ROOTS = {"turn": 2, "flop": 1, "deal": 0}
#: Variants by flag: ``on-tree`` (the full variant with only the opponent's blueprint's bet
#: sizes, no size randomisation: the supplement's middle column), ``agent`` (``--agent``)
#: and ``blueprint-purified`` (the blueprint with fold-call-bet purification on the turn
#: and river: the supplement's "no subgame solving" column).
MORE_VARIANTS = ("on-tree", "agent", "blueprint-purified")
#: Rounds the ``blueprint-purified`` variant plays with fold-call-bet purification: the
#: turn and river, as the Libratus paper's "no subgame solving" column.
PURIFIED_ROUNDS = (2, 3)
#: How subgames are drawn: in proportion to their pot (the default) or as they come.
SAMPLINGS = ("pot", "uniform")
#: The default agent's full-depth turn solve on 2 cores (river cards a pass, iterations):
#: about the median turn solve in play on 2 threads inside the reference limits, where the
#: time plan spends what earlier hands left (docs/evaluation.md, "In play against the
#: equal-strength blueprint"); the first hand's deadline alone buys (4, 1400).
FULL_TURN_2_CORES = (4, 4000)
GAME = "holdem.nolimit.2p"
#: Opponents a walk cannot follow: no finite answer at some decision (the random bot raises by a range).
UNWALKABLE = ("random",)


class SubgamesError(ValueError):
    """A run that cannot be made as asked (a bad option, another run's directory)."""


@dataclass(frozen=True)
class SubgamesConfig:
    """What a run measures. ``blueprint``: A's store; ``opponent``: B's strategy name,
    on ``opponent_blueprint`` (default A's: the self-play case); ``full_turn``: the
    ``full`` variant's river cards a pass and iterations; ``root``: one of ``ROOTS``;
    ``river_cards``: the cards walked at each turn and river card dealt below the root
    (0: all, exact; k: k drawn, keyed and unbiased); ``flops``: rooted at the deal,
    the flops walked per deal (keyed and unbiased; 0: all 19,600, exact);
    ``agent``: the ``agent`` variant's options (``safe`` and LibratusAgent's solving
    options); ``sampling``: ``pot`` picks subgames from the first ``candidates`` with probability
    in proportion to their pot and weighs each by the mean pot over its pot (unbiased,
    and the spread of chips won follows the pot), ``uniform`` takes the first ones."""

    blueprint: str
    opponent: str = "blueprint"
    opponent_blueprint: str | None = None
    variants: tuple[str, ...] = VARIANTS
    full_turn: tuple[int, int] = FULL_TURN_2_CORES
    river_cards: int = 0
    seed: int = 0
    root: str = "turn"
    flops: int = 1
    threads: int = 1
    sampling: str = "pot"
    candidates: int = 10_000
    agent: dict | None = None
    #: more agent variants, each (its name, its options as ``agent``)
    agents: tuple[tuple[str, dict], ...] = ()
    #: blueprint variants, each (its name, ``blueprint_player``'s options: ``purified_rounds``,
    #: ``range_threshold``, ``threshold_rule``): A's store played another way
    blueprints: tuple[tuple[str, dict], ...] = ()

    def verify(self) -> None:
        """Raises SubgamesError for an unknown variant or opponent, or bad counts."""
        from pokerbot.blueprint_store.real_play import THRESHOLD_RULES
        from pokerbot.bot.strategies import STRATEGIES

        names = [name for name, _ in self.agents + self.blueprints]
        taken = [n for n in names if n in VARIANTS + MORE_VARIANTS or names.count(n) > 1]
        if taken:
            raise SubgamesError(f"an agent variant's name is taken: {', '.join(sorted(set(taken)))}")
        missing = [n for n in names if n not in self.variants]
        if missing:
            raise SubgamesError(f"agent variants not among the variants: {', '.join(missing)}")
        known = VARIANTS + MORE_VARIANTS + tuple(names)
        unknown = [v for v in self.variants if v not in known]
        if unknown or not self.variants:
            raise SubgamesError(f"variants must be some of {', '.join(known)}, got {', '.join(self.variants)}")
        for name, played in self.blueprints:
            rounds = list(played.get("purified_rounds", ()))
            threshold = played.get("range_threshold")
            if set(played) - {"purified_rounds", "range_threshold", "threshold_rule"}:
                raise SubgamesError(f"blueprint variant {name}: unknown options {sorted(set(played))}")
            rule = played.get("threshold_rule", "hand")
            if (
                any(not 0 <= r < 4 for r in rounds)
                or (threshold is not None and not 0 <= threshold < 1)
                or rule not in THRESHOLD_RULES
            ):
                raise SubgamesError(
                    f"blueprint variant {name}: rounds 0-3, a threshold in [0, 1), the rule hand or range; got {played}"
                )
        if ("agent" in self.variants) != (self.agent is not None):
            raise SubgamesError("the agent variant is the one --agent configures: give both or neither")
        if len(set(self.variants)) != len(self.variants):
            raise SubgamesError(f"a variant named twice: {', '.join(self.variants)}")
        if self.opponent not in STRATEGIES:
            raise SubgamesError(f"unknown opponent {self.opponent!r}; known: {', '.join(sorted(STRATEGIES))}")
        if self.opponent in UNWALKABLE:
            raise SubgamesError(f"the {self.opponent} bot raises by a range of sizes: no finite subgame to walk")
        if self.full_turn[0] < 0 or self.full_turn[1] < 1:
            raise SubgamesError(f"--full-turn is river cards (0: all) and iterations (>= 1), got {self.full_turn}")
        if self.river_cards < 0:
            raise SubgamesError(f"river cards must be 0 (all) or more, got {self.river_cards}")
        if self.root not in ROOTS:
            raise SubgamesError(f"the root must be one of {', '.join(ROOTS)}, got {self.root!r}")
        if self.flops < 0:
            raise SubgamesError(f"flops must be 0 (all) or more, got {self.flops}")
        if self.root == "deal" and self.sampling != "uniform":
            raise SubgamesError("rooted at the deal every hand reaches the root: sampling is uniform")
        if self.threads < 1:
            raise SubgamesError(f"solver threads must be at least 1, got {self.threads}")
        if self.sampling not in SAMPLINGS:
            raise SubgamesError(f"sampling must be one of {', '.join(SAMPLINGS)}, got {self.sampling!r}")
        if self.candidates < 1:
            raise SubgamesError(f"candidates must be at least 1, got {self.candidates}")

    def blueprint_options(self, variant: str) -> dict | None:
        """The options of blueprint variant ``variant``, else None."""
        return dict(self.blueprints).get(variant)

    def agent_options(self, variant: str) -> dict | None:
        """The options of agent variant ``variant`` (``agent`` or a named one), else None."""
        if variant == "agent":
            return self.agent
        return dict(self.agents).get(variant)

    @property
    def b_blueprint(self) -> str:
        return self.opponent_blueprint or self.blueprint


@dataclass(frozen=True)
class Spot:
    """A sampled subgame: the ``index``-th of the sample, from deal ``deal`` with A in
    ``seat``: its root the ``board`` after ``betting`` (the turn's or the flop's first
    decision; the deal's first, with no board and no betting)."""

    index: int
    deal: int
    seat: int
    board: tuple[int, ...]
    betting: str

    def root(self, game: GameDef) -> BettingState:
        """The subgame's root: the public state, no hole cards."""
        return apply_betting(BettingState(game, self.hand_id, None, list(self.board)), self.betting)

    @property
    def hand_id(self) -> int:
        return 2 * self.deal + self.seat


def keyed_deck(seed: int, deal: int) -> list[int]:
    """Deal ``deal``'s deck in a run with ``seed``: the same whatever else ran."""
    deck = list(range(52))
    random.Random(f"subgames:{seed}:{deal}").shuffle(deck)
    return deck


def key_of(*parts: object) -> int:
    """A seed keyed by ``parts`` (31 bits)."""
    return zlib.crc32(repr(parts).encode()) & 0x7FFFFFFF


def blueprint_player(
    seed: int,
    store,
    purified_rounds: Sequence[int] | None = None,
    range_threshold: float | None = None,
    threshold_rule: str = "hand",
):
    """The blueprint player on ``store`` (keyed by ``seed``): purified on
    ``purified_rounds``, thresholded on the first rounds at ``range_threshold`` by
    ``threshold_rule`` (per ``hand`` or over the ``range``); by default (None) as the
    agent plays its first rounds (``PLAY_PURIFIED_ROUNDS``, ``PLAY_THRESHOLD``)."""
    from pokerbot.blueprint_store.real_play import PLAY_PURIFIED_ROUNDS, PLAY_THRESHOLD
    from pokerbot.bot.players.blueprint_player import BlueprintStrategy

    rounds = PLAY_PURIFIED_ROUNDS if purified_rounds is None else purified_rounds
    threshold = PLAY_THRESHOLD if range_threshold is None else range_threshold
    return BlueprintStrategy(seed, store, rounds, threshold, threshold_rule)


def iteration_bound(options: dict) -> dict:
    """Agent options that let every solve run its full iteration count."""
    from pokerbot.bot.agent.time_budget import TimeBudget

    return {**options, "solve_seconds": 1e6, "budget": TimeBudget(1e9, 1e9, 1e9)}


def opponent_strategy(config: SubgamesConfig, seed: int, store):
    """B, fresh (keyed by ``seed``); agents iteration-bound."""
    from pokerbot.bot.strategies import make_strategy

    options: dict = {}
    if config.opponent in ("libratus", "unsafe"):
        options = iteration_bound({"turn_solver": "depth-limited", "threads": config.threads})
    if config.opponent in ("blueprint", "libratus", "unsafe", "prober"):
        return make_strategy(config.opponent, seed, blueprint=store, **options)
    return make_strategy(config.opponent, seed)


def variant_strategy(config: SubgamesConfig, variant: str, seed: int, stores: tuple):
    """A as ``variant`` (fresh, keyed by ``seed``) on A's store; ``on-tree`` takes its
    bet sizes from B's (``stores``: A's and B's)."""
    from pokerbot.bot.agent.config import AgentConfig
    from pokerbot.bot.agent.libratus import LibratusAgent

    if variant == "blueprint":
        return blueprint_player(seed, stores[0])
    if variant == "blueprint-purified":  # the first rounds as the agent plays them
        from pokerbot.blueprint_store.real_play import PLAY_PURIFIED_ROUNDS

        return blueprint_player(seed, stores[0], sorted(set(PLAY_PURIFIED_ROUNDS) | set(PURIFIED_ROUNDS)))
    played = config.blueprint_options(variant)
    if played is not None:
        return blueprint_player(
            seed,
            stores[0],
            played.get("purified_rounds", ()),
            played.get("range_threshold"),
            played.get("threshold_rule", "hand"),
        )
    options: dict = {"threads": config.threads}
    if variant == "depth-limited":
        options["turn_solver"] = "depth-limited"
    elif variant == "full":
        options.update(turn_solver="full", full_turn=tuple(config.full_turn))
    elif variant == "river-only":
        options["solve_round"] = "river"
    elif variant == "on-tree":
        theirs = stores[1].actions.rounds
        sizes = {r: theirs[r] for r in (1, 2, 3)}
        options.update(turn_solver="full", full_turn=tuple(config.full_turn))
        options.update(sizes=sizes, river_sizes=theirs[3], scale_range=0.0)
    elif config.agent_options(variant) is not None:
        options.update(config.agent_options(variant) or {})
        if isinstance(options.get("opponent_model"), str):
            options["opponent_model"] = store_of(options["opponent_model"])
        if options.get("turn_solver", AgentConfig().turn_solver) in ("auto", "full"):
            # auto picks by the machine's measured speed: iteration-bound, the full solve of 2 cores stands for it
            options.update(turn_solver="full", full_turn=tuple(options.get("full_turn") or config.full_turn))
    else:
        raise SubgamesError(f"unknown variant {variant!r}")
    return LibratusAgent(seed, stores[0], **iteration_bound(options))


def seat_players(config: SubgamesConfig, deal: int, seat: int, stores: tuple) -> list:
    """A's blueprint player and B by seat, A in ``seat``, keyed by the deal: the
    players the sample is dealt with (fresh each call)."""
    by_seat: list = [None, None]
    by_seat[seat] = blueprint_player(key_of("A", config.seed, deal, seat), stores[0])
    by_seat[1 - seat] = opponent_strategy(config, key_of("B", config.seed, deal, seat), stores[1])
    return by_seat


def play_on(state: BettingState, deck: list[int], players: Sequence, until_round: int | None = None) -> BettingState:
    """``state`` played on by ``players`` (by seat), board cards from ``deck`` after the
    hole cards, until the hand ends or reaches ``until_round`` (its cards not dealt)."""
    game = state.game
    while not state.finished and (until_round is None or state.round < until_round):
        need = game.total_board_cards(state.round)
        if len(state.board_cards) < need:
            state.deal_board_cards(deck[4 + len(state.board_cards) : 4 + need])
        p = state.current_player
        assert p is not None  # an open hand has a player to act
        state.apply(players[p].act(MatchState(p, state)))
    return state


def sample_spots(
    config: SubgamesConfig, count: int, stores: tuple, game: GameDef, progress: Callable[[int], None] | None = None
) -> tuple[list[Spot], int]:
    """The first ``count`` subgames of the run's keyed deals rooted at ``config.root``,
    and the hands played to find them (two a deal, A in each seat): a hand that
    reaches the root's round with a bet still possible gives one; rooted at the deal,
    every hand does (no play needed)."""
    spots: list[Spot] = []
    if config.root == "deal":
        spots = [Spot(i, i // 2, i % 2, (), "") for i in range(count)]
        if progress is not None:
            progress(count)
        return spots, count
    until = ROOTS[config.root]
    deal = 0
    while len(spots) < count:
        deck = keyed_deck(config.seed, deal)
        for seat in (0, 1):
            state = BettingState(game, 2 * deal + seat, [deck[0:2], deck[2:4]])
            play_on(state, deck, seat_players(config, deal, seat, stores), until_round=until)
            if not state.finished and state.raise_bounds() is not None:
                board = tuple(deck[4 : 4 + game.total_board_cards(until)])
                spots.append(Spot(len(spots), deal, seat, board, state.betting_string()))
                if progress is not None:
                    progress(len(spots))
                if len(spots) == count:
                    return spots, 2 * deal + seat + 1
        deal += 1
    return spots, 2 * deal


@dataclass(frozen=True)
class Sample:
    """A run's subgames: ``spots`` in the order drawn (``index`` = the draw), found among
    ``candidates`` subgames that ``hands`` hands reached; the candidates' mean pot and
    its variance (pot sampling weighs by them; uniform sampling takes the first
    ``candidates`` = len(spots) and does not)."""

    spots: list[Spot]
    hands: int
    candidates: int
    pot_mean: float
    pot_var: float

    @property
    def share(self) -> float:
        """Hands that reach such a subgame."""
        return self.candidates / self.hands


def pick_by_pot(candidates: list[Spot], pots: np.ndarray, count: int, seed: int) -> list[Spot]:
    """``count`` draws (with replacement) from ``candidates``, each with probability in
    proportion to its pot, keyed by the draw: the first draws do not depend on ``count``."""
    cumulative = np.cumsum(pots, dtype=float)
    picks = []
    for i in range(count):
        u = random.Random(f"subgames-pick:{seed}:{i}").random() * cumulative[-1]
        c = candidates[int(np.searchsorted(cumulative, u, side="right"))]
        picks.append(Spot(i, c.deal, c.seat, c.board, c.betting))
    return picks


def pots_of(spots: list[Spot], game: GameDef) -> tuple[np.ndarray, float, float]:
    """The subgames' pots, their mean and variance (0 for one subgame)."""
    pots = np.array([s.root(game).pot for s in spots], dtype=float)
    return pots, float(pots.mean()), float(pots.var(ddof=1)) if len(pots) > 1 else 0.0


def sample_run(config: SubgamesConfig, count: int, stores: tuple, game: GameDef) -> Sample:
    """The run's first ``count`` subgames as ``config.sampling`` draws them."""
    if config.sampling == "uniform":
        spots, hands = sample_spots(config, count, stores, game)
        return Sample(spots, hands, len(spots), *pots_of(spots, game)[1:])
    candidates, hands = sample_spots(config, config.candidates, stores, game)
    pots, mean, var = pots_of(candidates, game)
    return Sample(pick_by_pot(candidates, pots, count, config.seed), hands, len(candidates), mean, var)


def estimate(values: np.ndarray, pots: np.ndarray, sample: Sample, sampling: str) -> tuple[float, float]:
    """The mean chips a subgame (over the subgames of the population sampled) and the
    half-width of its 95 % interval: for pot sampling the candidates' mean pot times
    the mean of value / pot over the draws (the delta method's interval, the mean
    pot's own error included); for uniform sampling the plain mean."""
    if sampling == "uniform":
        return mean_interval(values)
    ratios = values / pots
    r = float(ratios.mean())
    var_r = float(ratios.var(ddof=1)) / len(ratios) if len(ratios) > 1 else float("nan")
    var = sample.pot_mean**2 * var_r + r**2 * sample.pot_var / sample.candidates
    return sample.pot_mean * r, Z95 * math.sqrt(var)


def played_outcome(config: SubgamesConfig, spot: Spot, stores: tuple, game: GameDef) -> float:
    """A's chips in the hand of ``spot`` played to its end by A's blueprint and B, the
    same players (same keys) as in the sample, on the deal's real cards: one draw of
    what the subgame's exact value of the ``blueprint`` variant is the expectation of."""
    deck = keyed_deck(config.seed, spot.deal)
    players = seat_players(config, spot.deal, spot.seat, stores)
    until = ROOTS[config.root]
    state = play_on(BettingState(game, spot.hand_id, [deck[0:2], deck[2:4]]), deck, players, until_round=until)
    if state.betting_string() != spot.betting:
        raise SubgamesError(f"subgame {spot.index}: the hand left its sampled line")
    play_on(state, deck, players)
    last = game.total_board_cards(game.num_rounds - 1)
    if not any(state.folded) and len(state.board_cards) < last:
        state.deal_board_cards(deck[4 + len(state.board_cards) : 4 + last])
    return float(state.payoffs()[spot.seat])


def root_reach(root: BettingState, strategies: Sequence[object]) -> np.ndarray:
    """(2, 1326): each player's probability, per hand, of the actions it took on the
    line to ``root`` (``strategies`` by seat, asked through the strategy API), zero for
    hands the board blocks."""
    reach = np.ones((2, len(HANDS)))
    state = BettingState(root.game, root.hand_id)
    for r in range(root.round + 1):
        need = root.game.total_board_cards(r)
        if len(state.board_cards) < need:
            state.deal_board_cards(root.board_cards[len(state.board_cards) : need])
        for action, actor in zip(root.actions[r], root.actors[r]):
            reach[actor] *= query(strategies[actor], state, actor).probability_of(action)
            state.apply(action)
    return reach * live_hands(root.board_cards)[None, :]


def public_draw(config: SubgamesConfig, spot: Spot) -> Callable[[BettingState], list[tuple[int, ...]]] | None:
    """The spot's keyed public cards below its root (the same for every variant; rooted
    at the deal, the same for both seats of a deal): at the flop, ``config.flops``
    flops; at the turn and the river, ``config.river_cards`` cards; None where every
    card is walked (both 0)."""
    if config.river_cards == 0 and (config.root != "deal" or config.flops == 0):
        return None

    def draw(state: BettingState) -> list[tuple[int, ...]]:
        left = [c for c in state.game.deck() if c not in state.board_cards]
        k = cards_to_deal(state)
        # rooted at the deal, both seats of a deal walk the same cards (a duplicate pair)
        draw_key = f"deal{spot.deal}" if config.root == "deal" else spot.index
        rng = random.Random(f"subgames-river:{config.seed}:{draw_key}:{cards_to_str(state.board_cards)}")
        if k == 1:
            if config.river_cards == 0 or config.river_cards >= len(left):
                return [(c,) for c in left]
            return [(c,) for c in rng.sample(left, config.river_cards)]
        sets = list(itertools.combinations(left, k))
        wanted = config.flops if k == 3 else 0  # the flop: flops; another round dealt at once: all
        if wanted == 0 or wanted >= len(sets):
            return sets
        return rng.sample(sets, wanted)

    return draw


def sources_digest() -> str:
    """The SHA-256 (16 hex digits) of the package's Python sources: what plays and
    scores (documentation and tests left out)."""
    import hashlib

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    h = hashlib.sha256()
    for layer in ("protocol", "solver", "blueprint_store", "bot"):
        for folder, _, files in sorted(os.walk(os.path.join(root, layer))):
            for name in sorted(files):
                if name.endswith(".py"):
                    path = os.path.join(folder, name)
                    h.update(os.path.relpath(path, root).encode())
                    with open(path, "rb") as f:
                        h.update(f.read())
    return h.hexdigest()[:16]


_STORES: dict[str, object] = {}


def store_of(path: str):
    """A blueprint store loaded once a process."""
    from pokerbot.blueprint_store.store import Blueprint

    if path not in _STORES:
        _STORES[path] = Blueprint(path)
    return _STORES[path]


def score_spot(job: tuple[dict, dict]) -> dict:
    """One subgame scored for every variant (a worker's job: plain dicts in and out)."""
    config = SubgamesConfig(
        **{
            **job[0],
            "variants": tuple(job[0]["variants"]),
            "full_turn": tuple(job[0]["full_turn"]),
            "agents": tuple((name, options) for name, options in job[0].get("agents", ())),
            "blueprints": tuple((name, options) for name, options in job[0].get("blueprints", ())),
        }
    )
    spot = Spot(**{**job[1], "board": tuple(job[1]["board"])})
    game = bundled_game(GAME)
    a_store, b_store = store_of(config.blueprint), store_of(config.b_blueprint)
    root = spot.root(game)
    a_seed, b_seed = key_of("A", config.seed, spot.deal, spot.seat), key_of("B", config.seed, spot.deal, spot.seat)
    reach = root_reach(root, seat_players(config, spot.deal, spot.seat, (a_store, b_store)))
    values: dict[str, float] = {}
    seconds: dict[str, float] = {}
    nodes: dict[str, int] = {}
    parts: dict[str, dict] = {}
    turn = config.root == "turn"  # the parts split a turn subgame (its turn line, hand classes on its board)
    classes = hand_classes(list(root.board_cards)) if turn else None
    for variant in config.variants:
        t0 = time.perf_counter()
        a = decider_for(variant_strategy(config, variant, a_seed, (a_store, b_store)))
        b = decider_for(opponent_strategy(config, b_seed, b_store))
        players: list[Decider] = [a, b] if spot.seat == 0 else [b, a]
        tally = SubgameParts(spot.seat, classes) if classes is not None else None
        got = subgame_value(root, reach, players, spot.seat, public_cards=public_draw(config, spot), tally=tally)
        values[variant] = got.value
        seconds[variant] = round(time.perf_counter() - t0, 3)
        nodes[variant] = got.decisions + got.terminals
        if tally is not None:
            parts[variant] = tally.result(got.joint_weight)
    return {
        **asdict(spot),
        "board": cards_to_str(list(spot.board)),
        "pot": root.pot,
        "values": values,
        "seconds": seconds,
        "nodes": nodes,
        "parts": parts,
    }


def deal_means(records: list[dict], variants: Sequence[str]) -> list[dict]:
    """Rooted at the deal: one record a deal, each variant's value and the seconds the
    mean of its seats' (both seats walk the same cards, so their values are not
    independent draws); a deal missing a seat is left out."""
    by_deal: dict[int, list[dict]] = {}
    for r in records:
        by_deal.setdefault(r["deal"], []).append(r)
    out = []
    for deal, rows in sorted(by_deal.items()):
        if len(rows) == 2:
            out.append(
                {
                    "deal": deal,
                    "pot": rows[0]["pot"],
                    "values": {v: (rows[0]["values"][v] + rows[1]["values"][v]) / 2 for v in variants},
                    "seconds": {v: rows[0]["seconds"][v] + rows[1]["seconds"][v] for v in variants},
                }
            )
    return out


def summarize(records: list[dict], config: SubgamesConfig, sample: Sample, big_blind: int) -> dict:
    """Per variant and per pair of variants (paired by subgame): the mean chips a
    subgame with its interval (``estimate``), and the same in mbb per hand (times the
    share of hands that reach such a subgame). Rooted at the deal, the unit is the deal
    (its two seats' mean: ``deal_means``)."""
    variants = config.variants
    to_mbb = 1000.0 * sample.share / big_blind
    walked = len(records)
    if config.root == "deal":  # the two seats of a deal share their cards: the deal is the unit
        records = deal_means(records, variants)
    per = {v: np.array([r["values"][v] for r in records]) for v in variants}
    pots = np.array([r["pot"] for r in records], dtype=float)

    def both(xs: np.ndarray) -> dict:
        mean, half = estimate(xs, pots, sample, config.sampling)
        return {"mean": mean, "ci95": half, "mbb_per_hand": mean * to_mbb, "mbb_ci95": half * to_mbb}

    return {
        "subgames": walked,
        **({"deals": len(records)} if config.root == "deal" else {}),
        "root": config.root,
        "sampling": config.sampling,
        "candidates": sample.candidates,
        "candidates_pot_mean": sample.pot_mean,
        "share": sample.share,
        "variants": {v: both(per[v]) for v in variants},
        "differences": {
            f"{a} - {b}": both(per[a] - per[b]) for i, a in enumerate(variants) for b in variants[:i] if a != b
        },
        "seconds": {v: float(sum(r["seconds"][v] for r in records)) for v in variants},
    }


def read_records(path: str) -> dict[int, dict]:
    """Subgames already in a ``subgames.jsonl`` by index; lines cut by an interruption
    are skipped (those subgames are scored again)."""
    done: dict[int, dict] = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                try:
                    row = json.loads(line)
                    done[int(row["index"])] = row
                except (ValueError, KeyError, TypeError):
                    continue
    return done


@dataclass
class SubgamesRun:
    """A run in ``out_dir``: ``run.json`` (what is measured: another configuration
    refuses the directory), ``spots.json`` (the sample), ``subgames.jsonl`` (one line
    a subgame as it is scored: an interrupted run resumes without scoring it again) and
    ``summary.json``. Subgames are scored ``workers`` at a time in processes, or on a Ray
    cluster (``ray_address``: its address, ``auto`` or ``local``), every store at the
    same path on each node."""

    config: SubgamesConfig
    count: int
    out_dir: str
    workers: int = 1
    progress: bool = True
    ray_address: str | None = None
    records: dict[int, dict] = field(default_factory=dict)

    def identity(self) -> dict:
        """What the scores depend on: the configuration, both stores and the code that
        plays (not the number of subgames: a run may be extended, its sample's first
        subgames staying the same)."""
        return {
            "config": asdict(self.config),
            "blueprint_digest": play_digest(self.config.blueprint),
            "opponent_blueprint_digest": play_digest(self.config.b_blueprint),
            "code": sources_digest(),
        }

    def run(self) -> dict:
        """Sample (or read the sample), score what is missing, summarise."""
        from pokerbot.bot.progress import ProgressBar

        self.config.verify()
        if self.count <= 0:
            raise SubgamesError(f"--subgames must be positive, got {self.count}")
        if self.config.root == "deal" and self.count % 2:
            raise SubgamesError(
                f"rooted at the deal, each deal is two subgames (a seat each): give an even count, got {self.count}"
            )
        for path in {self.config.blueprint, self.config.b_blueprint}:
            if not os.path.exists(path):
                raise SubgamesError(f"no blueprint store at {path}")
        game = bundled_game(GAME)
        stores = (store_of(self.config.blueprint), store_of(self.config.b_blueprint))
        for store in stores:
            try:
                store.check_game(game)
            except ValueError as e:
                raise SubgamesError(str(e)) from None
        os.makedirs(self.out_dir, exist_ok=True)
        identity = self.identity()  # as the run starts: what its scores come from
        before = claim(self.out_dir, identity)
        if before is not None:
            raise SubgamesError(f"{self.out_dir} holds another run ({before}); give another --out")
        sample = self.sample(stores, game)
        path = os.path.join(self.out_dir, "subgames.jsonl")
        self.records = {i: r for i, r in read_records(path).items() if i < len(sample.spots)}
        bar = None
        if self.progress:
            bar = ProgressBar(len(sample.spots), "subgames", label="subgames", done=len(self.records))
        # a subgame drawn twice is scored once
        waiting: dict[tuple[int, int], list[Spot]] = {}
        for s in sample.spots:
            if s.index not in self.records:
                waiting.setdefault((s.deal, s.seat), []).append(s)
        known = {(r["deal"], r["seat"]): r for r in self.records.values()}
        jobs = [(asdict(self.config), asdict(group[0])) for key, group in waiting.items() if key not in known]
        with open_results(path) as f:

            def keep(row: dict) -> None:
                for s in waiting[(row["deal"], row["seat"])]:
                    self.records[s.index] = {**row, "index": s.index}
                    f.write(json.dumps(self.records[s.index]) + "\n")
                f.flush()
                if bar is not None:
                    bar.update(len(self.records), self.status(sample, game.big_blind))

            for key in waiting:
                if key in known:
                    keep(known[key])
            for row in self.scored(jobs):
                keep(row)
        if bar is not None:
            bar.finish()
        records = [self.records[s.index] for s in sample.spots]
        summary = {
            **identity,
            "hands_sampled": sample.hands,
            **summarize(records, self.config, sample, game.big_blind),
        }
        with open(os.path.join(self.out_dir, "summary.json"), "w") as f:
            json.dump(summary, f, indent=2)
        return summary

    def sample(self, stores: tuple, game: GameDef) -> Sample:
        """The run's first ``count`` subgames (kept in ``spots.json``; drawn anew when
        the run is extended past them: the first draws stay the same)."""
        path = os.path.join(self.out_dir, "spots.json")
        if os.path.exists(path):
            with open(path) as f:
                saved = json.load(f)
            spots = [Spot(**{**s, "board": tuple(s["board"])}) for s in saved["spots"]]
            if len(spots) >= self.count and self.config.sampling == "pot":
                kept = {k: saved[k] for k in ("hands", "candidates", "pot_mean", "pot_var")}
                return Sample(spots[: self.count], **kept)
            if len(spots) >= self.count:
                spots, last = spots[: self.count], spots[self.count - 1]
                return Sample(spots, 2 * last.deal + last.seat + 1, self.count, *pots_of(spots, game)[1:])
        sample = sample_run(self.config, self.count, stores, game)
        with open(path + ".tmp", "w") as f:
            json.dump({**asdict(sample), "spots": [asdict(s) for s in sample.spots]}, f)
        os.replace(path + ".tmp", path)
        return sample

    def scored(self, jobs: list):
        """The scored subgames as they finish: here, ``workers`` processes at a time, or
        as Ray tasks (one CPU each) on the cluster at ``ray_address``."""
        if self.ray_address is not None:
            import logging

            import ray

            if not ray.is_initialized():
                ray.init(address=self.ray_address, logging_level=logging.WARNING, log_to_driver=False)
            remote = ray.remote(num_cpus=1, max_retries=1)(score_spot)
            pending = [remote.remote(job) for job in jobs]
            while pending:
                ready, pending = ray.wait(pending, num_returns=1)
                yield ray.get(ready[0])
            return
        if self.workers <= 1:
            for job in jobs:
                yield score_spot(job)
            return
        from concurrent.futures import ProcessPoolExecutor, as_completed

        with ProcessPoolExecutor(self.workers) as pool:
            futures = [pool.submit(score_spot, job) for job in jobs]
            for future in as_completed(futures):
                yield future.result()

    def status(self, sample: Sample, big_blind: int) -> str:
        v = self.config.variants
        if len(v) < 2 or len(self.records) < 2:
            return ""
        s = summarize(list(self.records.values()), self.config, sample, big_blind)
        d = s["differences"][f"{v[1]} - {v[0]}"]
        return f"{v[1]} - {v[0]} {d['mbb_per_hand']:+,.0f} ± {d['mbb_ci95']:,.0f} mbb/hand"


def table(summary: dict, records: list[dict]) -> str:
    """A table like Table S1: per subgame the board, pot and each variant's chips; then
    each variant's mean and the paired differences, in chips a subgame and mbb a hand."""
    variants = summary["config"]["variants"]
    lines = ["| subgame | A's seat | board | betting | pot | " + " | ".join(variants) + " |"]
    lines.append("|---:|---:|---|---|---:|" + "---:|" * len(variants))
    for r in records:
        cells = " | ".join(f"{r['values'][v]:+,.1f}" for v in variants)
        lines.append(f"| {r['index']} | {r['seat']} | {r['board']} | {r['betting']} | {r['pot']} | {cells} |")
    lines.append("")
    lines.append("| | chips a subgame (95 %) | mbb a hand (95 %) | seconds |")
    lines.append("|---|---:|---:|---:|")
    for v, s in summary["variants"].items():
        lines.append(
            f"| {v} | {s['mean']:+,.1f} ± {s['ci95']:,.1f} | {s['mbb_per_hand']:+,.1f} ± {s['mbb_ci95']:,.1f} | "
            f"{summary['seconds'][v]:,.0f} |"
        )
    for k, s in summary["differences"].items():
        lines.append(
            f"| {k} | {s['mean']:+,.1f} ± {s['ci95']:,.1f} | {s['mbb_per_hand']:+,.1f} ± {s['mbb_ci95']:,.1f} | |"
        )
    lines.append("")
    if summary["sampling"] == "pot":
        lines.append(
            f"{summary['subgames']} subgames drawn in proportion to their pot from the first {summary['candidates']:,} "
            f"({summary['hands_sampled']:,} hands, share {summary['share']:.3f}, mean pot "
            f"{summary['candidates_pot_mean']:,.1f}); means: the mean pot times the mean of chips / pot"
        )
    elif summary.get("root") == "deal":
        lines.append(
            f"{summary['deals']} deals, each walked with A in both seats on the same drawn cards "
            f"({summary['subgames']} walks); intervals over deals"
        )
    else:
        lines.append(
            f"{summary['subgames']} subgames from {summary['hands_sampled']} hands (share {summary['share']:.3f})"
        )
    return "\n".join(lines)
