"""Training a hold'em blueprint: card abstraction, betting tree, MCCFR, the store.

``train_blueprint(preset, out)`` builds the card abstraction (or reuses the one a
checkpoint holds), trains external-sampling MCCFR on all cores for the preset's time
budget, and writes the store. The schedule follows Pluribus in proportion to the
budget: linear discounting at every 2 % of the budget during the first 20 %, pruning
after the first 20 % (the Libratus rule is after half the iterations; Pluribus prunes
after 200 of its 8 days). Checkpoints (regrets, weights, iterations, random state)
are written every few minutes next to the output and resumed with ``resume=True``.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace

import numpy as np

from pokerbot.protocol.gamedef import GameDef, bundled_game
from pokerbot.solver.betting_tree import build_betting_tree
from pokerbot.solver.mccfr import MCCFR, MCCFRSettings
from pokerbot.solver.mccfr_shards import ShardedMCCFR, plan_shards

from .abstraction import CardAbstraction, CardAbstractionSpec, HoldemDeals, Progress, build_card_abstraction
from .actions import PRESET_ACTIONS, ActionAbstraction
from .store import BlueprintContents, write_blueprint
from .training_memory import available_memory, training_memory, verify_memory_fits


class TrainingStopped(Exception):
    """Training was asked to stop (``train_blueprint``'s ``stop``); a checkpoint of the
    iterations done was written first, and ``resume`` goes on from it."""

    def __init__(self, iterations: int, seconds: float) -> None:
        super().__init__(f"stopped at {iterations:,} iterations ({seconds:.0f} s trained); --resume goes on from there")
        self.iterations = iterations
        self.seconds = seconds


@dataclass(frozen=True)
class Preset:
    name: str
    cards: CardAbstractionSpec
    actions: ActionAbstraction
    seconds: float  # training time budget (the card abstraction comes on top)
    batch: int = 20_000  # iterations between schedule checks (discounting, pruning, the clock)
    prune_threshold: float = -300_000_000.0
    regret_floor: int = -310_000_000


PRESETS = {
    "tiny": Preset(
        "tiny",
        CardAbstractionSpec(
            buckets=(169, 20, 20, 20),
            bins=8,
            flop_runouts=30,
            turn_runouts=3,
            fit_flop_boards=100,
            fit_turn_boards=300,
            kmeans_iterations=8,
        ),
        PRESET_ACTIONS["tiny"],
        seconds=12.0,
        batch=20_000,
        prune_threshold=-3_000_000.0,
        regret_floor=-3_100_000,
    ),
    "default": Preset(
        "default",
        CardAbstractionSpec(
            buckets=(169, 200, 200, 200),
            bins=16,
            flop_runouts=0,
            turn_runouts=0,
            fit_flop_boards=400,
            fit_turn_boards=1500,
        ),
        PRESET_ACTIONS["default"],
        seconds=50 * 60.0,
        batch=50_000,
        prune_threshold=-30_000_000.0,
        regret_floor=-31_000_000,
    ),
    # for a 16-64-core machine overnight; the arithmetic is in docs/cluster.md: 708 M slots,
    # 5.7 GB of regrets and weights, about 9 GB at the peak, a 2.8 GB store
    "large": Preset(
        "large",
        CardAbstractionSpec(
            buckets=(169, 1000, 1000, 1000),
            bins=16,
            flop_runouts=0,
            turn_runouts=0,
            fit_flop_boards=1000,
            fit_turn_boards=3000,
        ),
        PRESET_ACTIONS["large"],
        seconds=8 * 3600.0,
        batch=100_000,
        prune_threshold=-100_000_000.0,
        regret_floor=-103_000_000,
    ),
}


#: the default with other bet sizes (PRESET_ACTIONS): an opponent of another action
#: abstraction, for measuring the agent against off-tree bets (docs/evaluation.md)
PRESETS["other-sizes"] = replace(PRESETS["default"], name="other-sizes", actions=PRESET_ACTIONS["other-sizes"])


def _checkpoint_dir(out: str) -> str:
    return out + ".ckpt"


def _save_cards(path: str, cards: CardAbstraction) -> None:
    tmp = path + ".tmp.npz"
    np.savez(tmp, preflop=cards.preflop, flop=cards.flop, turn=cards.turn, spec=json.dumps(cards.spec.as_dict()))
    os.replace(tmp, path)


def _load_cards(path: str, spec: CardAbstractionSpec) -> CardAbstraction | None:
    if not os.path.exists(path):
        return None
    with np.load(path) as z:
        saved = json.loads(str(z["spec"]))
        if saved != json.loads(json.dumps(spec.as_dict())):
            return None
        return CardAbstraction(spec, z["preflop"], z["flop"], z["turn"])


def train_blueprint(
    preset: Preset | str,
    out: str,
    threads: int | None = None,
    seconds: float | None = None,
    resume: bool = False,
    seed: int = 0,
    checkpoint_seconds: float = 300.0,
    game: GameDef | None = None,
    log: Callable[[str], None] = print,
    progress: Progress | None = None,
    ray: str | None = None,
    shards: int | None = None,
    shard_batch: int = 2_000,
    check_memory: bool = True,
    stop: Callable[[], bool] | None = None,
    iterations: int | None = None,
) -> dict:
    """Train and write the store at ``out``; returns the training figures. The budget is
    ``seconds`` of training (default: the preset's), or with ``iterations`` that many
    MCCFR iterations (the same schedule on any machine and under any load). Messages go
    to ``log``; with ``progress`` the card abstraction's boards and the seconds trained
    go there instead of into periodic log lines. With ``ray`` (a cluster address,
    "auto", or "local" for one started here on ``threads`` CPUs) MCCFR runs sharded on
    Ray actors (``ray_train``): ``shards`` of them (default: the cluster's CPUs), the
    first round's strategy updated every ``shard_batch`` iterations. Before anything
    large is allocated, the memory the run needs (``training_memory``) is logged and,
    with ``check_memory``, a machine without it is refused (MemoryError). ``stop`` is
    asked between batches: once it says yes, the checkpoint is written and
    TrainingStopped raised (no store)."""
    if isinstance(preset, str):
        if preset not in PRESETS:
            raise ValueError(f"unknown preset {preset!r}; presets: {', '.join(PRESETS)}")
        preset = PRESETS[preset]
    game = game or bundled_game("holdem.nolimit.2p")
    if game.num_rounds != 4 or not game.is_nolimit or game.num_hole_cards != 2:
        raise ValueError("blueprints are trained for no-limit hold'em games (four rounds, two hole cards)")
    threads = threads or os.cpu_count() or 1
    if iterations is not None and (iterations < 1 or seconds is not None):
        raise ValueError("the budget is seconds or a positive number of iterations, not both")
    budget = preset.seconds if seconds is None else seconds
    ckpt = _checkpoint_dir(out)
    os.makedirs(ckpt, exist_ok=True)
    cards_path = os.path.join(ckpt, "cards.npz")
    state_path = os.path.join(ckpt, "state.npz")
    spec = replace(preset.cards, seed=seed)
    t_start = time.perf_counter()
    tree = build_betting_tree(game, preset.actions.sizes(), spec.buckets)
    need = training_memory(tree, spec)
    log(
        f"betting tree: {tree.num_nodes:,} nodes, {tree.num_decisions:,} decisions, {tree.num_slots:,} slots; "
        f"training needs about {need.describe()}"
    )
    if check_memory:  # before hours of card abstraction
        verify_memory_fits(need, available_memory())
    if ray is not None:  # reach the cluster before hours of card abstraction
        from .ray_train import connect

        connect(ray, num_cpus=threads)
    cards = _load_cards(cards_path, spec) if resume else None
    if cards is None:
        log(f"building the card abstraction (buckets {spec.buckets})")
        cards = build_card_abstraction(spec, log=log, progress=progress)
        _save_cards(cards_path, cards)
        log(f"card abstraction built in {cards.build_seconds:.0f} s")
    else:
        log("card abstraction reused from the checkpoint")
    if ray is not None:
        return _train_sharded(
            preset, out, game, cards, tree, ray, shards, shard_batch, threads, budget, resume, seed,
            checkpoint_seconds, log, progress, t_start, ckpt, stop, iterations,
        )  # fmt: skip
    solver = mccfr_solver(tree, game, preset.prune_threshold, preset.regret_floor, seed)
    elapsed_before = 0.0
    if resume and os.path.exists(state_path):
        with np.load(state_path, allow_pickle=False) as z:
            if z["regret"].shape != solver.regret.shape:
                raise ValueError(f"checkpoint {state_path} is for another tree")
            solver.regret[:] = z["regret"]
            solver.phi[:] = z["phi"]
            solver.iterations = int(z["iterations"])
            solver.nodes_touched = int(z["nodes_touched"])
            elapsed_before = float(z["elapsed"])
            solver.rng.bit_generator.state = json.loads(str(z["rng"]))
        log(f"resumed at {solver.iterations:,} iterations, {elapsed_before:.0f} s trained")
    deals = HoldemDeals(cards, threads=threads)
    solver.load_kernels(deals, threads)  # the budget is training time, not compiling
    elapsed = run_schedule(
        solver,
        deals,
        budget,
        preset.batch,
        threads,
        log,
        elapsed_before,
        lambda e: _save_state(state_path, solver, e),
        checkpoint_seconds,
        progress=progress,
        stop=stop,
        iterations=iterations,
    )
    _save_state(state_path, solver, elapsed)
    figures = _figures(preset, seed, solver, elapsed, elapsed_before, threads, cards, t_start)
    strategy = solver.average_strategy(np.float32)
    return _write_store(out, game, preset, cards, tree, strategy, figures, log)


def _figures(
    preset: Preset,
    seed: int,
    solver: MCCFR | ShardedMCCFR,
    elapsed: float,
    elapsed_before: float,
    threads: int,
    cards: CardAbstraction,
    t_start: float,
    **extra,
) -> dict:
    """The training figures a store's header keeps."""
    return {
        "preset": preset.name,
        "seed": seed,
        "iterations": solver.iterations,
        "train_seconds": elapsed,
        "threads": threads,
        **extra,
        "nodes_touched": solver.nodes_touched,
        "nodes_per_second": solver.nodes_touched / max(elapsed - elapsed_before, 1e-9) if solver.nodes_touched else 0,
        "card_abstraction_seconds": cards.build_seconds,
        "total_seconds": time.perf_counter() - t_start,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "mccfr": asdict(solver.settings),
    }


def _write_store(
    out: str,
    game: GameDef,
    preset: Preset,
    cards: CardAbstraction,
    tree,
    strategy: np.ndarray,
    figures: dict,
    log: Callable[[str], None],
) -> dict:
    write_blueprint(out, BlueprintContents(game, preset.actions, cards, tree, strategy, figures))
    log(
        f"wrote {out} ({os.path.getsize(out) / 1e6:.0f} MB): {figures['iterations']:,} iterations in "
        f"{figures['train_seconds']:.0f} s"
    )
    return figures


def blueprint_settings(prune_threshold: float, regret_floor: int) -> MCCFRSettings:
    """The blueprint's MCCFR settings: Libratus's pruning constant K derived from the
    threshold and floor (the 2 % chained-probability floor)."""
    return MCCFRSettings(
        prune_threshold=prune_threshold,
        regret_floor=regret_floor,
        prune_k=(prune_threshold - regret_floor) * 0.05 / 0.95,
    )


def mccfr_solver(tree, game: GameDef, prune_threshold: float, regret_floor: int, seed: int) -> MCCFR:
    """MCCFR with the blueprint settings (``blueprint_settings``)."""
    return MCCFR(tree, game.big_blind, blueprint_settings(prune_threshold, regret_floor), seed=seed)


def _train_sharded(
    preset: Preset,
    out: str,
    game: GameDef,
    cards: CardAbstraction,
    tree,
    address: str,
    shards: int | None,
    shard_batch: int,
    threads: int,
    budget: float,
    resume: bool,
    seed: int,
    checkpoint_seconds: float,
    log: Callable[[str], None],
    progress: Progress | None,
    t_start: float,
    ckpt: str,
    stop: Callable[[], bool] | None = None,
    iterations: int | None = None,
) -> dict:
    """``train_blueprint`` on Ray (see ``ray_train``)."""
    import ray as ray_module

    from .ray_train import RayShards, ShardCheckpoints, batch_bytes, connect

    connect(address, num_cpus=threads)
    shards = shards or max(1, int(ray_module.cluster_resources().get("CPU", 1)))
    plan = plan_shards(tree, shards)
    per = ", ".join(f"{plan.memory_bytes(k) / 1e6:.1f}" for k in range(shards))
    sent = batch_bytes(plan, shard_batch)
    log(
        f"sharded on Ray ({address}): {shards} shards of {per} MB; the head {8 * plan.head_slots / 1e6:.2f} MB; "
        f"per batch of {shard_batch:,} iterations {sent['to_each_node'] / 1e6:.2f} MB to each node, "
        f"{sent['from_each_shard'] / 1e3:.0f} kB back from each shard"
    )
    pool = RayShards(tree, plan, game.big_blind)
    try:
        solver = ShardedMCCFR(
            tree, game.big_blind, plan, pool, blueprint_settings(preset.prune_threshold, preset.regret_floor), seed
        )
        solver.max_batch = shard_batch
        checkpoints = ShardCheckpoints(os.path.join(ckpt, f"shards-{shards}"), solver, log)
        elapsed_before = 0.0
        if resume and checkpoints.exists():
            elapsed_before = checkpoints.load()
            log(f"resumed at {solver.iterations:,} iterations, {elapsed_before:.0f} s trained")
        else:
            checkpoints.save(0.0)
        solver.on_lost = checkpoints.recover
        deals = HoldemDeals(cards, threads=1)
        elapsed = run_schedule(
            solver,
            deals,
            budget,
            shard_batch,  # the clock is read between batches
            1,
            log,
            elapsed_before,
            checkpoints.save,
            checkpoint_seconds,
            progress=progress,
            stop=stop,
            iterations=iterations,
        )
        checkpoints.save(elapsed)
        strategy = solver.average_strategy(np.float32)
    finally:
        pool.close()
    ray_figures = {"address": address, "shards": shards, "shard_batch": shard_batch}
    figures = _figures(preset, seed, solver, elapsed, elapsed_before, 1, cards, t_start, ray=ray_figures)
    return _write_store(out, game, preset, cards, tree, strategy, figures, log)


def run_schedule(
    solver: MCCFR | ShardedMCCFR,
    deals: HoldemDeals,
    budget: float,
    batch: int,
    threads: int,
    log: Callable[[str], None],
    elapsed_before: float = 0.0,
    checkpoint: Callable[[float], None] | None = None,
    checkpoint_seconds: float = 300.0,
    progress_seconds: float = 10.0,
    progress: Progress | None = None,
    stop: Callable[[], bool] | None = None,
    iterations: int | None = None,
) -> float:
    """Train for ``budget`` seconds (counting ``elapsed_before``), or with ``iterations``
    until the solver has made that many, on the Pluribus schedule scaled to the budget:
    linear discounting every 2 % during the first 20 %, pruning after 20 % (fractions of
    the seconds, or of the iterations). A progress line every ``progress_seconds`` (a
    small tree runs a batch of iterations in a fraction of a second: a line per batch
    floods the terminal), or with ``progress`` the seconds (iterations) trained after
    every batch; ``checkpoint(elapsed)`` every ``checkpoint_seconds``, and before
    raising TrainingStopped once ``stop()`` says yes (asked between batches). Returns
    the seconds trained in all."""
    t0 = time.perf_counter() - elapsed_before
    total, unit = (budget, "s") if iterations is None else (float(iterations), "iterations")

    def spent(elapsed: float) -> float:
        return elapsed if iterations is None else float(solver.iterations)

    discount_every = total * 0.02
    discount_until = total * 0.2
    prune_at = total * 0.2
    done = spent(elapsed_before)
    next_discount = (int(done / discount_every) + 1) * discount_every if discount_every > 0 else total
    last_ckpt = last_log = time.perf_counter()
    nodes_at_log = solver.nodes_touched
    while True:
        elapsed = time.perf_counter() - t0
        if spent(elapsed) >= total:
            break
        if spent(elapsed) >= prune_at and not solver.settings.prune_after:
            solver.settings = replace(solver.settings, prune_after=max(1, solver.iterations))
            log(f"pruning from iteration {solver.iterations:,}")
        n = batch if iterations is None else min(batch, iterations - solver.iterations)
        solver.train(deals, n, batch=batch, threads=threads)
        elapsed = time.perf_counter() - t0
        while spent(elapsed) >= next_discount and next_discount <= discount_until:
            k = next_discount / discount_every
            solver.discount(k / (k + 1.0))
            next_discount += discount_every
        if stop is not None and stop():
            if checkpoint is not None:
                checkpoint(elapsed)
            raise TrainingStopped(solver.iterations, elapsed)
        now = time.perf_counter()
        if progress is not None:
            progress("MCCFR", min(spent(elapsed), total), total, unit, f"{solver.iterations:,} iterations")
        elif now - last_log >= progress_seconds or spent(elapsed) >= total:
            rate = (solver.nodes_touched - nodes_at_log) / max(now - last_log, 1e-9)
            left = f"{iterations - solver.iterations:,}" if iterations else f"{max(0.0, budget - elapsed):.0f} s"
            log(
                f"{solver.iterations:,} iterations, {rate / 1e6:.1f} M nodes/s "
                f"({rate / threads / 1e6:.1f} M per core), "
                f"{elapsed:.0f} s, {left} left"
            )
            last_log, nodes_at_log = now, solver.nodes_touched
        if checkpoint is not None and time.perf_counter() - last_ckpt >= checkpoint_seconds:
            checkpoint(elapsed)
            last_ckpt = time.perf_counter()
    if progress is not None:
        progress("MCCFR", total, total, unit, f"{solver.iterations:,} iterations")
    return time.perf_counter() - t0


def _save_state(path: str, solver: MCCFR, elapsed: float) -> None:
    tmp = path + ".tmp.npz"
    np.savez(
        tmp,
        regret=solver.regret,
        phi=solver.phi,
        iterations=solver.iterations,
        nodes_touched=solver.nodes_touched,
        elapsed=elapsed,
        rng=json.dumps(solver.rng.bit_generator.state),
    )
    os.replace(tmp, path)
