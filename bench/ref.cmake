# bench_ref: reference GEMM in the binary32 sequential and H100 tensor-core
# models next to a triple-loop float GEMM and the BLAS numpy links
# (libblas.so.3 through dlopen), measured in the same run.  Not a test.
add_executable(bench_ref ${CMAKE_CURRENT_LIST_DIR}/bench_ref.c)
target_link_libraries(bench_ref PRIVATE fplab_ref fplab Threads::Threads
  fplab_warnings ${CMAKE_DL_LIBS})
# the yardstick loop as plain -O2 code (no fma contraction: IEEE float)
target_compile_options(bench_ref PRIVATE -O2 -ffp-contract=off)
