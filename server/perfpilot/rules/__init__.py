"""Optimization rules, one module per idiom, grouped by family.

Each ``rules/<family>/<name>.py`` declares ``RULE``, a ``RuleSpec``: how the idiom is detected on
the function's facts (``code.facts.FunctionFacts``), how it is rewritten when it can be (on
``rewrite_input.RuleInput``), and small examples. A family package holds its rules together with
the proofs only they use; no family imports another. ``registry.RULE_SPECS`` lists every rule;
the built-in planner runs their detections and the built-in optimizer their rewrites. Every rule
holds its detection, and its rewrite when it has one, in its own module; ``detect/`` holds the
helpers several detections share (wording, container uses, floating-point accumulators).
"""
