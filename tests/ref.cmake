# Kernel references (fplab/ref.h): every order and model option against a
# brute-force evaluation written in the test, the fast paths against the
# generic path, thread-count independence, the model text and its errors.
add_executable(test_ref ${CMAKE_CURRENT_LIST_DIR}/test_ref.c)
target_link_libraries(test_ref PRIVATE fplab_ref fplab fplab_warnings)
target_include_directories(test_ref PRIVATE ${PROJECT_SOURCE_DIR}/src/accel)
foreach(part text brute tc fast threads)
  add_test(NAME ref_${part} COMMAND test_ref ${part})
  set_tests_properties(ref_${part} PROPERTIES LABELS unit TIMEOUT 300)
endforeach()

# The model parser under the fuzz harness's properties, over its corpus.
add_executable(fuzz_model_replay ${PROJECT_SOURCE_DIR}/fuzz/fuzz_model.c
  ${PROJECT_SOURCE_DIR}/fuzz/driver.c)
target_include_directories(fuzz_model_replay PRIVATE ${PROJECT_SOURCE_DIR}/fuzz)
target_link_libraries(fuzz_model_replay PRIVATE fplab_ref fplab fplab_warnings)
add_test(NAME fuzz_replay_model COMMAND fuzz_model_replay --min 10
         ${PROJECT_SOURCE_DIR}/fuzz/corpus/model)
set_tests_properties(fuzz_replay_model PROPERTIES LABELS "hardening;fuzz" TIMEOUT 300)

# `fplab ref` from the command line: every op and container, model files,
# atomic output (nothing written on failure), thread independence.
find_program(FPLAB_REF_BASH bash)
if(FPLAB_REF_BASH)
  add_test(NAME ref_cli
    COMMAND ${FPLAB_REF_BASH} ${CMAKE_CURRENT_LIST_DIR}/ref_cli.sh ${FPLAB_EXE}
            ${CMAKE_CURRENT_SOURCE_DIR}/data/npy ${CMAKE_CURRENT_BINARY_DIR}/ref_cli.d)
  set_tests_properties(ref_cli PROPERTIES LABELS "cli" TIMEOUT 300)
endif()

# Real clients: numpy's loops, matmul (reference BLAS) and np.sum bit for
# bit; torch.sum / torch.matmul verdicts.  Debian's /usr/bin/python3 has
# numpy and torch (scripts/setup.sh); the script exits 77 where a module
# is truly missing.
set(FPLAB_REF_PYTHON "")
foreach(py /usr/bin/python3 ${FPLAB_PYTHON3})
  if(NOT FPLAB_REF_PYTHON AND EXISTS "${py}")
    execute_process(COMMAND ${py} -c "import numpy" RESULT_VARIABLE ref_np_rc
                    OUTPUT_QUIET ERROR_QUIET)
    if(ref_np_rc EQUAL 0)
      set(FPLAB_REF_PYTHON ${py})
    endif()
  endif()
endforeach()
foreach(part numpy torch)
  if(FPLAB_REF_PYTHON)
    add_test(NAME ref_clients_${part}
      COMMAND ${FPLAB_REF_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/ref_clients.py
              ${FPLAB_EXE} ${CMAKE_CURRENT_BINARY_DIR}/ref_clients_${part}.d ${part})
  else()
    add_test(NAME ref_clients_${part}
      COMMAND sh -c "echo 'no python3 with numpy: ref_clients skipped'; exit 77")
  endif()
  set_tests_properties(ref_clients_${part} PROPERTIES LABELS "cli"
    SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()

# order=exact (the superaccumulator) against MPFR.
add_executable(test_ref_exact ${CMAKE_CURRENT_LIST_DIR}/test_ref_exact.c)
target_link_libraries(test_ref_exact PRIVATE fplab_ref fplab_oracle fplab fplab_warnings)
add_test(NAME ref_exact COMMAND test_ref_exact)
set_tests_properties(ref_exact PROPERTIES LABELS "unit;mpfr" SKIP_RETURN_CODE 77 TIMEOUT 300)
