/*
 * fplab.h — public interface of the fplab software floating-point core.
 *
 * Values are raw bit patterns held in a uint64_t, interpreted through a
 * format descriptor (fl_format).  Every arithmetic operation rounds exactly
 * once, in the mode given by the caller's context (fl_ctx), and ORs the
 * exception flags it raises into a word the caller passes.  There is no
 * global mutable state: mode, flags and stochastic-rounding state are all
 * arguments, so the core is thread-safe and can be compiled as CUDA device
 * code (FPLAB_HOSTDEV).
 *
 * The core depends only on the C standard library headers <stdint.h> and
 * <stddef.h> and on integer arithmetic (including the unsigned __int128
 * extension of GCC, Clang and NVCC).
 */
#ifndef FPLAB_FPLAB_H
#define FPLAB_FPLAB_H

#include <stddef.h>
#include <stdint.h>

#if defined(__CUDACC__) && defined(FPLAB_DEVICE_ONLY)
/* The core compiled into a CUDA translation unit as device code only, next
 * to the host library: no host symbol is defined twice. */
#define FPLAB_HOSTDEV __device__
#elif defined(__CUDACC__)
#define FPLAB_HOSTDEV __host__ __device__
#else
#define FPLAB_HOSTDEV
#endif

/* C linkage for C++ users; the device-only copy (FPLAB_DEVICE_ONLY) lives
 * in a C++ namespace of its own instead, so that its symbols never collide
 * with the host library's. */
