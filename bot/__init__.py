"""What a user runs: the agent, the blueprint and benchmark players, the match runner,
the ``pokerbot`` command, self-check and benchmarks. May import every layer below."""
