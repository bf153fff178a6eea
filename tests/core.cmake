# The core against the MPFR oracle (label mpfr), its unit tests (unit) and
# the exhaustive 2^32 sweeps (long).  Tests exit 77 (skipped) without MPFR.
if(FPLAB_HAVE_CHECK)
  function(fplab_core_test_exe name)
    add_executable(${name} ${CMAKE_CURRENT_LIST_DIR}/${name}.c)
    target_include_directories(${name} PRIVATE ${CMAKE_CURRENT_LIST_DIR})
    target_link_libraries(${name} PRIVATE fplab fplab_oracle PkgConfig::CHECK
                          Threads::Threads fplab_warnings)
  endfunction()
  function(fplab_core_test name label)
    add_test(NAME ${name} COMMAND ${ARGN})
    set_tests_properties(${name} PROPERTIES LABELS ${label}
                         SKIP_RETURN_CODE 77)
  endfunction()

  fplab_core_test_exe(test_unary)
  fplab_core_test(core_unary_binary16 mpfr test_unary binary16)
  fplab_core_test(core_unary_bfloat16 mpfr test_unary bfloat16)
endif()
