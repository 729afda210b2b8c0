/* Counting upper-case letters: strlen() in the loop condition makes an O(n) loop O(n^2). */
#include <stddef.h>
#include <string.h>

long count_upper(const char *s)
{
    long count = 0;
    for (size_t i = 0; i < strlen(s); i++) {
        if (s[i] >= 'A' && s[i] <= 'Z')
            count++;
    }
    return count;
}
