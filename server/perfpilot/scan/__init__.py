"""``perfpilot scan``: whole codebases through the ``optimize --bench`` pipeline.

``run.py`` picks the targets and drives them (resumable, ``state.py``); ``workers.py`` measures
them here or on Ray; ``report.py`` writes the Markdown report, JSON, SARIF (``sarif.py``) and
patches (``patches.py``).
"""
