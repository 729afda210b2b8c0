#include <stdio.h>
#include <stdlib.h>

/* Reads all input in one fread, parses the numbers by hand and writes the whole output with
 * one fwrite: no per-line flush and no format parsing per number. */
static char *read_all(size_t *len)
{
    size_t cap = 1 << 16, n = 0, got;
    char *buf = malloc(cap + 1);
    if (buf == NULL)
        return NULL;
    while ((got = fread(buf + n, 1, cap - n, stdin)) > 0) {
        n += got;
        if (n == cap) {
            char *bigger = realloc(buf, 2 * cap + 1);
            if (bigger == NULL)
                break;
            buf = bigger;
            cap *= 2;
        }
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* Parses the next decimal integer at *p (skipping white space); 0 when there is none. */
static int next_long(const char **p, long *out)
{
    const char *s = *p;
    int neg = 0;
    long v = 0;
    while (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r')
        ++s;
    if (*s == '-' || *s == '+')
        neg = *s++ == '-';
    if (*s < '0' || *s > '9')
        return 0;
    while (*s >= '0' && *s <= '9')
        v = v * 10 + (*s++ - '0');
    *out = neg ? -v : v;
    *p = s;
    return 1;
}

int main(void)
{
    size_t len = 0;
    char *in = read_all(&len);
    const char *p = in;
    long count = 0, value, best = 0, i;
    char *out, *w;
    if (in == NULL || !next_long(&p, &count) || count < 0) {
        free(in);
        return 0;
    }
    out = malloc((size_t)count * 21 + 1);
    if (out == NULL) {
        free(in);
        return 0;
    }
    w = out;
    for (i = 0; i < count && next_long(&p, &value); ++i) {
        if (i == 0 || value > best)
            best = value;
        w += sprintf(w, "%ld\n", best);
    }
    fwrite(out, 1, (size_t)(w - out), stdout);
    free(out);
    free(in);
    return 0;
}
