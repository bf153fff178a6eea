# fplab compare's scan next to memcpy (run by hand:
# build-dir/bench/bench_compare [n [reps]], default 10^8 binary32).
add_executable(bench_compare ${CMAKE_CURRENT_LIST_DIR}/bench_compare.c)
target_link_libraries(bench_compare PRIVATE fplab_ref fplab fplab_warnings)
target_compile_options(bench_compare PRIVATE -O2)
