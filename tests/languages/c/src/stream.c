#include "tax.h"

/* Whether the header is one this build reads: zlib's inflate() checks so, a
   condition of its `if` behind `#ifdef`, the whole function lost to text before. */
int header_ok(int wrap, unsigned hold) {
    if (
#ifdef GUNZIP
        (wrap & 1) == 0 ||
#endif
        hold % 31) {
        return 0;
    }
    return 1;
}

/* The length of a string, typed by a macro of capitals, as a parser
   generator writes it: the capitals are its type, not an export macro. */
static STREAM_SIZE_T
stream_length(const char *text) {
    STREAM_SIZE_T length;
    for (length = 0; text[length]; length++)
        continue;
    return length;
}
