/*
 * test_threads.c — no global state: two threads running the same batch
 * under different contexts (modes, NaN presets, tininess, FTZ/DAZ,
 * saturation, stochastic rounding) at the same time get bit-for-bit the
 * results and flags of running each batch alone.  The same for the MPFR
 * oracle (whose exponent range must be per call) when it is built in.
 */
#include <pthread.h>

#include "test_oracle.h"
#include "test_check.h"

enum { N = 100000, REPS = 4 };

typedef struct job {
    fl_ctx ctx;
    const uint64_t *in;     /* 3 operands per case */
    uint64_t out[N];
    unsigned fl[N];
    int oracle;             /* run the MPFR oracle instead of the core */
} job;

static uint64_t ops_in[3 * N];

/* Case i: an op and a format chosen by i, operands from the batch. */
static void run_job(job *j)
{
    static const fl_format *const fmts[3] = { &fl_binary16, &fl_bfloat16,
                                              &fl_binary32 };
    for (long i = 0; i < N; i++) {
        const fl_format *f = fmts[i % 3];
        const uint64_t m = ((uint64_t)1 << f->width) - 1;
        uint64_t o[3] = { j->in[3 * i] & m, j->in[3 * i + 1] & m,
                          j->in[3 * i + 2] & m };
        fl_ctx c = j->ctx;
        unsigned fl = 0;
        uint64_t r = 0;
        int op = (int)((i / 3) % 6);
        c.sr_index = (uint64_t)i;
        if (j->oracle) {
            static const int mo[6] = { FL_MPFR_ADD, FL_MPFR_MUL, FL_MPFR_FMA,
                                       FL_MPFR_DIV, FL_MPFR_SQRT,
                                       FL_MPFR_ADD };
            fl_mpfr_res x;
            if (op == 5)
                fl_mpfr_convert(&x, &fl_binary16, f, o[0], &c);
            else
                fl_mpfr_arith(&x, mo[op], f, o, &c);
            r = x.bits;
            fl = x.flags | (unsigned)(x.ternary & 0xFF) << 8;
        } else {
            switch (op) {
            case 0: r = fl_add(f, o[0], o[1], &c, &fl); break;
            case 1: r = fl_mul(f, o[0], o[1], &c, &fl); break;
            case 2: r = fl_fma(f, o[0], o[1], o[2], &c, &fl); break;
            case 3: r = fl_div(f, o[0], o[1], &c, &fl); break;
            case 4: r = fl_sqrt(f, o[0], &c, &fl); break;
            default: r = fl_convert(&fl_binary16, f, o[0], &c, &fl); break;
            }
        }
        j->out[i] = r;
        j->fl[i] = fl;
    }
}

static void *thread_main(void *arg)
{
    run_job(arg);
    return NULL;
}

static job serial[2], par[2];

static void setup_jobs(int oracle)
{
    uint64_t rs = tc_seed("threads");
    fl_ctx a = fl_ctx_make(oracle ? FL_RTZ : FL_RSR), b = fl_ctx_make(FL_RUP);
    for (long i = 0; i < 3 * N; i++)
        ops_in[i] = tc_splitmix(&rs);
    a.nan = FL_NANP_ARM;
    a.tininess = FL_TINY_BEFORE;
    a.ftz = 1;
    a.sr_seed = 42;
    b.nan = FL_NANP_X86;
    b.daz = 1;
    b.saturate = 1;
    if (oracle) {   /* the oracle covers what MPFR can check */
        b.rm = FL_RNA;
        a.rm = FL_RTO;
    }
    for (int k = 0; k < 2; k++) {
        serial[k].ctx = par[k].ctx = k ? b : a;
        serial[k].in = par[k].in = ops_in;
        serial[k].oracle = par[k].oracle = oracle;
    }
}

static void compare_parallel_with_serial(int oracle)
{
    long cases = 0, bad = 0, differ = 0;
    setup_jobs(oracle);
    run_job(&serial[0]);
    run_job(&serial[1]);
    for (long i = 0; i < N; i++)   /* the contexts really differ */
        differ += serial[0].out[i] != serial[1].out[i] ||
                  serial[0].fl[i] != serial[1].fl[i];
    for (int rep = 0; rep < REPS; rep++) {
        pthread_t t[2];
        for (int k = 0; k < 2; k++)
            ck_assert_int_eq(pthread_create(&t[k], NULL, thread_main,
                                            &par[k]), 0);
        for (int k = 0; k < 2; k++)
            pthread_join(t[k], NULL);
        for (int k = 0; k < 2; k++)
            for (long i = 0; i < N; i++) {
                cases++;
                if (par[k].out[i] != serial[k].out[i] ||
                    par[k].fl[i] != serial[k].fl[i]) {
                    if (++bad <= 5)
                        printf("thread %d case %ld: %#llx/%x vs serial "
                               "%#llx/%x\n", k, i,
                               (unsigned long long)par[k].out[i],
                               par[k].fl[i],
                               (unsigned long long)serial[k].out[i],
                               serial[k].fl[i]);
                }
            }
    }
    printf("%s: %ld cases, %ld differ from serial, contexts differ on %ld\n",
           oracle ? "oracle" : "core", cases, bad, differ);
    ck_assert_int_eq(cases, 2L * REPS * N);
    ck_assert_int_gt(differ, N / 10);
    ck_assert_int_eq(bad, 0);
}

START_TEST(core_threads_match_serial)
{
    compare_parallel_with_serial(0);
}
END_TEST

START_TEST(oracle_threads_match_serial)
{
    if (!fl_mpfr_available()) {
        printf("oracle part skipped: built without MPFR\n");
        return;
    }
    compare_parallel_with_serial(1);
}
END_TEST

int main(void)
{
    const TTest *tests[] = { core_threads_match_serial,
                             oracle_threads_match_serial, NULL };
    return tc_exit(tc_run_suite("threads",
                                tc_tcase("no_global_state", 300, tests),
                                TC_FORKED));
}
