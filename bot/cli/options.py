"""Options and checks the commands share: each option several commands take is
declared here once (``add_*_option``), so that a command declares only its own."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import Any

from pokerbot.bot.cores import usable_cpus
from pokerbot.protocol.gamedef import DEFAULT_GAME, GameDef, GameDefError, load_gamedef


def number_type(convert, what: str, ok, condition: str):
    """An argparse type: ``convert`` the text (else "is not <what>"), then check ``ok``."""

    def parse(text: str):
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        if not ok(value):
            raise argparse.ArgumentTypeError(f"{condition}, got {value}")
        return value

    return parse


port_number = number_type(int, "a port number", lambda v: 0 < v < 65536, "port must be 1..65535")
non_negative = number_type(int, "an integer", lambda v: v >= 0, "must be 0 or more")
positive = number_type(int, "an integer", lambda v: v > 0, "must be positive")
positive_float = number_type(float, "a number", lambda v: v > 0, "must be positive")


def pair_type(malformed: str, ok: Callable[[int, int], bool], condition: str) -> Callable[[str], tuple[int, int]]:
    """An argparse type for ``K:N``, two integers (else "<malformed>, got ..."), then
    checks ``ok(k, n)`` (else "<condition>, got ...")."""

    def parse(text: str) -> tuple[int, int]:
        try:
            k, n = (int(x) for x in text.split(":"))
        except ValueError:
            raise argparse.ArgumentTypeError(f"{malformed}, got {text!r}") from None
        if not ok(k, n):
            raise argparse.ArgumentTypeError(f"{condition}, got {text!r}")
        return k, n

    return parse


#: ``K:N``: K river cards a pass (0: all), N iterations.
full_turn = pair_type(
    "expected K:N (river cards a pass, iterations)",
    lambda k, n: k >= 0 and n >= 1,
    "river cards must be >= 0 and iterations >= 1",
)


def pot_fractions(text: str) -> list[float]:
    """Comma-separated positive pot fractions, e.g. ``0.5,1``."""
    try:
        values = [float(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected pot fractions like 0.5,1, got {text!r}") from None
    if not values or min(values) <= 0:
        raise argparse.ArgumentTypeError(f"pot fractions must be positive, got {text!r}")
    return sorted(set(values))


def solve_seconds(text: str) -> float | None:
    """``--solve-seconds``: "plan" (None: the time plan caps each solve) or positive seconds."""
    if text == "plan":
        return None
    return positive_float(text)


def solver_threads(text: str) -> int:
    """``--threads``: "auto" (the CPUs this process may use) or a positive count; a
    count above them is clamped to them, with a note on standard error (more threads
    than CPUs only slow a solve down)."""
    usable = usable_cpus()
    if text == "auto":
        return usable
    value = positive(text)
    if value > usable:
        print(f"pokerbot: --threads {value} is more than the {usable} CPUs this process may use; using {usable}",
              file=sys.stderr)  # fmt: skip
        return usable
    return value


def add_blueprint_option(
    p: argparse.ArgumentParser, help: str, *, metavar: str | None = "PATH", required: bool = False
) -> None:
    """``--blueprint PATH``: a blueprint store; None when not given (``blueprint_path``
    then takes $POKERBOT_BLUEPRINT, else the default store)."""
    p.add_argument("--blueprint", default=None, required=required, metavar=metavar, help=help)


def add_game_option(p: argparse.ArgumentParser) -> None:
    """``--game``: a game file or bundled game name, the default game by default
    (``game_of`` loads it)."""
    p.add_argument("--game", default=DEFAULT_GAME, help=f"game file or bundled game name (default {DEFAULT_GAME})")


def game_of(args: argparse.Namespace, command: str) -> GameDef | None:
    """The game ``--game`` names, or None after saying why it does not load."""
    try:
        return load_gamedef(args.game)
    except GameDefError as e:
        print(f"pokerbot {command}: {e}", file=sys.stderr)
        return None


def add_seed_option(p: argparse.ArgumentParser, help: str, default: int | None = 0) -> None:
    """``--seed N``: an integer seed."""
    p.add_argument("--seed", type=int, default=default, help=help)


def add_threads_option(
    p: argparse.ArgumentParser,
    help: str,
    default: int | str | None = 1,
    type: Callable[[str], Any] = positive,
    metavar: str | None = None,
) -> None:
    """``--threads N``: threads (a solve's or a training's), a positive count by default
    (a text default goes through ``type``, as argparse does)."""
    p.add_argument("--threads", type=type, default=default, metavar=metavar, help=help)


def add_workers_option(
    p: argparse.ArgumentParser, help: str, default: int | None, type: Callable[[str], Any] = non_negative
) -> None:
    """``--workers N``: processes working in parallel (solver workers, or a run's)."""
    p.add_argument("--workers", type=type, default=default, help=help)


def add_ray_option(p: argparse.ArgumentParser, help: str) -> None:
    """``--ray ADDRESS``: run on a Ray cluster (None: not); ``ray_missing`` checks the extra."""
    p.add_argument("--ray", default=None, metavar="ADDRESS", help=help)


def ray_missing(command: str, more: str = "") -> bool:
    """Whether Ray, which ``--ray`` needs, fails to import; if so, after saying how to
    install it (``more``: words after the install command)."""
    try:
        import ray  # noqa: F401
    except ImportError:
        print(
            f"pokerbot {command}: --ray needs the cluster extra: pip install 'pokerbot[cluster]'{more}", file=sys.stderr
        )
        return True
    return False


def add_out_dir_option(p: argparse.ArgumentParser, default: str, help: str) -> None:
    """``--out``: the folder a command writes its results to."""
    p.add_argument("--out", default=default, help=help)


def add_out_store_option(p: argparse.ArgumentParser, help: str) -> None:
    """``--out PATH`` (required): the blueprint store a command writes."""
    p.add_argument("--out", required=True, metavar="PATH", help=help)


def add_no_progress_option(p: argparse.ArgumentParser, help: str = "no progress on stderr") -> None:
    """``--no-progress``: no progress bar or lines (``args.no_progress``)."""
    p.add_argument("--no-progress", action="store_true", help=help)


def add_json_option(p: argparse.ArgumentParser, what: str) -> None:
    """``--json``: print ``what`` (e.g. "the summary") as JSON instead of as text."""
    p.add_argument("--json", action="store_true", help=f"print {what} as JSON")


def add_log_level_option(
    p: argparse.ArgumentParser, default: str = "warning", help: str = "JSON log level on stderr (default warning)"
) -> None:
    """``--log-level``: the structured log's level (``protocol.logs.configure``)."""
    p.add_argument("--log-level", default=default, choices=["debug", "info", "warning", "error"], help=help)


def add_no_train_option(p: argparse.ArgumentParser) -> None:
    """``--no-train``: ``train_blueprint.ensure_blueprint`` fails instead of training
    the quick blueprint when there is none."""
    p.add_argument(
        "--no-train", action="store_true", help="fail instead of training the quick blueprint when there is none"
    )


def dealer_limit_options(p: argparse.ArgumentParser, whose: str, reply_note: str = "") -> None:
    """The reference dealer's three time limits, in milliseconds, with its defaults
    (``dealer_limits`` reads them); ``reply_note`` follows the limit per reply's help."""
    p.add_argument(
        "--t_response",
        type=positive,
        default=600_000,
        metavar="MS",
        help=f"{whose} limit per reply{reply_note} (default 600000)",
    )
    p.add_argument(
        "--t_hand", type=positive, default=600_000, metavar="MS", help=f"{whose} limit per hand (default 600000)"
    )
    p.add_argument(
        "--t_per_hand",
        type=positive,
        default=7_000,
        metavar="MS",
        help=f"{whose} average limit per hand over the match (default 7000)",
    )


def dealer_limits(args: argparse.Namespace) -> dict[str, int]:
    """The dealer's time limits that ``dealer_limit_options`` declares, by name, in milliseconds."""
    return {"t_response": args.t_response, "t_hand": args.t_hand, "t_per_hand": args.t_per_hand}


def add_agent_options(p: argparse.ArgumentParser) -> None:
    """How the agent (libratus, unsafe) solves: ``bot/agent/config``'s options, each
    declared there once (``agent_options`` reads them back)."""
    from pokerbot.bot.agent.config import add_options

    add_options(p)


def blueprint_of(args: argparse.Namespace, command: str) -> tuple[str | None, int]:
    """The store ``args.strategy`` plays (None for the bots that need none) and 0, or
    (None, 2) after saying that it is missing."""
    from pokerbot.bot.strategies import blueprint_path

    if args.strategy not in ("blueprint", "prober", "libratus", "unsafe"):
        return None, 0
    blueprint = blueprint_path(args.blueprint)
    if not os.path.exists(blueprint):
        print(f"pokerbot {command}: no blueprint at {blueprint} (--blueprint PATH)", file=sys.stderr)
        return None, 2
    return blueprint, 0


def agent_options(args: argparse.Namespace, **more) -> dict:
    """The agent's options from a command's solving options (``add_agent_options``):
    those that differ from ``AgentConfig``'s defaults, by field, with ``more``. Raises
    ValueError for a value out of its range."""
    from pokerbot.bot.agent.config import config_of

    return {**config_of(args).changed(), **more}
