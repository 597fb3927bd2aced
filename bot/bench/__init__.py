"""Benchmarks that print their figures (``pokerbot bench WHAT``): one module each.

Figures are medians over repeated runs, after a warm-up run that is not timed; every
report names the machine it ran on.
"""
