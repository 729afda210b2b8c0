/* Upper-case a NUL-terminated string in place. The loop writes to the string, so the
   compiler cannot prove strlen(s) constant and calls it on every iteration. */
#include <stddef.h>
#include <string.h>

void upcase(char *s)
{
    for (size_t i = 0; i < strlen(s); i++) {
        if (s[i] >= 'a' && s[i] <= 'z')
            s[i] = (char)(s[i] - 'a' + 'A');
    }
}
