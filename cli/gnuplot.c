/*
 * gnuplot.c — finding and running gnuplot for the commands that draw
 * (fplab lab's figures, fplab compare --plot): the figure is written to a
 * temporary name and renamed into place only when gnuplot succeeded.
 */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

extern char **environ;

char *cli_find_gnuplot(void)
{
    const char *e = getenv("FPLAB_GNUPLOT");
    if (e && *e)
        return access(e, X_OK) == 0 ? strdup(e) : NULL;
    const char *path = getenv("PATH");
    if (!path)
        return NULL;
    char *copy = strdup(path), *save = NULL, *found = NULL;
    if (!copy)
        return NULL;
    for (char *d = strtok_r(copy, ":", &save); d && !found;
         d = strtok_r(NULL, ":", &save)) {
        char buf[4096];
        snprintf(buf, sizeof buf, "%s/gnuplot", d);
        if (access(buf, X_OK) == 0)
            found = strdup(buf);
    }
    free(copy);
    return found;
}

void cli_gp_quote(char *dst, size_t len, const char *s)
{
    size_t o = 0;
    for (; *s && o + 3 < len; s++) {
        if (*s == '\'')
            dst[o++] = '\'';
        dst[o++] = *s;
    }
    dst[o] = 0;
}

int cli_run_gnuplot(const char *gnuplot, const char *expr, const char *script,
                    const char *tmp, const char *final, const char *what,
                    char *why, size_t wlen)
{
    char *argv[] = {(char *)gnuplot, "-e", (char *)expr, (char *)script, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", 0, 0);
    pid_t pid;
    int rc = posix_spawn(&pid, gnuplot, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc) {
        snprintf(why, wlen, "cannot start %.150s: %s", gnuplot, strerror(rc));
        return -1;
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) {
            snprintf(why, wlen, "waitpid: %s", strerror(errno));
            return -1;
        }
    struct stat sb;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || stat(tmp, &sb) != 0 ||
        !S_ISREG(sb.st_mode)) {
        remove(tmp);
        snprintf(why, wlen, "gnuplot failed on %.180s", what ? what : script);
        return -1;
    }
    if (rename(tmp, final)) {
        snprintf(why, wlen, "cannot rename %.150s: %s", tmp, strerror(errno));
        remove(tmp);
        return -1;
    }
    return 0;
}
