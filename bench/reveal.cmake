# bench_reveal: the whole `fplab reveal` of np.sum float32 (n = 256),
# kernel calls included, against python + numpy's process start measured
# in the same run; and the engine alone with an in-process kernel.
add_executable(bench_reveal ${CMAKE_CURRENT_LIST_DIR}/bench_reveal.c)
target_link_libraries(bench_reveal PRIVATE fplab_reveal fplab_warnings)
target_compile_definitions(bench_reveal PRIVATE
  FPLAB_BENCH_EXE="$<TARGET_FILE:fplab_cli>"
  FPLAB_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_dependencies(bench_reveal fplab_cli)
