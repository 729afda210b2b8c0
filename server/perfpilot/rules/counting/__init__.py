"""Rules that replace repeated counting and summing by a table, prefix sums or a sorted copy:
count tables, pair and range counts, character-set tables; with the proofs only they use.
"""
