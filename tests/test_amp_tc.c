/*
 * test_amp_tc.c — the fast binary64 route of the tensor-core accumulation
 * policy (amp_tc.c) against the generic route through fl_tc_block_fma, bit
 * for bit and flag for flag: random binary16 and bfloat16 operands (every
 * encoding class but NaN and infinity: zeros of both signs, subnormals,
 * the largest values), dot lengths across block boundaries, accumulators
 * in binary32 and binary16 (where sums overflow to infinity and the
 * generic route takes over), crafted cancellations and all-zero blocks.
 * FPLAB_TEST_SEED replays a run.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "amp_tc.h"

static uint64_t rng;
static uint64_t next(void)
{
    uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* a random finite value of f (16-bit formats), zeros and subnormals
 * over-represented */
static float rand_value(const fl_format *f)
{
    for (;;) {
        uint64_t r = next();
        uint64_t bits = r & 0xFFFF;
        switch ((r >> 20) & 7) {
        case 0: bits &= 0x8000; break;                 /* +-0 */
        case 1: bits &= f == &fl_binary16 ? 0x83FF : 0x807F; break;   /* subnormal */
        case 2: bits = (bits & 0x8000) | (f == &fl_binary16 ? 0x3C00 : 0x3F80) |
                       (bits & 0x3); break;            /* near +-1: cancellations */
        case 3: case 4:                                /* below 2: sums stay finite */
            bits &= f == &fl_binary16 ? 0xBBFF : 0xBF7F; break;
        default: break;
        }
        float v = fl_to_float(f, bits);
        if (isfinite(v))
            return v;
    }
}

static uint32_t fbits(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

int main(void)
{
    const char *env = getenv("FPLAB_TEST_SEED");
    uint64_t seed = env ? strtoull(env, NULL, 0) : 20240611u;
    rng = seed;
    static const char *const models[] = {"h100-fp16", "a100-fp16", "v100-fp16",
                                         "h100-bf16"};
    long cases = 0, fast_cases = 0, fails = 0;
    float a[200], b[200];
    for (int mi = 0; mi < 4; mi++) {
        const fl_tc_model *m = fl_tc_model_by_name(models[mi]);
        const fl_format *in = m->in;
        if (!amp_tc_fast_ok(m, in)) {
            printf("FAIL: %s: the fast route does not apply\n", m->name);
            return 1;
        }
        for (int trial = 0; trial < 6000; trial++) {
            size_t n = 1 + next() % 150;
            int mode = (int)(next() % 4);
            for (size_t i = 0; i < n; i++) {
                a[i] = rand_value(in);
                b[i] = rand_value(in);
                if (mode == 1 && i % 2)   /* pairs that cancel exactly */
                    a[i] = -a[i - 1], b[i] = b[i - 1];
                if (mode == 2)            /* blocks of zeros */
                    a[i] = (next() & 1) ? -0.0f : 0.0f;
            }
            for (int acc16 = 0; acc16 < 2; acc16++) {
                const fl_format *accf = acc16 ? &fl_binary16 : &fl_binary32;
                float c = mode == 3 ? (float)((next() & 1) ? -0.0 : 0.0)
                                    : rand_value(&fl_binary16);
                unsigned fg = 0, ff = 0;
                float g = amp_tc_block_dot_generic(m, accf, a, 1, b, 1, n, c, &fg);
                float q = acc16 ? amp_tc_block_dot16((void *)m, in, a, 1, b, 1, n, c, NULL)
                                : amp_tc_block_dot((void *)m, in, a, 1, b, 1, n, c, NULL);
                float w = acc16 ? amp_tc_block_dot16((void *)m, in, a, 1, b, 1, n, c, &ff)
                                : amp_tc_block_dot((void *)m, in, a, 1, b, 1, n, c, &ff);
                cases += 2;
                fast_cases += isfinite(g);
                if (fbits(g) != fbits(q) || fbits(g) != fbits(w) || fg != ff) {
                    if (fails++ < 10)
                        printf("FAIL: %s acc%s n %zu mode %d seed %" PRIu64 " trial %d: "
                               "generic %a (flags %#x), fast %a, fast with flags %a "
                               "(flags %#x)\n", m->name, acc16 ? "16" : "32", n, mode,
                               seed, trial, (double)g, fg, (double)q, (double)w, ff);
                }
            }
        }
    }
    printf("amp_tc: %ld comparisons (%ld with a finite result), %ld mismatches, "
           "seed %" PRIu64 "\n", cases, fast_cases, fails, seed);
    return fails || cases != 4L * 6000 * 2 * 2 ? 1 : 0;
}
