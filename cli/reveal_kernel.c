/*
 * reveal_kernel.c — the kernels of `fplab reveal` (reveal_kernel.h): a
 * command per call, a server started once (line protocol), a shared
 * library's function in a worker process started once.
 *
 * Inputs travel as .npy files in a private temporary directory (command,
 * serve) or as bit patterns over a pipe (lib).  Every kernel process gets
 * its own process group, stdin from /dev/null (serve: the request pipe),
 * and its output (serve: its stderr only) appended to a log whose last
 * lines go with every failure.  Past --timeout the whole group is killed.
 *
 * The serve protocol (docs/kernels.md): per call fplab writes the inputs
 * and one request line, tab-separated,
 *     call <index> <op> <dtype> <in> <in2 or -> <out>
 * and the server writes <out> and answers one line, `ok` or `error
 * MESSAGE`, on its stdout (which is for the protocol alone).  At the end
 * fplab writes `quit` and closes the pipe.
 *
 * The lib worker: fplab forks, the child loads PATH with dlopen and looks
 * up SYMBOL (an fl_reveal_kernel), then serves requests read from a pipe:
 * a header (rk_req) and the input arrays; it answers a header (rk_rep) and
 * the outputs.  The child is fplab itself, so the formats' pointers mean
 * the same on both sides.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "reveal_kernel.h"
#include "tensor.h"

struct rk_kernel {
    int kind;
    char **argv;           /* CMD ARGS as given (command, serve) */
    int argc;
    char dir[PATH_MAX];
    char in[PATH_MAX + 16], in2[PATH_MAX + 16], out[PATH_MAX + 16];
    char log[PATH_MAX + 16];
    double timeout;
    const char *dtype;     /* float32 float16 bfloat16 */
    /* serve and lib: the long-lived process (pid 0: none running) */
    pid_t pid;
    int to_fd, from_fd;
    char rbuf[8192];       /* serve: reply bytes read, not yet a line */
    size_t rlen;
    char lib_path[PATH_MAX], lib_sym[256];
    const char *arg;
};

/* For the signal handler: the kernel whose files and processes to clean. */
static rk_kernel *g_k;
static volatile sig_atomic_t g_pid;   /* the running group's leader */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Everything in the private directory (a kernel may leave files there,
 * e.g. a sidecar next to {out}), then the directory. */
static void remove_dir(const char *dir, int depth)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    if (d == NULL)
        return;
    while ((e = readdir(d)) != NULL) {
        char p[PATH_MAX + 300];
        struct stat sb;
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode) && depth < 16)
            remove_dir(p, depth + 1);
        else
            unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

