"""Rules that let loops run in parallel or in vector lanes: OpenMP loops (with the parallel
patterns in ``openmp_patterns/``), loop interchange, ``omp simd`` loops, split accumulators;
with the proofs only they use (loop shape, histograms, scans, enclosing tests, simd safety).
"""
