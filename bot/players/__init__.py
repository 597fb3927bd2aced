"""Players and what they expose: the blueprint player, the benchmark bots, the ACPC player loop,
and the strategy query with its logs."""
