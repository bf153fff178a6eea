#!/usr/bin/env python3
"""api_symbols.py INCLUDE_DIR LIBFPLAB_SO — the shared library exports
exactly the public API: every fl_ function and constant the headers
INCLUDE_DIR/fplab/*.h declare (read from the preprocessed headers, so
comments and macros do not count; static inline functions are not
symbols), and no other name.

Prints the counts and the differences; exit 0 when the two sets are
equal and not empty, else 1.  Python's standard library, cc and nm."""
import glob
import os
import re
import subprocess
import sys

inc, so = sys.argv[1], sys.argv[2]
headers = sorted(glob.glob(os.path.join(inc, "fplab", "*.h")))
src = "".join('#include "%s"\n' % h for h in headers)
pp = subprocess.run(["cc", "-E", "-P", "-I", inc, "-x", "c", "-"],
                    input=src, capture_output=True, text=True,
                    check=True).stdout
inline = set(re.findall(r"static\s+inline[^;{(]*?\b(fl_\w+)\s*\(", pp))
declared = set(re.findall(r"\b(fl_[a-z0-9_]+)\s*\(", pp)) - inline
for decl in re.findall(r"extern\s+const\s+\w+\s+([^;]*);", pp):
    declared |= set(re.findall(r"\b(fl_\w+)\b", decl))
nm = subprocess.run(["nm", "-D", "--defined-only", so], capture_output=True,
                    text=True, check=True).stdout
exported = set()
for line in nm.splitlines():
    f = line.split()
    if len(f) == 3 and f[1] in "TDRBVWi":
        exported.add(f[2])
missing = sorted(declared - exported)
extra = sorted(exported - declared)
print("%d headers: %d names declared; %s: %d exported" %
      (len(headers), len(declared), os.path.basename(so), len(exported)))
if missing:
    print("declared, not exported:", " ".join(missing))
if extra:
    print("exported, not declared:", " ".join(extra))
sys.exit(0 if declared and not missing and not extra else 1)
