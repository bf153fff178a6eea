# fplab reveal: the engine against in-process kernels of known models
# (fplab/reveal.h's callback API).
add_executable(test_reveal ${CMAKE_CURRENT_LIST_DIR}/test_reveal.c)
target_link_libraries(test_reveal PRIVATE fplab_reveal fplab_warnings)
foreach(part sum dot gemm tc bad)
  add_test(NAME reveal_${part} COMMAND test_reveal ${part})
  set_tests_properties(reveal_${part} PROPERTIES LABELS unit TIMEOUT 300)
endforeach()
