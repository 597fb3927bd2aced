"""What a user runs: the pokerbot command, self-check and benchmarks; later the agent, dealer clients and match runner."""
