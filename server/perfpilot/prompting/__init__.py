"""What the model planner and optimizer say to a model and how they read its answers: prompts,
the unit's context within a budget, candidates extracted from a completion. Below planning and
optimizing, above the llm/ transport."""
