/*
 * util.c — helpers shared by the fplab subcommands: error messages, parsing
 * of formats, rounding modes and numbers, atomic output files, mkdir -p.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#include "cli.h"
#include "ops_internal.h"

int cli_error(const char *fmt, ...)
{
    va_list ap;
    fputs("fplab: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return CLI_USAGE;
}

int cli_parse_format(const char *spec, fl_format *out, const char *where)
{
    char err[1024] = "";
    if (spec == NULL || spec[0] == '\0') {
        cli_error("%s: missing format (a preset such as binary16, bfloat16, "
                  "fp8-e4m3, or ieee:E:M)", where);
        return -1;
    }
    if (fl_format_parse(out, spec, err, sizeof err) != 0) {
        if (err[0])
            cli_error("%s: %s", where, err);
        else
            cli_error("%s: unknown format '%s'", where, spec);
        return -1;
    }
    /* The core names every ieee:E:M format "ieee"; messages and reports
     * should say which one.  There are at most 10 x 52 such formats, so
     * each name is made once in a fixed table and shared (the command is
     * single-threaded). */
    if (out->name != NULL && !strcmp(out->name, "ieee") && out->ebits >= 2 &&
        out->ebits <= 11 && out->prec >= 2 && out->prec <= 53) {
        static char names[10][52][12];
        char *name = names[out->ebits - 2][out->prec - 2];
        if (!name[0])
            snprintf(name, sizeof names[0][0], "ieee:%d:%d", out->ebits,
                     out->prec - 1);
        out->name = name;
    }
    return 0;
}

int cli_one_format(const char *cmd, int argc, char **argv,
                   void (*usage)(FILE *), fl_format *out, const char **spec)
{
    char where[64];
    *spec = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 1;
        }
        if (!strncmp(argv[i], "--", 2)) {
            cli_error("%s: unknown option '%s' (try 'fplab %s --help')", cmd,
                      argv[i], cmd);
            return -1;
        }
        if (*spec != NULL) {
            cli_error("%s: one FORMAT only, got '%s' and '%s'", cmd, *spec,
                      argv[i]);
            return -1;
        }
        *spec = argv[i];
    }
    if (*spec == NULL) {
        cli_error("%s: need a FORMAT (try 'fplab %s --help')", cmd, cmd);
        return -1;
    }
    snprintf(where, sizeof where, "%s: FORMAT", cmd);
    return cli_parse_format(*spec, out, where) != 0 ? -1 : 0;
}

const cli_string_opt *cli_string_opt_find(const cli_string_opt *opts,
                                          size_t n, const char *a)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(a, opts[i].name))
            return &opts[i];
    return NULL;
}

int cli_input_file(const char *cmd, const char *a, const char **file,
                   void (*usage)(FILE *))
{
    if (a[0] == '-' && a[1]) {
        usage(stderr);
        return cli_error("%s: unknown option '%s'", cmd, a);
    }
    if (*file)
        return cli_error("%s: more than one input file ('%s', '%s')", cmd,
                         *file, a);
    *file = a;
    return 0;
}

int cli_parse_rm(const char *s, const char *where)
{
    int rm = s ? fl_rm_parse(s) : -1;
    if (rm < 0) {
        cli_error("%s: unknown rounding mode '%s' (rne rtz rdn rup rna rto "
                  "sr, or TestFloat's near_even minMag min max near_maxMag "
                  "odd)", where, s ? s : "");
        return -1;
    }
    return rm;
}

int cli_parse_tininess(const char *s, const char *where)
{
    if (!strcmp(s, "before"))
        return FL_TINY_BEFORE;
    if (!strcmp(s, "after"))
        return FL_TINY_AFTER;
    cli_error("%s: '%s' is not 'before' or 'after'", where, s);
    return -1;
}

int cli_parse_u64(const char *s, uint64_t *v)
{
    return fl__parse_u64(s, v);
}

int cli_parse_double(const char *s, double *v)
{
    uint64_t u;
    char *end;
    double d;
    if (s == NULL || *s == '\0')
        return -1;
    if (cli_parse_u64(s, &u) == 0) {
        *v = (double)u;
        return 0;
    }
    /* strtod skips leading blanks; the whole string must be the number */
    if (*s == ' ' || *s == '\t' || *s == '\n')
        return -1;
    errno = 0;
    d = strtod(s, &end);
    if (end == s || *end != '\0' || errno == ERANGE)
        return -1;
    *v = d;
    return 0;
}

/* ---------------------------------------------------------------------- */

/* Temp files of outputs not yet committed.  On SIGINT, SIGTERM or SIGHUP
 * they are removed (unlink is async-signal-safe) and the signal is
 * re-raised with its default action: an interrupted run leaves neither a
 * half-written output nor its temp file.  (SIGKILL cannot be caught: then
 * the "<path>.tmp.<pid>" file stays, and the output is still untouched.) */
#define CLI_MAX_LIVE 64
static char *volatile live_tmp[CLI_MAX_LIVE];

