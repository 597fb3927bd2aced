"""The ``pokerbot`` command: one module per command, each with ``add`` (its parser)
and ``run``; ``pokerbot dealer`` hands its own command line to the dealer."""

from __future__ import annotations

import argparse
import sys

from pokerbot.bot.cli import (
    aivat,
    bench,
    blueprint,
    games,
    improve,
    ladder,
    lbr,
    match,
    opponent,
    play,
    pool,
    selfcheck,
    slumbot,
    subgames,
    train_blueprint,
    warm,
    web,
)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="pokerbot",
        description="A Libratus-style heads-up no-limit hold'em bot for the ACPC dealer protocol.",
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in (selfcheck, bench, play, warm):
        command.add(sub)
    sub.add_parser("dealer", help="run an ACPC dealer (see pokerbot dealer --help)", add_help=False)
    for command in (
        match,
        train_blueprint,
        improve,
        aivat,
        lbr,
        subgames,
        slumbot,
        opponent,
        ladder,
        pool,
        web,
        blueprint,
        games,
    ):
        command.add(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["dealer"]:  # its own command line, the reference dealer's
        from pokerbot.protocol.dealer import main as dealer_main

        return dealer_main(argv[1:])
    args = build_parser().parse_args(argv)
    return args.func(args)
