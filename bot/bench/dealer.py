"""``pokerbot bench dealer``: hands per second of call-vs-call matches over loopback,
against a compiled loop of the reference dealer's message pattern (``acpc_loop.cc``)."""

from __future__ import annotations

import json
import os
import statistics
import sys

from pokerbot.bot.bench.common import machine_description


async def _in_process_match(hands: int, workdir: str) -> tuple[float, int]:
    """One call-vs-call match on our dealer with our player code as tasks in the
    dealer's event loop (still over loopback TCP); returns (seconds of play, hands)."""
    import asyncio

    from pokerbot.bot.players.acpc_player import play
    from pokerbot.bot.strategies import make_strategy
    from pokerbot.protocol.dealer import Dealer, DealerConfig
    from pokerbot.protocol.gamedef import DEFAULT_GAME, bundled_game

    game = bundled_game(DEFAULT_GAME)
    cfg = DealerConfig(
        os.path.join(workdir, "bench-in-process"), DEFAULT_GAME, hands, 1, ("call1", "call2"), quiet=True
    )
    dealer = Dealer(cfg, game, stdout=open(os.devnull, "w"))
    ports = await dealer.listen()
    tasks = [asyncio.create_task(play("127.0.0.1", port, game, make_strategy("call"))) for port in ports]
    status = await dealer.run()
    await asyncio.gather(*tasks)
    if status != 0:
        raise RuntimeError(f"benchmark match failed: {dealer.result.error}")
    return dealer.result.play_seconds, dealer.result.completed_hands


def process_match(hands: int, dealer: str, players: str, workdir: str, compiled: str | None) -> tuple[float, int]:
    """One call-vs-call match with the dealer and both players as separate processes,
    as users run them. ``dealer``: "ours" (``pokerbot dealer -q``, which logs its play
    time in its ``match_end`` line) or "compiled" (which prints it). ``players``:
    "processes" (``pokerbot play``) or "compiled". Returns (seconds of play, hands)."""
    import subprocess

    game_file = _game_file(workdir)
    if dealer == "ours":
        cmd = [
            sys.executable,
            "-m",
            "pokerbot.bot.cli",
            "dealer",
            os.path.join(workdir, "bench"),
            game_file,
            str(hands),
            "1",
            "call1",
            "call2",
            "-q",
            "--log-level",
            "info",
        ]
    else:
        if compiled is None:
            raise ValueError("the compiled dealer needs the compiled loop (compiled_acpc_loop())")
        cmd = [compiled, "dealer", game_file, str(hands), "1", os.path.join(workdir, "bench.log")]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None  # stdout=PIPE
        ports = proc.stdout.readline().split()
        seats = [
            subprocess.Popen(
                _call_player_command(players, int(port), workdir, compiled),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            for port in ports
        ]
        out, err = proc.communicate(timeout=600)
        for p in seats:
            p.wait(timeout=60)
    finally:
        proc.kill()
    if proc.returncode != 0:
        raise RuntimeError(f"benchmark match failed ({dealer} dealer): {err.strip()[-300:]}")
    if dealer == "compiled":
        played, seconds = out.split()
        return float(seconds), int(played)
    for line in err.splitlines():
        if '"match_end"' in line:
            end = json.loads(line)
            return end["play_seconds"], end["hands"]
    raise RuntimeError("our dealer did not log its match_end line")


def _call_player_command(players: str, port: int, workdir: str, compiled: str | None) -> list[str]:
    if players == "compiled":
        if compiled is None:
            raise ValueError("compiled players need the compiled loop (compiled_acpc_loop())")
        return [compiled, "call", "127.0.0.1", str(port), _game_file(workdir)]
    return [sys.executable, "-m", "pokerbot.bot.cli", "play", "127.0.0.1", str(port), "--strategy", "call"]


def _game_file(workdir: str) -> str:
    from pokerbot.protocol.gamedef import DEFAULT_GAME, bundled_game_text

    path = os.path.join(workdir, DEFAULT_GAME + ".game")
    if not os.path.exists(path):
        with open(path, "w") as f:
            f.write(bundled_game_text(DEFAULT_GAME))
    return path


def compiled_acpc_loop() -> str | None:
    """Build ``acpc_loop.cc`` against the ACPC reference code that OpenSpiel's
    wheel ships (game.cc, rng.cc, net.cc) once into the cache; its path, or None when
    there is no C++ compiler or no OpenSpiel."""
    import hashlib
    import shutil
    import subprocess

    compiler = shutil.which("g++") or shutil.which("c++")
    try:
        import open_spiel
    except ImportError:
        return None
    if compiler is None:
        return None
    acpc = os.path.join(os.path.dirname(open_spiel.__file__), "games", "universal_poker", "acpc", "project_acpc_server")
    source = os.path.join(os.path.dirname(__file__), "acpc_loop.cc")
    if not os.path.exists(os.path.join(acpc, "net.cc")):
        return None
    with open(source, "rb") as f:
        digest = hashlib.sha256(f.read() + acpc.encode()).hexdigest()[:16]
    base = os.environ.get("POKERBOT_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "pokerbot"
    )
    out = os.path.join(base, f"acpc_loop-{digest}")
    if not os.path.exists(out):
        os.makedirs(base, exist_ok=True)
        tmp = f"{out}.{os.getpid()}.tmp"
        try:
            subprocess.run(
                [
                    compiler,
                    "-O2",
                    "-w",
                    "-D__STDC_FORMAT_MACROS=1",
                    "-I",
                    acpc,
                    source,
                    os.path.join(acpc, "net.cc"),
                    "-o",
                    tmp,
                ],
                check=True,
                capture_output=True,
                timeout=300,
            )
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError):
            return None
        os.replace(tmp, out)
    return out


