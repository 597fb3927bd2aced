"""The ``pokerbot`` command."""

from __future__ import annotations

import argparse
import os
import sys
import time

from pokerbot.protocol.gamedef import (
    DEFAULT_GAME,
    GameDefError,
    bundled_game_names,
    bundled_game_text,
    format_gamedef,
    load_gamedef,
)


def _cmd_selfcheck(args: argparse.Namespace) -> int:
    from pokerbot.bot.selfcheck import run_selfcheck

    games = None
    if args.game:
        unknown = [g for g in args.game if g not in bundled_game_names()]
        if unknown:
            print(
                f"pokerbot: unknown game(s) {', '.join(unknown)}; bundled: {', '.join(bundled_game_names())}",
                file=sys.stderr,
            )
            return 2
        games = args.game
    return 0 if run_selfcheck(args.hands, args.seed, games) else 1


def _cmd_bench(args: argparse.Namespace) -> int:
    from pokerbot.bot.bench import dealer as bench_dealer
    from pokerbot.bot.bench import evaluator as bench_evaluator
    from pokerbot.bot.bench import mccfr as bench_mccfr
    from pokerbot.bot.bench import solver as bench_solver
    from pokerbot.bot.bench import store as bench_store
    from pokerbot.protocol.logs import configure

    configure("warning")
    if args.what == "evaluator":
        bench_evaluator.print_evaluator_report(
            bench_evaluator.bench_evaluator(hands=args.hands, boards=args.boards, repeats=args.repeats), args.json
        )
    elif args.what == "solver":
        bench_solver.print_solver_report(bench_solver.bench_solver(repeats=min(args.repeats, 5)), args.json)
    elif args.what == "dealer":
        hands = args.hands if args.hands != 4_000_000 else 5000
        bench_dealer.print_dealer_report(
            bench_dealer.bench_dealer(hands=hands, repeats=min(args.repeats, 3)), args.json
        )
    elif args.what == "mccfr":
        bench_mccfr.print_mccfr_report(bench_mccfr.bench_mccfr(), args.json)
    elif args.what == "store":
        from pokerbot.bot.strategies import BLUEPRINT_ENV, DEFAULT_BLUEPRINT

        path = args.blueprint or os.environ.get(BLUEPRINT_ENV) or DEFAULT_BLUEPRINT
        if not os.path.exists(path):
            print(f"pokerbot bench store: no blueprint at {path} (--blueprint PATH)", file=sys.stderr)
            return 2
        bench_store.print_store_report(bench_store.bench_store(path), args.json)
    return 0


def _cmd_games(args: argparse.Namespace) -> int:
    if not args.name:
        for name in bundled_game_names():
            print(name)
        return 0
    try:
        if args.name in bundled_game_names():
            print(bundled_game_text(args.name), end="")
        else:
            print(format_gamedef(load_gamedef(args.name)), end="")
    except GameDefError as e:
        print(f"pokerbot: {e}", file=sys.stderr)
        return 2
    return 0


def _dealer_limit_options(p: argparse.ArgumentParser, whose: str) -> None:
    """The reference dealer's three time limits, in milliseconds, with its defaults."""
    p.add_argument(
        "--t_response", type=_positive, default=600_000, metavar="MS", help=f"{whose} limit per reply (default 600000)"
    )
    p.add_argument(
        "--t_hand", type=_positive, default=600_000, metavar="MS", help=f"{whose} limit per hand (default 600000)"
    )
    p.add_argument(
        "--t_per_hand", type=_positive, default=7_000, metavar="MS", help=f"{whose} average per hand (default 7000)"
    )


def _turn_solver_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--turn-solver",
        default="depth-limited",
        choices=["full", "depth-limited"],
        help="libratus/unsafe solving from the turn: to the end of the turn with the blueprint's four "
        "continuation strategies at the river, the river solved when it comes (depth-limited, default), "
        "or to the end of the hand (full: give it a larger --solve-seconds)",
    )
    p.add_argument(
        "--card-samples",
        type=_non_negative,
        default=1,
        help="depth-limited turn solving: river cards drawn per pass to value the leaves (0: all 48; default 1)",
    )


def _blueprint_of(args: argparse.Namespace, command: str) -> tuple[str | None, int]:
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


def _agent_options(args: argparse.Namespace, **more) -> dict:
    """The agent's options from a command's solving options (``_turn_solver_options``
    and --solve-round, --solve-seconds), with ``more``."""
    return {
        "solve_seconds": args.solve_seconds,
        "solve_round": args.solve_round - 1,
        "turn_solver": args.turn_solver,
        "card_samples": args.card_samples,
        **more,
    }


def _cmd_play(args: argparse.Namespace) -> int:
    from pokerbot.bot.strategies import make_strategy
    from pokerbot.protocol.logs import configure

    configure(args.log_level)
    ports = [args.port, *args.ports]
    agent = args.strategy in ("libratus", "unsafe")
    try:
        game = load_gamedef(args.game)
        options = {}
        if agent:
            # one pool for every seat, started below once the strategies are known to load
            options = _agent_options(
                args,
                threads=args.threads,
                workers=0,
                t_response_ms=args.t_response,
                t_hand_ms=args.t_hand,
                t_per_hand_ms=args.t_per_hand,
                reply_grid_ms=args.reply_grid_ms,
            )
        strategies = [
            make_strategy(args.strategy, None if args.seed is None else args.seed + i, args.blueprint, **options)
            for i in range(len(ports))
        ]
    except (GameDefError, ValueError, OSError) as e:
        print(f"pokerbot play: {e}", file=sys.stderr)
        return 2
    if agent:
        from pokerbot.bot.agent import LibratusAgent

        agents = [s for s in strategies if isinstance(s, LibratusAgent)]  # all of them (libratus or unsafe)
        if args.workers > 0:
            from pokerbot.bot.solver_pool import SolverPool

            pool = SolverPool(args.workers)
            for s in agents:
                s.pool = pool
        agents[0].prepare()  # kernels and workers warm before the first hand (process-wide)
    writer = None
    if args.strategy_log is not None:
        if len(ports) > 1:
            print("pokerbot play: --strategy-log logs one seat; give one port", file=sys.stderr)
            return 2
        from pokerbot.bot.strategy_log import StrategyLogWriter

        try:
            writer = StrategyLogWriter(args.strategy_log)
        except OSError as e:
            print(f"pokerbot play: cannot write the strategy log: {e}", file=sys.stderr)
            return 2
    try:
        return _play_seats(args.host, ports, game, strategies, args.connect_timeout, writer)
    finally:
        if writer is not None:
            writer.close()


