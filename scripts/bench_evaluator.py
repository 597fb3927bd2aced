#!/usr/bin/env python3
"""Evaluator throughput on one core, ours vs pokerfast and phevaluator (same as
``pokerbot bench evaluator``)."""
import sys

from bot.cli import main

if __name__ == "__main__":
    sys.exit(main(["bench", "evaluator", *sys.argv[1:]]))
