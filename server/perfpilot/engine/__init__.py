"""The engine: jobs, pipeline, caches and settings, independent of LSP."""
