# One simulated-fp16 training step versus the same step in binary32.
add_executable(bench_amp_step ${CMAKE_CURRENT_LIST_DIR}/amp_step.c)
target_link_libraries(bench_amp_step PRIVATE fplab_amp fplab fplab_warnings)
target_compile_definitions(bench_amp_step PRIVATE
                           FPLAB_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
