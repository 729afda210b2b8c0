/* Reference: restrict-qualified pointers and an optimize attribute let the loop vectorize. */
__attribute__((optimize("O3", "unroll-loops")))
void axpby(float *restrict out, const float *restrict x, const float *restrict y, float alpha,
           float beta, int n)
{
    for (int i = 0; i < n; i++)
        out[i] = alpha * x[i] + beta * y[i] + out[i] * x[i];
}
