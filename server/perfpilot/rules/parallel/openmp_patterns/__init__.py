"""Parallel patterns of the OpenMP rule beyond independent loops: histograms and first-match
searches. Each module recognises its pattern on a loop, words the finding and builds the
rewrite; ``openmp.py`` calls them for the loops the plain analysis finds dependent.
Beside them: the run-time test that arrays a caller may pass overlapping do not (``alias_check``),
the work gate of an inner parallel loop (``work``), and the same overlap test guarding a loop
nest run in another order (``reorder_guard``, for loop interchange and loop-order variants)."""
