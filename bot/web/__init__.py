"""pokerbot web: a page where a person plays one of our strategies."""
