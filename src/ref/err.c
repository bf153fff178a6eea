/*
 * err.c — the reference library's one way to report an error: a message
 * into the caller's buffer.  Every file of ref calls it; it calls nothing
 * of ref.
 */
#include <stdarg.h>
#include <stdio.h>

#include "ref_internal.h"

void ref_set_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    if (err == NULL || errlen == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}
