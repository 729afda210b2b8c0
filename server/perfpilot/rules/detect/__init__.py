"""Detection helpers shared by several rules: wording and loop phrases (``common``), how local
containers are used (``containers``), floating-point accumulators (``floating``)."""