#if defined(__cplusplus) && !defined(FPLAB_DEVICE_ONLY)
extern "C" {
#endif

#define FPLAB_VERSION "0.1.0"

/* ------------------------------------------------------------------------
 * Exception flags.  The low five bits use Berkeley TestFloat's encoding so
 * a flag word prints directly in testfloat_gen's two-hex-digit column.
 * FL_TERN_UP / FL_TERN_DOWN are informational: the operation's result is
 * above / below the exact value (MPFR's ternary > 0 / < 0).  They are
 * OR-ed like the others, so read them after clearing the word.
 * ---------------------------------------------------------------------- */
enum {
    FL_INEXACT   = 0x01,
    FL_UNDERFLOW = 0x02,
    FL_OVERFLOW  = 0x04,
    FL_DIVBYZERO = 0x08,   /* TestFloat calls it "infinite" */
    FL_INVALID   = 0x10,
    FL_IEEE_FLAGS = 0x1F,
    FL_TERN_UP   = 0x20,
    FL_TERN_DOWN = 0x40
};

/* MPFR-style ternary value recovered from a flag word cleared before the op:
 * +1 when the result is above the exact value, -1 below, 0 exact. */
static inline FPLAB_HOSTDEV int fl_ternary(unsigned flags)
{
    return (flags & FL_TERN_UP) ? 1 : (flags & FL_TERN_DOWN) ? -1 : 0;
}

/* Rounding modes. */
typedef enum fl_rm {
    FL_RNE = 0,   /* nearest, ties to even          (TestFloat near_even)   */
    FL_RTZ = 1,   /* toward zero                    (minMag)                */
    FL_RDN = 2,   /* toward -infinity               (min)                   */
    FL_RUP = 3,   /* toward +infinity               (max)                   */
    FL_RNA = 4,   /* nearest, ties away from zero   (near_maxMag)           */
    FL_RTO = 5,   /* round to odd (sticky lsb)      (odd)                   */
    FL_RSR = 6,   /* stochastic: up with probability = discarded fraction   */
    FL_RM_COUNT = 7,  /* the modes a context alone defines                  */
    /* Stochastic rounding with supplied random bits: the low c->sr_nbits
     * bits of c->sr_bits, combined with the discarded fraction as variant
     * c->sr_variant says (FL_SRV_*).  Not counted in FL_RM_COUNT: the
     * bits are an operand, so loops over the context-defined modes leave
     * it out, and no fast path takes a mode >= FL_RM_COUNT. */
    FL_RSB = 7
} fl_rm;

/* The variants of stochastic rounding with N supplied random bits R
 * (0 <= R < 2^N) as IEEE P3109 Release 3.1 (Interim Report v3.1, 4.9.3
 * RoundToPrecision) defines them and Graphcore's gfloat computes them
 * (RoundMode.Stochastic, StochasticOdd, StochasticFast,
 * StochasticFastest).  With nu in [0, 1) the discarded fraction of the
 * magnitude in units of the last place kept, the magnitude rounds away
 * from zero when
 *   FL_SRV_STOCHASTIC      RNE(nu 2^N) + R >= 2^N   (P3109 StochasticC)
 *   FL_SRV_STOCHASTIC_ODD  RNO(nu 2^N) + R >= 2^N   (gfloat's ties-to-odd
 *                                                     counterpart)
 *   FL_SRV_FAST            floor(nu 2^(N+1)) + 2R + 1 >= 2^(N+1)
 *                                                    (P3109 StochasticB)
 *   FL_SRV_FASTEST         floor(nu 2^N) + R >= 2^N  (P3109 StochasticA;
 *                          PTX cvt.rs's carry-out rule)
 * RNE / RNO: round to the nearest integer, ties to even / odd. */
enum {
    FL_SRV_STOCHASTIC = 0,
    FL_SRV_STOCHASTIC_ODD = 1,
    FL_SRV_FAST = 2,
    FL_SRV_FASTEST = 3,
    FL_SRV_COUNT = 4
};

/* Saturation (fl_ctx.saturate; the format's own saturate flag is
 * FL_SAT_PROPAGATE), named as IEEE P3109 names its modes:
 *   FL_SAT_NONE       overflow as IEEE 754 (P3109 OvfInf / SatNone):
 *                     infinity, or the largest finite where the rounding
 *                     direction says so, or the format's NaN;
 *   FL_SAT_PROPAGATE  finite overflow gives the largest finite, an
 *                     infinite result stays infinite (P3109 SatPropagate);
 *   FL_SAT_FINITE     infinities too become the largest finite (P3109
 *                     SatFinite; PTX .satfinite). */
enum { FL_SAT_NONE = 0, FL_SAT_PROPAGATE = 1, FL_SAT_FINITE = 2 };

/* Tininess detection rule for the underflow flag (and for flush-to-zero). */
enum { FL_TINY_AFTER = 0, FL_TINY_BEFORE = 1 };

/* NaN and platform presets: which NaN an operation returns, and what
 * float-to-integer conversions return for NaN and out-of-range inputs. */
typedef enum fl_nan_preset {
    FL_NANP_X86 = 0,    /* x86 SSE: first NaN operand propagated (quieted);
                           default NaN is the negative quiet NaN (0xFE00) */
    FL_NANP_ARM = 1,    /* ARM with FPCR.DN=1: always the default NaN 0x7E00 */
    FL_NANP_RISCV = 2,  /* RISC-V: always the canonical NaN 0x7E00 */
    FL_NANP_CUDA = 3,   /* CUDA: always the canonical NaN, all ones but the
                           sign (0x7FFF for half, 0x7FFFFFFF for float) */
    FL_NANP_SOFTFLOAT = 4, /* Berkeley SoftFloat 3e, 8086-SSE specialisation
                              (TestFloat's expected results): x86's rules
                              except fma(0, inf, NaN) and fma(inf, 0, NaN),
                              which raise invalid and return the default
                              NaN; x86 FMA3 returns the NaN addend, quieted,
                              and raises invalid only for a signaling one */
    /* Rules real kernels show (fplab reveal finds them, docs/kernels.md):
     * each keeps the payload, the sign or nothing of the first NaN
     * operand and has a default NaN of one sign.  fma(0, inf, quiet NaN)
     * raises invalid and gives the default NaN, as every preset but x86;
     * to-integer conversions return x86's values (SIGN, DEFAULT_NEG) or
     * ARM's (SIGN_POS, FIRST). */
    FL_NANP_SIGN = 5,   /* "sign": the quiet NaN without payload, with the
                           sign of the first NaN operand (0x7E00 / 0xFE00);
                           default NaN negative, as x86's.  x86 arithmetic
                           whose result is narrowed by a conversion that
                           keeps only a NaN's sign (PyTorch's float to half:
                           0x7E00 | sign) */
    FL_NANP_SIGN_POS = 6,    /* "sign-pos": the same with the positive
                                default NaN (0x7E00) */
    FL_NANP_DEFAULT_NEG = 7, /* "default-neg": always the negative default
                                NaN (0xFE00 / 0xFFC0 / 0xFFC00000), whatever
                                the operands */
    FL_NANP_FIRST = 8,  /* "first": the first NaN operand, quieted, payload
                           kept (as x86), with the positive default NaN
                           (0x7E00): ARM with FPCR.DN=0 when no operand is
                           a signaling NaN (ARM takes a signaling one
                           first) */
    FL_NANP_COUNT = 9
} fl_nan_preset;

/* How a format encodes infinities and NaNs (and whether it has -0).  The
 * names follow LLVM/MLIR and ml_dtypes: "f" finite (no infinities), "n"
 * NaN only in a special encoding, "uz" unsigned zero (no -0). */
typedef enum fl_nan_style {
    FL_NANSTYLE_IEEE = 0,   /* all-ones exponent: fraction 0 = inf, else NaN;
                               the fraction's top bit set = quiet */
    FL_NANSTYLE_FN = 1,     /* no infinities; the one NaN is the all-ones
                               exponent-and-fraction pattern of either sign
                               (OCP E4M3 S.1111.111; in an unsigned format
                               the all-ones pattern: E8M0's 0xFF) */
    FL_NANSTYLE_FINITE = 2, /* no infinities and no NaN at all (OCP MX
                               FP6/FP4 elements) */
    FL_NANSTYLE_FNUZ = 3,   /* no infinities, no -0: the one NaN is the sign
                               bit alone, 0x80 (AMD/Graphcore fnuz) */
    FL_NANSTYLE_P3109 = 4,  /* IEEE P3109: one NaN, the sign bit alone
                               (0x80) in a signed format, the all-ones code
                               (0xFF) in an unsigned one; in the extended
                               domain (has_inf) the infinity is the largest
                               magnitude below it (signed 0x7F, 0xFF;
                               unsigned 0xFE); no -0.  Rounding follows
                               P3109's projection (fl__round_pack): ties
                               and round-to-odd judge the code's parity
                               (precision 1: the exponent's), round to odd
                               overflows as round to nearest does, and a
                               negative value in an unsigned format is
                               rounded before it is refused */
    FL_NANSTYLE_COUNT = 5
} fl_nan_style;

/* ------------------------------------------------------------------------
 * Format descriptor: a format is data.  The parameters are ebits, prec,
 * bias, nan_style, is_signed, has_zero, subnormals, saturate and
 * min_gap_up; every
 * other field is derived from them by fl_format_define (or the preset
 * table).  Values: exponent field e > 0 (or any e when has_zero is 0)
 * is the normal number 1.f * 2^(e - bias); e == 0 is zero (f == 0) or the
 * subnormal 0.f * 2^emin; the special encodings of nan_style aside.
 * ---------------------------------------------------------------------- */
typedef struct fl_format {
    const char *name;     /* canonical name, e.g. "binary16" */
    uint8_t width;        /* total bits: is_signed + ebits + (prec - 1),
                             2..64 */
    uint8_t ebits;        /* exponent field width, 1..11 */
    uint8_t prec;         /* precision p, hidden bit included, 1..53 */
    uint8_t has_inf;      /* 1 if the format encodes infinities (derived
                             from the style; a P3109 format's domain:
                             fl_format_define builds the extended one,
                             fl_format_p3109 either) */
    uint8_t nan_style;    /* fl_nan_style */
    uint8_t subnormals;   /* 1 if subnormal numbers exist */
    uint8_t saturate;     /* 1: overflow gives the largest finite value */
    uint8_t reserved;     /* 0 (keeps the layout; no meaning) */
    uint8_t is_signed;    /* 0: no sign bit (E8M0); sign_mask is then 0 */
    uint8_t has_zero;     /* 0: no zero; exponent field 0 holds the normal
                             number 2^-bias (E8M0) */
    uint8_t has_negzero;  /* derived: 1 if -0 is encoded (not in FNUZ,
                             P3109 or unsigned formats) */
    uint8_t min_gap_up;   /* 1 (formats without zero only): in the
                             round-to-nearest modes (RNE, RNA) a value
                             strictly between the smallest value 2^emin
                             and the next one above it rounds up to that
                             next one -- the boundary sits at 2^emin, not
                             at the midpoint.  ml_dtypes' float8_e8m0fnu
                             conversion, which rounds as if code 0 were
                             zero (docs/formats.md); 0: true nearest */
    int32_t bias;         /* exponent bias (IEEE: 2^(ebits-1) - 1) */
    int32_t emin;         /* exponent of the smallest normal: 1 - bias, or
                             -bias without zero */
    int32_t emax;         /* exponent of the largest finite value */
    uint64_t sign_mask;   /* 1 << (width-1); 0 in an unsigned format */
    uint64_t exp_mask;    /* exponent field in place */
    uint64_t frac_mask;   /* fraction field (0 when prec == 1) */
    uint64_t max_bits;    /* bit pattern of the largest finite value */
} fl_format;

/* Presets (constant data, one table in format.c).  The ml_dtypes names
 * (ml_dtypes/include/float8.h, mxfloat.h) are the canonical names of the
 * formats fplab did not have before; OCP E4M3 and E5M2 keep theirs. */
extern const fl_format fl_binary16, fl_bfloat16, fl_binary32, fl_binary64,
    fl_tf32,
    fl_fp8_e5m2,            /* OCP E5M2 = ml_dtypes float8_e5m2 */
    fl_fp8_e4m3,            /* OCP E4M3 = ml_dtypes float8_e4m3fn, max 448 */
    fl_float8_e4m3,         /* IEEE-like E4M3 with infinities, max 240 */
    fl_float8_e3m4,         /* IEEE-like, bias 3, max 15.5 */
    fl_float8_e4m3fnuz,     /* bias 8, max 240, NaN 0x80 */
    fl_float8_e5m2fnuz,     /* bias 16, max 57344, NaN 0x80 */
    fl_float8_e4m3b11fnuz,  /* bias 11, max 30, NaN 0x80 */
    fl_float8_e5m3fnu,      /* unsigned E5M3, bias 15, max 114688, NaN 0xFF */
    fl_float8_e8m0fnu,      /* unsigned 2^(e-127), NaN 0xFF, no zero;
                               rounds as ml_dtypes (min_gap_up) */
    fl_fp8_e8m0,            /* OCP MX E8M0: the same codes, true nearest */
    fl_float6_e2m3fn,       /* MX FP6 E2M3: bias 1, max 7.5, no inf/NaN */
    fl_float6_e3m2fn,       /* MX FP6 E3M2: bias 3, max 28, no inf/NaN */
    fl_float4_e2m1fn,       /* MX FP4 E2M1: bias 1, max 6, no inf/NaN */
    fl_p3109_p1, fl_p3109_p2, fl_p3109_p3, fl_p3109_p4, fl_p3109_p5,
    fl_p3109_p6, fl_p3109_p7;   /* IEEE P3109 Binary8pPse (K = 8, signed,
                                   extended), bias 2^(7-P) */

/* Number of presets and the i-th one (canonical names, in table order). */
size_t fl_format_preset_count(void);
const fl_format *fl_format_preset(size_t i);

/* A preset by canonical name or alias, case-insensitively ("fp16", "half",
 * "float16", "bf16", "float", "double", "float8_e4m3fn", "e8m0",
 * "p3109:p3", ...; a "torch.", "np.", "numpy.", "jnp." or "ml_dtypes."
 * prefix is ignored); NULL if unknown. */
const fl_format *fl_format_by_name(const char *name);

/* Fill *out from a preset name, alias, or "ieee:E:M" (E exponent bits, M
 * fraction bits).  Returns 0, or -1 with a message in err. */
int fl_format_parse(fl_format *out, const char *spec, char *err, size_t errlen);

/* Build an IEEE-biased, signed descriptor (nan_style IEEE, FN, FINITE,
 * FNUZ or P3109); returns 0 or -1 with err filled. */
int fl_format_make(fl_format *out, const char *name, int ebits, int prec,
                   int nan_style, int subnormals, int saturate,
                   char *err, size_t errlen);

/* Every parameter of a format.  bias FL_BIAS_IEEE means 2^(ebits-1) - 1. */
#define FL_BIAS_IEEE (-0x7FFFFFFF - 1)
typedef struct fl_format_params {
    int ebits;        /* 1..11 (IEEE style: 2..11) */
    int prec;         /* 1..53 (IEEE style: 2..53) */
    int bias;         /* or FL_BIAS_IEEE */
    int nan_style;    /* fl_nan_style */
    int is_signed;    /* 0: no sign bit (IEEE, FN or FINITE style only) */
    int has_zero;     /* 0: exponent field 0 is normal; needs is_signed 0,
                         no subnormals, FN or FINITE style */
    int subnormals;
    int saturate;
    int min_gap_up;   /* 1: ml_dtypes' float8_e8m0fnu rounding above the
                         smallest value (fl_format.min_gap_up); needs
                         has_zero 0.  Leave 0 (e.g. by a designated
                         initializer) for true nearest */
} fl_format_params;

/* The IEEE P3109 format Binary{K, P, signedness, domain} (gfloat's
 * p3109_k{K}p{P}{s|u}{e|f}): bias 2^(K-P-1) signed, 2^(K-P) unsigned,
 * K - P (signed) or K - P + 1 (unsigned) exponent bits, subnormals, no -0,
 * the P3109 NaN and infinities.  K = 2..16 and 1 <= P < K (unsigned:
 * P <= K), within fplab's limits: at most 11 exponent bits (every value a
 * binary64) and a normal number besides the specials.  The name is
 * gfloat's (K = 8, signed, extended: the preset p3109:pP).  Returns 0, or
 * -1 with a message naming what is out of range. */
int fl_format_p3109(fl_format *out, int k, int p, int is_signed,
                    int extended, char *err, size_t errlen);

/* Build a descriptor from all its parameters; returns 0, or -1 with a
 * message naming the parameter that is out of range.  Every finite value
 * must lie within binary64's range (emax <= 1024, smallest >= 2^-1074). */
int fl_format_define(fl_format *out, const char *name,
                     const fl_format_params *p, char *err, size_t errlen);

/* 1 when g and f are the same encoding: every field that defines the
 * format (width, ebits, prec, infinities, NaN style, subnormals,
 * saturation, bias, emax, largest finite code); the name does not count,
 * nor min_gap_up (fp8-e8m0 and float8_e8m0fnu are the same codes). */
int fl_format_same(const fl_format *g, const fl_format *f);
/* 1 when every finite value of f, and its infinities, are values of g
 * (precision, range, subnormals; e.g. binary32 holds every bfloat16,
 * binary16 and float8_e8m0fnu value).  Signs and NaN codes do not count. */
int fl_format_contains(const fl_format *g, const fl_format *f);
/* A format as fplab spells it: the name of the preset it is the same as,
 * else "ieee:E:M" for an IEEE-style format, else its own name (or "?").
 * Writes at most len bytes, NUL included. */
void fl_format_spec(const fl_format *f, char *buf, size_t len);

/* ------------------------------------------------------------------------
 * Results a format cannot encode (docs/formats.md has the full table, with
 * what ml_dtypes and the OCP specifications do):
 *   NaN in a FINITE format      ml_dtypes' stand-in: the sign bit alone (-0)
 *                               for a positive NaN, +0 for a negative one
 *                               (x86's default NaN is negative); invalid
 *   -0 in FNUZ, P3109, unsigned +0
 *   overflow, no infinity       FN: the NaN of that sign; FNUZ: NaN 0x80;
 *                               FINITE: +-largest finite; overflow, inexact
 *                               (saturating: +-largest finite everywhere)
 *   +-inf, no infinity          FN/FNUZ: NaN; FINITE or saturating:
 *                               +-largest finite (ternary below)
 *   zero without zero (E8M0)    NaN, invalid; saturating: 2^emin (code 0)
 *                               with underflow, inexact
 *   0 < |x| < 2^emin, no zero   2^emin in every mode; inexact, underflow
 *                               when tiny
 *   2^emin < |x| < next value,  RNE, RNA: the next value (not the nearest);
 *   min_gap_up                  inexact.  Other modes as without it
 *   negative in unsigned        NaN, invalid; saturating: code 0, invalid
 * ---------------------------------------------------------------------- */

/* ------------------------------------------------------------------------
 * Context: everything that steers an operation besides its operands.
 * ---------------------------------------------------------------------- */
typedef struct fl_ctx {
    uint8_t rm;         /* fl_rm */
    uint8_t tininess;   /* FL_TINY_AFTER / FL_TINY_BEFORE */
    uint8_t ftz;        /* flush tiny results to (signed) zero */
    uint8_t daz;        /* treat subnormal inputs as (signed) zero */
    uint8_t saturate;   /* FL_SAT_NONE, FL_SAT_PROPAGATE (overflow gives
                           the largest finite), FL_SAT_FINITE (infinities
                           too); the format's own saturate counts as
                           FL_SAT_PROPAGATE */
    uint8_t nan;        /* fl_nan_preset */
    uint8_t sr_variant; /* FL_RSB: FL_SRV_* */
    uint8_t sr_nbits;   /* FL_RSB: number of random bits N, 1..64 */
    uint64_t sr_seed;   /* stochastic rounding: seed of the stream */
    uint64_t sr_index;  /* stochastic rounding: counter; the random bits of
                           a rounding are a pure function of (seed, index) */
    uint64_t sr_bits;   /* FL_RSB: the random bits R (the low sr_nbits are
                           used) */
} fl_ctx;

#define FL_CTX_INIT { FL_RNE, FL_TINY_AFTER, 0, 0, 0, FL_NANP_X86, 0, 0, 0, 0, 0 }

static inline FPLAB_HOSTDEV fl_ctx fl_ctx_make(int rm)
{
    fl_ctx c = FL_CTX_INIT;
    c.rm = (uint8_t)rm;
    return c;
}

/* Counter-based random bits for stochastic rounding: a bijective mix of
 * (seed, index), identical on every thread and device. */
FPLAB_HOSTDEV uint64_t fl_sr_bits(uint64_t seed, uint64_t index);

/* Names: "rne", "rtz", "rdn", "rup", "rna", "rto", "sr" and TestFloat's
 * spellings; returns -1 if unknown.  FL_RSB has the name "srb" (it needs
 * its bits as an operand). */
int fl_rm_parse(const char *s);
const char *fl_rm_name(int rm);
/* "stochastic" (also "c", P3109's StochasticC), "stochastic-odd", "fast"
 * ("b"), "fastest" ("a"); -1 if unknown. */
int fl_srv_parse(const char *s);
const char *fl_srv_name(int variant);
/* "none" (also "ovfinf", "satnone"), "propagate", "finite" ("satfinite");
 * -1 if unknown. */
int fl_sat_parse(const char *s);
const char *fl_sat_name(int sat);
int fl_nan_preset_parse(const char *s);   /* x86 arm riscv cuda softfloat
                                             sign sign-pos default-neg first */
const char *fl_nan_preset_name(int p);

/* ------------------------------------------------------------------------
 * Arithmetic: one rounding each.
 * ---------------------------------------------------------------------- */
FPLAB_HOSTDEV uint64_t fl_add(const fl_format *f, uint64_t a, uint64_t b,
                              const fl_ctx *c, unsigned *flags);
FPLAB_HOSTDEV uint64_t fl_sub(const fl_format *f, uint64_t a, uint64_t b,
                              const fl_ctx *c, unsigned *flags);
FPLAB_HOSTDEV uint64_t fl_mul(const fl_format *f, uint64_t a, uint64_t b,
                              const fl_ctx *c, unsigned *flags);
FPLAB_HOSTDEV uint64_t fl_div(const fl_format *f, uint64_t a, uint64_t b,
                              const fl_ctx *c, unsigned *flags);
FPLAB_HOSTDEV uint64_t fl_sqrt(const fl_format *f, uint64_t a,
                               const fl_ctx *c, unsigned *flags);
/* a*b + addend with one rounding. */
FPLAB_HOSTDEV uint64_t fl_fma(const fl_format *f, uint64_t a, uint64_t b,
                              uint64_t addend, const fl_ctx *c,
                              unsigned *flags);
/* IEEE remainder: a - n*b, n = a/b rounded to nearest even (always exact). */
FPLAB_HOSTDEV uint64_t fl_rem(const fl_format *f, uint64_t a, uint64_t b,
                              const fl_ctx *c, unsigned *flags);
/* Round to integral value in c->rm; inexact is raised only when exact != 0
 * (TestFloat's -exact; IEEE roundToIntegralExact). */
FPLAB_HOSTDEV uint64_t fl_rint(const fl_format *f, uint64_t a, int exact,
                               const fl_ctx *c, unsigned *flags);

/* IEEE 754-2019 minimum/maximum (NaN in -> NaN out; -0 < +0) and
 * minimumNumber/maximumNumber (a number beats a NaN). sNaN -> invalid. */
FPLAB_HOSTDEV uint64_t fl_minimum(const fl_format *f, uint64_t a, uint64_t b,
                                  const fl_ctx *c, unsigned *flags);
FPLAB_HOSTDEV uint64_t fl_maximum(const fl_format *f, uint64_t a, uint64_t b,
                                  const fl_ctx *c, unsigned *flags);
FPLAB_HOSTDEV uint64_t fl_minimum_number(const fl_format *f, uint64_t a,
                                         uint64_t b, const fl_ctx *c,
                                         unsigned *flags);
FPLAB_HOSTDEV uint64_t fl_maximum_number(const fl_format *f, uint64_t a,
                                         uint64_t b, const fl_ctx *c,
                                         unsigned *flags);

/* Comparisons.  Quiet predicates raise invalid only for signaling NaNs;
 * signaling predicates raise invalid for any NaN operand (IEEE 5.11). */
enum { FL_CMP_LT = 0, FL_CMP_EQ = 1, FL_CMP_GT = 2, FL_CMP_UN = 3 };
FPLAB_HOSTDEV int fl_compare(const fl_format *f, uint64_t a, uint64_t b,
                             int signaling, const fl_ctx *c, unsigned *flags);
FPLAB_HOSTDEV int fl_eq(const fl_format *f, uint64_t a, uint64_t b,
                        const fl_ctx *c, unsigned *flags);      /* quiet */
FPLAB_HOSTDEV int fl_lt(const fl_format *f, uint64_t a, uint64_t b,
                        const fl_ctx *c, unsigned *flags);      /* signaling */
FPLAB_HOSTDEV int fl_le(const fl_format *f, uint64_t a, uint64_t b,
                        const fl_ctx *c, unsigned *flags);      /* signaling */
FPLAB_HOSTDEV int fl_eq_signaling(const fl_format *f, uint64_t a, uint64_t b,
                                  const fl_ctx *c, unsigned *flags);
FPLAB_HOSTDEV int fl_lt_quiet(const fl_format *f, uint64_t a, uint64_t b,
                              const fl_ctx *c, unsigned *flags);
FPLAB_HOSTDEV int fl_le_quiet(const fl_format *f, uint64_t a, uint64_t b,
                              const fl_ctx *c, unsigned *flags);

/* Classification (IEEE 754 class()). */
typedef enum fl_class {
    FL_CLASS_SNAN = 0, FL_CLASS_QNAN, FL_CLASS_NEG_INF, FL_CLASS_NEG_NORMAL,
    FL_CLASS_NEG_SUBNORMAL, FL_CLASS_NEG_ZERO, FL_CLASS_POS_ZERO,
    FL_CLASS_POS_SUBNORMAL, FL_CLASS_POS_NORMAL, FL_CLASS_POS_INF,
    FL_CLASS_COUNT
} fl_class;
FPLAB_HOSTDEV fl_class fl_classify(const fl_format *f, uint64_t a);
const char *fl_class_name(fl_class k);   /* "negativeNormal", ... */
FPLAB_HOSTDEV int fl_is_nan(const fl_format *f, uint64_t a);
FPLAB_HOSTDEV int fl_is_snan(const fl_format *f, uint64_t a);
FPLAB_HOSTDEV int fl_is_inf(const fl_format *f, uint64_t a);
FPLAB_HOSTDEV int fl_is_zero(const fl_format *f, uint64_t a);
FPLAB_HOSTDEV int fl_is_subnormal(const fl_format *f, uint64_t a);

/* nextUp / nextDown (IEEE 5.3.1): exact; sNaN -> invalid, quiet NaN out. */
FPLAB_HOSTDEV uint64_t fl_next_up(const fl_format *f, uint64_t a,
                                  const fl_ctx *c, unsigned *flags);
FPLAB_HOSTDEV uint64_t fl_next_down(const fl_format *f, uint64_t a,
                                    const fl_ctx *c, unsigned *flags);

/* The default NaN of a format under a preset, and a quieted copy of a NaN. */
FPLAB_HOSTDEV uint64_t fl_default_nan(const fl_format *f, int preset);

/* ------------------------------------------------------------------------
 * Conversions.
 * ---------------------------------------------------------------------- */
/* Any format to any format, one rounding. */
FPLAB_HOSTDEV uint64_t fl_convert(const fl_format *dst, const fl_format *src,
                                  uint64_t a, const fl_ctx *c,
                                  unsigned *flags);

/* To integers in c->rm.  NaN and out-of-range raise invalid and return the
 * preset's value (x86: INT_MIN / UINT_MAX; ARM and CUDA saturate, NaN -> 0;
 * RISC-V saturates, NaN -> max).  Inexact only when exact != 0. */
FPLAB_HOSTDEV int32_t fl_to_i32(const fl_format *f, uint64_t a, int exact,
                                const fl_ctx *c, unsigned *flags);
FPLAB_HOSTDEV int64_t fl_to_i64(const fl_format *f, uint64_t a, int exact,
                                const fl_ctx *c, unsigned *flags);
FPLAB_HOSTDEV uint32_t fl_to_u32(const fl_format *f, uint64_t a, int exact,
                                 const fl_ctx *c, unsigned *flags);
FPLAB_HOSTDEV uint64_t fl_to_u64(const fl_format *f, uint64_t a, int exact,
                                 const fl_ctx *c, unsigned *flags);
FPLAB_HOSTDEV uint64_t fl_from_i32(const fl_format *f, int32_t v,
                                   const fl_ctx *c, unsigned *flags);
FPLAB_HOSTDEV uint64_t fl_from_i64(const fl_format *f, int64_t v,
                                   const fl_ctx *c, unsigned *flags);
FPLAB_HOSTDEV uint64_t fl_from_u32(const fl_format *f, uint32_t v,
                                   const fl_ctx *c, unsigned *flags);
FPLAB_HOSTDEV uint64_t fl_from_u64(const fl_format *f, uint64_t v,
                                   const fl_ctx *c, unsigned *flags);

/* Native helpers.  fl_from_double / fl_from_float round a host value into f
 * (same as fl_convert from binary64 / binary32).  fl_to_double is exact for
 * every format whose values fit binary64: prec <= 53 and ebits <= 11, except
 * the top binade of an FN-style format with 11 exponent bits (emax 1024),
 * which comes back as +-inf; NaN payloads aside. */
FPLAB_HOSTDEV uint64_t fl_from_double(const fl_format *f, double x,
                                      const fl_ctx *c, unsigned *flags);
FPLAB_HOSTDEV uint64_t fl_from_float(const fl_format *f, float x,
                                     const fl_ctx *c, unsigned *flags);
FPLAB_HOSTDEV double fl_to_double(const fl_format *f, uint64_t a);
FPLAB_HOSTDEV float fl_to_float(const fl_format *f, uint64_t a); /* exact when f fits in binary32 */

/* Round a host value to f and give it back as a host value (the value of
 * fl_from_float followed by fl_to_float).  For f with prec <= 24 and a
 * range inside binary32's (resp. prec <= 53 for double).  These are the
 * workhorses of the mixed-precision simulator. */
FPLAB_HOSTDEV float fl_round_float(const fl_format *f, float x,
                                   const fl_ctx *c, unsigned *flags);
FPLAB_HOSTDEV double fl_round_double(const fl_format *f, double x,
                                     const fl_ctx *c, unsigned *flags);

/* Stochastic rounding of the binary64 value x into f with the nbits
 * random bits rbits (bits above nbits ignored), variant FL_SRV_*: the
 * encoding, as fl_from_double in mode FL_RSB gives it.  Everything else
 * comes from c as for every conversion (c->saturate: FL_SAT_*, ftz, nan;
 * c->rm and the sr fields are not read); flags as for every conversion.
 * nbits outside 1..64 or an unknown variant: the default NaN (the
 * stand-in in a FINITE format) and FL_INVALID.  The rounding is exact for
 * every nbits: x's 53 bits are the whole discarded part. */
FPLAB_HOSTDEV uint64_t fl_round_sr_bits(const fl_format *f, double x,
                                        uint64_t rbits, int nbits,
                                        int variant, const fl_ctx *c,
                                        unsigned *flags);
/* The array forms: dst[i] = fl_round_sr_bits(f, src[i], rbits[i], ...);
 * each: NULL, or each[i] is SET to element i's flags; *flags (may be NULL
 * when each is not) ORs them all.  dst may not alias src. */
void fl_round_sr_bits_array(const fl_format *f, uint64_t *dst,
                            const double *src, const uint64_t *rbits,
                            size_t n, int nbits, int variant,
                            const fl_ctx *c, unsigned *flags,
                            unsigned *each);
void fl_round_sr_bits_float_array(const fl_format *f, uint64_t *dst,
                                  const float *src, const uint64_t *rbits,
                                  size_t n, int nbits, int variant,
                                  const fl_ctx *c, unsigned *flags,
                                  unsigned *each);

/* Hardware stochastic-rounding rules with given random bits, as their
 * documentation states them (docs/formats.md cites each):
 *   FL_SRHW_PTX_*     NVIDIA PTX cvt.rs (sm_100a, sm_103a): binary32 lanes
 *                     a, b (x2) or a, b, e, f (x4), one 32-bit rbits
 *                     register; the carry out of the random bits added to
 *                     the discarded mantissa bits (FL_SRV_FASTEST with the
 *                     lane's bit count); .satfinite (mandatory for the
 *                     8-, 6- and 4-bit types): |x| > max (infinities too)
 *                     gives +-max, a NaN gives the format's NaN, and for
 *                     e2m1, e2m3, e3m2 (no NaN) +max.
 *   FL_SRHW_ONEDNN_*  oneDNN's rounding_mode::stochastic: a random bias of
 *                     24 - p bits added to the binary32 pattern's trailing
 *                     bits, then truncation (FL_SRV_FASTEST, N = 24 - p). */
typedef enum fl_srhw {
    FL_SRHW_PTX_F16X2 = 0, FL_SRHW_PTX_BF16X2, FL_SRHW_PTX_E4M3X4,
    FL_SRHW_PTX_E5M2X4, FL_SRHW_PTX_E2M3X4, FL_SRHW_PTX_E3M2X4,
    FL_SRHW_PTX_E2M1X4, FL_SRHW_ONEDNN_F16, FL_SRHW_ONEDNN_BF16,
    FL_SRHW_ONEDNN_E4M3, FL_SRHW_ONEDNN_E5M2, FL_SRHW_COUNT
} fl_srhw;
typedef struct fl_srhw_info {
    const char *name;       /* "ptx-cvt.rs.e4m3x4", "onednn-f16", ... */
    const fl_format *fmt;   /* destination format */
    int lanes;              /* values per instruction (oneDNN: 1) */
    int nbits;              /* random bits per lane */
    int satfinite;          /* 1: FL_SAT_FINITE always; 0: optional */
    int lane_width;         /* bits of d per lane (e2m3/e3m2: 8, padded) */
} fl_srhw_info;
const fl_srhw_info *fl_srhw_get(int preset);
int fl_srhw_parse(const char *name);          /* -1 if unknown */
/* Lane `lane` of preset's instruction: its random bits taken from the
 * 32-bit register rbits as the documentation lays them out (oneDNN: the
 * low nbits of rbits). */
uint64_t fl_srhw_lane_bits(int preset, uint32_t rbits, int lane);
/* One lane: x rounded as the instruction rounds it with the lane's bits
 * (satfinite: the .satfinite rules; the 8/6/4-bit PTX types always).
 * Returns the encoding in fl_srhw_get(preset)->fmt. */
uint64_t fl_srhw_round(int preset, float x, uint32_t rbits, int lane,
                       int satfinite, unsigned *flags);
/* The whole instruction: x[0..lanes-1] (a, b[, e, f]) and one rbits
 * register; the packed destination register as the PTX semantics pack
 * it (lane a in the top bits; e2m3/e3m2 lanes with 2 zero bits on top). */
uint64_t fl_srhw_pack(int preset, const float *x, uint32_t rbits,
                      int satfinite, unsigned *flags);

/* Bulk rounding.  Element i uses stochastic-rounding index c->sr_index + i,
 * so results do not depend on how the array is split across threads.
 * dst may equal src. */
void fl_round_float_array(const fl_format *f, float *dst, const float *src,
                          size_t n, const fl_ctx *c, unsigned *flags);
void fl_round_double_array(const fl_format *f, double *dst, const double *src,
                           size_t n, const fl_ctx *c, unsigned *flags);

/* Element-wise arithmetic on arrays of encodings: r[i] = a[i] op b[i] for
 * i < n, each element exactly what the scalar call gives.  each: NULL, or
 * each[i] is SET (not ORed) to element i's flags, ternary bits included.
 * Element i uses stochastic-rounding index c->sr_index + i.  r may equal a
 * or b. */
void fl_add_array(const fl_format *f, uint64_t *r, const uint64_t *a,
                  const uint64_t *b, size_t n, const fl_ctx *c, unsigned *each);
void fl_sub_array(const fl_format *f, uint64_t *r, const uint64_t *a,
                  const uint64_t *b, size_t n, const fl_ctx *c, unsigned *each);
void fl_mul_array(const fl_format *f, uint64_t *r, const uint64_t *a,
                  const uint64_t *b, size_t n, const fl_ctx *c, unsigned *each);
void fl_div_array(const fl_format *f, uint64_t *r, const uint64_t *a,
                  const uint64_t *b, size_t n, const fl_ctx *c, unsigned *each);

/* ------------------------------------------------------------------------
 * Decimal and hexadecimal text.
 * ---------------------------------------------------------------------- */
/* Parse a decimal ("1.5", "-2e-8"), C99 hex-float ("-0x1.8p-14"), "inf",
 * "infinity", "nan", "snan" (case-insensitive, optional sign) and round it
 * correctly into f.  Returns 0 on success with *out set and flags raised
 * (inexact, overflow, underflow); -1 on a syntax error (nothing written).
 * The whole string must be consumed (no trailing characters). */
int fl_parse(const fl_format *f, const char *s, const fl_ctx *c,
             unsigned *flags, uint64_t *out);

/* Exact decimal expansion of the value ("0.000000059604644775390625",
 * "-inf", "nan", "-0").  Returns the length the full string needs (like
 * snprintf); writes at most len bytes including the NUL. */
size_t fl_print_exact(const fl_format *f, uint64_t a, char *buf, size_t len);
/* Shortest decimal string that parses back (round to nearest even) to the
 * same bits; scientific notation when the exponent is large. */
size_t fl_print_shortest(const fl_format *f, uint64_t a, char *buf,
                         size_t len);
/* C99 hex-float ("0x1.8p-14", subnormals as "0x0.02p-14"). */
size_t fl_print_hex(const fl_format *f, uint64_t a, char *buf, size_t len);

#if defined(__cplusplus) && !defined(FPLAB_DEVICE_ONLY)
}
#endif
#endif /* FPLAB_FPLAB_H */
