"""Training a planner from measured runtime: datasets from stored verdicts, a generated task
corpus, and SFT / preference / reward / GRPO runs through trl, peft and accelerate.

Sits below the engine: it reads what the runner and evaluation stored, and calls the planner,
the builtin optimizer and the runner directly. The trl-based modules import the optional
``[train]`` extra lazily, so the data parts work without it.
"""
