# Tensor files (fplab_tensor): round trips, members, metadata, defects
# (C), and the real clients: numpy's np.save/np.savez/np.savez_compressed
# files read bit for bit, fplab's files read back by numpy, and safetensors
# written and read by a hand-made Python reader/writer (json + struct).
find_package(ZLIB REQUIRED)
add_executable(test_tensor ${CMAKE_CURRENT_SOURCE_DIR}/test_tensor.c)
target_link_libraries(test_tensor PRIVATE fplab_tensor fplab ZLIB::ZLIB fplab_warnings)
add_test(NAME tensor_unit COMMAND test_tensor ${CMAKE_CURRENT_BINARY_DIR}/tensor_unit.d)
set_tests_properties(tensor_unit PROPERTIES LABELS "unit;tensor" TIMEOUT 300)

add_executable(tensor_tool ${CMAKE_CURRENT_SOURCE_DIR}/tensor_tool.c)
target_link_libraries(tensor_tool PRIVATE fplab_tensor fplab fplab_warnings)

# Debian's python3 with numpy (the first python3 on PATH may lack it);
# FPLAB_NUMPY_PYTHON comes from lab.cmake when it found one.
set(FPLAB_TENSOR_PYTHON "")
foreach(py ${FPLAB_NUMPY_PYTHON} /usr/bin/python3)
  if(NOT FPLAB_TENSOR_PYTHON AND EXISTS "${py}")
    execute_process(COMMAND ${py} -c "import numpy" RESULT_VARIABLE np_rc
                    OUTPUT_QUIET ERROR_QUIET)
    if(np_rc EQUAL 0)
      set(FPLAB_TENSOR_PYTHON ${py})
    endif()
  endif()
endforeach()
if(FPLAB_TENSOR_PYTHON)
  add_test(NAME tensor_numpy
    COMMAND ${FPLAB_TENSOR_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/tensor_interop.py
            $<TARGET_FILE:tensor_tool> ${CMAKE_CURRENT_BINARY_DIR}/tensor_numpy.d)
else()
  add_test(NAME tensor_numpy
    COMMAND sh -c "echo 'no python3 with numpy: tensor interop not tested'; exit 77")
endif()
set_tests_properties(tensor_numpy PROPERTIES LABELS "tensor" TIMEOUT 300
  SKIP_RETURN_CODE 77)

# The verdict library (fplab/compare.h).
add_executable(test_compare ${CMAKE_CURRENT_SOURCE_DIR}/test_compare.c)
target_link_libraries(test_compare PRIVATE fplab_ref fplab fplab_warnings)
add_test(NAME compare_unit COMMAND test_compare)
set_tests_properties(compare_unit PROPERTIES LABELS "unit;compare" TIMEOUT 300)

# fplab compare end to end: planted differences, tolerance edges, the
# torch-defaults verdict element by element against torch, GEMM views.
if(FPLAB_TENSOR_PYTHON)
  add_test(NAME compare_cli
    COMMAND ${FPLAB_TENSOR_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/compare_cli.py
            ${FPLAB_EXE} ${CMAKE_CURRENT_BINARY_DIR}/compare_cli.d)
else()
  add_test(NAME compare_cli
    COMMAND sh -c "echo 'no python3 with numpy: fplab compare not tested end to end'; exit 77")
endif()
set_tests_properties(compare_cli PROPERTIES LABELS "cli;compare" TIMEOUT 300
  SKIP_RETURN_CODE 77)

# The verdict on every layout (P3109, fnuz, fn, unsigned, E8M0, FP6/FP4,
# no subnormals) against fl_classify and the order of the values.
add_executable(test_compare_layouts ${CMAKE_CURRENT_SOURCE_DIR}/test_compare_layouts.c)
target_link_libraries(test_compare_layouts PRIVATE fplab_ref fplab fplab_warnings)
add_test(NAME compare_layouts COMMAND test_compare_layouts)
set_tests_properties(compare_layouts PROPERTIES LABELS "unit;compare" TIMEOUT 300)

# fplab compare end to end on those layouts: .npy bit patterns against
# the codes docs/formats.md gives, written out in the test.
if(FPLAB_TENSOR_PYTHON)
  add_test(NAME compare_layouts_cli
    COMMAND ${FPLAB_TENSOR_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/compare_layouts.py
            ${FPLAB_EXE} ${CMAKE_CURRENT_BINARY_DIR}/compare_layouts.d)
else()
  add_test(NAME compare_layouts_cli
    COMMAND sh -c "echo 'no python3 with numpy: fplab compare layouts not tested end to end'; exit 77")
endif()
set_tests_properties(compare_layouts_cli PROPERTIES LABELS "cli;compare" TIMEOUT 300
  SKIP_RETURN_CODE 77)
