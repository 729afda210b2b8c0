"""Optimizers: rewrite a function following a plan (builtin rules or a model)."""
