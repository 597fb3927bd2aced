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
    options = opt.agent_options(args, safe=words[0] == "libratus")
    del options["solve_seconds"]
    return options


def add(sub) -> None:
    from pokerbot.bot.evaluation.subgames import FULL_TURN_2_CORES, MORE_VARIANTS, SAMPLINGS, VARIANTS

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
        "--river-cards",
        type=int,
        default=4,
        help="river cards walked per subgame: 0 all (exact), K drawn per subgame, keyed (default 4)",
    )
    sg.add_argument(
        "--sampling",
        choices=SAMPLINGS,
        default="pot",
        help="pot: subgames drawn in proportion to their pot from the first --candidates, each weighed by the mean "
        "pot over its pot (unbiased; fewer subgames for the same interval); uniform: the first ones (default pot)",
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
    if args.variants is not None:
        variants = tuple(v.strip() for v in args.variants.split(",") if v.strip())
    else:
        variants = VARIANTS + (("agent",) if args.agent is not None else ()) + tuple(name for name, _ in agents)
    config = SubgamesConfig(
        blueprint=blueprint,
        opponent=args.opponent,
        opponent_blueprint=args.opponent_blueprint,
        variants=variants,
        agent=args.agent,
        agents=agents,
        full_turn=args.full_turn,
        river_cards=args.river_cards,
        seed=args.seed,
        threads=args.threads,
        sampling=args.sampling,
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
        f"river cards: {'all' if config.river_cards == 0 else f'{config.river_cards} drawn a subgame'}; "
        f"{os.path.join(args.out, 'summary.json')}"
    )
    if config.agent is not None:
        print("agent: " + ", ".join(f"{k} {v}" for k, v in config.agent.items()))
    for name, options in config.agents:
        print(f"{name}: " + ", ".join(f"{k} {v}" for k, v in options.items()))
    return 0
