"""The agent's solving options, declared once: ``AgentConfig`` holds their values (a
frozen, typed object), ``OPTIONS`` declares each one's command-line flag, help, choices
and parsing, and ``AgentConfig.verify`` checks them. The command line
(``bot/cli/options.add_agent_options``), the agent (``LibratusAgent``) and ``pokerbot
subgames --agent`` all read this module; nothing else names a default.

Options marked experimental were screened in the turn measure and found to change
nothing or to lose (docs/evaluation.md); they stay for the record and for further
screening, grouped apart in ``--help``.

The solving round has one name everywhere: ``flop``, ``turn`` or ``river`` (the command
line also takes the older 2, 3, 4); ``AgentConfig.solve_round_index`` is its 0-based
round for the code that indexes rounds.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from typing import Any

from pokerbot.blueprint_store.real_play import PLAY_PURIFIED_ROUNDS, PLAY_THRESHOLD

#: The rounds solving may start on, and their 0-based indices.
SOLVE_ROUNDS = {"flop": 1, "turn": 2, "river": 3}
TURN_SOLVERS = ("auto", "full", "depth-limited")
GADGETS = ("maxmargin", "resolve")
FIRST_SOLVES = ("unsafe", "safe")
RIVER_RANGES = ("solution", "blueprint")
OPPONENT_RANGES = ("pooled", "played", "raw")


@dataclass(frozen=True)
class AgentConfig:
    """How the agent solves (see ``OPTIONS`` for each field's meaning)."""

    solve_seconds: float | None = None
    solve_round: str = "turn"
    turn_solver: str = "auto"
    card_samples: int = 1
    full_turn: tuple[int, int] | None = None
    flop_rivers: int = 2
    flop_warm_start: int = 500
    gadget: str = "resolve"
    opponent_ranges: str = "pooled"
    purify: bool = False
    early_purify: bool = bool(PLAY_PURIFIED_ROUNDS)
    early_threshold: float = PLAY_THRESHOLD
    first_solve: str = "unsafe"
    gifts: bool = True
    river_ranges: str = "solution"
    opponent_model: Any = None  # a store's path (or a store already open)
    turn_bets: tuple[float, ...] | None = None
    river_passes: int | None = None

    @property
    def solve_round_index(self) -> int:
        """The 0-based round solving starts on (1 flop, 2 turn, 3 river)."""
        return SOLVE_ROUNDS[self.solve_round]

    def verify(self) -> None:
        """Raises ValueError naming the first option that is out of its range."""
        for option in OPTIONS:
            value = getattr(self, option.field)
            if option.choices is not None and value not in option.choices:
                raise ValueError(f"{option.what} must be one of {', '.join(option.choices)}, got {value!r}")
            if option.check is not None and value is not None:
                problem = option.check(value)
                if problem:
                    raise ValueError(f"{option.what}: {problem}, got {value!r}")
        if self.full_turn is not None and self.turn_solver != "full":
            raise ValueError(f"a fixed full-depth turn solve needs turn solver 'full', got {self.turn_solver!r}")

    def with_options(self, **changes: Any) -> AgentConfig:
        """This configuration with ``changes`` (field names), checked."""
        unknown = set(changes) - {f.name for f in fields(self)}
        if unknown:
            raise TypeError(f"unknown agent options: {', '.join(sorted(unknown))}")
        config = replace(self, **changes)
        config.verify()
        return config

    def changed(self) -> dict[str, Any]:
        """The options that differ from the defaults, by field (what a log or a run's
        identity needs to say)."""
        default = AgentConfig()
        return {
            f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) != getattr(default, f.name)
        }


@dataclass(frozen=True)
class Option:
    """One field of ``AgentConfig`` on the command line: ``flag`` (its ``dest`` is the
    field), ``help`` (the default is added), ``parse`` (argparse's type; None for a
    switch, which stores ``switch_value``), ``choices``, ``check`` (a value's problem,
    or None), ``what`` (how errors name it), ``experimental``."""

    field: str
    flag: str
    help: str
    what: str
    parse: Callable[[str], Any] | None = None
    choices: tuple | None = None
    check: Callable[[Any], str | None] | None = None
    metavar: str | None = None
    switch_value: Any = True
    experimental: bool = False


def positive(x: float) -> str | None:
    return None if x > 0 else "must be positive"


def non_negative(x: float) -> str | None:
    return None if x >= 0 else "must be 0 or more"


