#!/usr/bin/env bash
# p3109_cli.sh — the P3109 family and stochastic rounding with supplied
# bits from the command line: formats by gfloat's names, P3109's rounding
# at precision 1 and its saturation modes (fplab calc), and `fplab ref cast`
# and `fplab quantize` with a tensor of random bits (ref: plain and with the
# PTX cvt.rs preset), and their refusals.  The inputs are .npy files written with Python's standard
# library (no numpy needed).
#
#   p3109_cli.sh FPLAB WORKDIR
set -u
F=${1:?usage: $0 FPLAB WORKDIR}
W=${2:?}
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 2
pass=0 fail=0
bad() { fail=$((fail + 1)); printf 'FAIL %s\n' "$*"; }

# expect WANT_RC WANT_STDOUT_LINE ARGS...: the first stdout line (or, for a
# nonzero rc, a piece of stderr)
expect() {
    local rc=$1 want=$2; shift 2
    "$F" "$@" > .out 2> .err
    local got=$?
    if [ "$got" != "$rc" ]; then
        bad "fplab $* -> rc $got, want $rc: $(head -c 300 .err)"
    elif [ "$rc" = 0 ] && [ "$(head -n 1 .out)" != "$want" ]; then
        bad "fplab $* -> [$(head -n 1 .out)], want [$want]"
    elif [ "$rc" != 0 ] && ! grep -qF -- "$want" .err; then
        bad "fplab $* -> stderr [$(cat .err)] lacks [$want]"
    else
        pass=$((pass + 1))
    fi
}

# npy FILE DTYPE VALUES...: a 1-D .npy (dtype '<f4' or '<u2' ...)
npy() {
    python3 - "$@" <<'PY'
import struct, sys
path, dt, vals = sys.argv[1], sys.argv[2], sys.argv[3:]
fmt = {"<f4": "f", "<u2": "H", "<u4": "I"}[dt]
vals = [float.fromhex(v) if fmt == "f" else int(v, 0) for v in vals]
head = "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % (dt, len(vals))
head += " " * (63 - (10 + len(head)) % 64) + "\n"
with open(path, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode())
    f.write(struct.pack("<%d%s" % (len(vals), fmt), *vals))
PY
}

# formats and P3109 rounding
expect 0 "0x7e 4611686018427387904 inexact" calc p3109_k8p1se round 0x1.8p62
expect 0 "0x7f inf inexact,overflow" calc p3109:p1 round 0x1.8p62 --rm rto
expect 0 "0x7e 49152 -" calc p3109_k8p3se round inf --sat finite
expect 0 "0x7f inf -" calc p3109_k8p3se round inf --sat propagate
expect 0 "0x7e 49152 inexact,overflow" calc p3109_k8p3se round 1e10 --sat propagate
expect 0 "0x80 nan inexact,overflow" calc p3109_k8p3sf round 1e10
expect 0 "0x00 0 invalid" calc p3109_k8p3ue round -3 --rm rtz
expect 0 "0xff nan invalid" calc p3109_k8p3ue round -3
expect 0 "0x00 0 inexact,underflow" calc p3109_k8p2se round 0x1.fffffffffffffp-34 --rm rna
expect 0 "0x3c01 1.0009765625 inexact" calc fp16 round 0x1.002p0 --sr-bits 4096 --sr-nbits 13 --sr-variant fastest
expect 2 "exponent bits" info p3109_k16p2se
expect 2 "--sr-bits needs --sr-nbits" calc fp16 round 1 --sr-bits 3

# ref cast with random bits: 1 + 2^-11 is 0x1000 of the 13 bits binary32
# drops for binary16: up iff R >= 0x1000 (fastest)
npy x.npy '<f4' 0x1.002p0 0x1.002p0 0x1.4p0 -0x1.8p1
npy r.npy '<u2' 0x1000 0x0fff 0x1fff 7
npy r4.npy '<u2' 1 2 3
npy big.npy '<u2' 0x2000 0 0 0
npy rf.npy '<f4' 0 0 0 0
expect 0 "model: in=binary32 acc=binary16 acc-rm=rne products=rounded order=sequential tc=none out=binary16 out-rm=rne epilogue=last ftz=0 daz=0 nan=x86 saturate=0 tininess=after seed=0" \
    ref cast x.npy --out-format binary16 --sr-bits r.npy --sr-nbits 13 --sr-variant fastest --out o.npy
