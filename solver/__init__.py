"""Numeric kernels (numba): the hand evaluator, public trees, vector CFR+, subgame gadgets,
best response, MCCFR. May import protocol only."""