static void on_fatal_signal(int sig)
{
    for (int i = 0; i < CLI_MAX_LIVE; i++)
        if (live_tmp[i] != NULL)
            unlink(live_tmp[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void live_add(char *tmp)
{
    static int installed;
    if (!installed) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGHUP, &sa, NULL);
        installed = 1;
    }
    for (int i = 0; i < CLI_MAX_LIVE; i++)
        if (live_tmp[i] == NULL) {
            live_tmp[i] = tmp;
            return;
        }
}

static void live_remove(const char *tmp)
{
    for (int i = 0; i < CLI_MAX_LIVE; i++)
        if (live_tmp[i] == tmp)
            live_tmp[i] = NULL;
}

int cli_out_open(cli_out *o, const char *path)
{
    size_t n;
    o->fp = NULL;
    o->path = NULL;
    o->tmp = NULL;
    if (path == NULL || *path == '\0') {
        cli_error("output: empty file name");
        return -1;
    }
    o->path = strdup(path);
    n = strlen(path) + 32;
    o->tmp = malloc(n);
    if (o->path == NULL || o->tmp == NULL) {
        cli_error("%s: out of memory", path);
        free(o->path);
        free(o->tmp);
        o->path = o->tmp = NULL;
        return -1;
    }
    snprintf(o->tmp, n, "%s.tmp.%ld", path, (long)getpid());
    o->fp = fopen(o->tmp, "w");
    if (o->fp == NULL && errno == ENOENT) {
        /* a directory on the way is missing: make the chain, as every
         * command does for its outputs */
        if (cli_mkdir_parent(path, path) != 0) {
            free(o->path);
            free(o->tmp);
            o->path = o->tmp = NULL;
            return -1;
        }
        o->fp = fopen(o->tmp, "w");
    }
    if (o->fp == NULL) {
        cli_error("cannot create '%s' (for '%s'): %s", o->tmp, path,
                  strerror(errno));
        free(o->path);
        free(o->tmp);
        o->path = o->tmp = NULL;
        return -1;
    }
    live_add(o->tmp);
    return 0;
}

static void out_free(cli_out *o)
{
    if (o->tmp != NULL)
        live_remove(o->tmp);
    free(o->path);
    free(o->tmp);
    o->path = o->tmp = NULL;
    o->fp = NULL;
}

/* Make the rename durable: fsync the directory that holds path. */
static void sync_parent_dir(const char *path)
{
    char *dup = strdup(path);
    char *slash;
    int fd;
    if (dup == NULL)
        return;
    slash = strrchr(dup, '/');
    if (slash == NULL)
        strcpy(dup, ".");
    else if (slash == dup)
        dup[1] = '\0';
    else
        *slash = '\0';
    fd = open(dup, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        (void)fsync(fd);   /* best effort: not every filesystem allows it */
        close(fd);
    }
    free(dup);
}

int cli_out_commit(cli_out *o)
{
    const char *what = NULL;
    int err = 0;
    if (o->fp == NULL)
        return -1;
    if (ferror(o->fp)) {
        what = "write";
        err = EIO;
    } else if (fflush(o->fp) != 0) {
        what = "flush";
        err = errno;
    } else if (fsync(fileno(o->fp)) != 0 && errno != EINVAL) {
        /* EINVAL: the file cannot be synced (a pipe, /dev/null); fine */
        what = "fsync";
        err = errno;
    }
    if (fclose(o->fp) != 0 && what == NULL) {
        what = "close";
        err = errno;
    }
    o->fp = NULL;
    if (what == NULL && rename(o->tmp, o->path) != 0) {
        cli_error("cannot rename '%s' to '%s': %s", o->tmp, o->path,
                  strerror(errno));
        unlink(o->tmp);
        out_free(o);
        return -1;
    }
    if (what != NULL) {
        cli_error("%s failed on '%s' (for '%s'): %s", what, o->tmp, o->path,
                  strerror(err));
        unlink(o->tmp);
        out_free(o);
        return -1;
    }
    sync_parent_dir(o->path);
    out_free(o);
    return 0;
}

void cli_out_abort(cli_out *o)
{
    if (o->fp != NULL)
        fclose(o->fp);
    if (o->tmp != NULL)
        unlink(o->tmp);
    out_free(o);
}

int cli_mkdir_p(const char *dir, const char *what)
{
    char *p, *s;
    struct stat st;
    const char *sep = what ? ": " : "";
    what = what ? what : "";
    if (dir == NULL || *dir == '\0') {
        cli_error("%s%sempty directory name", what, sep);
        return -1;
    }
    s = strdup(dir);
    if (s == NULL) {
        cli_error("%s%s%s: out of memory", what, sep, dir);
        return -1;
    }
    /* Create each prefix in turn; an existing directory is fine. */
    for (p = s + 1;; p++) {
        char c = *p;
        if (c != '/' && c != '\0')
            continue;
        *p = '\0';
        if (mkdir(s, 0777) != 0 && errno != EEXIST) {
            cli_error("%s%scannot create directory '%s': %s", what, sep, s,
                      strerror(errno));
            free(s);
            return -1;
        }
        if (stat(s, &st) != 0 || !S_ISDIR(st.st_mode)) {
            cli_error("%s%scannot create directory '%s': a file of that name "
                      "is in the way", what, sep, s);
            free(s);
            return -1;
        }
        *p = c;
        if (c == '\0')
            break;
    }
    free(s);
    return 0;
}

int cli_mkdir_parent(const char *path, const char *what)
{
    const char *slash = path != NULL ? strrchr(path, '/') : NULL;
    if (slash == NULL || slash == path)
        return 0;                  /* the current directory, or "/" */
    char *dir = strndup(path, (size_t)(slash - path));
    if (dir == NULL) {
        cli_error("%s%s%s: out of memory", what ? what : "", what ? ": " : "",
                  path);
        return -1;
    }
    int rc = cli_mkdir_p(dir, what);
    free(dir);
    return rc;
}

/* ---------------------------------------------------------------------- */

#ifndef FPLAB_SHARE_REL
#define FPLAB_SHARE_REL "../share/fplab"
#endif

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *cli_share_dir(const char **how)
{
    static char dir[PATH_MAX + 64];
    static char tried[2 * PATH_MAX + 256];
    char exe[PATH_MAX];
    const char *env = getenv("FPLAB_SHARE_DIR");
    if (env != NULL && *env) {
        snprintf(dir, sizeof dir, "%s", env);
        *how = "$FPLAB_SHARE_DIR";
        if (is_dir(dir))
            return dir;
        snprintf(tried, sizeof tried, "$FPLAB_SHARE_DIR is '%s', which is "
                 "not a directory", env);
        *how = tried;
        return NULL;
    }
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        snprintf(tried, sizeof tried, "cannot find the running executable "
                 "(/proc/self/exe: %s); set FPLAB_SHARE_DIR",
                 n < 0 ? strerror(errno) : "empty");
        *how = tried;
        return NULL;
    }
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash != NULL)
        *slash = '\0';                        /* the executable's directory */
    /* installed: BINDIR/fplab next to DATADIR/fplab.  /proc/self/exe has
     * no symbolic links or dot components, so the leading "../" of the
     * relative path can be resolved by dropping components. */
    if (FPLAB_SHARE_REL[0] == '/') {
        snprintf(dir, sizeof dir, "%s", FPLAB_SHARE_REL);
    } else {
        char base[PATH_MAX];
        const char *rel = FPLAB_SHARE_REL;
        snprintf(base, sizeof base, "%s", exe);
        while (!strncmp(rel, "../", 3)) {
            char *b = strrchr(base, '/');
            if (b == NULL || b == base)
                break;
            *b = '\0';
            rel += 3;
        }
        snprintf(dir, sizeof dir, "%s/%s", base, rel);
    }
    if (is_dir(dir)) {
        *how = "installed";
        return dir;
    }
