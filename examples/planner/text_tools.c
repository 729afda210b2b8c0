/* Slow: strlen(s) in the loop condition re-walks the string every iteration (quadratic),
 * malloc/free a scratch buffer per line, printf per character, strcat rebuilds from the
 * start each time, and `i % 2` on a signed int needs sign fix-ups. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int count_upper(const char *s) {
    int count = 0;
    for (int i = 0; i < strlen(s); i++) {
        if (s[i] >= 'A' && s[i] <= 'Z' && i % 2 == 0) {
            count++;
        }
    }
    return count;
}

void echo_lines(const char *text, int lines, int width, char *joined) {
    joined[0] = '\0';
    for (int i = 0; i < lines; i++) {
        char *buf = malloc(width + 1);
        memcpy(buf, text + i * width, width);
        buf[width] = '\0';
        printf("%s\n", buf);
        strcat(joined, buf);
        free(buf);
    }
}
