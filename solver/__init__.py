"""Numeric kernels (numba): the hand evaluator; later public trees, CFR+, subgame gadgets, best response. May import protocol only."""
