"""The paper's evaluation (Park et al. 2023, §6–7) as commands.

- interviews in five categories under ablation conditions (memory kinds hidden at retrieval
  time), checked against the run's records and ranked by a judge model, rated by TrueSkill;
- the town: information diffusion, relationship network density, coordination, hallucination.

Everything read from a run goes through :mod:`simulacra.evaluation.runview`; everything
written goes to RUN/eval/ (see :mod:`simulacra.evaluation.records`).
"""