static void on_signal(int sig)
{
    rk_kernel *k = g_k;
    if (g_pid > 0)
        kill(-(pid_t)g_pid, SIGKILL);
    if (k && k->pid > 0)
        kill(-k->pid, SIGKILL);
    if (k && k->dir[0]) {
        unlink(k->in);
        unlink(k->in2);
        unlink(k->out);
        unlink(k->log);
        rmdir(k->dir);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

/* The last lines of the kernel's log, indented, into buf ("" if none). */
static void log_tail(const rk_kernel *k, char *buf, size_t len)
{
    /* The first LOG_HEAD lines (where a kernel's own message usually is)
     * and the last LOG_TAIL (how it ended: a sanitizer's or the runtime's
     * report), each cut to LOG_WIDTH characters, with the number of lines
     * left out between them. */
    enum { LOG_HEAD = 3, LOG_TAIL = 8, LOG_WIDTH = 160, LOG_KEEP = 4096 };
    FILE *fp = fopen(k->log, "rb");
    char head[LOG_KEEP], tail[LOG_KEEP];
    size_t nh = 0, nt = 0;
    long sz = 0, lines_total = 0;
    buf[0] = '\0';
    if (fp == NULL)
        return;
    if (fseek(fp, 0, SEEK_END) == 0 && (sz = ftell(fp)) > 0) {
        int c;
        rewind(fp);
        nh = fread(head, 1, sizeof head - 1, fp);
        if (sz > (long)nh) {
            long from = sz - (long)sizeof tail + 1;
            fseek(fp, from > (long)nh ? from : (long)nh, SEEK_SET);
            nt = fread(tail, 1, sizeof tail - 1, fp);
        }
        rewind(fp);
        while ((c = getc(fp)) != EOF)
            lines_total += c == '\n';
    }
    fclose(fp);
    head[nh] = tail[nt] = '\0';
    if (nh == 0)
        return;
    if (sz > 0 && (nt > 0 ? tail[nt - 1] : head[nh - 1]) != '\n')
        lines_total++;              /* a last line without its newline */
    {
        /* the log as lines: all of them when few, else head ... tail */
        const char *ln[LOG_HEAD + LOG_TAIL];
        size_t lw[LOG_HEAD + LOG_TAIL];
        int nl = 0, shown_head = 0;
        long skipped = 0;
        char *whole = nt ? NULL : head;     /* the log fits in head[] */
        if (whole != NULL && lines_total <= LOG_HEAD + LOG_TAIL) {
            for (char *p = whole; *p && nl < LOG_HEAD + LOG_TAIL;) {
                char *e = strchr(p, '\n');
                size_t w = e ? (size_t)(e - p) : strlen(p);
                ln[nl] = p, lw[nl++] = w;
                p += w + (e != NULL);
            }
            shown_head = nl;
        } else {
            /* the first LOG_HEAD lines of head[] */
            char *p = head;
            while (*p && nl < LOG_HEAD) {
                char *e = strchr(p, '\n');
                if (e == NULL)
                    break;
                ln[nl] = p, lw[nl++] = (size_t)(e - p);
                p = e + 1;
            }
            shown_head = nl;
            /* the last LOG_TAIL lines of the log's end */
            char *t = nt ? tail : head;
            size_t n = nt ? nt : nh;
            while (n > 0 && t[n - 1] == '\n')
                t[--n] = '\0';
            char *q = t + n;
            int got = 0;
            while (q > t && got < LOG_TAIL) {
                q--;
                if (*q == '\n')
                    got++;
            }
            if (*q == '\n')
                q++;
            for (char *r = q; *r && nl < LOG_HEAD + LOG_TAIL;) {
                char *e = strchr(r, '\n');
                size_t w = e ? (size_t)(e - r) : strlen(r);
                ln[nl] = r, lw[nl++] = w;
                r += w + (e != NULL);
            }
            skipped = lines_total - nl;
        }
        snprintf(buf, len, "\n  its output (%ld line%s):", lines_total,
                 lines_total == 1 ? "" : "s");
        for (int i = 0; i < nl; i++) {
            size_t w = strlen(buf);
            char line[LOG_WIDTH + 4];
            size_t m = lw[i] < LOG_WIDTH ? lw[i] : LOG_WIDTH;
            if (i == shown_head && skipped > 0) {
                snprintf(buf + w, len - w, "\n    [%ld line%s left out]",
                         skipped, skipped == 1 ? "" : "s");
                w = strlen(buf);
            }
            memcpy(line, ln[i], m);
            line[m] = '\0';
            for (char *c = line; *c; c++)
                if ((unsigned char)*c < 0x20 && *c != '\t')
                    *c = '?';
            snprintf(buf + w, len - w, "\n    %s%s", line,
                     lw[i] > LOG_WIDTH ? "..." : "");
        }
    }
}

/* How a process ended, as words ("exited with status 3", "was killed by
 * signal 11 (Segmentation fault)"). */
static void status_words(int st, char *buf, size_t len)
{
    if (WIFSIGNALED(st))
        snprintf(buf, len, "was killed by signal %d (%s)", WTERMSIG(st),
                 strsignal(WTERMSIG(st)));
    else if (WIFEXITED(st))
        snprintf(buf, len, "exited with status %d", WEXITSTATUS(st));
    else
        snprintf(buf, len, "ended (wait status %d)", st);
}

/* ------------------------------------------------------------------------
 * Files: the inputs as .npy, the output read back and checked.
 * ---------------------------------------------------------------------- */
static const fl_format *dtype_format(const char *dtype)
{
    return !strcmp(dtype, "float32") ? &fl_binary32
         : !strcmp(dtype, "float16") ? &fl_binary16 : &fl_bfloat16;
}

/* The shapes of a call: a, b and out (nd, ndo dimensions). */
static void call_shapes(const fl_reveal_call *c, size_t *sa, size_t *sb,
                        size_t *so, int *nd, int *ndo)
{
    *nd = *ndo = 0;
    if (c->batch) {
        sa[0] = sb[0] = so[0] = c->batch;
        *nd = *ndo = 1;
    }
    if (c->op == FL_REF_OP_GEMM) {
        sa[*nd] = c->rows;
        sa[*nd + 1] = c->k;
        sb[*nd] = c->k;
        sb[*nd + 1] = c->n;
        so[(*ndo)++] = c->rows;
        so[(*ndo)++] = c->n;
    } else {
        sa[*nd] = sb[*nd] = c->rows;
        sa[*nd + 1] = sb[*nd + 1] = c->n;
        so[(*ndo)++] = c->rows;
    }
    *nd += 2;
}

static int write_input(const char *path, const char *dtype, const uint64_t *v,
                       const size_t *shape, int ndim, char *err, size_t errlen)
{
    tensor t;
    const tensor *tp = &t;
    int rc;
    if (tensor_from_bits(&t, dtype_format(dtype), ndim, shape, v) != 0) {
        snprintf(err, errlen, "out of memory for %s", path);
        return -1;
    }
    rc = tensor_write(path, &tp, NULL, 1, 0, err, errlen);
    tensor_free(&t);
    return rc;
}

static int write_inputs(rk_kernel *k, const fl_reveal_call *c, char *err,
                        size_t errlen)
{
    size_t sa[3], sb[3], so[3];
    int nd, ndo;
    call_shapes(c, sa, sb, so, &nd, &ndo);
    unlink(k->out);
    if (write_input(k->in, k->dtype, c->a, sa, nd, err, errlen) != 0)
        return -1;
    if (c->b && write_input(k->in2, k->dtype, c->b, sb, nd, err, errlen) != 0)
        return -1;
    return 0;
}

/* {out}: exists, reads, has a float dtype (or uint16 = bfloat16) and the
 * call's shape; into c->out and c->out_format.  who: "the command" or
 * "the server" for the messages. */
static int read_output(rk_kernel *k, fl_reveal_call *c, const char *who,
                       char *err, size_t errlen)
{
    size_t sa[3], sb[3], so[3];
    int nd, ndo;
    tensor t;
    char e[1024];
    fl_format of;
    size_t want = fl_reveal_call_outputs(c);
    call_shapes(c, sa, sb, so, &nd, &ndo);
    if (access(k->out, F_OK) != 0) {
        char tail[2048];
        log_tail(k, tail, sizeof tail);
        snprintf(err, errlen, "%s wrote no {out} file%s", who, tail);
        return -1;
    }
    if (tensor_read(&t, k->out, e, sizeof e) != 0) {
        /* the private path means nothing to the user: say {out} */
        char *p = strstr(e, k->out);
        if (p) {
            size_t ol = strlen(k->out);
            memmove(p + 5, p + ol, strlen(p + ol) + 1);
            memcpy(p, "{out}", 5);
        }
        snprintf(err, errlen, "its output: %s", e);
        return -1;
    }
    switch (t.dtype) {
    case TENSOR_F32: of = fl_binary32; break;
    case TENSOR_F16: of = fl_binary16; break;
    case TENSOR_F64: of = fl_binary64; break;
    case TENSOR_U16: case TENSOR_BF16: of = fl_bfloat16; break;
    default:
        snprintf(err, errlen, "its output has dtype %s: expected float32, "
                 "float16, float64 or uint16 (bfloat16 bit patterns)",
                 tensor_dtype_name(t.dtype));
        tensor_free(&t);
        return -1;
    }
    {
        int ok = t.ndim == ndo;
        for (int d = 0; ok && d < ndo; d++)
            ok = t.shape[d] == so[d];
        if (!ok) {
            char got[256], exp[256];
            tensor_shape_str(&t, got, sizeof got);
            fl_tensor_shape_text(so, ndo, exp, sizeof exp);
            snprintf(err, errlen, "its output has shape %s, expected %s", got,
                     exp);
            tensor_free(&t);
            return -1;
        }
    }
    if (t.n != want) {
        snprintf(err, errlen, "its output has %zu elements, expected %zu", t.n,
                 want);
        tensor_free(&t);
        return -1;
    }
    tensor_to_bits(&t, c->out);
    tensor_free(&t);
    c->out_format = of;
    return 0;
}

/* ------------------------------------------------------------------------
 * Processes.
 * ---------------------------------------------------------------------- */
/* Kill a group and reap its leader. */
static void kill_group(pid_t pid, int *st)
{
    int s = 0;
    kill(-pid, SIGKILL);
    while (waitpid(pid, &s, 0) < 0 && errno == EINTR)
        ;
    if (st)
        *st = s;
    if (g_pid == pid)
        g_pid = 0;
}

/* Fork a child in its own process group with stdin from in_fd (-1:
 * /dev/null), stdout to out_fd (-1: the log) and stderr to the log.  The
 * child runs fn(k, a, b) or execs argv; returns the pid, or -1 with err. */
static pid_t spawn(rk_kernel *k, char **argv, int in_fd, int out_fd,
                   int (*fn)(rk_kernel *, int, int), int fa, int fb,
                   const int *close_fds, int nclose, char *err, size_t errlen)
{
    int logfd = open(k->log, O_WRONLY | O_CREAT | O_APPEND, 0600);
    pid_t pid;
    if (logfd < 0) {
        snprintf(err, errlen, "cannot create %s: %s", k->log, strerror(errno));
        return -1;
    }
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "cannot start the kernel: %s", strerror(errno));
        close(logfd);
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        for (int i = 0; i < nclose; i++)
            if (close_fds[i] >= 0)
                close(close_fds[i]);
        if (in_fd < 0) {
            int nul = open("/dev/null", O_RDONLY);
            if (nul >= 0) {
                dup2(nul, 0);
                close(nul);
            }
        } else if (in_fd != 0) {
            dup2(in_fd, 0);
            close(in_fd);
        }
        if (out_fd >= 0 && out_fd != 1) {
            dup2(out_fd, 1);
            close(out_fd);
        } else if (out_fd < 0) {
            dup2(logfd, 1);
        }
        dup2(logfd, 2);
        close(logfd);
        if (fn)
            _exit(fn(k, fa, fb));
        execvp(argv[0], argv);
        dprintf(2, "cannot run '%s': %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid);
    close(logfd);
    return pid;
}

/* Waits until fd is ready for events (POLLIN, POLLOUT) or the deadline
 * passes: 0 timed out, else 1 with what poll saw in *revents (revents
 * may be NULL; a failed poll reads as ready: the read or write that
 * follows reports it). */
static int fd_wait(int fd, short events, double deadline, short *revents)
{
    for (;;) {
        struct pollfd pf = {fd, events, 0};
        double left = deadline - now_s();
        int ms = left <= 0 ? 0 : left > 1e6 ? 1000000000 : (int)(left * 1000) + 1;
        int pr = poll(&pf, 1, ms);
        if (pr < 0 && errno == EINTR)
            continue;
        if (revents)
            *revents = pf.revents;
        return pr != 0;
    }
}

/* Moves len bytes through fd before the deadline, in chunks of at most
 * 1 MiB: from src when it is not NULL (writing), else into dst (reading).
 * 0; -1 the deadline passed; -2 the other end is gone (a hang-up while
 * writing, EOF while reading, or an error). */
static int transfer_all(int fd, const char *src, char *dst, size_t len,
                        double deadline)
{
    const int out = src != NULL;
    while (len > 0) {
        const size_t chunk = len > (1u << 20) ? (1u << 20) : len;
        short rev;
        ssize_t k;
        if (!fd_wait(fd, out ? POLLOUT : POLLIN, deadline, &rev))
            return -1;
        if (out && (rev & (POLLERR | POLLHUP | POLLNVAL)))
            return -2;
        k = out ? write(fd, src, chunk) : read(fd, dst, chunk);
        if (k < 0) {
            if (errno == EINTR || errno == EAGAIN)
                continue;
            return -2;
        }
        if (k == 0 && !out)
            return -2;
        if (out)
            src += k;
        else
            dst += k;
        len -= (size_t)k;
    }
    return 0;
}

/* Write all of buf before the deadline; 0, -1 timeout, -2 the reader is
 * gone. */
static int write_all(int fd, const void *buf, size_t len, double deadline)
{
    return transfer_all(fd, buf, NULL, len, deadline);
}

/* Read exactly len bytes before the deadline; 0, -1 timeout, -2 EOF. */
static int read_all(int fd, void *buf, size_t len, double deadline)
{
    return transfer_all(fd, NULL, buf, len, deadline);
}

/* ------------------------------------------------------------------------
 * Command: one process per call.
 * ---------------------------------------------------------------------- */
/* ARGS with the placeholders replaced (malloc'd, NULL-terminated). */
static char **expand_args(const rk_kernel *k)
{
    char **v = calloc((size_t)k->argc + 1, sizeof *v);
    if (v == NULL)
        return NULL;
    for (int i = 0; i < k->argc; i++) {
        const char *s = k->argv[i];
        size_t cap = strlen(s) + 1, len = 0;
        char *o;
        for (const char *p = s; *p; p++)
            if (*p == '{')
                cap += sizeof k->in2 + 8;
        o = malloc(cap);
        if (o == NULL) {
            for (int j = 0; j < i; j++)
                free(v[j]);
            free(v);
            return NULL;
        }
        while (*s) {
            const char *rep = NULL;
            size_t skip = 0;
            if (!strncmp(s, "{in}", 4)) {
                rep = k->in;
                skip = 4;
            } else if (!strncmp(s, "{in2}", 5)) {
                rep = k->in2;
                skip = 5;
            } else if (!strncmp(s, "{out}", 5)) {
                rep = k->out;
                skip = 5;
            }
            if (rep) {
                size_t rl = strlen(rep);
                memcpy(o + len, rep, rl);
                len += rl;
                s += skip;
            } else {
                o[len++] = *s++;
            }
        }
        o[len] = '\0';
        v[i] = o;
    }
    return v;
}

static void free_args(char **v)
{
    if (v == NULL)
        return;
    for (char **p = v; *p; p++)
        free(*p);
    free(v);
}

static int run_command(rk_kernel *k, char *err, size_t errlen)
{
    char **argv = expand_args(k), tail[2048];
    pid_t pid;
    int st = 0;
    double t0 = now_s(), sleep_s = 0.0005;
    if (argv == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    /* a fresh log per call: its tail is this call's output */
    unlink(k->log);
    pid = spawn(k, argv, -1, -1, NULL, 0, 0, NULL, 0, err, errlen);
    if (pid < 0) {
        free_args(argv);
        return -1;
    }
    g_pid = pid;
    for (;;) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR) {
            st = -1;
            break;
        }
        if (k->timeout > 0 && now_s() - t0 > k->timeout) {
            kill_group(pid, &st);
            log_tail(k, tail, sizeof tail);
            snprintf(err, errlen, "the command ran past --timeout %g s: its "
                     "process group was killed%s", k->timeout, tail);
            free_args(argv);
            return -1;
        }
        {
            struct timespec ts;
            ts.tv_sec = 0;
            ts.tv_nsec = (long)(sleep_s * 1e9);
            nanosleep(&ts, NULL);
            if (sleep_s < 0.01)
                sleep_s *= 1.5;
        }
    }
    /* leftovers of the group (background children) go too */
    kill(-pid, SIGKILL);
    g_pid = 0;
    free_args(argv);
    if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        char how[128];
        log_tail(k, tail, sizeof tail);
        if (st == -1)
            snprintf(how, sizeof how, "could not be waited for");
        else
            status_words(st, how, sizeof how);
        snprintf(err, errlen, "the command %s%s", how, tail);
        return -1;
    }
    return 0;
}

