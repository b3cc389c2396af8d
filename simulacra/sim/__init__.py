"""The simulation: a game clock stepping every resident through perceive → plan or react →
reflect → act, with checkpoints, an event log, and resume/fork."""
