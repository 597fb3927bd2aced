"""``pokerbot match``: play two players against each other on our dealer and report.

A player is a strategy name (run as ``pokerbot play``) or any command line following
the ``<program> <host> <port>`` convention (host and port are appended). The runner
starts the dealer in this process, the players as subprocesses, and reads the dealer's
log when the match is over. It reports, per player, milli-big-blinds per hand with a
95 % confidence interval, raw and all-in adjusted (a hand where both were all-in before
the last card is scored by its expected value over every remaining board). With
``--duplicate`` the same cards are played again with the seats swapped and the paired
result is reported. A JSON summary and a PNG chart of cumulative winnings are written
to the output directory.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import re
import shlex
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import structlog

from pokerbot.bot.cores import share_of_cpus, usable_cpus
from pokerbot.bot.evaluation.match_log import HandResult, player_series, read_match_log
from pokerbot.bot.evaluation.stats import Z95, summarize
from pokerbot.bot.progress import ProgressBar, format_duration
from pokerbot.bot.strategies import STRATEGIES
from pokerbot.protocol.dealer import (
    DEFAULT_SPIN_US,
    DEFAULT_T_HAND_MS,
    DEFAULT_T_PER_HAND_MS,
    DEFAULT_T_RESPONSE_MS,
    Dealer,
    DealerConfig,
)
from pokerbot.protocol.gamedef import GameDef

log = structlog.get_logger("match")

#: The most characters of a player's spec in its name (``PlayerSpec.name``).
NAME_CHARS = 40


#: Our strategies that solve (they take ``--threads``).
AGENTS = ("libratus", "unsafe")


@dataclass
class PlayerSpec:
    label: str  # "A" or "B"
    spec: str  # a strategy name or a command line
    #: an agent's solver threads when its spec names none (a match's share of the CPUs,
    #: ``agent_threads``); None leaves it to ``pokerbot play``'s default, every CPU
    threads: int | None = None

    @property
    def strategy(self) -> str | None:
        """Our strategy's name when the spec is one of them, alone or followed by
        options of ``pokerbot play`` (e.g. ``"libratus --solve-round 4"``); else None."""
        words = shlex.split(self.spec)
        return words[0] if words and words[0] in STRATEGIES else None

    @property
    def asked_threads(self) -> int | None:
        """The solver threads an agent's spec names (``--threads N``, or ``auto``: the
        CPUs this process may use); None where it names none or is not an agent."""
        if self.strategy not in AGENTS:
            return None
        words = shlex.split(self.spec)
        threads = None
        for i, w in enumerate(words):
            value = words[i + 1] if w == "--threads" and i + 1 < len(words) else w.removeprefix("--threads=")
            if (w == "--threads" or w.startswith("--threads=")) and value.isdigit():
                threads = max(1, int(value))
            elif (w == "--threads" or w.startswith("--threads=")) and value == "auto":
                threads = usable_cpus()
        return threads

    @property
    def solver_threads(self) -> int | None:
        """The solver threads an agent (``libratus`` or ``unsafe``) solves on: those its
        spec names, else ``threads``, else every CPU (``pokerbot play``'s default); None
        for any other player."""
        if self.strategy not in AGENTS:
            return None
        asked = self.asked_threads
        if asked is not None:
            return asked
        return self.threads if self.threads is not None else usable_cpus()

    @property
    def takes_share(self) -> bool:
        """An agent whose spec names no threads, given ``threads`` by its match."""
        return self.threads is not None and self.strategy in AGENTS and self.asked_threads is None

    @property
    def name(self) -> str:
        """The name the dealer logs: label plus a sanitised short form of the spec (at
        most NAME_CHARS characters: a longer one keeps its start and its end, where a
        store's file name is, joined by ``..``)."""
        base = self.spec if self.strategy is not None else os.path.basename(shlex.split(self.spec)[0])
        short = re.sub(r"[^A-Za-z0-9_.-]", "_", base)
        if len(short) > NAME_CHARS:
            head = NAME_CHARS // 2 - 1
            short = short[:head] + ".." + short[-(NAME_CHARS - head - 2) :]
        return f"{self.label}-{short}"

    def command(
        self,
        host: str,
        port: int,
        game_file: str,
        seed: int,
        limits: dict | None = None,
        strategy_log: str | None = None,
    ) -> list[str]:
        """How to start this player; our strategies are told the dealer's time limits
        and, with ``strategy_log``, log their strategy at every decision (for AIVAT)."""
        if self.strategy is not None:
            told = [
                f"--{k}={v}" for k, v in sorted((limits or {}).items()) if k in ("t_response", "t_hand", "t_per_hand")
            ]
            return [
                sys.executable,
                "-m",
                "pokerbot.bot.cli",
                "play",
                host,
                str(port),
                "--strategy",
                self.strategy,
                "--game",
                game_file,
                "--seed",
                str(seed),
                *told,
                *shlex.split(self.spec)[1:],
                *(["--threads", str(self.threads)] if self.takes_share else []),
                *(["--strategy-log", strategy_log] if strategy_log else []),
            ]
        return shlex.split(self.spec) + [host, str(port)]

    @property
    def ours(self) -> bool:
        """One of our strategies (it can log its strategy), not an outside program."""
        return self.strategy is not None


@dataclass
class MatchRun:
    name: str
    seats: list[PlayerSpec]
    status: int
    error: str | None
    hands: list[HandResult]
    score_line: str | None
    seconds: float
    log_path: str
    started: float = 0.0  # wall clock (epoch seconds) when play began


#: How long a match waits for its players to connect. A player compiles its numba
#: kernels before connecting the first time it runs on a machine (about a minute for the
#: Libratus agent on 2 busy cores); a player that dies first ends the match at once
#: (its exit is watched), so the wait can be long.
START_TIMEOUT_MS = 600_000


async def play_match(
    game: GameDef,
    game_file: str,
    hands: int,
    seed: int,
    seats: list[PlayerSpec],
    out_dir: str,
    name: str,
    limits: dict | None = None,
    host: str = "127.0.0.1",
    equity_cache: dict | None = None,
    common_random_numbers: bool = False,
    spin_us: int = DEFAULT_SPIN_US,
    read_log: bool = True,
    on_start: Callable[[Dealer, int], None] | None = None,
    strategy_logs: bool = False,
) -> MatchRun:
    """One match on our dealer with the players as subprocesses. Player A gets the
    seed ``seed``, B ``seed + 1``, unless ``common_random_numbers``: then both get
    ``seed`` (see ``run``). ``spin_us``: the dealer's polling for replies (0 when
    another dealer shares the event loop: polling blocks it). ``read_log`` False
    leaves the hands to the caller (``MatchRun.hands`` empty): reading a long log
    blocks the event loop too. ``on_start(dealer, seat)`` is told the dealer and the
    seat of player A once the match starts (for progress). ``strategy_logs``: our
    players log their strategy at every decision to ``strategy_log_path``."""
    limits = limits or {}
    cfg = DealerConfig(
        match_name=os.path.join(out_dir, name),
        game_file=game_file,
        num_hands=hands,
        seed=seed,
        names=(seats[0].name, seats[1].name),
        quiet=True,
        t_response_ms=limits.get("t_response", DEFAULT_T_RESPONSE_MS),
        t_hand_ms=limits.get("t_hand", DEFAULT_T_HAND_MS),
        t_per_hand_ms=limits.get("t_per_hand", DEFAULT_T_PER_HAND_MS),
        start_timeout_ms=limits.get("start_timeout", START_TIMEOUT_MS),
        host=host,
        spin_us=spin_us,
    )
    with open(os.path.join(out_dir, f"{name}.dealer.out"), "w") as dealer_out:
        dealer = Dealer(cfg, game, stdout=dealer_out)
        ports = await dealer.listen()
        procs = []
        for seat, port in zip(seats, ports):
            err = open(os.path.join(out_dir, f"{name}.{seat.name}.stderr"), "w")
            slog = strategy_log_path(out_dir, name, seat) if strategy_logs and seat.ours else None
            if slog is not None and os.path.exists(slog):
                os.remove(slog)  # the player appends: never mix in an older run's decisions
            try:
                procs.append(
                    await asyncio.create_subprocess_exec(
                        *seat.command(
                            host,
                            port,
                            game_file,
                            seed + (0 if seat.label == "A" or common_random_numbers else 1),
                            {"t_response": cfg.t_response_ms, "t_hand": cfg.t_hand_ms, "t_per_hand": cfg.t_per_hand_ms},
                            slog,
                        ),
                        stdin=asyncio.subprocess.DEVNULL,
                        stdout=err,
                        stderr=err,
                    )
                )
            except OSError as e:
                raise RuntimeError(f"cannot start player {seat.spec!r}: {e}") from None
            finally:
                err.close()
        t0 = time.monotonic()
        started = time.time()
        if on_start is not None:
            on_start(dealer, 0 if seats[0].label == "A" else 1)
        dealer_task = asyncio.create_task(dealer.run())
        waits = {asyncio.create_task(p.wait()): seat for p, seat in zip(procs, seats)}
        pending = set(waits) | {dealer_task}
        while not dealer_task.done():
            done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            for w in done:
                if w is not dealer_task and not dealer_task.done():
                    # A player that exits while the match runs has failed: stop now.
                    await asyncio.sleep(0.5)  # unless the dealer is just finishing
                    if not dealer_task.done():
                        dealer.abort_reason(f"player {waits[w].name} exited with status {w.result()}")
                        dealer_task.cancel()
        status = await dealer_task
        for w in pending:
            w.cancel()
        seconds = time.monotonic() - t0
    for p in procs:
        try:
            await asyncio.wait_for(p.wait(), 15)
        except TimeoutError:
            p.kill()
            await p.wait()
    log_path = cfg.match_name + ".log"
    results, score = read_match_log(log_path, game, cache=equity_cache) if read_log else ([], None)
    return MatchRun(name, seats, status, dealer.result.error, results, score, seconds, log_path, started)


def strategy_log_path(out_dir: str, match_name: str, seat: PlayerSpec) -> str:
    return os.path.join(out_dir, f"{match_name}.{seat.name}.strategy.jsonl")


def hands_logged(out_dir: str) -> int:
    """Hands finished so far in the dealer logs of a match's output directory (both seat
    orders of a duplicate match); 0 before the match starts."""
    n = 0
    for name in ("match1.log", "match2.log"):
        try:
            with open(os.path.join(out_dir, name), "rb") as f:
                n += sum(1 for line in f if line.startswith(b"STATE:"))
        except OSError:
            pass
    return n


def follow_logs(bar: ProgressBar, out_dirs: list[str], stop: threading.Event, interval: float = 5.0) -> None:
    """Redraw ``bar`` with the hands logged in ``out_dirs`` (matches played by other
    processes) every ``interval`` seconds until ``stop`` is set; run it in a thread."""
    while not stop.wait(interval):
        bar.update(sum(hands_logged(d) for d in out_dirs))


class MatchProgress:
    """Hands played across the matches of a run and player A's running raw result in
    mbb/hand with its 95 % interval, drawn on a ProgressBar while the matches play."""

    def __init__(
        self,
        total_hands: int,
        big_blind: int,
        label: str,
        bar: ProgressBar | None = None,
        start: float | None = None,
        starting: Callable[[], str | None] | None = None,
    ) -> None:
        self.bar = bar or ProgressBar(total_hands, "hands", label=label)
        self.big_blind = big_blind
        self.dealers: list[tuple[Dealer, int]] = []
        self.start = time.monotonic() if start is None else start
        self.starting = starting  # before the first hand: what else is getting ready (None: nothing)

    def add(self, dealer: Dealer, seat: int) -> None:
        """A match that started, with player A's seat in it."""
        self.dealers.append((dealer, seat))

    def status(self, now: float | None = None) -> tuple[int, str]:
        """Hands done, and A's result so far; before the first hand, how long the
        players have been starting (a first run compiles the agent's kernels)."""
        n = sum(d.result.completed_hands for d, _ in self.dealers)
        if n == 0:
            waited = (time.monotonic() if now is None else now) - self.start
            also = self.starting() if self.starting is not None else None
            if also:
                return 0, f"starting the players, {format_duration(waited)}; {also}"
            return 0, f"starting the players, {format_duration(waited)} (they load the blueprint and their kernels)"
        if n < 2:
            return n, ""
        total = sum(d.result.totals[seat] for d, seat in self.dealers)
        squares = sum(d.result.squares[seat] for d, seat in self.dealers)
        mean = total / n
        variance = max(squares / n - mean * mean, 0.0) * n / (n - 1)
        scale = 1000.0 / self.big_blind
        return n, f"A {mean * scale:+,.0f} ± {Z95 * math.sqrt(variance / n) * scale:,.0f} mbb/hand (raw)"

    def update(self) -> None:
        done, status = self.status()
        self.bar.update(done, status)

    async def follow(self, interval: float = 0.5) -> None:
        """Redraw every ``interval`` seconds until cancelled."""
        while True:
            self.update()
            await asyncio.sleep(interval)

    def finish(self) -> None:
        done, status = self.status()
        self.bar.update(done, status)
        self.bar.finish()


def _player_report(run: MatchRun, spec: PlayerSpec, bb: int) -> dict:
    return {
        "name": spec.name,
        "spec": spec.spec,
        "raw": summarize(player_series(run.hands, spec.name), bb),
        "allin_adjusted": summarize(player_series(run.hands, spec.name, adjusted=True), bb),
    }


def headline_series(series: list[tuple[str, np.ndarray]]) -> str | None:
    """The label of the series a match's result is read from: the duplicate pair
    corrected by AIVAT, else the duplicate pair (all-in adjusted), else the first
    match's AIVAT, else its all-in adjusted result; None when no series has a hand."""

    def rank(label: str) -> int:
        if label.startswith("duplicate AIVAT"):
            return 0
        if label.startswith("duplicate"):
            return 1
        return 2 if label.endswith("AIVAT") else 3 if label.endswith("all-in adjusted") else 4

    labels = [label for label, values in series if len(values)]
    return min(labels, key=rank) if labels else None


def write_chart(path: str, series: list[tuple[str, np.ndarray]], big_blind: int, title: str) -> None:
    """Cumulative winnings (big blinds): the headline series (``headline_series``) in
    full with the 95 % band of a random walk with its observed mean and spread, the
    others faint and without bands, for comparison."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    headline = headline_series(series)
    fig, ax = plt.subplots(figsize=(9, 5), dpi=110)
    for label, chips in series:
        if not len(chips) or label == headline:
            continue
        bb = chips / big_blind
        ax.plot(np.arange(1, len(bb) + 1), np.cumsum(bb), label=label, linewidth=0.8, alpha=0.35)
    if headline is not None:  # drawn last, on top
        bb = dict(series)[headline] / big_blind
        n = np.arange(1, len(bb) + 1)
        ax.plot(n, np.cumsum(bb), label=f"{headline} (95 % band)", linewidth=2.0, color="black")
        if len(bb) > 1:
            mean, sd = bb.mean(), bb.std(ddof=1)
            spread = Z95 * sd * np.sqrt(n)
            ax.fill_between(n, n * mean - spread, n * mean + spread, color="black", alpha=0.15)
    ax.axhline(0, color="black", linewidth=0.6)
    ax.set_xlabel("hand")
    ax.set_ylabel("cumulative winnings of player A (big blinds)")
    ax.set_title(title)
    ax.legend(loc="best", fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def agent_threads(specs: tuple[str, str], concurrent: bool, cpus: int | None = None) -> int:
    """The solver threads of each agent of a match whose spec names none: ``cpus``
    (default: those this process may use) divided among the agents it runs at once
    (both seats' agents; twice as many with ``concurrent``), at least 1."""
    agents = sum(PlayerSpec(label, spec).strategy in AGENTS for label, spec in zip("AB", specs))
    return share_of_cpus(agents * (2 if concurrent else 1), cpus)


async def run(
    game: GameDef,
    game_file: str,
    hands: int,
    seed: int,
    specs: tuple[str, str],
    duplicate: bool,
    out_dir: str,
    limits: dict | None = None,
    common_random_numbers: bool = False,
    concurrent: bool = False,
    progress: bool = False,
    aivat: bool = False,
    starting: Callable[[], str | None] | None = None,
    cpus: int | None = None,
) -> dict:
    """Play the match (and with ``duplicate`` the second one, same cards, seats
    swapped) and write the summary. ``concurrent`` plays the two seat orders of a
    duplicate match at the same time (on two cores, half the wall time when the
    players compute, as solving agents do; the deals are the seed's either way).
    ``common_random_numbers`` gives both players one seed: players whose random choices
    are keyed by seed and situation (the blueprint player, the agent until it solves)
    then make the same choice in the same situation in both matches, so a duplicate pair differs only where the two
    strategies differ: the shared part of the hand cancels exactly instead of on
    average, which narrows the interval a lot (an unbiased estimate either way).
    ``progress`` draws the hands played and A's running result on stderr (before the
    first hand, with what ``starting`` says is still getting ready). ``aivat``:
    our players log their strategies and A's result is also given corrected by AIVAT
    (``aivat``; A must be one of our strategies), with a per-hand CSV. An agent whose
    spec names no ``--threads`` solves on its share of ``cpus`` (default: those this
    process may use; ``agent_threads``)."""
    os.makedirs(out_dir, exist_ok=True)
    share = agent_threads(specs, concurrent, cpus)
    a, b = PlayerSpec("A", specs[0], share), PlayerSpec("B", specs[1], share)
    if aivat and not a.ours:
        raise ValueError("AIVAT needs player A to be one of our strategies (it logs what it would do with every hand)")
    bb = game.big_blind
    cache: dict = {}
    crn = common_random_numbers
    if concurrent and not duplicate:
        raise ValueError("playing concurrently needs a duplicate match")
    follow = (
        MatchProgress(hands * (2 if duplicate else 1), bb, f"{a.spec} vs {b.spec}", starting=starting)
        if progress
        else None
    )
    on_start = follow.add if follow else None
    ticker = asyncio.create_task(follow.follow()) if follow else None
    try:
        if concurrent:
            both = await asyncio.gather(
                *(
                    play_match(
                        game,
                        game_file,
                        hands,
                        seed,
                        seats,
                        out_dir,
                        name,
                        limits,
                        common_random_numbers=crn,
                        strategy_logs=aivat,
                        spin_us=0,
                        read_log=False,
                        on_start=on_start,
                    )
                    for seats, name in (([a, b], "match1"), ([b, a], "match2"))
                ),
                return_exceptions=True,
            )
            for r in both:  # raised only once both have finished: no match is left running
                if isinstance(r, BaseException):
                    raise r
            runs: list[MatchRun] = []
            for r in both:
                assert not isinstance(r, BaseException)  # raised just above
                results, score = read_match_log(r.log_path, game, cache=cache)
                runs.append(replace(r, hands=results, score_line=score))
        else:
            runs = [
                await play_match(
                    game,
                    game_file,
                    hands,
                    seed,
                    [a, b],
                    out_dir,
                    "match1",
                    limits,
                    equity_cache=cache,
                    common_random_numbers=crn,
                    strategy_logs=aivat,
                    on_start=on_start,
                )
            ]
            if duplicate and runs[0].status == 0:
                runs.append(
                    await play_match(
                        game,
                        game_file,
                        hands,
                        seed,
                        [b, a],
                        out_dir,
                        "match2",
                        limits,
                        equity_cache=cache,
                        common_random_numbers=crn,
                        strategy_logs=aivat,
                        on_start=on_start,
                    )
                )
    finally:
        if ticker is not None and follow is not None:
            ticker.cancel()
            follow.finish()
    summary: dict = {
        "game": game_file,
        "hands": hands,
        "seed": seed,
        "players": {"A": a.spec, "B": b.spec},
        "common_random_numbers": crn,
        "matches": [],
        "ok": all(r.status == 0 for r in runs),
    }
    chart_series = []
    for r in runs:
        summary["matches"].append(
            {
                "name": r.name,
                "log": r.log_path,
                "seats": [s.name for s in r.seats],
                "status": r.status,
                "error": r.error,
                "score": r.score_line,
                "hands_played": len(r.hands),
                "started": round(r.started, 3),
                "seconds": round(r.seconds, 3),
                "A": _player_report(r, a, bb),
                "B": _player_report(r, b, bb),
            }
        )
        chart_series.append((f"{r.name} raw", player_series(r.hands, a.name)))
        chart_series.append((f"{r.name} all-in adjusted", player_series(r.hands, a.name, adjusted=True)))
    if len(runs) == 2 and len(runs[0].hands) == len(runs[1].hands):
        paired = {}
        for kind, adj in (("raw", False), ("allin_adjusted", True)):
            mean_of_seats = (player_series(runs[0].hands, a.name, adj) + player_series(runs[1].hands, a.name, adj)) / 2
            paired[kind] = summarize(mean_of_seats, bb)
        summary["duplicate"] = {"player": "A", **paired}
        chart_series.append(
            (
                "duplicate (A, mean of both seats)",
                (player_series(runs[0].hands, a.name, True) + player_series(runs[1].hands, a.name, True)) / 2,
            )
        )
    if aivat:
        chart_series += _aivat_report(summary, runs, game, a, b, out_dir, cache)
    with open(os.path.join(out_dir, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)
    chart = os.path.join(out_dir, "winnings.png")
    if os.path.exists(chart):
        os.remove(chart)  # never leave an old run's chart beside a new summary
    if any(len(s) for _, s in chart_series):
        write_chart(os.path.join(out_dir, "winnings.png"), chart_series, bb, f"{a.name} vs {b.name}")
    return summary


def _aivat_report(
    summary: dict, runs: list[MatchRun], game: GameDef, a: PlayerSpec, b: PlayerSpec, out_dir: str, cache: dict
) -> list[tuple[str, np.ndarray]]:
    """AIVAT for A in every run and over duplicate pairs, into the summary and
    ``aivat.csv``; returns the chart's series."""
    from pokerbot.bot.evaluation.aivat import correct_match, write_csv

    bb = game.big_blind
    by_run = []
    series = []
    for r, entry in zip(runs, summary["matches"]):
        if not os.path.exists(r.log_path):
            continue
        seat_b = r.seats[1] if r.seats[0].label == "A" else r.seats[0]
        theirs = strategy_log_path(out_dir, r.name, seat_b) if b.ours else None
        rows = correct_match(r.log_path, game, a.name, strategy_log_path(out_dir, r.name, a), theirs, cache)
        by_run.append((r.name, rows))
        values = np.array([x.aivat for x in rows])
        entry["A"]["aivat"] = summarize(values, bb)
        entry["A"]["aivat_solver_values"] = summarize(np.array([x.aivat_solver for x in rows]), bb)
        entry["A"]["aivat_fallback_hands"] = sum(x.fallback for x in rows)
        series.append((f"{r.name} AIVAT", values))
    csv_path = os.path.join(out_dir, "aivat.csv")
    write_csv(csv_path, by_run)
    summary["aivat"] = {
        "player": "A",
        "value_function": "checked down, open bets folded to (pokerbot.bot.evaluation.aivat); aivat_solver_values: the "
        "solves' own values at the solving strategies' decisions",
        "two_sided": b.ours,
        "csv": csv_path,
        "fallback_hands": sum(x.fallback for _, rows in by_run for x in rows),
    }
    if len(by_run) == 2 and "duplicate" in summary:
        first = {x.hand: x.aivat for x in by_run[0][1]}
        second = {x.hand: x.aivat for x in by_run[1][1]}
        common = sorted(first.keys() & second.keys())
        paired = np.array([(first[h] + second[h]) / 2 for h in common])
        summary["duplicate"]["aivat"] = summarize(paired, bb)
        first_s = {x.hand: x.aivat_solver for x in by_run[0][1]}
        second_s = {x.hand: x.aivat_solver for x in by_run[1][1]}
        summary["duplicate"]["aivat_solver_values"] = summarize(
            np.array([(first_s[h] + second_s[h]) / 2 for h in common]), bb
        )
        d, v = summary["duplicate"]["allin_adjusted"], summary["duplicate"]["aivat"]
        if d["ci95"] and v["ci95"]:
            summary["aivat"]["variance_ratio_vs_duplicate"] = (d["ci95"] / v["ci95"]) ** 2
        w = summary["duplicate"]["aivat_solver_values"]
        if d["ci95"] and w["ci95"]:
            summary["aivat"]["solver_values_variance_ratio_vs_duplicate"] = (d["ci95"] / w["ci95"]) ** 2
        series.append(("duplicate AIVAT (A, mean of both seats)", paired))
    return series


def print_summary(summary: dict, out_dir: str) -> None:
    def fmt(s: dict) -> str:
        if s["ci95"] is None:
            return f"{'n/a':>9} ({s['hands']} hands)"
        return f"{s['mbb_per_hand']:+9.1f} mbb/hand  ± {s['ci95']:.1f} (95 %)"

    for m in summary["matches"]:
        print(
            f"{m['name']}: seats {m['seats'][0]} | {m['seats'][1]}, {m['hands_played']} hands in {m['seconds']:.1f} s"
            + ("" if m["status"] == 0 else f"  FAILED: {m['error']}")
        )
        if m["score"]:
            print(f"  {m['score']}")
        for who in ("A", "B"):
            p = m[who]
            print(f"  {p['name']:<24} raw {fmt(p['raw'])}   all-in adjusted {fmt(p['allin_adjusted'])}")
        if "aivat" in m["A"]:
            print(f"  {m['A']['name']:<24} AIVAT {fmt(m['A']['aivat'])}")
    if "duplicate" in summary:
        d = summary["duplicate"]
        crn = " (common random numbers)" if summary.get("common_random_numbers") else ""
        print(
            f"duplicate{crn}, player A ({summary['players']['A']}): raw {fmt(d['raw'])}   "
            f"all-in adjusted {fmt(d['allin_adjusted'])}"
        )
        if "aivat" in d:
            ratio = summary["aivat"].get("variance_ratio_vs_duplicate")
            print(
                f"duplicate{crn} with AIVAT, player A: {fmt(d['aivat'])}"
                + (f"   variance {ratio:.1f}x lower than duplicate alone" if ratio else "")
            )
            ratio = summary["aivat"].get("solver_values_variance_ratio_vs_duplicate")
            print(
                f"  the same with the solves' own values: {fmt(d['aivat_solver_values'])}"
                + (f"   variance {ratio:.1f}x lower than duplicate alone" if ratio else "")
            )
    if "aivat" in summary:
        print(f"AIVAT per hand: {summary['aivat']['csv']}")
    chart = os.path.join(out_dir, "winnings.png")
    print(f"summary: {os.path.join(out_dir, 'summary.json')}" + (f", chart: {chart}" if os.path.exists(chart) else ""))
