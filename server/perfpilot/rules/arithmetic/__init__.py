"""Rules that make arithmetic cheaper: ``pow`` by multiplication, division by an invariant,
powers of two, cyclic counters.
"""
