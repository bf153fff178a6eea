# Hardening (label hardening): the fuzz harnesses replayed over their seed
# corpora and regression inputs, the table-driven bad-input test of every
# subcommand, nothing-lost (atomic output) and reproducibility checks.
# The sanitizer, valgrind and fuzzing passes that build the project again
# live in scripts/ci-hardening.sh; docs/reliability.md describes them all.

# Fuzz harnesses as ordinary programs: fuzz/driver.c feeds them files.
set(FPLAB_FUZZ_DIR ${PROJECT_SOURCE_DIR}/fuzz)
set(FPLAB_FUZZ_CLI_SOURCES ${PROJECT_SOURCE_DIR}/cli/util.c
  ${PROJECT_SOURCE_DIR}/cli/cmd_calc.c ${PROJECT_SOURCE_DIR}/cli/cmd_testfloat.c)
add_library(fplab_fuzz_cli STATIC ${FPLAB_FUZZ_CLI_SOURCES})
target_include_directories(fplab_fuzz_cli PUBLIC ${PROJECT_SOURCE_DIR}/cli)
target_link_libraries(fplab_fuzz_cli PUBLIC fplab_ops fplab PRIVATE fplab_warnings)

foreach(h parse calc testfloat npy csv text diff npz safetensors)
  add_executable(fuzz_${h}_replay ${FPLAB_FUZZ_DIR}/fuzz_${h}.c
    ${FPLAB_FUZZ_DIR}/driver.c)
  target_include_directories(fuzz_${h}_replay PRIVATE ${FPLAB_FUZZ_DIR})
  target_link_libraries(fuzz_${h}_replay PRIVATE fplab_fuzz_cli fplab_amp
    fplab_tensor fplab_oracle fplab fplab_warnings)
  set(dirs ${FPLAB_FUZZ_DIR}/corpus/${h})
  if(EXISTS ${FPLAB_FUZZ_DIR}/regress/${h})
    list(APPEND dirs ${FPLAB_FUZZ_DIR}/regress/${h})
  endif()
  add_test(NAME fuzz_replay_${h} COMMAND fuzz_${h}_replay --min 5 ${dirs})
  set_tests_properties(fuzz_replay_${h} PROPERTIES LABELS "hardening;fuzz"
    TIMEOUT 300
    ENVIRONMENT "LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_LIST_DIR}/hardening/lsan.supp")
  # Inputs of open bugs: reported KNOWN while they fail, XPASS once fixed.
  if(EXISTS ${FPLAB_FUZZ_DIR}/known/${h})
    add_test(NAME fuzz_known_${h} COMMAND fuzz_${h}_replay --min 1 --known
             ${FPLAB_FUZZ_DIR}/known/${h})
    set_tests_properties(fuzz_known_${h} PROPERTIES LABELS "hardening;fuzz"
      TIMEOUT 300)
  endif()
endforeach()

# Every subcommand against bad input: exit status and a message naming the
# problem and its place (tests/hardening/bad_input.tsv).
find_program(FPLAB_HARDEN_BASH bash)
if(FPLAB_HARDEN_BASH)
  add_test(NAME hardening_bad_input
    COMMAND ${FPLAB_HARDEN_BASH} ${CMAKE_CURRENT_LIST_DIR}/hardening/bad_input.sh
            ${FPLAB_EXE} ${CMAKE_CURRENT_LIST_DIR}/hardening/bad_input.tsv
            ${CMAKE_CURRENT_BINARY_DIR}/hardening_bad_input.d)
  set_tests_properties(hardening_bad_input PROPERTIES LABELS "hardening;cli"
    TIMEOUT 600
    ENVIRONMENT "LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_LIST_DIR}/hardening/lsan.supp")
endif()

# Bulk rounding (stochastic included) does not depend on the split: one
# call, two halves, 1/2/3 threads, element-wise scalar.
add_executable(test_sr_threads ${CMAKE_CURRENT_LIST_DIR}/hardening/test_sr_threads.c)
target_link_libraries(test_sr_threads PRIVATE fplab Threads::Threads fplab_warnings)
if(FPLAB_LIBM)
  target_link_libraries(test_sr_threads PRIVATE ${FPLAB_LIBM})
endif()
add_test(NAME hardening_sr_threads COMMAND test_sr_threads)
set_tests_properties(hardening_sr_threads PROPERTIES LABELS "hardening;unit" TIMEOUT 300)

# Atomic outputs: interrupted and failed runs never destroy a good output.
if(FPLAB_HARDEN_BASH)
  add_test(NAME hardening_nothing_lost
    COMMAND ${FPLAB_HARDEN_BASH} ${CMAKE_CURRENT_LIST_DIR}/hardening/nothing_lost.sh
            ${FPLAB_EXE} ${CMAKE_CURRENT_BINARY_DIR}/hardening_nothing_lost.d)
  set_tests_properties(hardening_nothing_lost PROPERTIES LABELS "hardening;cli"
    TIMEOUT 600 ENVIRONMENT "FPLAB_GNUPLOT=/nonexistent")
endif()

# Same seed, same bytes: train, hist, verify (1 vs 2 threads), calc sr.
if(FPLAB_HARDEN_BASH)
  add_test(NAME hardening_repro
    COMMAND ${FPLAB_HARDEN_BASH} ${CMAKE_CURRENT_LIST_DIR}/hardening/repro.sh
            ${FPLAB_EXE} ${CMAKE_CURRENT_BINARY_DIR}/hardening_repro.d)
  set_tests_properties(hardening_repro PROPERTIES LABELS "hardening;cli" TIMEOUT 600)
endif()
