"""The simulation: a generic engine (engine.py: clock, step, checkpoint cadence, stop flag,
event sink) driving the town's rules (town.py: perceive → plan or react → talk → act → move),
residents thinking in parallel (lockstep.py), the typed event record (record.py, eventlog.py),
the run directory (rundir.py, simulation.py) and run statistics (stats.py)."""
