/*
 * model.c — the arithmetic model: defaults, one key at a time, the
 * canonical one-line text form.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref_internal.h"

/* The tensor-core model's defaults: off (tc=none), blocks of 16, two
 * extra alignment bits, rtz; a tc=... starts from them, switched on. */
static const fl_ref_tc tc_none = {.block = 16, .neab = 2, .rm = FL_RTZ};

void fl_ref_model_init(fl_ref_model *m)
{
    *m = (fl_ref_model){
        .in = fl_binary32, .acc = fl_binary32, .out = fl_binary32,
        .acc_rm = FL_RNE, .out_rm = FL_RNE,
        .products = FL_REF_PRODUCTS_ROUNDED, .order = FL_REF_SEQUENTIAL,
        .lanes_combine = FL_REF_LANES_SEQ, .epilogue = FL_REF_EPI_LAST,
        .nan = FL_NANP_X86, .tininess = FL_TINY_AFTER, .tc = tc_none,
    };
}

void fl_ref_model_free(fl_ref_model *m)
{
    ref_tree_free(m->tree);
    fl_ref_model_init(m);
}

int fl_ref_model_copy(fl_ref_model *dst, const fl_ref_model *src)
{
    *dst = *src;
    if (src->tree != NULL) {
        dst->tree = ref_tree_copy(src->tree);
        if (dst->tree == NULL) {
            fl_ref_model_init(dst);
            return -1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Formats: the core's (format.c), under the names ref.h has always had.
 * ---------------------------------------------------------------------- */
int fl_ref_format_same(const fl_format *g, const fl_format *f)
{
    return fl_format_same(g, f);
}

int fl_ref_format_contains(const fl_format *g, const fl_format *f)
{
    return fl_format_contains(g, f);
}

void fl_ref_format_spec(const fl_format *f, char *buf, size_t len)
{
    fl_format_spec(f, buf, len);
}

/* ------------------------------------------------------------------------
 * Keys.
 * ---------------------------------------------------------------------- */
static const char *const order_names[FL_REF_ORDER_COUNT] = {
    "sequential", "reverse", "pairwise", "numpy", "blocked", "lanes",
    "splitk", "tree", "exact", "cascade", "pairswap", "tiles",
};
static const char *const cascade_names[] = {"", "pairs", "halves"};
static const char *const lanes_names[] = {"seq", "pairwise", "halving"};
static const char *const epi_names[] = {"last", "fma", "init"};
static const char *const align_names[] = {"trunc", "floor", "rne"};
static const char *const norm_names[] = {"once", "products"};

static int parse_count(const char *s, size_t max, size_t *v)
{
    char *end;
    unsigned long long x;
    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    x = strtoull(s, &end, 10);
    if (errno || *end || x == 0 || x > max)
        return -1;
    *v = (size_t)x;
    return 0;
}

/* An order's parameter COUNT[:MORE]: COUNT (the text before the first
 * ':', all of arg without one) into num, and in *more what follows that
 * ':' (NULL without one).  0, or -1 when arg is NULL or COUNT is empty or
 * does not fit num. */
static int lead_field(const char *arg, char num[32], const char **more)
{
    const char *colon = arg ? strchr(arg, ':') : NULL;
    size_t nl = colon ? (size_t)(colon - arg) : (arg ? strlen(arg) : 0);
    *more = colon ? colon + 1 : NULL;
    if (!arg || nl == 0 || nl >= 32)
        return -1;
    memcpy(num, arg, nl);
    num[nl] = '\0';
    return 0;
}

static int parse_bool(const char *s, int *v)
{
    if (!strcmp(s, "0")) {
        *v = 0;
        return 0;
    }
    if (!strcmp(s, "1")) {
        *v = 1;
        return 0;
    }
    return -1;
}

static int set_format(fl_format *f, const char *key, const char *value,
                      char *err, size_t errlen)
{
    char e[256];
    if (fl_format_parse(f, value, e, sizeof e) != 0) {
        ref_set_err(err, errlen, "%s: %s", key, e);
        return -1;
    }
    return 0;
}

static int set_rm(int *rm, const char *key, const char *value, char *err,
                  size_t errlen)
{
    int r = fl_rm_parse(value);
    if (r < 0) {
        ref_set_err(err, errlen,
                    "%s: unknown rounding mode '%s' (rne rtz rdn rup rna rto sr)",
                    key, value);
        return -1;
    }
    *rm = r;
    return 0;
}

static int read_text_file(const char *path, char **out, char *err,
                          size_t errlen);

static char *join_path(const char *base_dir, const char *rel)
{
    size_t n;
    char *p;
    if (rel[0] == '/' || base_dir == NULL || base_dir[0] == '\0')
        return strdup(rel);
    n = strlen(base_dir) + strlen(rel) + 2;
    p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", base_dir, rel);
    return p;
}

static int set_order(fl_ref_model *m, const char *value, const char *base_dir,
                     char *err, size_t errlen)
{
    const char *colon = strchr(value, ':');
    size_t klen = colon ? (size_t)(colon - value) : strlen(value);
    const char *arg = colon ? colon + 1 : NULL;
    int k;
    for (k = 0; k < FL_REF_ORDER_COUNT; k++)
        if (strlen(order_names[k]) == klen &&
            !strncmp(value, order_names[k], klen))
            break;
    if (k == FL_REF_ORDER_COUNT) {
        ref_set_err(err, errlen,
                    "order: unknown order '%s' (sequential reverse pairwise:B "
                    "numpy blocked:K lanes:W[:seq|:pairwise|:halving] "
                    "splitk:S cascade:A[:pairs|:halves] pairswap[:B] tiles:B:W "
                    "tree:EXPR tree:@FILE exact)", value);
        return -1;
    }
    switch (k) {
    case FL_REF_SEQUENTIAL: case FL_REF_REVERSE: case FL_REF_NUMPY:
    case FL_REF_EXACT:
        if (arg) {
            ref_set_err(err, errlen, "order: '%s' takes no parameter (got '%s')",
                        order_names[k], value);
            return -1;
        }
        m->order = k;
        m->order_arg = 0;
        break;
    case FL_REF_PAIRWISE: case FL_REF_BLOCKED: case FL_REF_SPLITK: {
        size_t v;
        const char *what = k == FL_REF_PAIRWISE ? "B" : k == FL_REF_BLOCKED ? "K" : "S";
        if (!arg || parse_count(arg, (size_t)1 << 40, &v) != 0) {
            ref_set_err(err, errlen,
                        "order: '%s' needs %s:%s with %s a positive integer",
                        value, order_names[k], what, what);
            return -1;
        }
        m->order = k;
        m->order_arg = v;
        break;
    }
    case FL_REF_LANES: {
        char num[32];
        const char *comb_name;
        size_t v;
        int comb = FL_REF_LANES_SEQ;
        if (lead_field(arg, num, &comb_name) != 0) {
            ref_set_err(err, errlen,
                        "order: '%s' needs lanes:W with W a positive integer",
                        value);
            return -1;
        }
        if (parse_count(num, 1 << 20, &v) != 0) {
            ref_set_err(err, errlen,
                        "order: '%s': W must be an integer 1..1048576", value);
            return -1;
        }
        if (comb_name) {
            int j;
            for (j = 0; j < 3; j++)
                if (!strcmp(comb_name, lanes_names[j]))
                    break;
            if (j == 3) {
                ref_set_err(err, errlen,
                            "order: '%s': lanes combine by seq, pairwise or "
                            "halving, not '%s'", value, comb_name);
                return -1;
            }
            comb = j;
        }
        m->order = k;
        m->order_arg = v;
        m->lanes_combine = comb;
        break;
    }
    case FL_REF_TILES: {
        char num[32];
        const char *lanes;
        size_t b, w;
        if (lead_field(arg, num, &lanes) != 0 || !lanes) {
            ref_set_err(err, errlen, "order: '%s' needs tiles:B:W (tiles of B "
                        "terms in W lanes)", value);
            return -1;
        }
        if (parse_count(num, (size_t)1 << 30, &b) != 0 ||
            parse_count(lanes, (size_t)1 << 20, &w) != 0) {
            ref_set_err(err, errlen, "order: '%s': B and W must be positive "
                        "integers", value);
            return -1;
        }
        m->order = k;
        m->order_arg = b;
        m->order_arg2 = w;
        break;
    }
    case FL_REF_PAIRSWAP: {
        size_t v = 0;
        if (arg && parse_count(arg, (size_t)1 << 40, &v) != 0) {
            ref_set_err(err, errlen, "order: '%s' needs pairswap or pairswap:B "
                        "with B a positive integer", value);
            return -1;
        }
        m->order = k;
        m->order_arg = v;
        break;
    }
    case FL_REF_CASCADE: {
        char num[32];
        const char *load_name;
        size_t v;
        int load = FL_REF_CASCADE_ONE;
        if (lead_field(arg, num, &load_name) != 0) {
            ref_set_err(err, errlen, "order: '%s' needs cascade:A with A the "
                        "accumulator lanes (a positive integer)", value);
            return -1;
        }
        if (parse_count(num, 1024, &v) != 0) {
            ref_set_err(err, errlen,
                        "order: '%s': A must be an integer 1..1024", value);
            return -1;
        }
        if (load_name) {
            if (!strcmp(load_name, "pairs"))
                load = FL_REF_CASCADE_PAIRS;
            else if (!strcmp(load_name, "halves"))
                load = FL_REF_CASCADE_HALVES;
            else {
                ref_set_err(err, errlen, "order: '%s': a cascade's loads are "
                            "single terms (cascade:A), pairs or halves, not "
                            "'%s'", value, load_name);
                return -1;
            }
        }
        m->order = k;
        m->order_arg = v;
        m->cascade_load = load;
        break;
    }
    case FL_REF_TREE: {
        fl_ref_tree *t = NULL;
        char e[300];
        if (!arg || !*arg) {
            ref_set_err(err, errlen, "order: tree needs tree:EXPR or tree:@FILE");
            return -1;
        }
        if (arg[0] == '@') {
            char *path = join_path(base_dir, arg + 1), *text = NULL;
            if (path == NULL) {
                ref_set_err(err, errlen, "order: out of memory");
                return -1;
            }
            if (read_text_file(path, &text, e, sizeof e) != 0) {
                ref_set_err(err, errlen, "order: %s", e);
                free(path);
                return -1;
            }
            if (ref_tree_parse(&t, text, e, sizeof e) != 0) {
                ref_set_err(err, errlen, "order: tree file %s: %s", path, e);
                free(text);
                free(path);
                return -1;
            }
            free(text);
            free(path);
        } else if (ref_tree_parse(&t, arg, e, sizeof e) != 0) {
            ref_set_err(err, errlen, "order: tree: %s", e);
            return -1;
        }
        ref_tree_free(m->tree);
        m->tree = t;
        m->order = k;
        m->order_arg = 0;
        break;
    }
    default:
        break;
    }
    if (m->order != FL_REF_TREE && m->tree) {
        ref_tree_free(m->tree);
        m->tree = NULL;
    }
    return 0;
}

static int tc_param(fl_ref_tc *tc, const char *kv, const char *whole,
                    char *err, size_t errlen)
{
    const char *colon = strchr(kv, ':');
    char key[16];
    const char *v;
    size_t kl;
    if (!colon || colon == kv || (size_t)(colon - kv) >= sizeof key) {
        ref_set_err(err, errlen,
                    "tc: '%s' in '%s' is not KEY:VALUE (block neab align norm rm)",
                    kv, whole);
        return -1;
    }
    kl = (size_t)(colon - kv);
    memcpy(key, kv, kl);
    key[kl] = '\0';
    v = colon + 1;
    if (!strcmp(key, "block") || !strcmp(key, "neab")) {
        size_t x;
        int isblock = key[0] == 'b';
        if (!isblock && !strcmp(v, "0")) {
            tc->neab = 0;
            return 0;
        }
        if (parse_count(v, isblock ? 64 : 30, &x) != 0) {
            ref_set_err(err, errlen, "tc: %s must be an integer %s, not '%s'",
                        key, isblock ? "1..64" : "0..30", v);
            return -1;
        }
        if (isblock)
            tc->block = (int)x;
        else
            tc->neab = (int)x;
        return 0;
    }
    if (!strcmp(key, "align") || !strcmp(key, "norm")) {
        int isalign = key[0] == 'a';
        const char *const *names = isalign ? align_names : norm_names;
        int cnt = isalign ? 3 : 2;
        for (int j = 0; j < cnt; j++)
            if (!strcmp(v, names[j])) {
                if (isalign)
                    tc->align = j;
                else
                    tc->norm = j;
                return 0;
            }
        ref_set_err(err, errlen, "tc: %s is %s, not '%s'", key,
                    isalign ? "trunc, floor or rne" : "once or products", v);
        return -1;
    }
    if (!strcmp(key, "rm")) {
        int r = fl_rm_parse(v);
        if (r < 0) {
            ref_set_err(err, errlen, "tc: unknown rounding mode '%s'", v);
            return -1;
        }
        tc->rm = r;
        return 0;
    }
    ref_set_err(err, errlen,
                "tc: unknown parameter '%s' (block neab align norm rm)", key);
    return -1;
}

static int set_tc(fl_ref_tc *out, const char *value, char *err, size_t errlen)
{
    fl_ref_tc tc;
    const char *params = value;
    char *copy, *tok, *save = NULL;
    size_t plen;
    if (!strcmp(value, "none")) {
        *out = tc_none;
        return 0;
    }
    tc = tc_none;
    tc.on = 1;
    if (isalpha((unsigned char)value[0]) && !strchr(value, ':')) {
        params = NULL;      /* a bare preset name */
    }
    {
        /* a preset name, optionally followed by (params) */
        const char *paren = strchr(value, '(');
        size_t nlen = paren ? (size_t)(paren - value) : strlen(value);
        char name[32];
        int preset = params == NULL || paren != NULL;
        if (preset) {
            const fl_tc_model *p;
            if (nlen == 0 || nlen >= sizeof name) {
                ref_set_err(err, errlen, "tc: '%s' is not a preset or parameter list", value);
                return -1;
            }
            memcpy(name, value, nlen);
            name[nlen] = '\0';
            p = fl_tc_model_by_name(name);
            if (p == NULL) {
                ref_set_err(err, errlen,
                            "tc: unknown preset '%s' (v100-fp16 a100-fp16 "
                            "a100-bf16 a100-tf32 h100-fp16 h100-bf16 "
                            "h100-tf32, or block:B,neab:N,align:trunc|floor|rne,"
                            "norm:once|products,rm:MODE)", name);
                return -1;
            }
            tc = (fl_ref_tc){.on = 1, .block = p->block, .neab = p->neab,
                             .align = p->align, .norm = p->norm,
                             .rm = p->out_rm, .preset_in = p->in};
            if (paren) {
                plen = strlen(paren + 1);
                if (plen == 0 || paren[plen] != ')') {
                    ref_set_err(err, errlen, "tc: '%s': missing ')'", value);
                    return -1;
                }
                copy = malloc(plen);
                if (!copy) {
                    ref_set_err(err, errlen, "tc: out of memory");
                    return -1;
                }
                memcpy(copy, paren + 1, plen - 1);
                copy[plen - 1] = '\0';
            } else {
                *out = tc;
                return 0;
            }
        } else {
            copy = strdup(value);
            if (!copy) {
                ref_set_err(err, errlen, "tc: out of memory");
                return -1;
            }
        }
    }
    if (copy[0] == '\0') {
        free(copy);
        *out = tc;
        return 0;
    }
    for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (tc_param(&tc, tok, value, err, errlen) != 0) {
            free(copy);
            return -1;
        }
    }
    free(copy);
    *out = tc;
    return 0;
}

int fl_ref_model_set(fl_ref_model *m, const char *key, const char *value,
                     const char *base_dir, char *err, size_t errlen)
{
    if (value == NULL)
        value = "";
    if (!strcmp(key, "in")) {
        if (set_format(&m->in, key, value, err, errlen) != 0)
            return -1;
        m->in_set = 1;
        return 0;
    }
    if (!strcmp(key, "acc"))
        return set_format(&m->acc, key, value, err, errlen);
    if (!strcmp(key, "out")) {
        if (set_format(&m->out, key, value, err, errlen))
            return -1;
        m->out_set = 1;
        return 0;
    }
    if (!strcmp(key, "acc-rm"))
        return set_rm(&m->acc_rm, key, value, err, errlen);
    if (!strcmp(key, "out-rm"))
        return set_rm(&m->out_rm, key, value, err, errlen);
    if (!strcmp(key, "products")) {
        if (!strcmp(value, "rounded"))
            m->products = FL_REF_PRODUCTS_ROUNDED;
        else if (!strcmp(value, "fused"))
            m->products = FL_REF_PRODUCTS_FUSED;
        else {
            ref_set_err(err, errlen, "products: rounded or fused, not '%s'", value);
            return -1;
        }
        return 0;
    }
    if (!strcmp(key, "order"))
        return set_order(m, value, base_dir, err, errlen);
    if (!strcmp(key, "tc")) {
        if (set_tc(&m->tc, value, err, errlen) != 0)
            return -1;
        /* a preset names its input format; `in` given or taken from the
         * data later must agree (fl_ref_model_check) */
        if (m->tc.preset_in && !m->in_set)
            m->in = *m->tc.preset_in;
        return 0;
    }
    if (!strcmp(key, "epilogue")) {
        for (int j = 0; j < 3; j++)
            if (!strcmp(value, epi_names[j])) {
                m->epilogue = j;
                return 0;
            }
        ref_set_err(err, errlen, "epilogue: last, fma or init, not '%s'", value);
        return -1;
    }
    if (!strcmp(key, "ftz") || !strcmp(key, "daz") || !strcmp(key, "saturate")) {
        int v;
        if (parse_bool(value, &v) != 0) {
            ref_set_err(err, errlen, "%s: 0 or 1, not '%s'", key, value);
            return -1;
        }
        if (key[0] == 'f')
            m->ftz = v;
        else if (key[0] == 'd')
            m->daz = v;
        else
            m->saturate = v;
        return 0;
    }
    if (!strcmp(key, "nan")) {
        int p;
        if (!strcmp(value, "any")) {
            /* the payload is not modelled: x86's rule computes, a NaN
             * matches any NaN */
            m->nan = FL_NANP_X86;
            m->nan_any = 1;
            return 0;
        }
        p = fl_nan_preset_parse(value);
        if (p < 0) {
            ref_set_err(err, errlen, "nan: unknown preset '%s' (x86 arm riscv "
                        "cuda softfloat sign sign-pos default-neg first, or "
                        "any)", value);
            return -1;
        }
        m->nan = p;
        m->nan_any = 0;
        return 0;
    }
    if (!strcmp(key, "tininess")) {
        if (!strcmp(value, "after"))
            m->tininess = FL_TINY_AFTER;
        else if (!strcmp(value, "before"))
            m->tininess = FL_TINY_BEFORE;
        else {
            ref_set_err(err, errlen, "tininess: after or before, not '%s'", value);
            return -1;
        }
        return 0;
    }
    if (!strcmp(key, "seed")) {
        char *end;
        unsigned long long v;
        if (!isdigit((unsigned char)value[0])) {
            ref_set_err(err, errlen, "seed: '%s' is not an unsigned integer", value);
            return -1;
        }
        errno = 0;
        v = strtoull(value, &end, 0);
        if (errno || *end) {
            ref_set_err(err, errlen,
                        "seed: '%s' is not an unsigned 64-bit integer", value);
            return -1;
        }
        m->seed = (uint64_t)v;
        return 0;
    }
    ref_set_err(err, errlen,
                "unknown key '%s' (in acc acc-rm products order tc out out-rm "
                "epilogue ftz daz nan saturate tininess seed)", key);
    return -1;
}

/* ------------------------------------------------------------------------
 * The canonical line.
 * ---------------------------------------------------------------------- */
static const char *const key_names[] = {
    "in", "acc", "acc-rm", "products", "order", "tc", "out", "out-rm",
    "epilogue", "ftz", "daz", "nan", "saturate", "tininess", "seed",
};
#define NKEYS (sizeof key_names / sizeof key_names[0])

static int key_index(const char *k)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (!strcmp(k, key_names[i]))
            return (int)i;
    return -1;
}

static size_t tc_text(const fl_ref_model *m, char *buf, size_t len)
{
    const fl_ref_tc *t = &m->tc;
    const char *pname = NULL;
    if (!t->on)
        return (size_t)snprintf(buf, len, "none");
    for (size_t i = 0; i < fl_tc_model_count(); i++) {
        const fl_tc_model *p = fl_tc_model_preset(i);
        if (p->block == t->block && p->neab == t->neab && p->align == t->align &&
            p->norm == t->norm && p->out_rm == t->rm &&
            fl_format_same(p->in, &m->in)) {
            pname = p->name;
            break;
        }
    }
    return (size_t)snprintf(buf, len, "%s%sblock:%d,neab:%d,align:%s,norm:%s,rm:%s%s",
                            pname ? pname : "", pname ? "(" : "", t->block,
                            t->neab, align_names[t->align], norm_names[t->norm],
                            fl_rm_name(t->rm), pname ? ")" : "");
}

char *fl_ref_model_string(const fl_ref_model *m)
{
    char in[64], acc[64], out[64], order[96], tc[160];
    char *tree = NULL, *s;
    const char *ord = order;
    size_t need;
    fl_format_spec(&m->in, in, sizeof in);
    fl_format_spec(&m->acc, acc, sizeof acc);
    fl_format_spec(m->out_set ? &m->out : &m->acc, out, sizeof out);
    switch (m->order) {
    case FL_REF_PAIRWISE: case FL_REF_BLOCKED: case FL_REF_SPLITK:
        snprintf(order, sizeof order, "%s:%zu", order_names[m->order], m->order_arg);
        break;
    case FL_REF_LANES:
        snprintf(order, sizeof order, "lanes:%zu:%s", m->order_arg,
                 lanes_names[m->lanes_combine]);
        break;
    case FL_REF_TILES:
        snprintf(order, sizeof order, "tiles:%zu:%zu", m->order_arg,
                 m->order_arg2);
        break;
    case FL_REF_PAIRSWAP:
        if (m->order_arg)
            snprintf(order, sizeof order, "pairswap:%zu", m->order_arg);
        else
            snprintf(order, sizeof order, "pairswap");
        break;
    case FL_REF_CASCADE:
        snprintf(order, sizeof order, "cascade:%zu%s%s", m->order_arg,
                 m->cascade_load ? ":" : "", cascade_names[m->cascade_load]);
        break;
    case FL_REF_TREE: {
        char *t = m->tree ? ref_tree_print(m->tree) : strdup("?");
        size_t n;
        if (t == NULL)
            return NULL;
        n = strlen(t) + 6;
        tree = malloc(n);
        if (tree == NULL) {
            free(t);
            return NULL;
        }
        snprintf(tree, n, "tree:%s", t);
        free(t);
        ord = tree;
        break;
    }
    default:
        snprintf(order, sizeof order, "%s", order_names[m->order]);
        break;
    }
    tc_text(m, tc, sizeof tc);
#define MODEL_FMT                                                              \
    "in=%s acc=%s acc-rm=%s products=%s order=%s tc=%s out=%s out-rm=%s "      \
    "epilogue=%s ftz=%d daz=%d nan=%s saturate=%d tininess=%s seed=%llu"
#define MODEL_ARGS                                                             \
    in, acc, fl_rm_name(m->acc_rm),                                            \
        m->products == FL_REF_PRODUCTS_FUSED ? "fused" : "rounded", ord, tc,   \
        out, fl_rm_name(m->out_rm), epi_names[m->epilogue], m->ftz, m->daz,    \
        m->nan_any ? "any" : fl_nan_preset_name(m->nan), m->saturate,         \
        m->tininess == FL_TINY_BEFORE ? "before" : "after",                    \
        (unsigned long long)m->seed
    need = (size_t)snprintf(NULL, 0, MODEL_FMT, MODEL_ARGS) + 1;
    s = malloc(need);
    if (s)
        snprintf(s, need, MODEL_FMT, MODEL_ARGS);
    free(tree);
    return s;
}

size_t fl_ref_model_format(const fl_ref_model *m, char *buf, size_t len)
{
    char *s = fl_ref_model_string(m);
    size_t n;
    if (s == NULL) {
        if (len)
            buf[0] = '\0';
        return 0;
    }
    n = strlen(s);
    if (len) {
        size_t c = n < len - 1 ? n : len - 1;
        memcpy(buf, s, c);
        buf[c] = '\0';
    }
    free(s);
    return n;
}

/* ------------------------------------------------------------------------
 * Parsing text and files.
 * ---------------------------------------------------------------------- */
/* Apply words "key=value" of one line; seen[] marks keys already given. */
static int apply_words(fl_ref_model *m, char *line, unsigned char *seen,
                       const char *base_dir, char *err, size_t errlen)
{
    char *save = NULL, *w;
    for (w = strtok_r(line, " \t\r\n", &save); w;
         w = strtok_r(NULL, " \t\r\n", &save)) {
        char *eq = strchr(w, '=');
        int k;
        if (eq == NULL || eq == w) {
            ref_set_err(err, errlen, "'%s' is not key=value", w);
            return -1;
        }
        *eq = '\0';
        k = key_index(w);
        if (k >= 0 && seen[k]) {
            ref_set_err(err, errlen, "key '%s' given twice", w);
            return -1;
        }
        if (fl_ref_model_set(m, w, eq + 1, base_dir, err, errlen) != 0)
            return -1;
        seen[k] = 1;
    }
    return 0;
}

int fl_ref_model_parse(fl_ref_model *m, const char *text, char *err,
                       size_t errlen)
{
    unsigned char seen[NKEYS] = {0};
    char *copy = strdup(text ? text : "");
    int rc;
    if (copy == NULL) {
        ref_set_err(err, errlen, "out of memory");
        return -1;
    }
    rc = apply_words(m, copy, seen, NULL, err, errlen);
    free(copy);
    return rc;
}

#define REF_MAX_FILE ((size_t)64 << 20)

static int read_text_file(const char *path, char **out, char *err,
                          size_t errlen)
{
    FILE *fp = fopen(path, "rb");
    char *buf = NULL;
    size_t len = 0, cap = 0;
    *out = NULL;
    if (fp == NULL) {
        ref_set_err(err, errlen, "cannot open '%s': %s", path, strerror(errno));
        return -1;
    }
    for (;;) {
        size_t got;
        if (len + 4097 > cap) {
            size_t nc = cap ? 2 * cap : 8192;
            char *nb;
            if (nc > REF_MAX_FILE + 8192) {
                ref_set_err(err, errlen, "%s: larger than %zu MiB", path,
                            REF_MAX_FILE >> 20);
                free(buf);
                fclose(fp);
                return -1;
            }
            nb = realloc(buf, nc);
            if (nb == NULL) {
                ref_set_err(err, errlen, "%s: out of memory", path);
                free(buf);
                fclose(fp);
                return -1;
            }
            buf = nb;
            cap = nc;
        }
        got = fread(buf + len, 1, cap - len - 1, fp);
        len += got;
        if (got == 0)
            break;
    }
    if (ferror(fp)) {
        ref_set_err(err, errlen, "%s: read error", path);
        free(buf);
        fclose(fp);
        return -1;
    }
    fclose(fp);
    buf[len] = '\0';
    if (memchr(buf, '\0', len) != NULL) {
        size_t line = 1;
        for (size_t i = 0; buf[i]; i++)
            line += buf[i] == '\n';
        ref_set_err(err, errlen, "%s:%zu: a NUL byte: not a text file", path,
                    line);
        free(buf);
        return -1;
    }
    *out = buf;
    return 0;
}

static char *trim(char *s)
{
    char *e;
    while (*s == ' ' || *s == '\t' || *s == '\r')
        s++;
    e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
        *--e = '\0';
    return s;
}

int fl_ref_model_parse_file(fl_ref_model *m, const char *path, char *err,
                            size_t errlen)
{
    unsigned char seen[NKEYS] = {0};
    char *text, *p, *base = NULL, *slash;
    char e[400];
    size_t lineno = 0;
    int rc = 0;

    if (read_text_file(path, &text, e, sizeof e) != 0) {
        ref_set_err(err, errlen, "%s", e);
        return -1;
    }
    base = strdup(path);
    if (base == NULL) {
        free(text);
        ref_set_err(err, errlen, "out of memory");
        return -1;
    }
    slash = strrchr(base, '/');
    if (slash == NULL)
        base[0] = '\0';
    else if (slash == base)
        base[1] = '\0';
    else
        *slash = '\0';

    p = text;
    while (*p && rc == 0) {
        char *nl = strchr(p, '\n'), *line, *hash;
        size_t neq = 0;
        lineno++;
        if (nl)
            *nl = '\0';
        line = p;
        p = nl ? nl + 1 : p + strlen(p);
        hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        line = trim(line);
        if (*line == '\0')
            continue;
        for (char *q = line; *q; q++)
            neq += *q == '=';
        if (neq == 1) {
            /* key = value (the value may hold blanks: a tree) */
            char *eq = strchr(line, '='), *key, *val;
            int k;
            *eq = '\0';
            key = trim(line);
            val = trim(eq + 1);
            if (*key == '\0') {
                ref_set_err(err, errlen, "%s:%zu: missing key before '='", path,
                            lineno);
                rc = -1;
                break;
            }
            k = key_index(key);
            if (k >= 0 && seen[k]) {
                ref_set_err(err, errlen, "%s:%zu: key '%s' given twice", path,
                            lineno, key);
                rc = -1;
                break;
            }
            if (*val == '\0') {
                ref_set_err(err, errlen, "%s:%zu: key '%s' has no value", path,
                            lineno, key);
                rc = -1;
                break;
            }
            if (fl_ref_model_set(m, key, val, base, e, sizeof e) != 0) {
                ref_set_err(err, errlen, "%s:%zu: %s", path, lineno, e);
                rc = -1;
                break;
            }
            if (k >= 0)
                seen[k] = 1;
        } else if (neq == 0) {
            ref_set_err(err, errlen, "%s:%zu: '%s' is not key = value", path,
                        lineno, line);
            rc = -1;
        } else if (apply_words(m, line, seen, base, e, sizeof e) != 0) {
            ref_set_err(err, errlen, "%s:%zu: %s", path, lineno, e);
            rc = -1;
        }
    }
    free(text);
    free(base);
    return rc;
}
