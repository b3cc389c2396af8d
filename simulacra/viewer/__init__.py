"""Watching a simulation: a local web page replaying (or following) a run directory, and an
HTML report with plots. Both read only the run's files, never the simulation itself."""