got=$(python3 -c "
import struct; d = open('o.npy','rb').read(); n = struct.unpack('<H', d[8:10])[0]
print(' '.join('%04x' % v for v in struct.unpack('<4H', d[10 + n:])))")
[ "$got" = "3c01 3c00 3d00 c200" ] && pass=$((pass + 1)) || bad "ref cast sr-bits: $got"
expect 0 "model: in=binary32 acc=fp8-e4m3 acc-rm=rne products=rounded order=sequential tc=none out=fp8-e4m3 out-rm=rne epilogue=last ftz=0 daz=0 nan=x86 saturate=0 tininess=after seed=0" \
    ref cast x.npy --out-format fp8-e4m3 --sr-bits r.npy --sr-hw ptx-cvt.rs.e4m3x4 --out o8.npy
grep -qF "16 bits, variant fastest, saturation finite, preset ptx-cvt.rs.e4m3x4" .out &&
    pass=$((pass + 1)) || bad "preset line: $(cat .out)"
expect 2 "does not fit in 13 bits" ref cast x.npy --out-format binary16 --sr-bits big.npy --sr-nbits 13 --out e.npy
expect 2 "has shape (3,), the inputs (4,)" ref cast x.npy --out-format binary16 --sr-bits r4.npy --sr-nbits 13 --out e.npy
expect 2 "unsigned integer tensor" ref cast x.npy --out-format binary16 --sr-bits rf.npy --sr-nbits 13 --out e.npy
expect 2 "rounds into binary16; give --out-format binary16" ref cast x.npy --out-format bfloat16 --sr-bits r.npy --sr-hw ptx-cvt.rs.f16x2 --out e.npy
expect 2 "apply to the element-wise operations" ref sum x.npy --sr-bits r.npy --sr-nbits 4 --out e.npy
[ ! -e e.npy ] && pass=$((pass + 1)) || bad "a refused run wrote e.npy"

# quantize with supplied bits: 32 x 1.25 in MXFP4 (scale 2^-2): P = 5, half
# way between 4 and 6; N = 1, stochastic: R = 1 rounds up (1.5), R = 0 down
python3 - <<'PY'
import struct
def npy(path, fmt, dt, vals):
    head = "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % (dt, len(vals))
    head += " " * (63 - (10 + len(head)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode())
        f.write(struct.pack("<%d%s" % (len(vals), fmt), *vals))
npy("q.npy", "f", "<f4", [1.25] * 32)
npy("qb.npy", "B", "|u1", [i & 1 for i in range(32)])
npy("qb2.npy", "B", "|u1", [2] * 32)
PY
expect 0 "input: q.npy (npy f32, shape (32,), 32 values: 32 nonzero finite, 0 zero, 0 NaN, 0 inf)" \
    quantize --scheme mxfp4-e2m1 q.npy --dequant-out qd.npy --sr-bits qb.npy --sr-nbits 1
got=$(python3 -c "
import struct; d = open('qd.npy','rb').read(); n = struct.unpack('<H', d[8:10])[0]
print(' '.join('%g' % v for v in struct.unpack('<32f', d[10 + n:])[:4]))")
[ "$got" = "1 1.5 1 1.5" ] && pass=$((pass + 1)) || bad "quantize sr-bits: $got"
expect 2 "does not fit in 1 bits" quantize --scheme mxfp4-e2m1 q.npy --dequant-out qe.npy --sr-bits qb2.npy --sr-nbits 1
expect 2 "already rounds with sr" quantize --scheme mxfp4-e2m1:sr q.npy --dequant-out qe.npy --sr-bits qb.npy --sr-nbits 1
expect 2 "holds 3 values, q.npy 32" quantize --scheme mxfp4-e2m1 q.npy --dequant-out qe.npy --sr-bits r4.npy --sr-nbits 4
[ ! -e qe.npy ] && pass=$((pass + 1)) || bad "a refused quantize wrote qe.npy"

printf 'p3109_cli: %d checks, %d failed\n' $((pass + fail)) "$fail"
[ "$fail" = 0 ] && [ "$pass" -gt 25 ]
