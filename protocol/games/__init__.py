"""ACPC game files shipped with the package."""
