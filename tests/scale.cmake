# Block- and tensor-scaled quantization (fplab/scale.h; label scale).
if(FPLAB_HAVE_CHECK)
  add_executable(test_scale ${CMAKE_CURRENT_LIST_DIR}/test_scale.c)
  target_link_libraries(test_scale PRIVATE fplab_scale fplab PkgConfig::CHECK
                        Threads::Threads fplab_warnings m)
  # the reference formulas in the test are binary32 arithmetic as written
  target_compile_options(test_scale PRIVATE -ffp-contract=off)
  add_test(NAME scale_unit COMMAND test_scale)
  set_tests_properties(scale_unit PROPERTIES LABELS "scale;unit" TIMEOUT 600)
endif()