static int command_call(rk_kernel *k, fl_reveal_call *c, char *err,
                        size_t errlen)
{
    if (write_inputs(k, c, err, errlen) != 0 || run_command(k, err, errlen) != 0)
        return -1;
    return read_output(k, c, "the command exited 0 but", err, errlen);
}

/* ------------------------------------------------------------------------
 * Serve: one process, a request line and a reply line per call.
 * ---------------------------------------------------------------------- */
/* Polls every 10 ms until the deadline dl for the worker pid to end.
 * 1 when it did (*st its status, its group's leftovers killed), else 0. */
static int reap_by(pid_t pid, double dl, int *st)
{
    while (now_s() < dl) {
        struct timespec ts = {0, 10000000};
        if (waitpid(pid, st, WNOHANG) == pid) {
            kill(-pid, SIGKILL);   /* its leftovers */
            return 1;
        }
        nanosleep(&ts, NULL);
    }
    return 0;
}

/* The worker's end: its group killed unless k->pid is 0 (reaped already),
 * both pipe ends closed. */
static void worker_drop(rk_kernel *k)
{
    if (k->pid > 0)
        kill_group(k->pid, NULL);
    k->pid = 0;
    if (k->to_fd >= 0)
        close(k->to_fd);
    if (k->from_fd >= 0)
        close(k->from_fd);
    k->to_fd = k->from_fd = -1;
}

