"""Parallel patterns of the OpenMP rule beyond independent loops: histograms and first-match
searches. Each module recognises its pattern on a loop, words the finding and builds the
rewrite; ``rules/openmp.py`` calls them for the loops the plain analysis finds dependent."""
