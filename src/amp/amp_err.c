/* amp_err.c — see amp_err.h. */
#include <stdarg.h>
#include <stdio.h>

#include "amp_err.h"

int amp_errorf(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}