static void serve_stop(rk_kernel *k, int polite)
{
    int st;
    if (k->pid <= 0)
        return;
    if (polite && k->to_fd >= 0) {
        double dl = now_s() + 2.0;
        write_all(k->to_fd, "quit\n", 5, dl);
        close(k->to_fd);
        k->to_fd = -1;
        if (reap_by(k->pid, dl, &st))
            k->pid = 0;
    }
    worker_drop(k);
    k->rlen = 0;
}

/* A worker on a request pipe and a reply pipe: the command k->argv reading
 * requests on its stdin and answering on its stdout (fn NULL), or fn in a
 * child process given the two ends.  The parent keeps the other ends,
 * close-on-exec, in k->to_fd and k->from_fd.  0, or -1 with err. */
static int start_worker(rk_kernel *k, int (*fn)(rk_kernel *, int, int),
                        char *err, size_t errlen)
{
    int req[2], rep[2];
    pid_t pid;
    if (pipe(req) != 0 || pipe(rep) != 0) {
        snprintf(err, errlen, "cannot make pipes: %s", strerror(errno));
        return -1;
    }
    {
        int cl[2] = {req[1], rep[0]};
        pid = fn ? spawn(k, NULL, -1, -1, fn, req[0], rep[1], cl, 2, err,
                         errlen)
                 : spawn(k, k->argv, req[0], rep[1], NULL, 0, 0, cl, 2, err,
                         errlen);
    }
    close(req[0]);
    close(rep[1]);
    if (pid < 0) {
        close(req[1]);
        close(rep[0]);
        return -1;
    }
    fcntl(req[1], F_SETFD, FD_CLOEXEC);
    fcntl(rep[0], F_SETFD, FD_CLOEXEC);
    k->pid = pid;
    k->to_fd = req[1];
    k->from_fd = rep[0];
    return 0;
}

