"""Planners: turn a FunctionSite into a strategy Plan (builtin static analysis or a model)."""
