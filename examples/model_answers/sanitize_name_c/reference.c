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
    char *out = name;
    const char *in = name;
    for (; *in != '\0'; ++in) {
        if (is_name_char(*in))
            *out++ = *in;
    }
    /* Each memmove of the old version dragged the terminator one byte down and left a NUL
     * behind, so the bytes freed at the end were all NULs: keep that. */
    memset(out, '\0', (size_t)(in - out) + 1);
}
