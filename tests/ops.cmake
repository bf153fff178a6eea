# Operations by name (fplab/ops.h): calc's table and TestFloat's names,
# value and flags (label unit).  `fplab calc` and `fplab testfloat` print
# these calls: tests/cli/calc.sh and testfloat.sh check the commands.
add_executable(test_ops ${CMAKE_CURRENT_LIST_DIR}/test_ops.c)
target_include_directories(test_ops PRIVATE ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(test_ops PRIVATE fplab fplab_warnings)
add_test(NAME ops_unit COMMAND test_ops)
set_tests_properties(ops_unit PROPERTIES LABELS unit TIMEOUT 60)
