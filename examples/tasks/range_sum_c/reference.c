/* Reference: prefix sums (O(1) per query), a buffered reader and one output buffer. */
#include <stdio.h>
#include <stdlib.h>

static char inbuf[1 << 16];
static size_t inlen, inpos;

static int next_char(void)
{
    if (inpos == inlen) {
        inlen = fread(inbuf, 1, sizeof inbuf, stdin);
        inpos = 0;
        if (inlen == 0)
            return EOF;
    }
    return inbuf[inpos++];
}

static long long read_int(void)
{
    int c = next_char();
    while (c == ' ' || c == '\n' || c == '\r' || c == '\t')
        c = next_char();
    int neg = c == '-';
    if (neg)
        c = next_char();
    long long v = 0;
    while (c >= '0' && c <= '9') {
        v = v * 10 + (c - '0');
        c = next_char();
    }
    return neg ? -v : v;
}

int main(void)
{
    int n = (int)read_int(), q = (int)read_int();
    long long *pre = malloc(sizeof(long long) * (size_t)(n + 1));
    pre[0] = 0;
    for (int i = 0; i < n; i++)
        pre[i + 1] = pre[i] + read_int();
    static char out[1 << 16];
    size_t used = 0;
    for (int k = 0; k < q; k++) {
        int l = (int)read_int(), r = (int)read_int();
        if (used > sizeof out - 32) {
            fwrite(out, 1, used, stdout);
            used = 0;
        }
        used += (size_t)snprintf(out + used, sizeof out - used, "%lld\n", pre[r + 1] - pre[l]);
    }
    fwrite(out, 1, used, stdout);
    free(pre);
    return 0;
}
