"""Measuring strength: matches, AIVAT, Local Best Response, the ladder, Slumbot."""
