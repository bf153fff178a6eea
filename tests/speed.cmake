# Fast paths against the generic core: random sampling (unit) and every
# 16-bit pair / binary32 conversion (exhaustive).
add_executable(test_fastpath ${CMAKE_CURRENT_LIST_DIR}/test_fastpath.c)
target_include_directories(test_fastpath PRIVATE ${PROJECT_SOURCE_DIR}/src/softfloat
  ${PROJECT_SOURCE_DIR}/src/accel)
# the seam's inline level functions read FPLAB_AVX512 as the library does
target_compile_definitions(test_fastpath PRIVATE
  $<$<BOOL:${FPLAB_AVX512}>:FPLAB_AVX512=1>)
target_link_libraries(test_fastpath PRIVATE fplab Threads::Threads fplab_warnings ${FPLAB_LIBM})
add_test(NAME fastpath_random COMMAND test_fastpath)
set_tests_properties(fastpath_random PROPERTIES LABELS unit)
# every level of the seam (src/accel/cpu.h) the CPU has, each in a process
# of its own capped by FPLAB_CPU; a level the CPU lacks is skipped (77)
foreach(level scalar avx2 avx512 avx512fp16)
  add_test(NAME fastpath_random_${level} COMMAND test_fastpath)
  set_tests_properties(fastpath_random_${level} PROPERTIES LABELS unit
    ENVIRONMENT FPLAB_CPU=${level} SKIP_RETURN_CODE 77)
endforeach()
add_test(NAME fastpath_exhaustive COMMAND test_fastpath exhaustive)
set_tests_properties(fastpath_exhaustive PROPERTIES LABELS exhaustive TIMEOUT 36000)
add_test(NAME fastpath_exhaustive_narrow COMMAND test_fastpath exhaustive-narrow)
set_tests_properties(fastpath_exhaustive_narrow PROPERTIES LABELS exhaustive
  TIMEOUT 86400 SKIP_RETURN_CODE 77)
