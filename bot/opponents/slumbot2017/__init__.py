"""Slumbot 2017 (Eric Jackson's public code, MIT license; the heads-up no-limit winner
of the 2018 Annual Computer Poker Competition), built, abstracted and trained here for
``holdem.nolimit.2p`` with its own tools, as an opponent that this project did not
write.

The build (``build_steps``), from a local copy or a clone of its repository:

1. copy the source into ``OUT/src`` and apply our patches (``PATCHES``, in this
   folder): data folders from the environment instead of folders chosen by host name;
   the rollout features computed over the boards in parallel (OpenMP); a crash when
   the bot folds on the river;
2. compile the programs the pipeline needs (its Makefile, g++);
3. its card abstraction: the hand value tree, preflop buckets per hand (169), and
   k-means buckets over rollout features on the flop, the turn and the river
   (``CARD_BUCKETS``, 200 each as our ``default`` preset has);
4. its betting abstraction (``BETTING``): half-pot and pot opening bets, pot raises,
   all-in always; three bets preflop, two a round after;
5. its trainer, targeted CFR (``run_tcfr``), in batches of ``ITERATIONS_PER_BATCH``
   iterations a thread, each batch a checkpoint (a build that stops resumes there);
6. ``OUT/run``: its ACPC client (``run_bot``) on the last checkpoint, run as
   ``OUT/run <host> <port>``, with its river endgame solver when ``endgame`` asks.

Every step is resumable (``recipe``): running the same build again goes on where it
stopped. Data goes to ``OUT/data`` (about 13 GB: the river's features and buckets are
5.5 GB each); the river's k-means and the trainer need about 11 GB of memory.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from dataclasses import dataclass

from pokerbot.bot.opponents.recipe import BuildError, Step

NAME = "slumbot2017"
#: The public repository, and the commit our patches and figures are for.
REPOSITORY = "https://github.com/ericgjackson/slumbot2017"
COMMIT = "f0ddb6a"
LICENSE = "MIT (Copyright (c) 2019 Eric Jackson): the LICENSE file of its repository, copied into OUT/src"
HERE = os.path.dirname(os.path.abspath(__file__))
#: Our patches to its source, applied in order with ``patch -p1`` (each says why).
PATCHES = (
    "01-files-env-data-dirs.patch",
    "02-rollout-openmp.patch",
    "03-nl-agent-river-fold-crash.patch",
)
#: The programs the pipeline runs.
PROGRAMS = (
    "build_hand_value_tree",
    "build_null_buckets",
    "build_rollout_features",
    "build_kmeans_buckets",
    "build_betting_tree",
    "run_tcfr",
    "restructure",
    "run_bot",
)
#: k-means buckets on the flop, the turn and the river.
CARD_BUCKETS = (200, 200, 200)
CARD_NAME = "sb200"
#: the flop's and the turn's rollout features: hand strength at these percentiles of the rollouts
PERCENTILES = ("0.1", "0.3", "0.5", "0.7", "0.9")
BETTING_NAME = "acpcb"
#: Its betting abstraction in its own parameter format. StackSize counts small blinds:
#: 400 is the ACPC game's 200 big blinds (its client maps 20,000 chips and blinds of
#: 50/100 onto it). BetSizes lists per round (|) the sizes of the first, second, ...
#: bet (;), as pot fractions; all-in is always allowed.
BETTING = """BettingAbstractionName acpcb
Limit false
StackSize 400
Asymmetric false
NoLimitTreeType 1
MinBet 2
AlwaysAllIn true
MaxBets 3,2,2,2
BetSizes 0.5,1.0;1.0;1.0|0.5,1.0;1.0|0.5,1.0;1.0|0.5,1.0;1.0
CloseToAllInFrac 0.5
"""
#: Targeted CFR iterations a thread in one batch (a checkpoint each; each run of its
#: trainer first spends 20-90 s loading the river's buckets, so batches are few).
ITERATIONS_PER_BATCH = 30_000_000
#: Batches by default: with 2 threads, 6 x 2 x 30 M = 360 M iterations; with the
#: abstraction about the core-hours of our ``default`` blueprint (docs/opponents.md).
BATCHES = 6
#: Endgame solving in play: ``none`` (the blueprint on every round) or ``river`` (the
#: river re-solved by its CFR+ endgame solver, ``ENDGAME_ITERATIONS`` iterations).
ENDGAMES = ("none", "river")
ENDGAME_ITERATIONS = 1000


@dataclass(frozen=True)
class Settings:
    """What a build makes: ``threads`` for the abstraction and the trainer, ``batches``
    of ``iterations_per_batch`` targeted CFR iterations a thread, and the endgame
    solving ``run`` plays with."""

    threads: int = 2
    batches: int = BATCHES
    iterations_per_batch: int = ITERATIONS_PER_BATCH
    endgame: str = "none"
    endgame_iterations: int = ENDGAME_ITERATIONS

    def verify(self) -> None:
        if self.threads < 1 or self.batches < 1 or self.iterations_per_batch < 1:
            raise BuildError("threads, batches and iterations a batch must be positive")
        if self.endgame not in ENDGAMES:
            raise BuildError(f"endgame must be one of {', '.join(ENDGAMES)}, got {self.endgame!r}")
        if self.endgame_iterations < 1:
            raise BuildError("endgame iterations must be positive")

    @property
    def iterations(self) -> int:
        return self.batches * self.threads * self.iterations_per_batch

    @property
    def last_checkpoint(self) -> int:
        """The batch number of the last checkpoint (batches advance by the threads)."""
        return (self.batches - 1) * self.threads


def fetch_source(source: str, dest: str) -> str:
    """A copy of the program's source in ``dest``: ``source`` a git repository (a path
    or a URL: cloned) or a plain folder of its files (copied). Returns the commit
    when known, else "unknown"."""
    if os.path.exists(os.path.join(dest, "Makefile")):
        return source_commit(dest)
    if os.path.exists(dest):
        shutil.rmtree(dest)
    local = os.path.isdir(source)
    if local and not os.path.exists(os.path.join(source, "Makefile")) and not is_git(source):
        raise BuildError(f"{source} is neither its repository nor a copy of its files (no Makefile)")
    if not local or is_git(source):
        done = subprocess.run(["git", "clone", "--quiet", source, dest], capture_output=True, text=True)
        if done.returncode != 0:
            raise BuildError(f"cannot clone {source}: {done.stderr.strip()}")
    else:
        shutil.copytree(source, dest, ignore=shutil.ignore_patterns(".git", "obj", "bin"))
    if not os.path.exists(os.path.join(dest, "src", "files.cpp")):
        raise BuildError(f"{source} does not hold Slumbot 2017's source (no src/files.cpp)")
    return source_commit(dest)


def is_git(path: str) -> bool:
    done = subprocess.run(["git", "-C", path, "rev-parse", "--git-dir"], capture_output=True, text=True)
    return done.returncode == 0


def source_commit(path: str) -> str:
    done = subprocess.run(["git", "-C", path, "rev-parse", "--short=7", "HEAD"], capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else "unknown"


def card_params() -> str:
    """Its card abstraction's parameter file: exact preflop hands (169 classes), k-means
    buckets after."""
    f, t, r = CARD_BUCKETS
    return f"CardAbstractionName {CARD_NAME}\nBucketings null,kf{f},kt{t},kr{r}\n"


def build_steps(out: str, settings: Settings) -> list[Step]:
    """The build's steps after the source is in ``OUT/src`` (see the module doc)."""
    out = os.path.abspath(out)
    src = os.path.join(out, "src")
    params = os.path.join(out, "params")
    data = os.path.join(out, "data")
    env = {"SLUMBOT_DATA": data, "OMP_NUM_THREADS": str(settings.threads)}
    game = "runs/holdem_params"
    card = os.path.join(params, f"{CARD_NAME}_params")
    betting = os.path.join(params, f"{BETTING_NAME}_params")
    f, t, r = CARD_BUCKETS
    threads = str(settings.threads)
    patches = [["patch", "-p1", "--forward", "-i", os.path.join(HERE, p)] for p in PATCHES]

    def feature_progress(text: str) -> float | None:
        """From its "bd N/M" lines (one in a thousand boards)."""
        last = text.rstrip().rsplit("bd ", 1)
        if len(last) < 2:
            return None
        try:
            done, total = (int(x) for x in last[1].split()[0].split("/"))
        except ValueError:
            return None
        return done / total if total else None

    steps = [
        Step("patch", patches, "apply our patches to its source", src, estimate=1),
        Step(
            "compile",
            [["mkdir", "-p", "obj", "bin"], ["make", f"-j{threads}", *(f"bin/{p}" for p in PROGRAMS)]],
            "compile its programs with its Makefile",
            src,
            estimate=180,
        ),
        Step(
            "hand value tree",
            [
                ["mkdir", "-p", os.path.join(data, "static"), os.path.join(data, "cfr")],
                ["bin/build_hand_value_tree", game],
            ],
            "rank every hand on every board",
            src,
            env,
            estimate=20,
        ),
        Step("preflop buckets", [["bin/build_null_buckets", game, "0"]], "one bucket per preflop hand", src, env, 5),
        *(
            Step(
                f"{name} features",
                [["bin/build_rollout_features", game, str(street), "wml5", "1.0", "wmls", *PERCENTILES]],
                f"rollout features of every {name} hand",
                src,
                env,
                estimate=estimate,
                progress=feature_progress,
            )
            for street, name, estimate in ((1, "flop", 300), (2, "turn", 240))
        ),
        Step(
            "river features",
            # one percentile: two or more overflow a 32-bit count of its values on the river
            [["bin/build_rollout_features", game, "3", "wml1", "1.0", "wmls", "0.5"]],
            "rollout features of every river hand",
            src,
            env,
            estimate=240,
            progress=feature_progress,
        ),
        Step(
            "card buckets",
            [
                ["bin/build_kmeans_buckets", game, "1", str(f), f"kf{f}", "wml5", "1000", "100", threads],
                ["bin/build_kmeans_buckets", game, "2", str(t), f"kt{t}", "wml5", "1000", "100", threads],
                ["bin/build_kmeans_buckets", game, "3", str(r), f"kr{r}", "wml1", "1000", "100", threads],
            ],
            f"k-means buckets: {f} on the flop, {t} on the turn, {r} on the river",
            src,
            env,
            estimate=150,
        ),
        Step("betting tree", [["bin/build_betting_tree", game, betting]], "its betting tree", src, env, 2),
    ]
    cfr_dir = os.path.join(data, "cfr", f"holdem.2.{CARD_NAME}.13.4.3.{BETTING_NAME}.tcfr")
    per_batch = settings.threads * settings.iterations_per_batch
    for k in range(settings.batches):
        batch = k * settings.threads
        command = ["bin/run_tcfr", game, card, betting, "runs/tcfr_params", threads, str(batch), str(batch)]
        command += [str(settings.iterations_per_batch), threads]
        commands = [command]
        if k > 0:  # keep the newest checkpoint only (each is a few hundred MB)
            before = batch - settings.threads
            commands.append(["sh", "-c", f"rm -f {shlex.quote(cfr_dir)}/*.x.0.0.?.{before}.p?.i"])
        steps.append(
            Step(
                f"train batch {k + 1}",  # not "of N": more batches later keep the done ones
                commands,
                f"targeted CFR, batch {k + 1} of {settings.batches}, {settings.threads} x "
                f"{settings.iterations_per_batch:,} iterations ({(k + 1) * per_batch:,} in all after it)",
                src,
                env,
                estimate=30 + settings.iterations_per_batch / 130_000,
            )
        )
    if settings.endgame == "river":
        steps.append(
            Step(
                "endgame strategy",
                [
                    [
                        "bin/restructure",
                        game,
                        card,
                        betting,
                        "runs/tcfr_params",
                        str(settings.last_checkpoint),
                        "3",
                        "current",
                        "byte",
                    ]
                ],  # fmt: skip
                "the river's trained strategy in the form its endgame solver reads",
                src,
                env,
                estimate=30,
            )
        )
    return steps


