#include <stddef.h>
#include <string.h>

static int count_upper(const char *s) {
    int c = 0;
    for (size_t i = 0; i < strlen(s); i++)
        if (s[i] >= 'A' && s[i] <= 'Z') c++;
    return c;
}

void scale(double *restrict out, const double *in, size_t n, double k) {
    for (size_t i = 0; i < n; i++) out[i] = in[i] * k;
}

int main(void) { return count_upper("Hello"); }