#: (key, dealer, players, label) of every row of the dealer benchmark, in report order.
DEALER_SETUPS = (
    ("ours_processes", "ours", "processes", "our dealer, pokerbot play players (processes)"),
    ("ours_in_process", "ours", "in-process", "our dealer, our players inside its event loop"),
    ("ours_compiled_players", "ours", "compiled", "our dealer, compiled call players (processes)"),
    ("compiled_ours_players", "compiled", "processes", "compiled loop, pokerbot play players"),
    ("compiled_compiled_players", "compiled", "compiled", "compiled loop, compiled call players"),
)


def bench_dealer(hands: int = 5000, repeats: int = 3) -> dict:
    """Hands per second of call-vs-call matches over loopback: our dealer (its own
    process, ``pokerbot dealer``) with our players as separate processes (the real
    setting) and with compiled players, and our players inside the dealer's event loop;
    and, as this machine's floor, a compiled loop of the reference dealer's message
    pattern (``acpc_loop.cc``) with compiled players. Every setup plays once per round, ``repeats`` rounds; medians."""
    import tempfile

    from pokerbot.protocol.dealer import run_event_loop

    compiled = compiled_acpc_loop()
    setups = [s for s in DEALER_SETUPS if compiled or "compiled" not in s[1:3]]
    rates: dict[str, list[float]] = {key: [] for key, *_ in setups}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(repeats):
            for key, dealer, players, _label in setups:
                if players == "in-process":
                    seconds, played = run_event_loop(_in_process_match(hands, tmp))
                else:
                    seconds, played = process_match(hands, dealer, players, tmp, compiled)
                rates[key].append(played / seconds)
    result: dict = {
        "machine": machine_description(),
        "hands": hands,
        "repeats": repeats,
        "compiled_available": compiled is not None,
    }
    for key, values in rates.items():
        result[f"hands_per_second_{key}"] = statistics.median(values)
        result[f"runs_{key}"] = [round(v) for v in values]
    return result


def print_dealer_report(r: dict) -> None:
    print(
        f"Dealer throughput: {r['hands']} hands of call vs call over loopback, "
        f"median of {r['repeats']} matches per setup [each run]"
    )
    print(f"machine: {r['machine']}")
    for key, _dealer, _players, label in DEALER_SETUPS:
        if f"hands_per_second_{key}" in r:
            runs = ", ".join(str(v) for v in r[f"runs_{key}"])
            print(f"  {label + ':':<50} {r[f'hands_per_second_{key}']:6.0f} hands/s  [{runs}]")
    if not r["compiled_available"]:
        print("  (compiled rows skipped: they need a C++ compiler and OpenSpiel: pip install 'pokerbot[test]')")
    else:
        floor = r["hands_per_second_compiled_compiled_players"]
        print(
            f"ratio to the compiled floor: ours with our players (processes) "
            f"{r['hands_per_second_ours_processes'] / floor:.2f}, "
            f"ours with compiled players {r['hands_per_second_ours_compiled_players'] / floor:.2f}"
        )
