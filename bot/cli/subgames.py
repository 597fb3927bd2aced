"""``pokerbot subgames``."""

from __future__ import annotations

import argparse
import os
import sys

import pokerbot.bot.cli.options as opt


class SpecError(argparse.ArgumentTypeError):
    """A malformed ``--agent`` specification."""


class SpecParser(argparse.ArgumentParser):
    """Parses the options inside ``--agent '...'``: an error is raised, not an exit."""

    def error(self, message: str):
        raise SpecError(f"{self.prog}: {message}")


def agent_spec(text: str) -> dict:
    """``--agent 'libratus|unsafe [solving options]'``: the agent variant's options
    (``safe`` and LibratusAgent's), with the solving options of ``pokerbot play``.
    Solves here are bound by iterations, so ``--solve-seconds`` is refused."""
    import shlex

    words = shlex.split(text)
    if not words or words[0] not in ("libratus", "unsafe"):
        raise SpecError(f"expected 'libratus' or 'unsafe' and its solving options, got {text!r}")
    parser = SpecParser(prog=words[0], add_help=False)
    opt.add_agent_options(parser)
    args = parser.parse_args(words[1:])
    if args.solve_seconds is not None:
        raise SpecError("--solve-seconds does not apply: subgames are solved to iteration counts")
    try:
        options = opt.agent_options(args, safe=words[0] == "libratus")
    except ValueError as e:
        raise SpecError(f"{words[0]}: {e}") from None
    options.pop("solve_seconds", None)
    return options


#: Round names of ``--blueprint-as``'s ``--purify``.
ROUND_NAMES = ("preflop", "flop", "turn", "river")


def blueprint_spec(text: str) -> dict:
    """``--blueprint-as NAME '[--purify ROUNDS] [--threshold T | --range-threshold T]'``:
    a blueprint variant's options (``blueprint_player``'s): fold-call-bet purification on
    the named rounds (comma-separated: preflop, flop, turn, river), the preflop's and
    flop's thresholding at T (0: as trained; default ``PLAY_THRESHOLD``, as the agent
    plays them): per hand
    (``--threshold``, each hand's actions under T dropped, as the agent plays) or over
    the range (``--range-threshold``, Libratus's: an action dropped only where every hand
    plays it under T)."""
    import shlex

    parser = SpecParser(prog="blueprint", add_help=False)
    parser.add_argument("--purify", default="")
    parser.add_argument("--threshold", type=float, default=None)
    parser.add_argument("--range-threshold", type=float, default=None)
    args = parser.parse_args(shlex.split(text))
    if args.threshold is not None and args.range_threshold is not None:
        raise SpecError("--threshold (per hand) and --range-threshold (over the range) exclude each other")
    rule = "range" if args.range_threshold is not None else "hand"
    threshold = args.range_threshold if rule == "range" else args.threshold
    names = [r.strip() for r in args.purify.split(",") if r.strip()]
    wrong = [r for r in names if r not in ROUND_NAMES]
    if wrong:
        raise SpecError(f"--purify takes rounds among {', '.join(ROUND_NAMES)}, got {', '.join(wrong)}")
    if threshold is not None and not 0 <= threshold < 1:
        raise SpecError(f"--threshold must be in [0, 1), got {threshold}")
    options: dict = {"purified_rounds": sorted(ROUND_NAMES.index(r) for r in set(names))}
    if threshold is not None:
        options["range_threshold"] = threshold
    if rule == "range":
        options["threshold_rule"] = rule
    return options


