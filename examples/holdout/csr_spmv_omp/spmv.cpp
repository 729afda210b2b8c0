// Sparse matrix (CSR) times a dense vector: y[r] = sum of vals[k] * x[cols[k]] over row r.
void csr_spmv(int nrows, const int* row_start, const int* cols, const double* vals,
              const double* x, double* y) {
    for (int r = 0; r < nrows; ++r) {
        double acc = 0.0;
        for (int k = row_start[r]; k < row_start[r + 1]; ++k) acc += vals[k] * x[cols[k]];
        y[r] = acc;
    }
}
