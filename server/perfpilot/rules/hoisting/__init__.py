"""Rules that compute once what is computed again and again: loop-invariant calls,
expressions, branches, inner loops, containers and allocations, and memoised recursion;
with the proofs only they use.
"""
