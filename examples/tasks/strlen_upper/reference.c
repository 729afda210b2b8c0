/* Reference: the length once, before the loop. */
#include <stddef.h>
#include <string.h>

void upcase(char *s)
{
    const size_t n = strlen(s);
    for (size_t i = 0; i < n; i++) {
        if (s[i] >= 'a' && s[i] <= 'z')
            s[i] = (char)(s[i] - 'a' + 'A');
    }
}
