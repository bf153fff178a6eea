/*
 * driver.c — replay inputs through a harness without libFuzzer, so the
 * seed corpora and the regression inputs run as ordinary tests (and in the
 * sanitizer builds).
 *
 *   fuzz_NAME_replay [--min N] [--known] PATH...
 *
 * Each PATH is a file or a directory (its regular files, not recursive).
 * Every input goes through LLVMFuzzerTestOneInput; a failed property
 * aborts.  The run fails unless at least N inputs (default 1) were read,
 * so an empty or missing corpus cannot pass.
 *
 * --known: the inputs are open bugs (fuzz/known/NAME).  Each runs in a
 * child process; one that still fails is reported KNOWN, one that passes
 * XPASS (the bug is fixed: move the input to fuzz/regress/NAME).  Neither
 * fails the run.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static long replayed;
static int known_mode;
static FILE *logf;   /* descriptor 2 as the harness found it */

static int replay_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (fp == NULL) {
        fprintf(logf, "replay: cannot open %s\n", path);
        return -1;
    }
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while (buf != NULL && (got = fread(buf + n, 1, cap - n, fp)) > 0) {
        n += got;
        if (n == cap) {
            uint8_t *nb = realloc(buf, cap *= 2);
            if (nb == NULL)
                free(buf);
            buf = nb;
        }
    }
    int bad = buf == NULL || ferror(fp);
    fclose(fp);
    if (bad) {
        fprintf(logf, "replay: cannot read %s\n", path);
        free(buf);
        return -1;
    }
    /* an exact-size copy, so ASan sees reads past the input's end */
    uint8_t *exact = malloc(n ? n : 1);
    if (exact == NULL)
        abort();
    memcpy(exact, buf, n);
    free(buf);
    fprintf(logf, "replay: %s (%zu bytes)\n", path, n);
    if (known_mode) {
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            LLVMFuzzerTestOneInput(exact, n);
            _exit(0);
        }
        int st = 0;
        if (pid < 0 || waitpid(pid, &st, 0) != pid)
            abort();
        fprintf(logf, "%s %s\n", WIFEXITED(st) && WEXITSTATUS(st) == 0
                ? "XPASS (fixed: move it to fuzz/regress)" : "KNOWN", path);
    } else {
        LLVMFuzzerTestOneInput(exact, n);
    }
    free(exact);
    replayed++;
    return 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(logf, "replay: %s does not exist\n", path);
        return -1;
    }
    if (!S_ISDIR(st.st_mode))
        return replay_file(path);
    DIR *d = opendir(path);
    if (d == NULL) {
        fprintf(logf, "replay: cannot open directory %s\n", path);
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            names = realloc(names, cap * sizeof *names);
            if (names == NULL)
                abort();
        }
        size_t len = strlen(path) + strlen(e->d_name) + 2;
        names[n] = malloc(len);
        if (names[n] == NULL)
            abort();
        snprintf(names[n], len, "%s/%s", path, e->d_name);
        n++;
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_names);   /* a stable order */
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode) &&
            replay_file(names[i]) != 0)
            rc = -1;
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    long min = 1;
    int rc = 0, i = 1;
    /* the harness may point stderr at /dev/null; keep a stream of our own */
    logf = fdopen(dup(2), "w");
    if (logf == NULL)
        logf = stderr;
    setvbuf(logf, NULL, _IONBF, 0);
    if (i + 1 < argc && !strcmp(argv[i], "--min")) {
        min = strtol(argv[i + 1], NULL, 10);
        i += 2;
    }
    if (i < argc && !strcmp(argv[i], "--known")) {
        known_mode = 1;
        i++;
    }
    for (; i < argc; i++)
        if (replay_path(argv[i]) != 0)
            rc = 1;
    fprintf(logf, "replay: %ld inputs\n", replayed);
    if (replayed < min) {
        fprintf(logf, "replay: expected at least %ld inputs\n", min);
        rc = 1;
    }
    return rc;
}