def _play_seats(host: str, ports: list[int], game, strategies: list, connect_timeout: float, writer=None) -> int:
    """The seats of this process (one thread and event loop each after the first, one
    shared solver pool). The first seat runs in the main thread and takes the stop
    signals; when it ends, the process ends. Exit status: the worst of the seats'."""
    import threading

    from pokerbot.bot.player import play
    from pokerbot.protocol.dealer import run_event_loop

    status = [0] * len(ports)

    def seat(i: int) -> None:
        status[i] = run_event_loop(
            play(host, ports[i], game, strategies[i], connect_timeout, writer if i == 0 else None)
        )

    threads = [
        threading.Thread(target=seat, args=(i,), daemon=True, name=f"seat-{i + 1}") for i in range(1, len(ports))
    ]
    for t in threads:
        t.start()
    seat(0)
    for t in threads:
        t.join()
    return max(status)


def _cmd_match(args: argparse.Namespace) -> int:
    from pokerbot.bot import match
    from pokerbot.protocol.dealer import run_event_loop
    from pokerbot.protocol.logs import configure

    configure(args.log_level)
    try:
        game = load_gamedef(args.game)
    except GameDefError as e:
        print(f"pokerbot match: {e}", file=sys.stderr)
        return 2
    limits = {"t_response": args.t_response, "t_hand": args.t_hand, "t_per_hand": args.t_per_hand}
    if args.concurrent and not args.duplicate:
        print("pokerbot match: --concurrent needs --duplicate", file=sys.stderr)
        return 2
    if args.aivat and not match.PlayerSpec("A", args.player_a).ours:
        print("pokerbot match: --aivat needs player A to be one of our strategies", file=sys.stderr)
        return 2
    named = {match.PlayerSpec("A", args.player_a).strategy, match.PlayerSpec("B", args.player_b).strategy}
    if named & {"libratus", "unsafe", "blueprint", "prober"}:
        status = _ensure_blueprint(args)
        if status:
            return status
    try:
        summary = run_event_loop(
            match.run(
                game,
                args.game,
                args.hands,
                args.seed,
                (args.player_a, args.player_b),
                args.duplicate,
                args.out,
                limits,
                args.common_random_numbers,
                args.concurrent,
                progress=not args.no_progress,
                aivat=args.aivat,
            )
        )
    except (RuntimeError, ValueError, OSError) as e:
        print(f"pokerbot match: {e}", file=sys.stderr)
        return 1
    match.print_summary(summary, args.out)
    return 0 if summary["ok"] else 1


def _cmd_web(args: argparse.Namespace) -> int:
    from pokerbot.bot.match import PlayerSpec
    from pokerbot.bot.strategies import STRATEGIES
    from pokerbot.protocol.logs import configure

    configure(args.log_level)
    try:
        import aiohttp  # noqa: F401
    except ImportError:
        print(
            "pokerbot web: the web page needs the web extra: pip install 'pokerbot[web]' (scripts/setup --web)",
            file=sys.stderr,
        )
        return 2
    from pokerbot.bot.web import WebServer, serve

    try:
        game = load_gamedef(args.game)
    except GameDefError as e:
        print(f"pokerbot web: {e}", file=sys.stderr)
        return 2
    if game.num_players != 2 or not game.is_nolimit:
        print("pokerbot web: the page plays heads-up no-limit games", file=sys.stderr)
        return 2
    spec = PlayerSpec("B", args.strategy)
    if not spec.ours:
        known = ", ".join(sorted(STRATEGIES))
        print(f"pokerbot web: unknown strategy {args.strategy!r}; one of: {known}", file=sys.stderr)
        return 2
    if spec.strategy in {"libratus", "unsafe", "blueprint", "prober"}:
        status = _ensure_blueprint(args)
        if status:
            return status
    seed = args.seed if args.seed is not None else int(time.time()) % 1_000_000
    limits = {"t_response": args.t_response, "t_hand": args.t_hand, "t_per_hand": args.t_per_hand}
    server = WebServer(game, args.game, args.strategy, args.hands, seed, args.out, limits)
    try:
        serve(server, args.host, args.port)
    except OSError as e:
        print(f"pokerbot web: cannot listen on {args.host}:{args.port}: {e.strerror or e}", file=sys.stderr)
        return 1
    return 0


def _ensure_blueprint(args: argparse.Namespace) -> int:
    """The players that need a blueprint find it through the environment. With none
    given and no default store, the quick one (the tiny preset, about two minutes on
    two cores) is trained first unless --no-train; a missing store given with
    --blueprint or $POKERBOT_BLUEPRINT is an error."""
    from pokerbot.bot.strategies import BLUEPRINT_ENV, DEFAULT_BLUEPRINT, QUICK_BLUEPRINT, blueprint_path

    given = args.blueprint or os.environ.get(BLUEPRINT_ENV)
    path = blueprint_path(args.blueprint)
    strong = f"pokerbot train-blueprint --preset default --out {DEFAULT_BLUEPRINT}"
    if not os.path.exists(path):
        if given or args.no_train:
            print(f"pokerbot match: no blueprint at {path}; make one with `{strong}`", file=sys.stderr)
            return 2
        print(
            f"pokerbot match: no blueprint yet: training the quick one first ({QUICK_BLUEPRINT}, the tiny preset: "
            f"about 2 minutes on two cores, once; --no-train to stop instead). It beats the benchmark bots but is "
            f"far from the default blueprint: `{strong}` trains that (about 50 minutes on two cores).",
            flush=True,
        )
        # through the parser: every option of train-blueprint gets its default
        command = ["train-blueprint", "--preset", "tiny", "--out", QUICK_BLUEPRINT, "--seed", "0"]
        if os.path.isdir(QUICK_BLUEPRINT + ".ckpt"):
            command.append("--resume")
        status = _cmd_train_blueprint(build_parser().parse_args(command))
        if status:
            return status
        path = QUICK_BLUEPRINT
    elif path == QUICK_BLUEPRINT:
        print(f"pokerbot match: playing with the quick blueprint {path}; `{strong}` trains the strong one", flush=True)
    os.environ[BLUEPRINT_ENV] = os.path.abspath(path)
    return 0