static int serve_start(rk_kernel *k, char *err, size_t errlen)
{
    if (start_worker(k, NULL, err, errlen) != 0)
        return -1;
    k->rlen = 0;
    return 0;
}

/* The server is gone or stuck: its end as words, the group killed. */
static void serve_died(rk_kernel *k, const char *what, char *err, size_t errlen)
{
    char tail[2048], how[160] = "";
    int st = 0;
    pid_t pid = k->pid;
    /* a server that closed its stdout is leaving: give it a moment */
    for (int i = 0; i < 100 && pid > 0; i++) {
        struct timespec ts = {0, 10000000};
        if (waitpid(pid, &st, WNOHANG) == pid) {
            status_words(st, how, sizeof how);
            kill(-pid, SIGKILL);
            k->pid = 0;
            break;
        }
        nanosleep(&ts, NULL);
    }
    serve_stop(k, 0);
    log_tail(k, tail, sizeof tail);
    snprintf(err, errlen, "%s%s%s%s", what, how[0] ? ": the server " : "", how,
             tail);
}

/* One reply line (without the newline) before the deadline: 0, -1
 * timeout, -2 EOF. */
static int serve_line(rk_kernel *k, char *line, size_t len, double deadline)
{
    for (;;) {
        char *nl = memchr(k->rbuf, '\n', k->rlen);
        if (nl) {
            size_t l = (size_t)(nl - k->rbuf);
            size_t c = l < len - 1 ? l : len - 1;
            memcpy(line, k->rbuf, c);
            line[c] = '\0';
            memmove(k->rbuf, nl + 1, k->rlen - l - 1);
            k->rlen -= l + 1;
            return 0;
        }
        if (k->rlen == sizeof k->rbuf) {
            /* a line longer than the buffer: keep its start */
            size_t c = len - 1 < k->rlen ? len - 1 : k->rlen;
            memcpy(line, k->rbuf, c);
            line[c] = '\0';
            k->rlen = 0;
            return 0;
        }
        {
            ssize_t g;
            if (!fd_wait(k->from_fd, POLLIN, deadline, NULL))
                return -1;
            g = read(k->from_fd, k->rbuf + k->rlen, sizeof k->rbuf - k->rlen);
            if (g < 0 && (errno == EINTR || errno == EAGAIN))
                continue;
            if (g <= 0)
                return -2;
            k->rlen += (size_t)g;
        }
    }
}

