# The GPU harness: exits 77 (skipped) without CUDA support or a device.
add_test(NAME gpu_check_quick COMMAND ${FPLAB_EXE} gpu-check --quick)
set_tests_properties(gpu_check_quick PROPERTIES LABELS "gpu" SKIP_RETURN_CODE 77
  TIMEOUT 900)
add_test(NAME gpu_check_help COMMAND ${FPLAB_EXE} gpu-check --help)
set_tests_properties(gpu_check_help PROPERTIES LABELS "unit")
