"""Model transport: a local transformers worker, a remote OpenAI-compatible client, their errors
and limits. What is said to a model lives in prompting/."""