def _cmd_train_blueprint(args: argparse.Namespace) -> int:
    from pokerbot.blueprint_store.train import PRESETS, train_blueprint
    from pokerbot.bot.progress import PhasedProgress

    if args.preset not in PRESETS:
        print(
            f"pokerbot train-blueprint: unknown preset {args.preset!r}; presets: {', '.join(PRESETS)}", file=sys.stderr
        )
        return 2
    if args.ray is not None:
        try:
            import ray  # noqa: F401
        except ImportError:
            print(
                "pokerbot train-blueprint: --ray needs the cluster extra: pip install 'pokerbot[cluster]' "
                "(scripts/setup --cluster)",
                file=sys.stderr,
            )
            return 2
    elif args.shards is not None:
        print("pokerbot train-blueprint: --shards goes with --ray", file=sys.stderr)
        return 2
    out_dir = os.path.dirname(os.path.abspath(args.out))
    os.makedirs(out_dir, exist_ok=True)
    t0 = time.time()
    # a bar per phase (card abstraction rounds, then MCCFR) on a terminal, plain lines
    # every 30 s otherwise; messages above it, with the time since the start
    bars = PhasedProgress(stream=sys.stdout)

    def log(msg: str) -> None:
        bars.write(f"[{time.time() - t0:7.1f} s] {msg}")

    try:
        train_blueprint(
            args.preset,
            args.out,
            threads=args.threads,
            seconds=None if args.minutes is None else args.minutes * 60.0,
            resume=args.resume,
            seed=args.seed,
            log=log,
            progress=bars,
            ray=args.ray,
            shards=args.shards,
            shard_batch=args.shard_batch,
        )
    except (OSError, ValueError, ConnectionError) as e:
        bars.close()
        print(f"pokerbot train-blueprint: {e}", file=sys.stderr)
        return 1
    bars.close()
    return 0


def _cmd_warm(args: argparse.Namespace) -> int:
    """Load (on a fresh checkout or image: compile) every kernel the agent uses, then exit."""
    from pokerbot.bot.strategies import make_strategy
    from pokerbot.protocol.logs import configure

    configure("warning")
    t0 = time.time()
    try:
        agent = make_strategy("libratus", 0, args.blueprint, workers=0)
    except (ValueError, OSError) as e:
        print(f"pokerbot warm: {e}", file=sys.stderr)
        return 2
    from pokerbot.bot.agent import LibratusAgent  # loaded by make_strategy

    assert isinstance(agent, LibratusAgent)  # what make_strategy("libratus") makes
    agent.prepare()
    print(f"pokerbot warm: kernels ready in {time.time() - t0:.1f} s", flush=True)
    return 0


