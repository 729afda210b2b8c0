// Each row writes only its own y[r]: rows split across threads (dynamic, rows vary in length).
void csr_spmv(int nrows, const int* row_start, const int* cols, const double* vals,
              const double* x, double* y) {
    #pragma omp parallel for schedule(dynamic, 64)
    for (int r = 0; r < nrows; ++r) {
        double acc = 0.0;
        const int end = row_start[r + 1];
        for (int k = row_start[r]; k < end; ++k) acc += vals[k] * x[cols[k]];
        y[r] = acc;
    }
}
