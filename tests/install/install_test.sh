#!/usr/bin/env bash
# install_test.sh — fplab as a user gets it from `cmake --install`:
#   1. install into a temporary prefix, then MOVE the tree elsewhere (so
#      nothing may depend on the prefix the build was configured with);
#   2. the README's library example (the ```c block, taken from README.md
#      itself) compiled with `pkg-config --cflags --libs fplab`
#      (PKG_CONFIG_PATH) and with a CMake project's find_package(fplab)
#      (CMAKE_PREFIX_PATH), run, and its output compared with the line the
#      README shows;
#   3. the installed fplab finds its data set and plot scripts in
#      PREFIX/share/fplab from a directory outside the source tree: `lab
#      --quick --only atlas` writes the report and its figures, `train`
#      reads the digits; a lone copy of the binary without share/ fails
#      with a message naming where it looked.
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

# The installed command, run from outside the source tree.
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
[ "$checks" = 21 ] || { echo "FAIL: ran $checks checks, expected 21"; exit 1; }
[ "$fails" = 0 ]