static int serve_call(rk_kernel *k, fl_reveal_call *c, char *err,
                      size_t errlen)
{
    static const char *const ops[] = {"sum", "dot", "gemm"};
    char req[4 * PATH_MAX + 128], line[2048];
    double deadline;
    int rc;
    if (write_inputs(k, c, err, errlen) != 0)
        return -1;
    if (k->pid <= 0 && serve_start(k, err, errlen) != 0)
        return -1;
    g_pid = 0;
    snprintf(req, sizeof req, "call\t%zu\t%s\t%s\t%s\t%s\t%s\n", c->index,
             ops[c->op], k->dtype, k->in, c->b ? k->in2 : "-", k->out);
    deadline = now_s() + (k->timeout > 0 ? k->timeout : 1e9);
    rc = write_all(k->to_fd, req, strlen(req), deadline);
    if (rc == 0)
        rc = serve_line(k, line, sizeof line, deadline);
    if (rc == -1) {
        char tail[2048];
        serve_stop(k, 0);
        log_tail(k, tail, sizeof tail);
        snprintf(err, errlen, "the server did not answer within --timeout %g s: "
                 "its process group was killed%s", k->timeout, tail);
        return -1;
    }
    if (rc == -2) {
        serve_died(k, "the server closed its end before answering", err, errlen);
        return -1;
    }
    if (!strcmp(line, "ok"))
        return read_output(k, c, "the server answered ok but", err, errlen);
    if (!strncmp(line, "error", 5) && (line[5] == '\0' || line[5] == ' ')) {
        for (char *p = line; *p; p++)
            if ((unsigned char)*p < 0x20)
                *p = '?';
        snprintf(err, errlen, "the server answered: %s", line);
        return -1;
    }
    {
        char tail[2048];
        for (char *p = line; *p; p++)
            if ((unsigned char)*p < 0x20)
                *p = '?';
        serve_stop(k, 0);
        log_tail(k, tail, sizeof tail);
        snprintf(err, errlen, "the server answered '%.200s', not 'ok' or 'error "
                 "MESSAGE' (its stdout is for the protocol alone; see "
                 "docs/kernels.md): it was stopped%s", line, tail);
        return -1;
    }
}

/* ------------------------------------------------------------------------
 * Lib: a worker process with the library loaded.
 * ---------------------------------------------------------------------- */
#define RK_MAGIC 0x464C5256u   /* "FLRV" */

typedef struct rk_req {
    uint32_t magic;
    int32_t op;
    uint64_t batch, rows, n, k, index, na, nb;
    fl_format in;
} rk_req;

typedef struct rk_rep {
    uint32_t magic;
    int32_t rc;
    fl_format out_format;
    uint64_t nout;
    char err[1024];
} rk_rep;

/* The worker: load, report ready (rk_rep with rc 0, or -1 and why), then
 * answer requests until the pipe closes.  Runs in the child. */
