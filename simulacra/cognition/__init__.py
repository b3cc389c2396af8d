"""Cognition: what an agent does with its memories — summarise itself, answer, react, talk,
plan and act. Each module keeps its prompt templates beside it."""
