#!/usr/bin/env bash
# install_test.sh — fplab as a user gets it from `cmake --install`:
#   1. install into a temporary prefix, then MOVE the tree elsewhere (so
#      nothing may depend on the prefix the build was configured with);
#   2. the README's library example (the first ```c block, taken from
#      README.md itself) compiled with `pkg-config --cflags --libs fplab`
#      (PKG_CONFIG_PATH) and with a CMake project's find_package(fplab)
#      (CMAKE_PREFIX_PATH), run, and its output compared with the line the
#      README shows;
#   3. the whole library: libfplab.so exports exactly the fl_ names the
#      installed headers declare (api_symbols.py); the README's second
#      example (whole.c: a reference GEMM, a verdict, an MX block, a
#      tensor file, calc's operations, a revealed kernel) built by the
#      README's own `$ cc` lines (shared; fully static, where the build is
#      not sanitized) and with the static archive alone (-l:libfplab.a and
#      `pkg-config --static`'s libraries), and through CMake with
#      fplab::fplab, fplab::fplab_shared and the component target
#      fplab::fplab_ref: every output as the README shows it, each binary
#      linked the way it claims (readelf); the exported CMake targets name
#      no absolute library path;
#   4. the installed fplab finds its data set and plot scripts in
#      PREFIX/share/fplab from a directory outside the source tree: `lab
#      --quick --only atlas` writes the report and its figures, the
#      installed fplab-lab-audit passes it, `train` reads the digits; a
#      lone copy of the binary without share/ fails with a message naming
#      where it looked.
# Counts its checks and fails unless all ran.
#
# usage: install_test.sh BUILD_DIR SOURCE_DIR WORK_DIR [SANITIZE]
#   SANITIZE: the build's FPLAB_SANITIZE (the consumers are then compiled
#   and linked with the same -fsanitize, as the installed objects need)
set -u
build=${1:?usage: $0 BUILD_DIR SOURCE_DIR WORK_DIR [SANITIZE]}
src=${2:?usage}
work=${3:?usage}
san=${4:-}
checks=0 fails=0
check() {   # check NAME COMMAND...
    local name=$1; shift
    checks=$((checks + 1))
    if "$@"; then echo "ok   $name"; return 0; fi
    echo "FAIL $name"
    fails=$((fails + 1))
    return 1
}
die() { echo "FAIL: $*"; exit 1; }

rm -rf "$work"
mkdir -p "$work" || die "cannot make $work"
work=$(cd "$work" && pwd)
cmake --install "$build" --prefix "$work/staged" > "$work/install.log" 2>&1 ||
    { cat "$work/install.log"; die "cmake --install failed"; }
mv "$work/staged" "$work/moved" || die "cannot move the install tree"
P=$work/moved

pc=$(find "$P" -name fplab.pc -path '*/pkgconfig/*' | head -1)
check pc_installed test -n "$pc"
pcdir=$(dirname "$pc")
export PKG_CONFIG_PATH=$pcdir
check pc_prefix_follows_the_tree test "$(cd "$(pkg-config --variable=prefix fplab)" 2>/dev/null && pwd)" = "$P"
check pc_cflags_in_tree bash -c "pkg-config --cflags fplab | grep -q -- '-I$P/'"
check cmake_config_installed test -n "$(find "$P" -name fplabConfig.cmake)"

# The README's example, as the README prints it.
readme=$src/README.md
awk '/^```c$/ { f = 1; next } f && /^```$/ { exit } f' "$readme" > "$work/example.c"
want=$(awk '/^\$ .*\.\/example$/ { getline; print; exit }' "$readme")
check readme_example_found bash -c "grep -q 'fl_add' '$work/example.c' && [ -n '$want' ]"

cflags=() ; [ -n "$san" ] && cflags=("-fsanitize=$san")
# pkg-config: the shared library, found at run time through the rpath the
# README's command line sets
libdir=$(pkg-config --variable=libdir fplab)
cc "${cflags[@]}" "$work/example.c" $(pkg-config --cflags --libs fplab) \
    -Wl,-rpath,"$libdir" -o "$work/example_pc" > "$work/pc.log" 2>&1
check pkgconfig_build test -x "$work/example_pc" || cat "$work/pc.log"
got=$("$work/example_pc" 2>&1)
check pkgconfig_run_matches_readme test "$got" = "$want" || echo "  got [$got], README shows [$want]"

# CMake: find_package(fplab) through CMAKE_PREFIX_PATH, the static library
mkdir -p "$work/cmake_consumer"
cp "$work/example.c" "$work/cmake_consumer/example.c"
cat > "$work/cmake_consumer/CMakeLists.txt" <<'CMK'
cmake_minimum_required(VERSION 3.20)
project(fplab_consumer C)
find_package(fplab 0.1 REQUIRED)
add_executable(example example.c)
target_link_libraries(example PRIVATE fplab::fplab)
CMK
sanflags=""
[ -n "$san" ] && sanflags="-fsanitize=$san"
cmake -S "$work/cmake_consumer" -B "$work/cmake_consumer/build" \
    -DCMAKE_PREFIX_PATH="$P" -DCMAKE_C_FLAGS="$sanflags" \
    -DCMAKE_EXE_LINKER_FLAGS="$sanflags" > "$work/cmake.log" 2>&1 &&
    cmake --build "$work/cmake_consumer/build" >> "$work/cmake.log" 2>&1