static int lib_worker(rk_kernel *k, int rfd, int wfd)
{
    rk_rep rep;
    fl_reveal_kernel fn = NULL;
    void *h;
    memset(&rep, 0, sizeof rep);
    rep.magic = RK_MAGIC;
    h = dlopen(k->lib_path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        rep.rc = -1;
        snprintf(rep.err, sizeof rep.err, "cannot load %.400s: %.500s",
                 k->lib_path, dlerror());
    } else {
        void *sym;
        dlerror();
        sym = dlsym(h, k->lib_sym);
        if (sym == NULL) {
            rep.rc = -1;
            snprintf(rep.err, sizeof rep.err, "%.600s has no symbol '%.200s'",
                     k->lib_path, k->lib_sym);
        } else {
            memcpy(&fn, &sym, sizeof fn);
        }
    }
    if (write_all(wfd, &rep, sizeof rep, now_s() + 1e9) != 0 || rep.rc != 0)
        return rep.rc ? 3 : 4;
    for (;;) {
        rk_req q;
        fl_reveal_call c;
        uint64_t *a = NULL, *b = NULL, *out;
        size_t nout;
        int rc;
        if (read_all(rfd, &q, sizeof q, now_s() + 1e9) != 0)
            return 0;                     /* the pipe closed: done */
        if (q.magic != RK_MAGIC)
            return 5;
        c = (fl_reveal_call){.op = (fl_ref_op)q.op, .in = &q.in,
                             .batch = q.batch, .rows = q.rows, .n = q.n,
                             .k = q.k, .index = q.index,
                             .set_out_format = fl_reveal_set_out_format};
        a = malloc((q.na ? q.na : 1) * sizeof *a);
        b = q.nb ? malloc(q.nb * sizeof *b) : NULL;
        nout = fl_reveal_call_outputs(&c);
        out = calloc(nout ? nout : 1, sizeof *out);
        if (a == NULL || (q.nb && b == NULL) || out == NULL)
            return 6;
        if (read_all(rfd, a, q.na * sizeof *a, now_s() + 1e9) != 0 ||
            (q.nb && read_all(rfd, b, q.nb * sizeof *b, now_s() + 1e9) != 0))
            return 0;
        c.a = a;
        c.b = b;
        c.out = out;
        memset(&rep, 0, sizeof rep);
        rep.magic = RK_MAGIC;
        rc = fn((void *)k->arg, &c, rep.err, sizeof rep.err);
        rep.rc = rc;
        rep.out_format = c.out_format;
        rep.nout = rc == 0 ? nout : 0;
        if (write_all(wfd, &rep, sizeof rep, now_s() + 1e9) != 0 ||
            (rc == 0 && write_all(wfd, out, nout * sizeof *out,
                                  now_s() + 1e9) != 0))
            return 0;
        fflush(stdout);
        fflush(stderr);
        free(a);
        free(b);
        free(out);
    }
}

static void lib_stop(rk_kernel *k)
{
    if (k->pid <= 0)
        return;
    if (k->to_fd >= 0)
        close(k->to_fd);     /* the worker's read sees EOF and it ends */
    k->to_fd = -1;
    {
        int st;
        if (reap_by(k->pid, now_s() + 2.0, &st))
            k->pid = 0;
    }
    worker_drop(k);
}

/* The worker is gone (EOF) or stuck (timeout): words, group killed. */
static void lib_died(rk_kernel *k, int timed_out, const char *when, char *err,
                     size_t errlen)
{
    char tail[2048], how[160] = "";
    int st = 0;
    pid_t pid = k->pid;
    if (timed_out) {
        kill_group(pid, NULL);
        snprintf(how, sizeof how, "ran past --timeout %g s: its process group "
                 "was killed", k->timeout);
    } else if (reap_by(pid, now_s() + 1.0, &st)) {
        status_words(st, how, sizeof how);
    } else {
        kill_group(pid, NULL);
        snprintf(how, sizeof how, "closed its pipe: it was stopped");
    }
    k->pid = 0;   /* reaped or killed above */
    worker_drop(k);
    log_tail(k, tail, sizeof tail);
    snprintf(err, errlen, "the kernel library's worker %s (%s)%s", how, when,
             tail);
}

static int lib_start(rk_kernel *k, char *err, size_t errlen)
{
    rk_rep ready;
    int rc;
    if (start_worker(k, lib_worker, err, errlen) != 0)
        return -1;
    rc = read_all(k->from_fd, &ready, sizeof ready,
                  now_s() + (k->timeout > 0 ? k->timeout : 1e9));
    if (rc != 0) {
        lib_died(k, rc == -1, "while loading the library", err, errlen);
        return -1;
    }
    if (ready.magic != RK_MAGIC || ready.rc != 0) {
        ready.err[sizeof ready.err - 1] = '\0';
        snprintf(err, errlen, "%s", ready.magic == RK_MAGIC ? ready.err
                 : "the kernel library's worker answered garbage");
        lib_stop(k);
        return -1;
    }
    return 0;
}