def write_params(out: str) -> None:
    """Our parameter files for it: its card and betting abstractions."""
    params = os.path.join(out, "params")
    os.makedirs(params, exist_ok=True)
    for name, text in ((f"{CARD_NAME}_params", card_params()), (f"{BETTING_NAME}_params", BETTING)):
        with open(os.path.join(params, name), "w") as f:
            f.write(text)
    with open(os.path.join(params, "tcfrr_params"), "w") as f:  # the restructured strategy's name (endgames)
        f.write("CFRConfigName tcfrr\nAlgorithm tcfr\n")


def launcher(out: str, settings: Settings) -> str:
    """The text of ``OUT/run``: its ACPC client on the last checkpoint, ``run <host> <port>``."""
    out = os.path.abspath(out)
    src, params = os.path.join(out, "src"), os.path.join(out, "params")
    river = settings.endgame == "river"
    endgame_round, endgame_iterations = ("3", str(settings.endgame_iterations)) if river else ("4", "0")
    # with endgames, its strategy is read from the restructured copy (``endgame strategy``)
    strategy = os.path.join(params, "tcfrr_params") if river else os.path.join(src, "runs", "tcfr_params")
    words = [
        os.path.join(src, "bin", "run_bot"),
        os.path.join(src, "runs", "holdem_params"),
        os.path.join(params, f"{CARD_NAME}_params"),
        os.path.join(src, "runs", "none_params"),
        os.path.join(params, f"{BETTING_NAME}_params"),
        os.path.join(params, f"{BETTING_NAME}_params"),
        strategy,
        os.path.join(src, "runs", "cfrps_params"),  # its endgame solver: CFR+
        os.path.join(src, "runs", "runtime_params"),
        endgame_round,
        endgame_iterations,
        str(settings.last_checkpoint),
    ]
    return (
        "#!/bin/sh\n"
        f"# Slumbot 2017 (MIT, Eric Jackson), built by pokerbot opponent build: {settings.iterations:,} targeted CFR\n"
        f"# iterations, endgame solving: {settings.endgame}. Usage: run <host> <port>\n"
        'if [ "$#" -ne 2 ]; then echo "usage: $0 <host> <port>" >&2; exit 2; fi\n'
        f"export SLUMBOT_DATA={shlex.quote(os.path.join(out, 'data'))}\n"
        f'exec {" ".join(shlex.quote(w) for w in words)} "$1" "$2"\n'
    )
