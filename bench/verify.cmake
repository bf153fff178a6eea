# Time to check all 2^32 binary16 add pairs against the hardware oracle
# (run by hand: build-dir/bench/bench_verify [--threads T] [--log2 32]).
add_executable(bench_verify ${CMAKE_CURRENT_LIST_DIR}/bench_verify.c)
target_link_libraries(bench_verify PRIVATE fplab_oracle fplab fplab_warnings)
target_compile_options(bench_verify PRIVATE -O2)
