"""The simulation: a generic engine (engine.py: clock, step, checkpoint cadence, stop flag,
event sink) driving the town's rules (town.py, composing thinking.py: perceive → plan or
react → act; conversation.py: who may talk, and talking; sandbox.py: placing, moving, object
states; user.py: the user's avatar and actions; recorder.py: the step's record), residents
thinking in parallel (lockstep.py), the typed event record (record.py, eventlog.py), the run
directory (rundir.py, simulation.py) and run statistics (stats.py)."""
