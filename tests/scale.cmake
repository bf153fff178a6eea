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

# fplab quantize and hist --scaling end to end (bash), and against numpy
# bit for bit (Debian's python3 has numpy; the first python3 on PATH may not).
find_program(FPLAB_SCALE_BASH bash)
if(FPLAB_SCALE_BASH)
  add_test(NAME scale_cli
    COMMAND ${FPLAB_SCALE_BASH} ${CMAKE_CURRENT_LIST_DIR}/scale/quantize_cli.sh
            ${FPLAB_EXE} ${CMAKE_CURRENT_LIST_DIR}/scale/golden)
  set_tests_properties(scale_cli PROPERTIES LABELS "scale;cli" TIMEOUT 300)
endif()
set(FPLAB_SCALE_NUMPY "")
find_program(FPLAB_SCALE_PY3 NAMES python3)
foreach(py /usr/bin/python3 ${FPLAB_SCALE_PY3})
  if(NOT FPLAB_SCALE_NUMPY AND EXISTS "${py}")
    execute_process(COMMAND ${py} -c "import numpy" RESULT_VARIABLE np_rc
                    OUTPUT_QUIET ERROR_QUIET)
    if(np_rc EQUAL 0)
      set(FPLAB_SCALE_NUMPY ${py})
    endif()
  endif()
endforeach()
if(FPLAB_SCALE_NUMPY)
  add_test(NAME scale_numpy
    COMMAND ${FPLAB_SCALE_NUMPY} ${CMAKE_CURRENT_LIST_DIR}/scale/numpy_check.py
            ${FPLAB_EXE} ${CMAKE_CURRENT_BINARY_DIR}/scale_numpy.d)
else()
  add_test(NAME scale_numpy
    COMMAND sh -c "echo 'no python3 with numpy: numpy cross-check not run'; exit 77")
endif()
set_tests_properties(scale_numpy PROPERTIES LABELS "scale;cli" TIMEOUT 300
                     SKIP_RETURN_CODE 77)