static int lib_call(rk_kernel *k, fl_reveal_call *c, char *err, size_t errlen)
{
    rk_req q;
    rk_rep rep;
    double deadline;
    size_t nout = fl_reveal_call_outputs(c);
    int rc;
    if (k->pid <= 0 && lib_start(k, err, errlen) != 0)
        return -1;
    memset(&q, 0, sizeof q);
    q.magic = RK_MAGIC;
    q.op = (int32_t)c->op;
    q.batch = c->batch;
    q.rows = c->rows;
    q.n = c->n;
    q.k = c->k;
    q.index = c->index;
    q.na = fl_reveal_call_inputs(c, 0);
    q.nb = c->b ? fl_reveal_call_inputs(c, 1) : 0;
    q.in = *c->in;
    deadline = now_s() + (k->timeout > 0 ? k->timeout : 1e9);
    rc = write_all(k->to_fd, &q, sizeof q, deadline);
    if (rc == 0)
        rc = write_all(k->to_fd, c->a, q.na * sizeof *c->a, deadline);
    if (rc == 0 && q.nb)
        rc = write_all(k->to_fd, c->b, q.nb * sizeof *c->b, deadline);
    if (rc != 0) {
        lib_died(k, rc == -1, "before it took the inputs", err, errlen);
        return -1;
    }
    rc = read_all(k->from_fd, &rep, sizeof rep, deadline);
    if (rc == 0 && rep.magic != RK_MAGIC)
        rc = -3;
    if (rc == 0 && rep.rc == 0 && rep.nout != nout)
        rc = -3;
    if (rc == 0 && rep.rc == 0)
        rc = read_all(k->from_fd, c->out, nout * sizeof *c->out, deadline);
    if (rc == -3) {
        lib_stop(k);
        snprintf(err, errlen, "the kernel library's worker answered garbage: it "
                 "was stopped");
        return -1;
    }
    if (rc != 0) {
        lib_died(k, rc == -1, "in the kernel function", err, errlen);
        return -1;
    }
    rep.err[sizeof rep.err - 1] = '\0';
    if (rep.rc != 0) {
        snprintf(err, errlen, "%s", rep.err[0] ? rep.err
                 : "the kernel function returned nonzero");
        return -1;
    }
    c->out_format = rep.out_format;
    return 0;
}

/* ------------------------------------------------------------------------
 * The interface.
 * ---------------------------------------------------------------------- */
rk_kernel *rk_open(int kind, char **argv, int argc, const char *lib,
                   const char *arg, const char *dtype, double timeout,
                   char *err, size_t errlen)
{
    rk_kernel *k = calloc(1, sizeof *k);
    const char *tmpdir = getenv("TMPDIR");
    if (k == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    k->kind = kind;
    k->argv = argv;
    k->argc = argc;
    k->timeout = timeout;
    k->dtype = dtype;
    k->arg = arg;
    k->to_fd = k->from_fd = -1;
    if (kind == RK_LIB) {
        const char *colon = lib ? strrchr(lib, ':') : NULL;
        size_t pl = colon ? (size_t)(colon - lib) : 0;
        if (colon == NULL || pl == 0 || colon[1] == '\0' ||
            pl >= sizeof k->lib_path || strlen(colon + 1) >= sizeof k->lib_sym) {
            snprintf(err, errlen, "--kernel-lib '%s' is not PATH:SYMBOL (a "
                     "shared library and the name of its kernel function)",
                     lib ? lib : "");
            free(k);
            return NULL;
        }
        memcpy(k->lib_path, lib, pl);
        k->lib_path[pl] = '\0';
        snprintf(k->lib_sym, sizeof k->lib_sym, "%s", colon + 1);
        if (access(k->lib_path, R_OK) != 0) {
            snprintf(err, errlen, "--kernel-lib: cannot read %s: %s",
                     k->lib_path, strerror(errno));
            free(k);
            return NULL;
        }
    }
    if (tmpdir == NULL || tmpdir[0] == '\0')
        tmpdir = "/tmp";
    snprintf(k->dir, sizeof k->dir, "%s/fplab-reveal-XXXXXX", tmpdir);
    if (mkdtemp(k->dir) == NULL) {
        snprintf(err, errlen, "cannot create a temporary directory in %s: %s",
                 tmpdir, strerror(errno));
        free(k);
        return NULL;
    }
    snprintf(k->in, sizeof k->in, "%s/in.npy", k->dir);
    snprintf(k->in2, sizeof k->in2, "%s/in2.npy", k->dir);
    snprintf(k->out, sizeof k->out, "%s/out.npy", k->dir);
    snprintf(k->log, sizeof k->log, "%s/kernel.log", k->dir);
    g_k = k;
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGHUP, on_signal);
    signal(SIGPIPE, SIG_IGN);   /* a dead reader is an error, not a death */
    return k;
}

int rk_call(void *user, fl_reveal_call *c, char *err, size_t errlen)
{
    rk_kernel *k = user;
    switch (k->kind) {
    case RK_SERVE:
        return serve_call(k, c, err, errlen);
    case RK_LIB:
        return lib_call(k, c, err, errlen);
    default:
        return command_call(k, c, err, errlen);
    }
}

void rk_close(rk_kernel *k)
{
    if (k == NULL)
        return;
    if (k->kind == RK_SERVE)
        serve_stop(k, 1);
    else if (k->kind == RK_LIB)
        lib_stop(k);
    remove_dir(k->dir, 0);
    g_k = NULL;
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    free(k);
}
