"""The benchmark runner: build, sandbox, validate and time original against candidate."""
