"""Chartside: the `chartside` command that fronts every package."""
