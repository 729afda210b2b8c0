"""Rules that replace repeated linear searches: by a hash set or map kept beside a list, a
binary search over sorted data, or an early exit; with the proofs only they use.
"""