check cmake_find_package_build test -x "$work/cmake_consumer/build/example" || tail -30 "$work/cmake.log"
check cmake_found_the_moved_tree grep -q "fplab_DIR:PATH=$P/" "$work/cmake_consumer/build/CMakeCache.txt"
got=$("$work/cmake_consumer/build/example" 2>&1)
check cmake_run_matches_readme test "$got" = "$want" || echo "  got [$got], README shows [$want]"

# ---- 3. the whole library ------------------------------------------------
check api_exported_exactly python3 "$src/tests/install/api_symbols.py" \
    "$P/include" "$libdir/libfplab.so"
abs_links() {   # exported link entries that are absolute paths
    grep -h 'INTERFACE_LINK_LIBRARIES' "$P"/lib*/cmake/fplab/fplabTargets.cmake |
        grep -E '"/|;/'
}
check cmake_targets_relocatable test -z "$(abs_links)"

# the README's whole.c, its `$ cc` lines and the output under the first
awk '/^```c$/ { n++; if (n == 2) { f = 1; next } } f && /^```$/ { exit } f' \
    "$readme" > "$work/whole.c"
awk '/^\$ cc whole\.c .*-o whole && \.\/whole$/ { f = 1; next }
     f && /^(\$ |```)/ { exit } f' "$readme" > "$work/whole.want"
cc_shared=$(sed -n 's/^\$ \(cc whole\.c .*-o whole && \.\/whole\)$/\1/p' "$readme")
cc_static=$(sed -n 's/^\$ \(cc whole\.c -static .*\)$/\1/p' "$readme")
check readme_whole_found bash -c "grep -q fl_ref_gemm '$work/whole.c' && [ -s '$work/whole.want' ] && [ -n '$cc_shared' ] && [ -n '$cc_static' ]"
# the README's commands as typed, with the build's sanitizer flags
cc() { command cc ${san:+"-fsanitize=$san"} "$@"; }
export -f cc
export san
runs() {   # runs NAME DIR COMMAND: run in DIR (whole.c writes d.npy there)
    local name=$1 dir=$2 cmd=$3
    mkdir -p "$dir" && cp "$work/whole.c" "$dir/"
    (cd "$dir" && bash -c "$cmd") > "$dir/out" 2> "$dir/err"
}
runs pc_shared "$work/whole_pc" "$cc_shared"
check pkgconfig_whole_matches_readme cmp -s "$work/whole_pc/out" "$work/whole.want" || { cat "$work/whole_pc/err"; diff "$work/whole.want" "$work/whole_pc/out"; }
check pkgconfig_whole_is_shared bash -c "readelf -d '$work/whole_pc/whole' | grep -q 'NEEDED.*libfplab\.so'"
# the static archive alone, in a dynamic program: -l:libfplab.a and what
# `pkg-config --static` adds for it
priv=$(pkg-config --static --libs-only-l fplab | tr ' ' '\n' | grep -vx -- '-lfplab' | tr '\n' ' ')
runs pc_archive "$work/whole_ar" "cc whole.c \$(pkg-config --cflags fplab) -L'$libdir' -l:libfplab.a $priv -o whole && ./whole"
check pkgconfig_static_archive_matches cmp -s "$work/whole_ar/out" "$work/whole.want" || { cat "$work/whole_ar/err"; diff "$work/whole.want" "$work/whole_ar/out"; }
check pkgconfig_static_archive_not_shared bash -c "! readelf -d '$work/whole_ar/whole' | grep -q 'NEEDED.*libfplab'"
if [ -z "$san" ]; then
    runs pc_static "$work/whole_st" "$cc_static"
    check pkgconfig_fully_static_matches test "$(head -1 "$work/whole.want")" = "$(cat "$work/whole_st/out")" || cat "$work/whole_st/err"
    check pkgconfig_fully_static_linked bash -c "! readelf -d '$work/whole_st/whole-static' 2>/dev/null | grep -q NEEDED && [ -x '$work/whole_st/whole-static' ]"
else
    echo "note: sanitized build: no fully static program (-static with -fsanitize); the static archive is checked above"
    check pkgconfig_fully_static_matches true
    check pkgconfig_fully_static_linked true
fi
# CMake: the static library, the shared one, and a component target
mkdir -p "$work/cmake_whole"
cp "$work/whole.c" "$work/cmake_whole/"
cat > "$work/cmake_whole/CMakeLists.txt" <<'CMK'
cmake_minimum_required(VERSION 3.20)
project(fplab_whole C)
find_package(fplab 0.1 REQUIRED)
add_executable(whole_static whole.c)
target_link_libraries(whole_static PRIVATE fplab::fplab)
add_executable(whole_shared whole.c)
target_link_libraries(whole_shared PRIVATE fplab::fplab_shared)
add_executable(whole_ref whole.c)
target_link_libraries(whole_ref PRIVATE fplab::fplab_ref)
CMK
cmake -S "$work/cmake_whole" -B "$work/cmake_whole/build" \
    -DCMAKE_PREFIX_PATH="$P" -DCMAKE_C_FLAGS="$sanflags" \
    -DCMAKE_EXE_LINKER_FLAGS="$sanflags" > "$work/cmake_whole.log" 2>&1 &&
    cmake --build "$work/cmake_whole/build" >> "$work/cmake_whole.log" 2>&1
check cmake_whole_build test -x "$work/cmake_whole/build/whole_ref" || tail -30 "$work/cmake_whole.log"
for t in static shared ref; do
    (cd "$work/cmake_whole/build" && "./whole_$t") > "$work/cmake_whole/$t.out" 2>&1
    check "cmake_whole_${t}_matches_readme" cmp -s "$work/cmake_whole/$t.out" "$work/whole.want" || diff "$work/whole.want" "$work/cmake_whole/$t.out"
done
check cmake_whole_linkage bash -c "readelf -d '$work/cmake_whole/build/whole_shared' | grep -q 'NEEDED.*libfplab\.so' && ! readelf -d '$work/cmake_whole/build/whole_static' | grep -q 'NEEDED.*libfplab' && ! readelf -d '$work/cmake_whole/build/whole_ref' | grep -q 'NEEDED.*libfplab'"

# ---- 4. the installed command, run from outside the source tree ----------
fplab=$P/bin/fplab
mkdir -p "$work/elsewhere"
cd "$work/elsewhere" || die "cd"
share=$P/share/fplab
check share_data_installed test -f "$share/data/digits.csv.gz"
check share_plots_installed test -f "$share/plots/atlas.gp"
check lab_help_names_installed_share bash -c "'$fplab' lab --help | grep -qx 'Here SHARE is $share (installed).'"
env -u FPLAB_SHARE_DIR -u FPLAB_DATA -u FPLAB_PLOTS_DIR \
    "$fplab" lab --quick --only atlas --out "$work/elsewhere/lab" > "$work/lab.log" 2>&1
check lab_from_install_runs test $? = 0 || cat "$work/lab.log"
check lab_report_written test -f "$work/elsewhere/lab/REPORT.md"
# the installed audit (PREFIX/bin/fplab-lab-audit) passes the installed lab
"$P/bin/fplab-lab-audit" "$work/elsewhere/lab" --plots "$share/plots" > "$work/audit.log" 2>&1
check lab_audit_installed_passes grep -q "^lab_audit: $work/elsewhere/lab: .* checks, 0 failures$" "$work/audit.log" || cat "$work/audit.log"
if grep -q 'gnuplot not found' "$work/elsewhere/lab/REPORT.md" 2>/dev/null; then
    echo "note: no gnuplot here: figures not drawn, the scripts' place checked above"
    check lab_no_missing_script true
else
    check lab_figures_drawn bash -c "ls '$work'/elsewhere/lab/*.png >/dev/null 2>&1 && ! grep -q 'not drawn' '$work/elsewhere/lab/REPORT.md'"
fi
env -u FPLAB_SHARE_DIR "$fplab" train --steps 2 --width 8 --eval-every 0 > "$work/train.log" 2>&1
check train_from_install_finds_digits grep -q '1438 train / 359 test rows' "$work/train.log"

# A lone binary with no share/ beside it: a clear error, exit 2.
mkdir -p "$work/lone/bin"
cp "$fplab" "$work/lone/bin/fplab"
env -u FPLAB_SHARE_DIR "$work/lone/bin/fplab" train --steps 1 > "$work/lone.log" 2>&1
rc=$?
check lone_binary_exit_2 test "$rc" = 2
check lone_binary_says_where grep -q "cannot find the digits data set: no '$work/lone/share/fplab'" "$work/lone.log" || cat "$work/lone.log"
# ... and FPLAB_SHARE_DIR points it at a share directory
FPLAB_SHARE_DIR=$share "$work/lone/bin/fplab" train --steps 1 --width 8 --eval-every 0 > "$work/lone2.log" 2>&1
check share_dir_env_overrides test $? = 0

# gpu-check finds the installed CUDA module (LIBDIR/fplab/libfplab_gpu.so)
# in a CUDA build: it then skips for want of a device, not of the module.
if [ -f "$build/libfplab_gpu.so" ]; then
    "$fplab" gpu-check --quick > "$work/gpu.log" 2>&1
    check gpu_module_found_when_installed bash -c "! grep -q 'module libfplab_gpu.so was not found' '$work/gpu.log'" || cat "$work/gpu.log"
else
    check gpu_module_not_built true
fi

echo "$checks checks, $fails failed"
[ "$checks" = 36 ] || { echo "FAIL: ran $checks checks, expected 36"; exit 1; }
[ "$fails" = 0 ]
