"""Model backends: a local transformers worker, a remote OpenAI-compatible client, prompts."""
