/* out[i] = alpha * x[i] + beta * y[i] + out[i] * x[i] */
void axpby(float *out, const float *x, const float *y, float alpha, float beta, int n)
{
    for (int i = 0; i < n; i++)
        out[i] = alpha * x[i] + beta * y[i] + out[i] * x[i];
}
