/*
 * simd_kundef.h — the end of an instance of simd_round.h or
 * simd_narrow.h (host only, not installed): every K_ macro the template
 * and its includer (fast_simd.c, fast_narrow.c, simd_avx2_masks.h)
 * define, undefined, so that the next instance starts clean.
 */
#undef K_
#undef KC
#undef KC2
#undef K_ACC
#undef K_ANYM
#undef K_BITS
#undef K_BITS_OF
#undef K_BLEND
#undef K_CVTU
#undef K_EQM
#undef K_EQ
#undef K_FB
#undef K_FGT
#undef K_GE
#undef K_GT
#undef K_HID
#undef K_HW16
#undef K_INL
#undef K_LE
#undef K_LT
#undef K_M
#undef K_MANDN
#undef K_MASKZ
#undef K_MAXU
#undef K_MINU
#undef K_MNOT
#undef K_MZERO
#undef K_NAME
#undef K_NE
#undef K_MUL64_EMU
#undef K_OVSEL
#undef K_SIGN
#undef K_SIGNOR
#undef K_SIGNS
#undef K_SLLV
#undef K_SPECIAL
#undef K_SPECIALISE
#undef K_SRBLK
#undef K_SRH
#undef K_SR_EO
#undef K_SRLV
#undef K_STORE
#undef K_STREAM
#undef K_TARGET
#undef K_VB
#undef K_W
