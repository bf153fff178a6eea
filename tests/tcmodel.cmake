# Tensor-core block-FMA model: hand-worked cases.
if(FPLAB_HAVE_CHECK)
  add_executable(test_tcmodel ${CMAKE_CURRENT_LIST_DIR}/test_tcmodel.c)
  target_link_libraries(test_tcmodel PRIVATE fplab PkgConfig::CHECK fplab_warnings)
  add_test(NAME tcmodel COMMAND test_tcmodel)
  set_tests_properties(tcmodel PROPERTIES LABELS unit)
endif()
