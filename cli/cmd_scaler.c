/*
 * cmd_scaler.c — `fplab scaler`: replay a loss scaler on per-step overflow
 * flags and print, per step, the scale used, whether the step was skipped
 * and the scale after the update.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "amp.h"

static void usage(FILE *fp)
{
    fprintf(fp,
"usage: fplab scaler --policy torch|apex|static|none [knobs] [FILE]\n"
"\n"
"Reads one overflow flag per line (0 or 1; '#' comments and blank lines are\n"
"ignored) from FILE or standard input and prints, per step:\n"
"  step  scale_used  skipped  scale_after\n"
"torch follows torch.amp.GradScaler (binary32 scale, int32 growth tracker);\n"
"apex follows apex.amp's dynamic LossScaler (binary64 scale, max, min).\n"
"\n"
"knobs:\n"
"  --init-scale X        initial scale (65536; static: the scale)\n"
"  --growth X            torch growth factor (2)\n"
"  --backoff X           torch backoff factor (0.5)\n"
"  --growth-interval N   torch growth_interval / apex scale window (2000);\n"
"                        --interval and --window are the same option\n"
"  --max-scale X         apex maximum (16777216)\n"
"  --min-scale X         apex minimum (none)\n"
"\n"
"exit status: 0 success, 2 bad usage or a bad line (\"line N: ...\").\n");
}

int cmd_scaler(int argc, char **argv)
{
    const char *policy = NULL, *path = NULL;
    double init = -1, growth = -1, backoff = -1, maxs = -1, mins = -1;
    uint64_t interval = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return CLI_OK;
        }
        if (strncmp(a, "--", 2) || !strcmp(a, "-")) {
            if (path) {
                usage(stderr);
                return cli_error("scaler: more than one input file");
            }
            path = a;
            continue;
        }
        static const char *const known[] = {
            "--policy", "--interval", "--growth-interval", "--window",
            "--init-scale", "--growth", "--backoff", "--max-scale",
            "--min-scale", NULL};
        int k = 0;
        while (known[k] && strcmp(a, known[k]))
            k++;
        if (!known[k]) {
            usage(stderr);
            return cli_error("scaler: unknown option '%s'", a);
        }
        if (i + 1 >= argc)
            return cli_error("scaler: %s needs a value", a);
        const char *v = argv[++i];
        double *dst = NULL;
        if (!strcmp(a, "--policy")) { policy = v; continue; }
        if (!strcmp(a, "--interval") || !strcmp(a, "--growth-interval") ||
            !strcmp(a, "--window")) {
            if (cli_parse_u64(v, &interval) || interval < 1 ||
                interval > 2147483647)
                return cli_error("scaler: %s: '%s' is not an integer in "
                                 "1..2147483647", a, v);
            continue;
        }
        if (!strcmp(a, "--init-scale")) dst = &init;
        else if (!strcmp(a, "--growth")) dst = &growth;
        else if (!strcmp(a, "--backoff")) dst = &backoff;
        else if (!strcmp(a, "--max-scale")) dst = &maxs;
        else if (!strcmp(a, "--min-scale")) dst = &mins;
        else {
            usage(stderr);
            return cli_error("scaler: unknown option '%s'", a);
        }
        if (cli_parse_double(v, dst) || !isfinite(*dst) || *dst < 0)
            return cli_error("scaler: %s: '%s' is not a non-negative "
                             "number", a, v);
        /* as torch.amp.GradScaler asserts: growth > 1, backoff < 1 */
        if (dst == &growth && !(growth > 1))
            return cli_error("scaler: --growth: '%s' must be > 1", v);
        if (dst == &backoff && !(backoff > 0 && backoff < 1))
            return cli_error("scaler: --backoff: '%s' must be in (0, 1)", v);
    }
    if (!policy) {
        usage(stderr);
        return cli_error("scaler: --policy is required");
    }
    int kind = amp_scaler_kind_parse(policy);
    if (kind < 0)
        return cli_error("scaler: --policy: unknown policy '%s' (torch apex "
                         "static none)", policy);
    amp_scaler_config cfg;
    amp_scaler_config_default(&cfg, kind);
    if (init >= 0) cfg.init_scale = init;
    if (growth >= 0) cfg.growth_factor = growth;
    if (backoff >= 0) cfg.backoff_factor = backoff;
    if (interval) cfg.growth_interval = (int32_t)interval;
    if (maxs >= 0) cfg.max_scale = maxs;
    if (mins >= 0) cfg.min_scale = mins;
    amp_scaler s;
    if (amp_scaler_init(&s, &cfg))
        return cli_error("scaler: invalid settings (scale must be positive "
                         "and finite, factors positive, min <= max)");

    FILE *fp = stdin;
    const char *name = "<stdin>";
    if (path && strcmp(path, "-")) {
        fp = fopen(path, "r");
        if (!fp)
            return cli_error("scaler: cannot open '%s': %s", path,
                             strerror(errno));
        name = path;
    }
    char line[256];
    unsigned long lineno = 0;
    int rc = CLI_OK;
    uint64_t step = 0;
    printf("# fplab %s scaler policy %s init_scale %.17g interval %d "
           "growth %.17g backoff %.17g max %.17g min %.17g\n",
           FPLAB_VERSION, amp_scaler_kind_name(kind), cfg.init_scale,
           (int)cfg.growth_interval, cfg.growth_factor, cfg.backoff_factor,
           cfg.max_scale, cfg.min_scale);
    printf("# step scale_used skipped scale_after\n");
    while (fgets(line, sizeof line, fp)) {
        lineno++;
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n') {
            rc = cli_error("%s: line %lu: too long", name, lineno);
            break;
        }
        char *p = line;
        while (isspace((unsigned char)*p))
            p++;
        char *e = p + strlen(p);
        while (e > p && isspace((unsigned char)e[-1]))
            *--e = 0;
        if (*p == 0 || *p == '#')
            continue;
        if (strcmp(p, "0") && strcmp(p, "1")) {
            rc = cli_error("%s: line %lu: '%.40s' is not an overflow flag "
                           "(0 or 1)", name, lineno, p);
            break;
        }
        int found = *p == '1';
        double used = kind == AMP_SCALER_TORCH ? (double)s.scale_f32
                                               : s.scale_f64;
        int skip = amp_scaler_update(&s, found);
        double after = kind == AMP_SCALER_TORCH ? (double)s.scale_f32
                                                : s.scale_f64;
        printf("%llu %.17g %d %.17g\n", (unsigned long long)step, used, skip,
               after);
        step++;
    }
    if (rc == CLI_OK && ferror(fp))
        rc = cli_error("%s: read error", name);
    if (fp != stdin)
        fclose(fp);
    return rc;
}
