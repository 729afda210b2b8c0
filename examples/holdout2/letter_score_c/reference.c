/* One pass to the terminator; a letter's place is arithmetic on its code (ASCII letters are
 * contiguous), with no call per character. */
long letter_score(const char *text)
{
    long total = 0;
    const unsigned char *p = (const unsigned char *)text;
    for (; *p; ++p) {
        unsigned c = *p | 0x20u; /* folds A-Z onto a-z; no other byte lands in a-z */
        if (c - 'a' < 26u)
            total += (long)(c - 'a') + 1;
    }
    return total;
}
