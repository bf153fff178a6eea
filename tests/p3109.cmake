# IEEE P3109 and stochastic rounding with supplied bits against gfloat's
# golden tables (tests/data/p3109_*.tsv.gz, tools/p3109_golden.py), the
# exhaustive 8-bit stochastic-rounding check and the measured bias.
find_package(ZLIB REQUIRED)
add_executable(test_p3109 ${CMAKE_CURRENT_LIST_DIR}/test_p3109.c)
target_link_libraries(test_p3109 PRIVATE fplab_oracle fplab ZLIB::ZLIB
                      fplab_warnings m)
add_test(NAME core_p3109_gfloat COMMAND test_p3109
         ${CMAKE_CURRENT_LIST_DIR}/data)
set_tests_properties(core_p3109_gfloat PROPERTIES LABELS unit
                     SKIP_RETURN_CODE 77)
# the shells: formats by name, P3109 rounding and saturation in calc,
# `ref cast` with a tensor of random bits (plain and PTX preset)
add_test(NAME p3109_cli COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/p3109_cli.sh
         ${FPLAB_EXE} ${CMAKE_CURRENT_BINARY_DIR}/p3109_cli.d)
set_tests_properties(p3109_cli PROPERTIES LABELS cli TIMEOUT 120)
