/* amp_err.h — the simulator's one way to report an error into a caller's
 * buffer (messages name the file, line and field where there is one). */
#ifndef FPLAB_AMP_ERR_H
#define FPLAB_AMP_ERR_H

#include <stddef.h>

/* printf into err (when err and errlen allow); always returns -1. */
int amp_errorf(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
