# bench_speed: fplab next to hardware/MPFR/memcpy yardsticks (not a test).
add_executable(bench_speed ${CMAKE_CURRENT_LIST_DIR}/bench_speed.c)
target_link_libraries(bench_speed PRIVATE fplab Threads::Threads fplab_warnings)
target_compile_options(bench_speed PRIVATE -O2)
if(FPLAB_HAVE_MPFR)
  target_compile_definitions(bench_speed PRIVATE FPLAB_HAVE_MPFR)
  target_link_libraries(bench_speed PRIVATE PkgConfig::MPFR PkgConfig::GMP)
endif()
