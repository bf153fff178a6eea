# The GPU harness: exits 77 (skipped) without CUDA support or a device.
add_test(NAME gpu_check_quick COMMAND ${FPLAB_EXE} gpu-check --quick)
set_tests_properties(gpu_check_quick PROPERTIES LABELS "gpu" SKIP_RETURN_CODE 77
  TIMEOUT 900)
add_test(NAME gpu_check_help COMMAND ${FPLAB_EXE} gpu-check --help)
set_tests_properties(gpu_check_help PROPERTIES LABELS "unit")
# A cuBLAS GEMM judged by fplab ref (h100-fp16 model) and fplab compare.
add_test(NAME gpu_cublas_ref_compare
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gpu_cublas_ref.sh ${FPLAB_EXE}
          ${CMAKE_CURRENT_BINARY_DIR}/gpu_cublas_ref.d)
set_tests_properties(gpu_cublas_ref_compare PROPERTIES LABELS "gpu"
  SKIP_RETURN_CODE 77 TIMEOUT 600)
