# bench_speed: fplab next to hardware/MPFR/memcpy yardsticks (not a test).
add_executable(bench_speed ${CMAKE_CURRENT_LIST_DIR}/bench_speed.c)
target_link_libraries(bench_speed PRIVATE fplab Threads::Threads fplab_warnings)
target_compile_options(bench_speed PRIVATE -O2)
if(FPLAB_HAVE_MPFR)
  target_compile_definitions(bench_speed PRIVATE FPLAB_HAVE_MPFR)
  target_link_libraries(bench_speed PRIVATE PkgConfig::MPFR PkgConfig::GMP)
endif()

# Berkeley SoftFloat 3e as a second yardstick for the scalar binary16
# add/mul/fma and binary32 add/mul (bench rows "vs SoftFloat"):
# -DFPLAB_SOFTFLOAT3_DIR=<dir>,
# a SoftFloat 3e tree (source/ and build/Linux-x86_64-GCC/, whose needed
# files are compiled here with the release's Linux-x86_64-GCC flags) or a
# directory holding a prebuilt libsoftfloat.a / softfloat.a and softfloat.h.
# Not a dependency: without it the rows say "not measured".
set(FPLAB_SOFTFLOAT3_DIR "" CACHE PATH
  "Berkeley SoftFloat 3e tree or prebuilt library for bench_speed")
if(FPLAB_SOFTFLOAT3_DIR)
  set(_sf3 ${FPLAB_SOFTFLOAT3_DIR})
  set(_sf3_src f16_add.c f16_mul.c f16_mulAdd.c s_addMagsF16.c s_subMagsF16.c
    s_mulAddF16.c s_roundPackToF16.c s_normSubnormalF16Sig.c softfloat_state.c
    f32_add.c f32_mul.c s_addMagsF32.c s_subMagsF32.c s_roundPackToF32.c
    s_normRoundPackToF32.c s_normSubnormalF32Sig.c s_countLeadingZeros8.c
    8086-SSE/s_propagateNaNF16UI.c 8086-SSE/s_propagateNaNF32UI.c
    8086-SSE/softfloat_raiseFlags.c)
  set(_sf3_files "")
  foreach(f ${_sf3_src})
    if(EXISTS ${_sf3}/source/${f})
      list(APPEND _sf3_files ${_sf3}/source/${f})
    endif()
  endforeach()
  list(LENGTH _sf3_src _n_want)
  list(LENGTH _sf3_files _n_have)
  # a new directory looks again (find_* keep their first answer cached)
  if(NOT "${_sf3}" STREQUAL "${_FPLAB_SOFTFLOAT3_DIR_SEEN}")
    unset(FPLAB_SOFTFLOAT3_LIB CACHE)
    unset(FPLAB_SOFTFLOAT3_INC CACHE)
    set(_FPLAB_SOFTFLOAT3_DIR_SEEN "${_sf3}" CACHE INTERNAL "")
  endif()
  find_library(FPLAB_SOFTFLOAT3_LIB NAMES softfloat libsoftfloat.a softfloat.a
    PATHS ${_sf3} ${_sf3}/build/Linux-x86_64-GCC ${_sf3}/lib NO_DEFAULT_PATH)
  find_path(FPLAB_SOFTFLOAT3_INC softfloat.h
    PATHS ${_sf3}/source/include ${_sf3}/include ${_sf3} NO_DEFAULT_PATH)
  if(_n_have EQUAL _n_want AND EXISTS ${_sf3}/build/Linux-x86_64-GCC/platform.h)
    # the release's build/Linux-x86_64-GCC/Makefile flags
    add_library(fplab_bench_softfloat3 STATIC ${_sf3_files})
    target_include_directories(fplab_bench_softfloat3 PRIVATE
      ${_sf3}/build/Linux-x86_64-GCC ${_sf3}/source/8086-SSE
      ${_sf3}/source/include)
    target_compile_definitions(fplab_bench_softfloat3 PRIVATE
      SOFTFLOAT_FAST_INT64 SOFTFLOAT_ROUND_ODD INLINE_LEVEL=5
      SOFTFLOAT_FAST_DIV32TO16 SOFTFLOAT_FAST_DIV64TO32)
    target_compile_options(fplab_bench_softfloat3 PRIVATE -O2 -w)
    target_link_libraries(bench_speed PRIVATE fplab_bench_softfloat3)
    target_include_directories(bench_speed PRIVATE ${_sf3}/source/include)
    target_compile_definitions(bench_speed PRIVATE FPLAB_HAVE_SOFTFLOAT3)
    message(STATUS "  SoftFloat 3e      : ${_sf3} (sources)")
  elseif(FPLAB_SOFTFLOAT3_LIB AND FPLAB_SOFTFLOAT3_INC)
    target_link_libraries(bench_speed PRIVATE ${FPLAB_SOFTFLOAT3_LIB})
    target_include_directories(bench_speed PRIVATE ${FPLAB_SOFTFLOAT3_INC})
    target_compile_definitions(bench_speed PRIVATE FPLAB_HAVE_SOFTFLOAT3)
    message(STATUS "  SoftFloat 3e      : ${FPLAB_SOFTFLOAT3_LIB}")
  else()
    message(WARNING "FPLAB_SOFTFLOAT3_DIR=${_sf3}: neither the SoftFloat 3e "
      "sources (source/f16_add.c ... and build/Linux-x86_64-GCC/platform.h) "
      "nor a libsoftfloat.a with softfloat.h; bench_speed will say "
      "'not measured'")
  endif()
endif()