#if defined(FPLAB_BUILD_DIR) && defined(FPLAB_SOURCE_DIR)
    /* running from the build directory: the source tree it was built from */
    char real_build[PATH_MAX];
    if (realpath(FPLAB_BUILD_DIR, real_build) != NULL &&
        !strcmp(real_build, exe) && is_dir(FPLAB_SOURCE_DIR)) {
        snprintf(dir, sizeof dir, "%s", FPLAB_SOURCE_DIR);
        *how = "source tree of this build";
        return dir;
    }
#endif
    snprintf(tried, sizeof tried, "no '%s' (the installed share directory "
             "for %s/fplab); set FPLAB_SHARE_DIR", dir, exe);
    *how = tried;
    return NULL;
}

/* ---------------------------------------------------------------------- */

const char *cli_flag_names(unsigned flags, char *buf, size_t len)
{
    static const struct { unsigned bit; const char *name; } names[] = {
        {FL_INEXACT, "inexact"},     {FL_UNDERFLOW, "underflow"},
        {FL_OVERFLOW, "overflow"},   {FL_DIVBYZERO, "divbyzero"},
        {FL_INVALID, "invalid"},
    };
    size_t used = 0;
    if (len == 0)
        return buf;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!(flags & names[i].bit))
            continue;
        int n = snprintf(buf + used, len - used, "%s%s", used ? "," : "",
                         names[i].name);
        if (n < 0 || (size_t)n >= len - used)
            break;
        used += (size_t)n;
    }
    if (used == 0)
        snprintf(buf, len, "-");
    return buf;
}

char *cli_exact_str(const fl_format *f, uint64_t a)
{
    char small[64];
    size_t n = fl_print_exact(f, a, small, sizeof small);
    char *s = malloc(n + 1);
    if (s == NULL) {
        cli_error("out of memory");
        exit(CLI_USAGE);
    }
    if (n < sizeof small)
        memcpy(s, small, n + 1);
    else
        fl_print_exact(f, a, s, n + 1);
    return s;
}
