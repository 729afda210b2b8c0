#include <ctype.h>
#include <string.h>

int is_name_char(char c)
{
    return isalnum((unsigned char)c) || c == '.' || c == '-' || c == '_';
}

/* Make an upload's file name safe in place: every character other than ASCII letters, digits,
 * '.', '-' and '_' is removed. */
void sanitize_filename(char *name)
{
    size_t i = 0;
    while (name[i] != '\0') {
        if (is_name_char(name[i]))
            ++i;
        else
            memmove(name + i, name + i + 1, strlen(name + i + 1) + 1);
    }
}