def add(sub) -> None:
    from pokerbot.bot.evaluation.subgames import FULL_TURN_2_CORES, MORE_VARIANTS, ROOTS, SAMPLINGS, VARIANTS

    sg = sub.add_parser(
        "subgames",
        help="what each variant of the agent wins in sampled turn subgames, exactly over every pair of hands "
        "(the Libratus supplement's Table S1)",
    )
    opt.add_blueprint_option(sg, "our blueprint store (default: blueprints/default.bp)", metavar=None)
    sg.add_argument(
        "--opponent", default="blueprint", help="the opponent's strategy (default blueprint: on --opponent-blueprint)"
    )
    sg.add_argument("--opponent-blueprint", default=None, help="the opponent's store (default: --blueprint)")
    sg.add_argument("--subgames", type=int, default=50, help="subgames sampled (default 50)")
    opt.add_seed_option(sg, "the deals' and the strategies' seed")
    sg.add_argument(
        "--variants",
        default=None,
        help="our variants, comma-separated, the first the reference of the differences: "
        f"{', '.join(VARIANTS + MORE_VARIANTS)} (default {','.join(VARIANTS)}, and agent with --agent); on-tree: "
        "the full variant with only the opponent's blueprint's bet sizes",
    )
    sg.add_argument(
        "--agent",
        type=agent_spec,
        default=None,
        metavar="'libratus OPTIONS'",
        help="the agent variant: libratus or unsafe with the solving options of pokerbot play (--solve-round, "
        "--turn-solver, --card-samples, ...); a full-depth turn (auto or full) solves at --full-turn",
    )
    sg.add_argument(
        "--agent-as",
        nargs=2,
        action="append",
        default=[],
        metavar=("NAME", "'libratus OPTIONS'"),
        help="one more agent variant, named NAME, as --agent says (repeatable: several suspects on the same draws)",
    )
    sg.add_argument(
        "--blueprint-as",
        nargs=2,
        action="append",
        default=[],
        metavar=("NAME", "'OPTIONS'"),
        help="a variant that plays our blueprint another way, named NAME: '--purify preflop,flop' (fold-call-bet "
        "purification on those rounds), '--threshold 0.02' (the preflop's and flop's threshold, per hand; 0 as "
        "trained; default 0.08, as the agent plays them), '--range-threshold 0.04' (Libratus's range "
        "thresholding: an action dropped only where every hand plays it under the threshold); repeatable",
    )
    k, n = FULL_TURN_2_CORES
    sg.add_argument(
        "--full-turn",
        type=opt.full_turn,
        default=(k, n),
        metavar="K:N",
        help=f"the full variant's turn solve: K river cards a pass (0: all), N iterations (default {k}:{n}, "
        "about the median turn solve of the default agent in play on 2 cores)",
    )
    sg.add_argument(
        "--root",
        choices=tuple(ROOTS),
        default="turn",
        help="where subgames are rooted: the turn's first decision (Table S1), the flop's, or the deal (the whole "
        "hand, A in each seat of each deal) (default turn)",
    )
    sg.add_argument(
        "--river-cards",
        type=int,
        default=4,
        help="cards walked at each turn and river card dealt below the root: 0 all (exact), K drawn, keyed "
        "(default 4: from the flop, 4 turn cards and 4 river cards a turn card)",
    )
    sg.add_argument(
        "--flops",
        type=int,
        default=1,
        help="--root deal: flops walked per deal, drawn and keyed (0: all 19,600, exact) (default 1)",
    )
    sg.add_argument(
        "--sampling",
        choices=SAMPLINGS,
        default=None,
        help="pot: subgames drawn in proportion to their pot from the first --candidates, each weighed by the mean "
        "pot over its pot (unbiased; fewer subgames for the same interval); uniform: the first ones (default pot; "
        "uniform rooted at the deal, where every hand is a root)",
    )
    sg.add_argument(
        "--candidates",
        type=int,
        default=10_000,
        help="pot sampling: the subgames drawn from (default 10,000: a few seconds of blueprint play)",
    )
    opt.add_threads_option(sg, "solver threads of each subgame's solves (default 1)", type=int)
    opt.add_workers_option(sg, "subgames scored in parallel, processes (default: every core)", None, type=int)
    opt.add_ray_option(sg, "score subgames as tasks on a Ray cluster: its address, auto, or local (the cluster extra)")
    opt.add_out_dir_option(sg, "subgames-results", "subgames.jsonl (resumable) and summary.json go here")
    sg.add_argument("--table", action="store_true", help="print the per-subgame table too")
    opt.add_json_option(sg, "the summary")
    opt.add_no_progress_option(sg)
    sg.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import json

    from pokerbot.blueprint_store.store import StoreError
    from pokerbot.bot.evaluation.subgames import VARIANTS, SubgamesConfig, SubgamesError, SubgamesRun, table
    from pokerbot.bot.strategies import blueprint_path
    from pokerbot.protocol.logs import configure

    configure("warning")
    blueprint = blueprint_path(args.blueprint)
    workers = args.workers if args.workers is not None else opt.usable_cpus()
    if workers < 1:
        print("pokerbot subgames: --workers must be at least 1", file=sys.stderr)
        return 2
    if args.ray is not None and opt.ray_missing("subgames"):
        return 2
    try:
        agents = tuple((name, agent_spec(spec)) for name, spec in args.agent_as)
    except SpecError as e:
        print(f"pokerbot subgames: --agent-as: {e}", file=sys.stderr)
        return 2
    try:
        blueprints = tuple((name, blueprint_spec(spec)) for name, spec in args.blueprint_as)
    except SpecError as e:
        print(f"pokerbot subgames: --blueprint-as: {e}", file=sys.stderr)
        return 2
    if args.variants is not None:
        variants = tuple(v.strip() for v in args.variants.split(",") if v.strip())
    else:
        named = tuple(name for name, _ in agents + blueprints)
        variants = VARIANTS + (("agent",) if args.agent is not None else ()) + named
    config = SubgamesConfig(
        blueprint=blueprint,
        opponent=args.opponent,
        opponent_blueprint=args.opponent_blueprint,
        variants=variants,
        agent=args.agent,
        agents=agents,
        blueprints=blueprints,
        full_turn=args.full_turn,
        river_cards=args.river_cards,
        root=args.root,
        flops=args.flops,
        seed=args.seed,
        threads=args.threads,
        sampling=args.sampling or ("uniform" if args.root == "deal" else "pot"),
        candidates=args.candidates,
    )
    run_ = SubgamesRun(config, args.subgames, args.out, workers, progress=not args.no_progress, ray_address=args.ray)
    try:
        summary = run_.run()
    except (SubgamesError, StoreError) as e:
        print(f"pokerbot subgames: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    records = [run_.records[i] for i in sorted(run_.records)][: summary["subgames"]]
    text = table(summary, records)
    if not args.table:
        text = text[text.index("| | chips a subgame") :]
    print(text)
    print(
        f"root: {config.root}; "
        + (f"flops: {'all' if config.flops == 0 else f'{config.flops} drawn a deal'}; " * (config.root == "deal"))
        + f"turn and river cards: {'all' if config.river_cards == 0 else f'{config.river_cards} drawn at each'}; "
        f"{os.path.join(args.out, 'summary.json')}"
    )
    if config.agent is not None:
        print("agent: " + ", ".join(f"{k} {v}" for k, v in config.agent.items()))
    for name, options in config.agents + config.blueprints:
        print(f"{name}: " + ", ".join(f"{k} {v}" for k, v in options.items()))
    return 0
