# build-config.sh — sourced by scripts/lab.sh and scripts/test.sh: the one
# build directory and configuration the README's two commands share, so
# the second reuses what the first built instead of rebuilding it.
#   FPLAB_BUILD_DIR  build directory (default build)
#   FPLAB_WERROR     ON (default) or OFF: warnings as errors; a compiler
#                    newer than Debian 12's GCC 12 may warn where it does not
fplab_build_dir=${FPLAB_BUILD_DIR:-build}
fplab_cmake_args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo
                  -DFPLAB_WERROR="${FPLAB_WERROR:-ON}")
fplab_configure() {
    cmake -S . -B "$fplab_build_dir" "${fplab_cmake_args[@]}" "$@"
}
