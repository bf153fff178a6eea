# The mixed-precision simulator (label amp): scalers, histograms, data
# reader, training reproducibility, and the train/scaler commands.
if(FPLAB_HAVE_CHECK)
  foreach(t scaler hist data train quant)
    add_executable(test_amp_${t} ${CMAKE_CURRENT_LIST_DIR}/test_amp_${t}.c)
    target_link_libraries(test_amp_${t} PRIVATE fplab_amp fplab
                          PkgConfig::CHECK Threads::Threads fplab_warnings)
    target_compile_definitions(test_amp_${t} PRIVATE
                               FPLAB_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
    add_test(NAME amp_${t} COMMAND test_amp_${t})
    set_tests_properties(amp_${t} PROPERTIES LABELS amp TIMEOUT 300)
  endforeach()
  # the hand computation sums as the trainer does: no contraction
  target_compile_options(test_amp_quant PRIVATE -ffp-contract=off)
endif()
# The tensor-core accumulation's fast route against the generic one.
add_executable(test_amp_tc ${CMAKE_CURRENT_LIST_DIR}/test_amp_tc.c)
target_link_libraries(test_amp_tc PRIVATE fplab_amp fplab fplab_warnings)
add_test(NAME amp_tc COMMAND test_amp_tc)
set_tests_properties(amp_tc PROPERTIES LABELS amp TIMEOUT 300)
find_program(FPLAB_AMP_BASH bash)
if(FPLAB_AMP_BASH)
  add_test(NAME amp_cli COMMAND ${FPLAB_AMP_BASH}
           ${CMAKE_CURRENT_LIST_DIR}/amp_cli.sh ${FPLAB_EXE}
           ${PROJECT_SOURCE_DIR}/data/digits.csv.gz)
  set_tests_properties(amp_cli PROPERTIES LABELS "amp;cli" TIMEOUT 300)
endif()
find_package(ZLIB QUIET)
if(FPLAB_HAVE_CHECK AND ZLIB_FOUND)
  target_compile_definitions(test_amp_data PRIVATE FPLAB_HAVE_ZLIB_TEST=1)
endif()
