"""Rules about sorting: a hand-written or ``qsort`` sort, a sort only to select or cut, a
container kept sorted, repeated extraction of the minimum; with the proofs only they use.
"""
