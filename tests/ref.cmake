# Kernel references (fplab/ref.h): every order and model option against a
# brute-force evaluation written in the test, the fast paths against the
# generic path, thread-count independence, the model text and its errors.
add_executable(test_ref ${CMAKE_CURRENT_LIST_DIR}/test_ref.c)
target_link_libraries(test_ref PRIVATE fplab_ref fplab fplab_warnings)
foreach(part text brute tc fast threads)
  add_test(NAME ref_${part} COMMAND test_ref ${part})
  set_tests_properties(ref_${part} PROPERTIES LABELS unit TIMEOUT 300)
endforeach()
