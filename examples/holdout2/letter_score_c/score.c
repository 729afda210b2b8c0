#include <ctype.h>
#include <string.h>

/* Sum over the text of each letter's place in the alphabet (a/A = 1 ... z/Z = 26); other
 * characters score 0. */
long letter_score(const char *text)
{
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz";
    long total = 0;
    size_t i;
    int k;
    for (i = 0; i < strlen(text); ++i) {
        int lower = tolower((unsigned char)text[i]);
        for (k = 0; k < 26; ++k) {
            if (alphabet[k] == lower) {
                total += k + 1;
                break;
            }
        }
    }
    return total;
}
