void upcase(char *s) {
    const size_t s_len = strlen(s);
    for (size_t i = 0; i < s_len; i++) {
        if (s[i] >= 'a' && s[i] <= 'z')
            s[i] = (char)(s[i] - 'a' + 'A');
    }
}
