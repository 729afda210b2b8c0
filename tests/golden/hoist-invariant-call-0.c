int upper(const char *s) {
    int c = 0;
    const size_t s_len = strlen(s);
    for (int i = 0; i < s_len; i++) {
        if (s[i] >= 'A' && s[i] <= 'Z') c++;
    }
    return c;
}
