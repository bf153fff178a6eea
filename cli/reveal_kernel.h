/*
 * reveal_kernel.h — the kernels `fplab reveal` calls (fplab/reveal.h's
 * callback), three ways:
 *   command  CMD ARGS run once per call: {in}, {in2}, {out} in ARGS become
 *            .npy paths;
 *   serve    CMD ARGS started once, answering one request line per call on
 *            its stdin with one reply line on its stdout (docs/kernels.md,
 *            "A kernel that stays up");
 *   lib      a shared library's function of type fl_reveal_kernel, loaded
 *            with dlopen in a worker process started once.
 * Every way runs the kernel in its own process group, with --timeout per
 * call (then the group is killed), and reports a failure, a crash (the
 * signal), a hang and bad output (shape, dtype, bits) with the last lines
 * the kernel printed.  A long-lived kernel that died is started again at
 * the next call (reveal's batch trial may fail one call on purpose).
 */
#ifndef FPLAB_REVEAL_KERNEL_H
#define FPLAB_REVEAL_KERNEL_H

#include <stddef.h>
#include "fplab/reveal.h"

enum { RK_COMMAND = 0, RK_SERVE, RK_LIB };

typedef struct rk_kernel rk_kernel;

/* A kernel of kind RK_COMMAND or RK_SERVE (argv/argc: CMD ARGS) or RK_LIB
 * (lib: "PATH:SYMBOL", arg: the string given to the function as `user`,
 * or NULL).  dtype: float32, float16 or bfloat16 (how inputs travel as
 * .npy).  Files go to a private directory in $TMPDIR.  Nothing starts
 * before the first call.  NULL with err on failure. */
rk_kernel *rk_open(int kind, char **argv, int argc, const char *lib,
                   const char *arg, const char *dtype, double timeout,
                   char *err, size_t errlen);
/* fl_reveal_kernel: user is the rk_kernel. */
int rk_call(void *user, fl_reveal_call *c, char *err, size_t errlen);
/* Stop a long-lived kernel (a serve kernel gets "quit" and a moment to
 * leave), remove the private directory, free. */
void rk_close(rk_kernel *k);

#endif /* FPLAB_REVEAL_KERNEL_H */
