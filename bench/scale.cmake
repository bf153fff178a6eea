# bench_scale: MX quantization (fplab/scale.h) in G elements/s on one core,
# next to memcpy of the same input in the same run (not a test).
add_executable(bench_scale ${CMAKE_CURRENT_LIST_DIR}/bench_scale.c)
target_link_libraries(bench_scale PRIVATE fplab_scale fplab fplab_warnings)
target_compile_options(bench_scale PRIVATE -O2)
