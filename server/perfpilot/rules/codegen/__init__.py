"""Rules that help the compiler generate better code: branchless selects, calls it may not
inline, pointer aliasing, hand-written standard algorithms.
"""
