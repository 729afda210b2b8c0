"""Evaluation: run PerfPilot over a task set and score it (speedup, %Opt, %Correct, recall)."""