def _cmd_improve(args: argparse.Namespace) -> int:
    from pokerbot.blueprint_store.improve import improve
    from pokerbot.blueprint_store.store import StoreError
    from pokerbot.bot.progress import PhasedProgress

    t0 = time.time()
    bars = PhasedProgress(stream=sys.stdout)  # a bar per extension solved

    def log(msg: str) -> None:
        bars.write(f"[{time.time() - t0:7.1f} s] {msg}")

    try:
        improve(
            args.blueprint,
            args.logs,
            args.out,
            us=args.us,
            k=args.k,
            seconds=args.hours * 3600.0,
            type1=not args.no_type1,
            threads=args.threads,
            seed=args.seed,
            log=log,
            progress=bars,
        )
    except (StoreError, FileNotFoundError, ValueError) as e:
        bars.close()
        print(f"pokerbot improve: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        bars.close()
        print(f"pokerbot improve: {e}", file=sys.stderr)
        return 1
    bars.close()
    return 0


def _cmd_lbr(args: argparse.Namespace) -> int:
    import json

    from pokerbot.blueprint_store.store import StoreError
    from pokerbot.bot.lbr import LBRError, markdown_line, run_lbr
    from pokerbot.protocol.logs import configure

    configure("warning")
    blueprint, status = _blueprint_of(args, "lbr")
    if status:
        return status
    if args.hands < 1 or args.workers < 1:
        print("pokerbot lbr: --hands and --workers must be at least 1", file=sys.stderr)
        return 2
    options: dict = {}
    if args.strategy in ("libratus", "unsafe"):
        options = _agent_options(args, workers=0)
    try:
        summary = run_lbr(
            args.strategy,
            args.hands,
            args.seed,
            args.setting,
            args.out,
            blueprint,
            args.workers,
            progress=not args.no_progress,
            options=options,
        )
    except (LBRError, StoreError, ValueError) as e:
        print(f"pokerbot lbr: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        c = summary["cross_fitted"]
        print(
            f"LBR ({summary['setting_name']}: {summary['setting']}) against {summary['strategy']}: "
            f"{c['mbb_per_game']:+,.1f} ± {c['ci95']:,.1f} mbb/game won by LBR (95 %, control variates, "
            f"variance {c['variance_ratio']:.1f}x lower; "
            f"raw {summary['mbb_per_game']:+,.1f} ± {summary['ci95']:,.1f}), "
            f"{summary['hands']:,} hands, {summary['seconds_per_hand']:.3f} s per hand; "
            f"{os.path.join(args.out, 'summary.json')}"
        )
        print("| strategy | setting | LBR, corrected | LBR, raw | variance cut | hands | time per hand |")
        print(markdown_line(summary))
    return 0


def _cmd_ladder(args: argparse.Namespace) -> int:
    from pokerbot.bot import ladder
    from pokerbot.bot.progress import ProgressBar
    from pokerbot.bot.strategies import blueprint_path
    from pokerbot.protocol.logs import configure

    configure("warning")
    try:
        rows = ladder.parse_rows(args.rows)
        seeds = ladder.parse_seeds(args.seeds)
    except ladder.LadderError as e:
        print(f"pokerbot ladder: {e}", file=sys.stderr)
        return 2
    unknown = sorted({w for r in rows for w in (r.a, r.b) if not match_spec_is_ours(w)})
    if unknown:
        print(f"pokerbot ladder: not one of our strategies: {', '.join(unknown)}", file=sys.stderr)
        return 2
    if args.ray is not None:
        try:
            import ray  # noqa: F401
        except ImportError:
            print("pokerbot ladder: --ray needs the cluster extra: pip install 'pokerbot[cluster]'", file=sys.stderr)
            return 2
    blueprint = os.path.abspath(blueprint_path(args.blueprint))
    needs_blueprint = any(
        w.split()[0] in ("libratus", "unsafe", "blueprint", "prober") for r in rows for w in (r.a, r.b)
    )
    if needs_blueprint and not os.path.exists(blueprint):
        print(
            f"pokerbot ladder: no blueprint at {blueprint} (--blueprint PATH; pokerbot train-blueprint makes one)",
            file=sys.stderr,
        )
        return 2
    limits = {"t_response": args.t_response, "t_hand": args.t_hand, "t_per_hand": args.t_per_hand}
    make = ladder.spec_maker(
        args.game,
        blueprint if needs_blueprint else None,
        args.pairs,
        limits,
        concurrent=args.parallel == 1,
        at_once=1 if args.ray is not None else args.parallel,
    )
    identity = ladder.identity_of(make)
    specs = [] if args.report else ladder.plan_chunks(args.out, rows, args.chunks, args.pairs, seeds, make)
    if specs:
        where = f"Ray at {args.ray}" if args.ray is not None else f"{args.parallel} at a time"
        print(
            f"pokerbot ladder: {len(specs)} chunks of {args.pairs} deal pairs ({where}) at {identity['commit']}, "
            f"into {args.out}/",
            file=sys.stderr,
        )
        bar = None if args.no_progress else ProgressBar(len(specs), "chunks", label="ladder")
        finished = [0]

        def on_done(spec, result) -> None:
            finished[0] += 1
            row = ladder.Row(spec.a, spec.b)
            if isinstance(result, Exception):
                message = f"{row}, seed {spec.seed}: FAILED: {result}"
            else:
                x = ladder.pool(ladder.read_records(args.out, row), identity, args.target)
                a = x["aivat"]
                pooled = f"{a['mean']:+,.0f} ± {a['ci95']:,.0f} mbb/hand"
                message = f"{row}, seed {spec.seed}: done; pooled {x['pairs']:,} pairs: {pooled}"
            if bar is not None:
                bar.write(message)
                bar.update(finished[0])
            else:
                print(message, file=sys.stderr)

        results = ladder.run_chunks(specs, args.parallel, args.ray, on_done)
        if bar is not None:
            bar.finish()
        failed = [r for r in results if isinstance(r, Exception)]
    else:
        failed = []
    lines = ladder.table(args.out, rows, identity, args.target)
    if args.json:
        print(ladder.as_json(lines))
    else:
        print(f"Ladder at {identity['commit']} (duplicate, common random numbers, AIVAT; A's mbb/hand, 95 %):")
        print(ladder.format_table(lines, args.target))
    if failed:
        print(f"pokerbot ladder: {len(failed)} chunks failed (played again on the next run)", file=sys.stderr)
        return 1
    return 0


def match_spec_is_ours(spec: str) -> bool:
    from pokerbot.bot.match import PlayerSpec

    return PlayerSpec("A", spec).ours


def _cmd_slumbot(args: argparse.Namespace) -> int:
    import json

    from pokerbot.bot import slumbot
    from pokerbot.bot.strategies import make_strategy
    from pokerbot.protocol.logs import configure

    configure("warning")
    password = None
    if args.username:
        password = os.environ.get(slumbot.PASSWORD_ENV)
        if not password:
            if not sys.stdin.isatty():
                print(
                    f"pokerbot slumbot: --username needs a password: set ${slumbot.PASSWORD_ENV} "
                    "(there is no terminal to ask on)",
                    file=sys.stderr,
                )
                return 2
            import getpass

            password = getpass.getpass(f"Slumbot password for {args.username}: ")
    game = load_gamedef("holdem.nolimit.2p")
    agent = args.strategy in ("libratus", "unsafe")
    blueprint, status = _blueprint_of(args, "slumbot")
    if status:
        return status
    options: dict = {}
    if agent:
        # no dealer's clock: a budget for an opponent that waits (Slumbot's server does)
        limits = {"t_response_ms": 60_000, "t_hand_ms": 600_000, "t_per_hand_ms": 30_000}
        options = _agent_options(args, threads=args.threads, workers=args.workers, **limits)
    identity = {
        "strategy": args.strategy,
        "blueprint": blueprint,
        "options": {k: v for k, v in options.items() if k != "workers"},
        "seed": args.seed,
        "base_url": args.base_url,
        "username": args.username,
    }
    try:
        strategy = make_strategy(args.strategy, args.seed, blueprint, **options)
        prepare = getattr(strategy, "prepare", None)
        if prepare is not None:
            prepare()  # the agent's kernels and solver workers, before the first hand
        client = slumbot.Client(args.base_url, timeout=args.timeout, rate=args.rate)
        if args.username:
            client.login(args.username, password or "")
        summary = slumbot.run_slumbot(
            strategy, args.hands, args.out, game, client, identity, progress=not args.no_progress
        )
    except slumbot.Stopped as e:
        print(f"pokerbot slumbot: {e}; run the same command again to go on", file=sys.stderr)
        return 130
    except (slumbot.SlumbotError, slumbot.ActionStringError, ValueError, OSError) as e:
        print(f"pokerbot slumbot: {e}", file=sys.stderr)
        print(f"pokerbot slumbot: the hands played so far are in {args.out}/; run again to go on", file=sys.stderr)
        return 1
    finally:
        pool = getattr(locals().get("strategy"), "pool", None)
        if pool is not None:
            pool.close()
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0

    def fmt(s: dict) -> str:
        if s["ci95"] is None:
            return f"{s['mbb_per_hand']:+,.0f} mbb/hand" if s["mbb_per_hand"] is not None else "n/a"
        return f"{s['mbb_per_hand']:+,.0f} ± {s['ci95']:,.0f} mbb/hand"

    print(f"{args.strategy} against Slumbot, {summary['hands']:,} hands ({summary['seconds_per_hand']:.2f} s a hand):")
    print(f"  raw                       {fmt(summary['raw'])} (95 %)")
    if "baseline_corrected" in summary:
        print(f"  less Slumbot's baseline   {fmt(summary['baseline_corrected'])}")
    print(f"  AIVAT (our decisions)     {fmt(summary['aivat'])}  ({summary['aivat_fallback_hands']} hands uncorrected)")
    if summary["abandoned_hands"]:
        print(f"  {summary['abandoned_hands']} hands abandoned by a stop mid-hand (not counted)")
    print(f"  hands: {os.path.join(args.out, 'hands.jsonl')}, log: {os.path.join(args.out, 'slumbot.log')}")
    return 0


def _cmd_aivat(args: argparse.Namespace) -> int:
    import json

    import numpy as np

    from pokerbot.bot.aivat import AIVATError, correct_match, write_csv
    from pokerbot.bot.match import summarize

    try:
        game = load_gamedef(args.game)
        rows = correct_match(args.dealer_log, game, args.player, args.strategy_log, args.opponent_log)
    except (GameDefError, AIVATError, ValueError, OSError) as e:
        print(f"pokerbot aivat: {e}", file=sys.stderr)
        return 2
    if not rows:
        print(f"pokerbot aivat: no finished hands in {args.dealer_log}", file=sys.stderr)
        return 2
    if args.csv:
        write_csv(args.csv, [(os.path.basename(args.dealer_log), rows)])
    bb = game.big_blind
    out = {
        "player": args.player,
        "hands": len(rows),
        "two_sided": args.opponent_log is not None,
        "fallback_hands": sum(r.fallback for r in rows),
        **{k: summarize(np.array([getattr(r, k) for r in rows]), bb) for k in ("raw", "allin_adjusted", "aivat")},
    }
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    for k, label in (("raw", "raw"), ("allin_adjusted", "all-in adjusted"), ("aivat", "AIVAT")):
        s = out[k]
        ci = "n/a" if s["ci95"] is None else f"{s['ci95']:,.1f}"
        print(f"{args.player} {label:<16} {s['mbb_per_hand']:+10,.1f} ± {ci} mbb/hand (95 %), {s['hands']:,} hands")
    if out["fallback_hands"]:
        print(f"{out['fallback_hands']} hands could not be corrected (their all-in adjusted value stands in)")
    return 0


def _cmd_blueprint(args: argparse.Namespace) -> int:
    from pokerbot.blueprint_store.info import print_info
    from pokerbot.blueprint_store.store import StoreError

    try:
        print_info(args.path, args.verify, [h.strip() for h in args.hands.split(",") if h.strip()])
    except StoreError as e:
        print(f"pokerbot blueprint: {e}", file=sys.stderr)
        return 1
    except ValueError as e:
        print(f"pokerbot blueprint: {e}", file=sys.stderr)
        return 2
    return 0


def _number(convert, what: str, ok, condition: str):
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


_port = _number(int, "a port number", lambda v: 0 < v < 65536, "port must be 1..65535")
_non_negative = _number(int, "an integer", lambda v: v >= 0, "must be 0 or more")
_positive = _number(int, "an integer", lambda v: v > 0, "must be positive")
_positive_float = _number(float, "a number", lambda v: v > 0, "must be positive")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="pokerbot",
        description="A Libratus-style heads-up no-limit hold'em bot for the ACPC dealer protocol.",
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    s = sub.add_parser("selfcheck", help="play random hands of every bundled game through the rules and wire format")
    s.add_argument("--hands", type=_positive, default=2000, help="hands per game (default 2000)")
    s.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    s.add_argument("--game", action="append", help="check only this bundled game (repeatable)")
    s.set_defaults(func=_cmd_selfcheck)

    b = sub.add_parser("bench", help="benchmarks that print their figures")
    b.add_argument("what", choices=["evaluator", "dealer", "solver", "mccfr", "store"], help="what to measure")
    b.add_argument("--blueprint", default=None, metavar="PATH", help="store: the blueprint to open")
    b.add_argument(
        "--hands",
        type=_positive,
        default=4_000_000,
        help="evaluator: random 7-card hands (default 4,000,000); dealer: hands per match (default 5,000)",
    )
    b.add_argument("--boards", type=_positive, default=20_000, help="river boards for the batch path (default 20,000)")
    b.add_argument(
        "--repeats",
        type=_positive,
        default=7,
        help="timed runs, the median is reported (default 7; the dealer bench uses at most 3)",
    )
    b.add_argument("--json", action="store_true", help="print the figures as JSON")
    b.set_defaults(func=_cmd_bench)

    from pokerbot.bot.strategies import STRATEGIES

    pl = sub.add_parser("play", help="play a match as an ACPC player: pokerbot play <host> <port>")
    pl.add_argument("host", help="dealer host")
    pl.add_argument("port", type=_port, help="dealer port for this seat")
    pl.add_argument(
        "ports",
        type=_port,
        nargs="*",
        metavar="PORT",
        help="more seats to play from this process (same host), sharing its solver workers",
    )
    pl.add_argument("--game", default=DEFAULT_GAME, help=f"game file or bundled game name (default {DEFAULT_GAME})")
    pl.add_argument(
        "--strategy",
        default="libratus",
        choices=sorted(STRATEGIES),
        help="what to play (default libratus: blueprint, then real-time subgame solving)",
    )
    pl.add_argument("--seed", type=int, default=None, help="seed for the strategy's random choices")
    pl.add_argument(
        "--blueprint",
        default=None,
        metavar="PATH",
        help="blueprint store for the blueprint, libratus and unsafe strategies (default "
        "$POKERBOT_BLUEPRINT, else blueprints/default.bp)",
    )
    pl.add_argument(
        "--solve-seconds",
        type=float,
        default=2.0,
        help="libratus/unsafe: deadline of one subgame solve in seconds (default 2)",
    )
    pl.add_argument(
        "--solve-round",
        type=int,
        default=3,
        choices=[3, 4],
        help="libratus/unsafe: the round real-time solving starts on, 3 = turn (default, as Libratus), "
        "4 = river (the blueprint plays the turn: the river-only benchmark agent)",
    )
    _turn_solver_options(pl)
    pl.add_argument("--threads", type=_positive, default=1, help="libratus/unsafe: solver threads (default 1)")
    pl.add_argument(
        "--workers",
        type=_non_negative,
        default=1,
        help="libratus/unsafe: warm solver processes (default 1; 0 solves in the player process, "
        "without the protection against a crashing or overrunning solve)",
    )
    pl.add_argument(
        "--t_response",
        type=_positive,
        default=600_000,
        metavar="MS",
        help="the dealer's limit per reply, which the agent's time budget respects (default 600000)",
    )
    pl.add_argument(
        "--t_hand", type=_positive, default=600_000, metavar="MS", help="the dealer's limit per hand (default 600000)"
    )
    pl.add_argument(
        "--t_per_hand",
        type=_positive,
        default=7_000,
        metavar="MS",
        help="the dealer's average limit per hand over the match (default 7000)",
    )
    pl.add_argument(
        "--reply-grid-ms",
        type=float,
        default=5.0,
        metavar="MS",
        help="libratus/unsafe: replies are held to a multiple of this after the state arrived, so "
        "reply times do not depend on our cards (default 5; 0 disables)",
    )
    pl.add_argument("--connect-timeout", type=float, default=30.0, help="seconds to wait for the dealer (default 30)")
    pl.add_argument(
        "--strategy-log",
        default=None,
        metavar="PATH",
        help="append what the strategy would do with every hand at each of its decisions (for AIVAT: "
        "pokerbot aivat); written after each reply",
    )
    pl.add_argument(
        "--log-level",
        default="info",
        choices=["debug", "info", "warning", "error"],
        help="JSON log level (default info: the agent logs every decision and solve; debug adds "
        "every action of every strategy)",
    )
    pl.set_defaults(func=_cmd_play)

    w = sub.add_parser("warm", help="load or compile every kernel the agent uses, then exit (image builds, first runs)")
    w.add_argument(
        "--blueprint",
        default=None,
        metavar="PATH",
        help="blueprint store (default $POKERBOT_BLUEPRINT, else blueprints/default.bp)",
    )
    w.set_defaults(func=_cmd_warm)

    sub.add_parser("dealer", help="run an ACPC dealer (see pokerbot dealer --help)", add_help=False)

    m = sub.add_parser("match", help="play two players on our dealer and report mbb/hand with confidence intervals")
    m.add_argument(
        "player_a",
        nargs="?",
        default="libratus",
        help=f"a strategy ({', '.join(sorted(STRATEGIES))}), one with options of pokerbot play "
        "(e.g. 'libratus --solve-round 4'), or a command line run as '<cmd> <host> <port>' (default libratus)",
    )
    m.add_argument("player_b", nargs="?", default="random", help="the opponent, the same way (default random)")
    m.add_argument("--game", default=DEFAULT_GAME, help=f"game file or bundled game name (default {DEFAULT_GAME})")
    m.add_argument("--hands", type=_positive, default=1000, help="hands per match (default 1000)")
    m.add_argument("--seed", type=int, default=1, help="card seed (default 1)")
    m.add_argument("--duplicate", action="store_true", help="replay the same cards with the seats swapped")
    m.add_argument(
        "--concurrent",
        action="store_true",
        help="with --duplicate: play the two seat orders at the same time (half the wall time on two "
        "cores when the players compute, e.g. solving agents)",
    )
    m.add_argument(
        "--common-random-numbers",
        action="store_true",
        help="give both players one seed: blueprint-based players then choose alike in the same "
        "situation, so a duplicate pair cancels wherever both play the blueprint",
    )
    m.add_argument(
        "--aivat",
        action="store_true",
        help="also report A's result corrected by AIVAT (our players log their strategy at every "
        "decision; per-hand corrections in OUT/aivat.csv; see docs/evaluation.md)",
    )
    m.add_argument(
        "--out", default="match-results", help="directory for logs, summary.json, winnings.png (default match-results)"
    )
    _dealer_limit_options(m, "dealer")
    m.add_argument(
        "--log-level",
        default="warning",
        choices=["debug", "info", "warning", "error"],
        help="JSON log level on stderr (default warning)",
    )
    m.add_argument(
        "--blueprint",
        default=None,
        metavar="PATH",
        help="blueprint store for the players libratus, unsafe and blueprint (default "
        "$POKERBOT_BLUEPRINT, else blueprints/default.bp, trained first if missing)",
    )
    m.add_argument(
        "--no-train", action="store_true", help="fail instead of training the quick blueprint when there is none"
    )
    m.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress on stderr (by default a bar on a terminal, else a line every 30 s)",
    )
    m.set_defaults(func=_cmd_match)

    t = sub.add_parser("train-blueprint", help="train a hold'em blueprint (card abstraction, MCCFR) into a store")
    t.add_argument(
        "--preset",
        default="default",
        help="tiny (under two minutes, for tests and demos) or default (about an hour on two cores); default: default",
    )
    t.add_argument("--out", required=True, metavar="PATH", help="the store to write (written atomically)")
    t.add_argument("--threads", type=_positive, default=None, help="training threads (default: every core)")
    t.add_argument("--minutes", type=float, default=None, help="training time (default: the preset's)")
    t.add_argument("--seed", type=int, default=0, help="seed of the abstraction and training (default 0)")
    t.add_argument("--resume", action="store_true", help="continue from the checkpoint beside --out")
    t.add_argument(
        "--ray",
        default=None,
        metavar="ADDRESS",
        help="train sharded on a Ray cluster: its address (host:port), auto (the cluster this machine "
        "joined with ray start), or local (start one here); needs the cluster extra (docs/cluster.md)",
    )
    t.add_argument(
        "--shards", type=_positive, default=None, help="with --ray: shard actors (default: the cluster's CPUs)"
    )
    t.add_argument(
        "--shard-batch",
        type=_positive,
        default=2_000,
        help="with --ray: iterations per batch, between updates of the first round's strategy (default 2000)",
    )
    t.set_defaults(func=_cmd_train_blueprint)

    im = sub.add_parser(
        "improve",
        help="self-improvement: add responses to the opponents' first-round bet sizes "
        "that the blueprint lacks, into a new store",
    )
    im.add_argument(
        "--logs", nargs="+", required=True, metavar="PATH", help="dealer logs (*.log) or directories holding them"
    )
    im.add_argument("--blueprint", required=True, metavar="PATH", help="the store to improve (never modified)")
    im.add_argument("--out", required=True, metavar="PATH", help="the new store (written atomically)")
    im.add_argument("--us", default="libratus", help="a part of our player's name in the logs (default libratus)")
    im.add_argument("--k", type=_non_negative, default=3, help="gaps to fill (type 2), best first (default 3)")
    im.add_argument("--no-type1", action="store_true", help="do not add the most common missing size (type 1)")
    im.add_argument(
        "--hours", type=_positive_float, default=1.0, help="solving time shared by the additions (default 1)"
    )
    im.add_argument("--threads", type=_positive, default=None, help="solver threads (default: every core)")
    im.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    im.set_defaults(func=_cmd_improve)

    av = sub.add_parser("aivat", help="AIVAT-corrected result of a player from a dealer log and its strategy log")
    av.add_argument("dealer_log", help="the dealer's log (ours or the reference dealer's)")
    av.add_argument("--player", required=True, help="the player's name in the log")
    av.add_argument(
        "--strategy-log", required=True, metavar="PATH", help="its strategy log (pokerbot play --strategy-log)"
    )
    av.add_argument(
        "--opponent-log",
        default=None,
        metavar="PATH",
        help="the opponent's strategy log, when it is one of ours (its decisions are corrected too)",
    )
    av.add_argument("--game", default=DEFAULT_GAME, help=f"game file or bundled game name (default {DEFAULT_GAME})")
    av.add_argument("--csv", default=None, metavar="PATH", help="write the per-hand corrections")
    av.add_argument("--json", action="store_true", help="print the figures as JSON")
    av.set_defaults(func=_cmd_aivat)

    lb = sub.add_parser(
        "lbr", help="Local Best Response against a strategy: how much a one-step lookahead opponent wins (mbb/game)"
    )
    lb.add_argument("--strategy", default="blueprint", choices=sorted(STRATEGIES), help="the strategy LBR plays")
    lb.add_argument("--blueprint", default=None, help="its blueprint store (default: blueprints/default.bp)")
    lb.add_argument(
        "--setting",
        default="full",
        help="LBR's actions per round: full (default: fc/fcp/fcpa/fcpa, LBR may fold before the flop), fcpa "
        "(the paper's c/c/fcpa/fcpa), fcpa56 (56 turn/river sizes), fc (fold/call), or one code a round "
        "separated by '/' (c, fc, fcp, fca, fcpa, fcpa56)",
    )
    lb.add_argument("--hands", type=int, default=1000, help="hands, LBR's seat alternating (default 1,000)")
    lb.add_argument("--seed", type=int, default=0, help="the deals' and the strategy's seed")
    lb.add_argument("--workers", type=int, default=1, help="processes playing hands in parallel")
    lb.add_argument("--out", default="lbr-results", help="hands.jsonl (resumable) and summary.json go here")
    lb.add_argument(
        "--solve-round",
        type=int,
        default=3,
        choices=[3, 4],
        help="the agent's first solving round: 3 turn (default), 4 river",
    )
    lb.add_argument("--solve-seconds", type=float, default=2.0, help="the agent's solve deadline (default 2)")
    _turn_solver_options(lb)
    lb.add_argument("--json", action="store_true", help="print the summary as JSON")
    lb.add_argument("--no-progress", action="store_true", help="no progress on stderr")
    lb.set_defaults(func=_cmd_lbr)

    sl = sub.add_parser("slumbot", help="play a strategy against Slumbot's public API (resumable)")
    sl.add_argument(
        "--hands", type=_positive, default=1000, help="hands in all, those already played included (default 1,000)"
    )
    sl.add_argument("--strategy", default="libratus", choices=sorted(STRATEGIES), help="ours (default libratus)")
    sl.add_argument("--blueprint", default=None, help="its blueprint store (default: blueprints/default.bp)")
    sl.add_argument("--seed", type=int, default=0, help="our strategy's seed")
    sl.add_argument(
        "--username",
        default=None,
        help="a Slumbot account (results on its leaderboard); password from $SLUMBOT_PASSWORD or asked for",
    )
    sl.add_argument("--base-url", default="https://slumbot.com", help="the server (default https://slumbot.com)")
    sl.add_argument("--rate", type=float, default=2.0, help="at most this many requests a second (default 2)")
    sl.add_argument("--timeout", type=float, default=30.0, help="seconds to wait for an answer (default 30)")
    sl.add_argument("--out", default="slumbot-results", help="hands.jsonl, slumbot.log, strategy.jsonl, summary.json")
    sl.add_argument(
        "--solve-round", type=int, default=3, choices=[3, 4], help="libratus/unsafe: solve from the turn (3), river (4)"
    )
    sl.add_argument("--solve-seconds", type=float, default=2.0, help="libratus/unsafe: a solve's deadline (default 2)")
    _turn_solver_options(sl)
    sl.add_argument("--workers", type=_non_negative, default=0, help="libratus/unsafe: solver processes (default 0)")
    sl.add_argument("--threads", type=_positive, default=1, help="libratus/unsafe: solver threads (default 1)")
    sl.add_argument("--json", action="store_true", help="print the summary as JSON")
    sl.add_argument("--no-progress", action="store_true", help="no progress bar")
    sl.set_defaults(func=_cmd_slumbot)

    ld = sub.add_parser(
        "ladder",
        help="the strength table: duplicate matches with common random numbers and AIVAT, in resumable chunks, pooled",
    )
    ld.add_argument(
        "--rows",
        default="all",
        help="'all' (default: the agent, the river-only agent and the blueprint against each other and the "
        "benchmark bots), 'main' (the first three), row numbers, or 'A vs B' items, separated by commas",
    )
    ld.add_argument("--pairs", type=_positive, default=100, help="deal pairs per chunk (default 100: 200 hands)")
    ld.add_argument("--chunks", type=_non_negative, default=1, help="new chunks per row in this run (default 1)")
    ld.add_argument(
        "--seeds",
        default="1",
        help="the seeds chunks may take: FIRST-LAST or FIRST (default 1); disjoint ranges on different machines",
    )
    ld.add_argument(
        "--parallel",
        type=_positive,
        default=max(1, os.cpu_count() or 1),
        help="chunks played at once on this machine (default: the cores); 1 plays both seat orders at once",
    )
    ld.add_argument("--ray", default=None, metavar="ADDRESS", help="run chunks as tasks on a Ray cluster ('auto')")
    ld.add_argument("--blueprint", default=None, help="the store our strategies play (default: blueprints/default.bp)")
    ld.add_argument("--game", default=DEFAULT_GAME, help=f"game file or bundled game name (default {DEFAULT_GAME})")
    _dealer_limit_options(ld, "the dealer's")
    ld.add_argument("--out", default="ladder", help="the ladder's directory: a row per folder, a chunk per seed")
    ld.add_argument("--target", type=float, default=100.0, help="the interval to plan for, mbb/hand (default 100)")
    ld.add_argument("--report", action="store_true", help="print the pooled table without playing")
    ld.add_argument("--json", action="store_true", help="print the table as JSON")
    ld.add_argument("--no-progress", action="store_true", help="one line per chunk instead of a bar")
    ld.set_defaults(func=_cmd_ladder)

    w2 = sub.add_parser(
        "web", help="play against a strategy yourself in a browser: pokerbot web, then open the address"
    )
    w2.add_argument(
        "--strategy",
        default="libratus",
        help="the bot: a strategy, optionally with options of pokerbot play (e.g. 'libratus --solve-round 4'); "
        "default libratus",
    )
    w2.add_argument(
        "--blueprint",
        default=None,
        metavar="PATH",
        help="blueprint store for libratus, unsafe, blueprint and prober (default $POKERBOT_BLUEPRINT, else "
        "blueprints/default.bp, the quick one trained first if missing)",
    )
    w2.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    w2.add_argument("--port", type=_port, default=8000, help="port (default 8000)")
    w2.add_argument("--hands", type=_positive, default=1000, help="hands per sitting (default 1000)")
    w2.add_argument("--seed", type=int, default=None, help="card seed of the first sitting (default from the clock)")
    w2.add_argument("--game", default=DEFAULT_GAME, help=f"game file or bundled game name (default {DEFAULT_GAME})")
    w2.add_argument(
        "--out",
        default="web-sittings",
        help="directory for each sitting's dealer log and bot log (default web-sittings)",
    )
    _dealer_limit_options(w2, "the bot's")
    w2.add_argument(
        "--no-train", action="store_true", help="fail instead of training the quick blueprint when there is none"
    )
    w2.add_argument(
        "--log-level",
        default="warning",
        choices=["debug", "info", "warning", "error"],
        help="JSON log level on stderr (default warning)",
    )
    w2.set_defaults(func=_cmd_web)

    bi = sub.add_parser("blueprint", help="inspect a blueprint store: pokerbot blueprint info PATH")
    bi.add_argument("action", choices=["info"], help="what to do")
    bi.add_argument("path", help="the store")
    bi.add_argument("--verify", action="store_true", help="also check every array's checksum (reads the whole file)")
    bi.add_argument(
        "--hands",
        default="AA,KK,AKs,AKo,QJs,T9s,72o,32o",
        help="hands whose opening strategy to print (default AA,KK,AKs,AKo,QJs,T9s,72o,32o)",
    )
    bi.set_defaults(func=_cmd_blueprint)

    g = sub.add_parser("games", help=f"list the bundled games, or print one (default game: {DEFAULT_GAME})")
    g.add_argument("name", nargs="?", help="a bundled game name or a game file to print")
    g.set_defaults(func=_cmd_games)
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["dealer"]:  # its own command line, the reference dealer's
        from pokerbot.protocol.dealer import main as dealer_main

        return dealer_main(argv[1:])
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
