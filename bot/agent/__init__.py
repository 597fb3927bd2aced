"""The agent: blueprint play, real-time subgame solving, its solver processes and time budget."""
