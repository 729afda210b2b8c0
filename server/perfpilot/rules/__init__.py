"""Optimization rules, one module per idiom.

Each ``rules/<name>.py`` declares ``RULE``, a ``RuleSpec``: how the idiom is detected on the
function's facts (``code.facts.FunctionFacts``), how it is rewritten when it can be (on
``rewrite_input.RuleInput``), and small examples. ``registry.RULE_SPECS`` lists them; the
built-in planner runs their detections and the built-in optimizer their rewrites. Every rule with
a rewrite holds both halves in its module; ``detect/`` still holds, by theme, the detections of
the rules that only advise (no rewrite yet) and the wording helpers all detections share.
"""