def parse_solve_seconds(text: str) -> float | None:
    if text == "plan":
        return None
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected 'plan' or seconds, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"a solve's cap must be positive seconds, got {value}")
    return value


def parse_solve_round(text: str) -> str:
    """A round name, or the older 1-based number (2 flop, 3 turn, 4 river)."""
    older = {"2": "flop", "3": "turn", "4": "river"}
    name = older.get(text, text)
    if name not in SOLVE_ROUNDS:
        raise argparse.ArgumentTypeError(f"expected flop, turn or river, got {text!r}")
    return name


def parse_count(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None


def parse_full_turn(text: str) -> tuple[int, int]:
    """``K:N``: K river cards a pass (0: all), N iterations."""
    try:
        k, n = (int(x) for x in text.split(":"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected river cards:iterations like 4:1400, got {text!r}") from None
    return k, n


def parse_fractions(text: str) -> tuple[float, ...]:
    try:
        return tuple(sorted({float(x) for x in text.split(",")}))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected pot fractions like 0.5,1, got {text!r}") from None


OPTIONS: tuple[Option, ...] = (
    Option(
        "solve_seconds",
        "--solve-seconds",
        "each solve's cap: 'plan' spends the match's time bank, a share of what the hand may use by round and "
        "pot; or a fixed number of seconds; inside the dealer's limits either way",
        "a solve's cap",
        parse_solve_seconds,
        check=positive,
        metavar="plan|SECONDS",
    ),
    Option(
        "solve_round",
        "--solve-round",
        "the round real-time solving starts on: flop (depth-limited, as Pluribus), turn (as Libratus) or river "
        "(the blueprint plays the turn: the river-only benchmark agent); 2, 3, 4 name them too",
        "the solving round",
        parse_solve_round,
        choices=tuple(SOLVE_ROUNDS),
        metavar="flop|turn|river",
    ),
    Option(
        "turn_solver",
        "--turn-solver",
        "solving from the turn: to the end of the hand, k river cards a pass, k by what the deadline buys (full); "
        "to the end of the turn with the blueprint's four continuation strategies at the river, the river solved "
        "when it comes (depth-limited); or per solve the one the deadline and the speed measured at start-up "
        "favour (auto)",
        "turn solver",
        str,
        choices=TURN_SOLVERS,
    ),
    Option(
        "card_samples",
        "--card-samples",
        "depth-limited solving: river cards (from the flop: runouts of the sample) drawn a pass to value the "
        "leaves (0: all); the solver threads share each pass, so more threads buy more iterations",
        "card samples",
        parse_count,
        check=non_negative,
    ),
    Option(
        "full_turn",
        "--full-turn",
        "with --turn-solver full: every turn solve K river cards a pass (0: all) and N iterations, whatever the "
        "deadline buys (a deadline still stops it)",
        "a fixed full-depth turn solve",
        parse_full_turn,
        check=lambda kn: None if kn[0] >= 0 and kn[1] >= 1 else "river cards >= 0, iterations >= 1",
        metavar="K:N",
    ),
    Option(
        "flop_rivers",
        "--flop-rivers",
        "flop solving: the leaves are valued on every turn card with this many river cards each, drawn for the solve",
        "flop rivers",
        parse_count,
        check=positive,
    ),
    Option(
        "flop_warm_start",
        "--flop-warm-start",
        "flop solving: an unsafe flop solve starts from the blueprint's flop as if it had played this many "
        "iterations (0: from scratch)",
        "a flop solve's warm start",
        parse_count,
        check=non_negative,
    ),
    Option(
        "gadget",
        "--gadget",
        "libratus: the safe re-solves' gadget: resolve (Estimated-Resolve: each opponent hand enters or takes its "
        "estimated value, weighed by our reach) or maxmargin (Estimated-Maxmargin: the smallest margin over the "
        "opponent's hands made largest)",
        "gadget",
        str,
        choices=GADGETS,
    ),
    Option(
        "opponent_ranges",
        "--opponent-ranges",
        "the opponent's range from the blueprint at a round's first solve: pooled (as the blueprint plays, each "
        "opponent raise counting as raising at all, whatever its size), played (as the blueprint plays: range "
        "thresholding) or raw (the store's probabilities as trained)",
        "opponent ranges",
        str,
        choices=OPPONENT_RANGES,
    ),
    Option(
        "purify",
        "--purify",
        "play the solutions with fold-call-bet purification (the likeliest of fold, check/call and bet/raise, the "
        "bet sizes in proportion)",
        "purify",
    ),
    Option(
        "early_purify",
        "--early-purify",
        "play the blueprint's preflop and flop with fold-call-bet purification (the agent's own range at the turn "
        "follows; the blueprint player takes it too)",
        "early purify",
    ),
    Option(
        "early_threshold",
        "--early-threshold",
        "the threshold of the blueprint's preflop and flop, per hand: each hand's actions below T dropped (0 plays "
        "the strategy as trained; the opponent's range is modelled at the store's 0.04 whatever T)",
        "the early rounds' threshold",
        float,
        check=lambda t: None if 0 <= t < 1 else "must be in [0, 1)",
        metavar="T",
    ),
    Option(
        "first_solve",
        "--first-solve",
        "libratus: a round's first solve from the turn on: unsafe (as Libratus: both ranges from the blueprint) or "
        "safe (the gadget against the opponent's values under the blueprint from the round's start)",
        "first solve",
        str,
        choices=FIRST_SOLVES,
        experimental=True,
    ),
    Option(
        "gifts",
        "--no-gifts",
        "libratus: the safe re-solves' alternatives without gifts (what the opponent gave up by its actions)",
        "gifts",
        switch_value=False,
        experimental=True,
    ),
    Option(
        "river_ranges",
        "--river-ranges",
        "when the river is solved anew after a turn solution, the opponent's range by Bayes' rule along the turn "
        "solution (as Libratus) or along the blueprint's play of the line (as the river-only agent)",
        "river ranges",
        str,
        choices=RIVER_RANGES,
        experimental=True,
    ),
    Option(
        "opponent_model",
        "--opponent-model",
        "the opponent's range at a round's first solve from this blueprint store's play of the line, as that "
        "blueprint plays it: for an opponent known to play that blueprint (a diagnostic bound)",
        "opponent model",
        str,
        metavar="PATH",
        experimental=True,
    ),
    Option(
        "turn_bets",
        "--turn-bets",
        "the turn subgame's first bet sizes, pot fractions (the raises stay 1 pot and all-in)",
        "turn bets",
        parse_fractions,
        check=lambda bets: None if bets and min(bets) > 0 else "must be positive pot fractions",
        metavar="F[,F...]",
        experimental=True,
    ),
    Option(
        "river_passes",
        "--river-passes",
        "after a sampled full-depth turn solve, the river is solved anew when each river subtree was walked on "
        "fewer than N passes (0: always play the turn solve's own river)",
        "river passes",
        parse_count,
        check=non_negative,
        metavar="N",
        experimental=True,
    ),
)

#: The defaults that ``--help`` names (a None default says what None means).
DEFAULT_WORDS = {
    "solve_seconds": "plan",
    "full_turn": "what the deadline buys",
    "opponent_model": "ours",
    "turn_bets": "0.75",
    "river_passes": "200",
}


def add_options(parser: argparse.ArgumentParser) -> None:
    """``OPTIONS`` on ``parser``, each with its field as ``dest`` and its default from
    ``AgentConfig``; the experimental ones in a group of their own."""
    default = AgentConfig()
    experimental = parser.add_argument_group(
        "experimental solving options",
        "screened in the turn measure and found to change nothing or to lose (docs/evaluation.md); kept for "
        "further screening",
    )
    for option in OPTIONS:
        target = experimental if option.experimental else parser
        value = getattr(default, option.field)
        shown = DEFAULT_WORDS.get(option.field, "on" if value is True else "off" if value is False else value)
        help = f"{option.help} (default {shown})"
        if option.parse is None:  # a switch
            target.add_argument(
                option.flag,
                dest=option.field,
                action="store_const",
                const=option.switch_value,
                default=value,
                help=help,
            )
            continue
        named = option.parse is str and option.choices is not None  # argparse checks the names
        target.add_argument(
            option.flag,
            dest=option.field,
            type=option.parse,
            default=value,
            choices=option.choices if named else None,
            metavar=None if named else option.metavar,
            help=help,
        )


def config_of(args: argparse.Namespace) -> AgentConfig:
    """The ``AgentConfig`` that ``add_options``' arguments in ``args`` say, checked."""
    config = AgentConfig(**{o.field: getattr(args, o.field) for o in OPTIONS})
    config.verify()
    return config
