# The lab: .npy/raw/text readers, fplab hist, fplab lab (reproducibility
# and a --quick smoke run).
add_executable(test_npy ${CMAKE_CURRENT_SOURCE_DIR}/test_npy.c)
target_link_libraries(test_npy PRIVATE fplab_tensor fplab fplab_warnings)

# Committed fixtures, written by numpy (tests/data/gen_npy.py).
add_test(NAME lab_npy_fixtures
  COMMAND test_npy ${CMAKE_CURRENT_SOURCE_DIR}/data/npy ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(lab_npy_fixtures PROPERTIES LABELS "amp")

# Fresh files from the numpy installed here, when there is one.
set(FPLAB_NUMPY_PYTHON "")
find_program(FPLAB_PYTHON3 NAMES python3)
foreach(py ${FPLAB_PYTHON3} /usr/bin/python3)
  if(NOT FPLAB_NUMPY_PYTHON AND EXISTS "${py}")
    execute_process(COMMAND ${py} -c "import numpy" RESULT_VARIABLE np_rc
                    OUTPUT_QUIET ERROR_QUIET)
    if(np_rc EQUAL 0)
      set(FPLAB_NUMPY_PYTHON ${py})
    endif()
  endif()
endforeach()
if(FPLAB_NUMPY_PYTHON)
  add_test(NAME lab_npy_numpy
    COMMAND sh -c "'${FPLAB_NUMPY_PYTHON}' '${CMAKE_CURRENT_SOURCE_DIR}/data/gen_npy.py' npy_fresh && '$<TARGET_FILE:test_npy>' npy_fresh ."
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
else()
  add_test(NAME lab_npy_numpy
    COMMAND sh -c "echo 'no python3 with numpy: fresh .npy files not tested'; exit 77")
endif()
set_tests_properties(lab_npy_numpy PROPERTIES LABELS "amp" SKIP_RETURN_CODE 77)

# The statistics of the training verdicts (paired t, TOST, Holm, power).
add_executable(test_lab_stats ${CMAKE_CURRENT_SOURCE_DIR}/test_lab_stats.c)
target_link_libraries(test_lab_stats PRIVATE fplab_experiments fplab_warnings)
add_test(NAME lab_stats COMMAND test_lab_stats)
set_tests_properties(lab_stats PROPERTIES LABELS "amp")

foreach(mode hist repro smoke)
  add_test(NAME lab_${mode}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/lab_tests.sh ${FPLAB_EXE}
            ${CMAKE_CURRENT_BINARY_DIR}/lab_${mode}.d ${mode}
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(lab_${mode} PROPERTIES LABELS "cli;amp" TIMEOUT 300)
endforeach()

# The report audit (tests/lab_audit.py, Python standard library only)
# re-derives every number and claim of the quick lab's REPORT.md from its
# .dat files, and must fail on planted contradictions.  It reads the
# output of lab_smoke.
set_tests_properties(lab_smoke PROPERTIES FIXTURES_SETUP lab_quick_output)
set(FPLAB_AUDIT_PYTHON "")
foreach(py ${FPLAB_PYTHON3} /usr/bin/python3)
  if(NOT FPLAB_AUDIT_PYTHON AND EXISTS "${py}")
    set(FPLAB_AUDIT_PYTHON ${py})
  endif()
endforeach()
if(FPLAB_AUDIT_PYTHON)
  add_test(NAME lab_audit
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/lab_audit_test.sh ${FPLAB_AUDIT_PYTHON}
            ${CMAKE_CURRENT_SOURCE_DIR}/lab_audit.py ${CMAKE_CURRENT_BINARY_DIR}/lab_smoke.d/out
            ${CMAKE_CURRENT_BINARY_DIR}/lab_audit.d ${PROJECT_SOURCE_DIR}/plots)
  # a report without figures (--no-plots: lab_repro's run a) is audited too
  set_tests_properties(lab_repro PROPERTIES FIXTURES_SETUP lab_noplots_output)
  add_test(NAME lab_audit_noplots
    COMMAND ${FPLAB_AUDIT_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/lab_audit.py
            ${CMAKE_CURRENT_BINARY_DIR}/lab_repro.d/a)
  set_tests_properties(lab_audit_noplots PROPERTIES LABELS "cli;amp" TIMEOUT 300
                       FIXTURES_REQUIRED lab_noplots_output)
else()
  add_test(NAME lab_audit
    COMMAND sh -c "echo 'no python3: the report audit is not run'; exit 77")
endif()
set_tests_properties(lab_audit PROPERTIES LABELS "cli;amp" TIMEOUT 300
                     FIXTURES_REQUIRED lab_quick_output SKIP_RETURN_CODE 77)
