# The core against the MPFR oracle (label mpfr), its unit tests (unit) and
# the exhaustive 2^32 sweeps (long).  Tests exit 77 (skipped) without MPFR.
if(FPLAB_HAVE_CHECK)
  function(fplab_core_test_exe name)
    add_executable(${name} ${CMAKE_CURRENT_LIST_DIR}/${name}.c)
    target_include_directories(${name} PRIVATE ${CMAKE_CURRENT_LIST_DIR})
    target_link_libraries(${name} PRIVATE fplab fplab_oracle PkgConfig::CHECK
                          Threads::Threads fplab_warnings)
  endfunction()
  function(fplab_core_test name label)
    add_test(NAME ${name} COMMAND ${ARGN})
    set_tests_properties(${name} PROPERTIES LABELS ${label}
                         SKIP_RETURN_CODE 77)
  endfunction()

  fplab_core_test_exe(test_unit)
  target_link_libraries(test_unit PRIVATE m)
  fplab_core_test(core_unit unit test_unit)

  fplab_core_test_exe(test_formats)
  target_link_libraries(test_formats PRIVATE m)
  fplab_core_test(core_formats unit test_formats)

  # binary32 -> every ml_dtypes type against an implementation of its
  # conversion algorithm (sample; all 2^32 inputs per type under long)
  fplab_core_test_exe(test_mldtypes)
  fplab_core_test(core_mldtypes unit test_mldtypes)
  foreach(t float8_e3m4 float8_e4m3 float8_e4m3fn float8_e4m3fnuz
            float8_e4m3b11fnuz float8_e5m2 float8_e5m2fnuz float8_e5m3fnu
            float8_e8m0fnu float6_e2m3fn float6_e3m2fn float4_e2m1fn bfloat16
            fp8-e8m0)
    fplab_core_test(core_mldtypes_long_${t} long test_mldtypes long ${t})
    set_tests_properties(core_mldtypes_long_${t} PROPERTIES TIMEOUT 7200)
  endforeach()

  fplab_core_test_exe(test_threads)
  fplab_core_test(core_threads unit test_threads)

  fplab_core_test_exe(test_unary)
  fplab_core_test(core_unary_binary16 mpfr test_unary binary16)
  fplab_core_test(core_unary_bfloat16 mpfr test_unary bfloat16)

  # The formats of at most 8 bits: OCP fp8, ieee:4:3, ml_dtypes' float8,
  # float6 and float4 types, the E8M0 scale (ml_dtypes' rounding and OCP
  # MX's true nearest), the IEEE P3109 Binary8pPse and a sample of the
  # rest of the P3109 family (unsigned, finite, narrower).
  set(FPLAB_SMALL_FORMATS fp8-e5m2 fp8-e4m3 ieee:4:3 float8_e4m3
      float8_e3m4 float8_e4m3fnuz float8_e5m2fnuz float8_e4m3b11fnuz
      float8_e5m3fnu float8_e8m0fnu fp8-e8m0 float6_e2m3fn float6_e3m2fn
      float4_e2m1fn p3109:p1 p3109:p2 p3109:p3 p3109:p4 p3109:p5 p3109:p6
      p3109:p7 p3109_k8p1ue p3109_k8p1sf p3109_k8p3sf p3109_k8p3ue
      p3109_k8p4uf p3109_k8p8uf p3109_k6p4sf p3109_k4p2se p3109_k4p1ue)

  fplab_core_test_exe(test_binary)
  foreach(fmt binary16 bfloat16 binary32 ${FPLAB_SMALL_FORMATS})
    string(REPLACE ":" "" tname ${fmt})
    fplab_core_test(core_binary_${tname} mpfr test_binary ${fmt})
    fplab_core_test(core_binary_long_${tname} long test_binary ${fmt} long)
  endforeach()

  fplab_core_test_exe(test_small)
  target_link_libraries(test_small PRIVATE m)
  foreach(fmt ${FPLAB_SMALL_FORMATS})
    string(REPLACE ":" "" tname ${fmt})
    fplab_core_test(core_small_${tname} mpfr test_small ${fmt})
    fplab_core_test(core_small_long_${tname} long test_small ${fmt} long)
  endforeach()

  fplab_core_test_exe(test_convert_long)
  foreach(fmt binary16 bfloat16)
    fplab_core_test(core_convert_long_binary32_to_${fmt} long
                    test_convert_long ${fmt})
    set_tests_properties(core_convert_long_binary32_to_${fmt} PROPERTIES
                         TIMEOUT 7200)
  endforeach()

  fplab_core_test_exe(test_text)
  fplab_core_test(core_text mpfr test_text)
endif()

# The x86 NaN preset against this CPU's FMA3 on fma(0, inf, NaN) and the
# other NaN cases, and the SoftFloat preset's one departure (skips, 77,
# off x86-64 or without FMA3).
add_executable(test_nan_hw ${CMAKE_CURRENT_LIST_DIR}/test_nan_hw.c)
target_link_libraries(test_nan_hw PRIVATE fplab fplab_warnings m)
add_test(NAME core_nan_hw COMMAND test_nan_hw)
set_tests_properties(core_nan_hw PROPERTIES LABELS unit SKIP_RETURN_CODE 77)
