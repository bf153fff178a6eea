# The fplab command: info, table, calc, testfloat (label cli).  Each script
# counts its checks and fails unless exactly the expected number ran.
find_program(FPLAB_BASH bash)
if(FPLAB_BASH)
  foreach(t calc errors info_table testfloat output_dirs)
    add_test(NAME cli_${t}
      COMMAND ${FPLAB_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/cli/${t}.sh ${FPLAB_EXE})
    set_tests_properties(cli_${t} PROPERTIES LABELS cli TIMEOUT 120)
  endforeach()
endif()

# The shared CLI helpers (atomic output files, mkdir -p, number parsing).
add_executable(cli_util_test ${CMAKE_CURRENT_SOURCE_DIR}/cli/util_test.c
  ${PROJECT_SOURCE_DIR}/cli/util.c)
target_include_directories(cli_util_test PRIVATE ${PROJECT_SOURCE_DIR}/cli)
target_link_libraries(cli_util_test PRIVATE fplab_ops fplab fplab_warnings)
add_test(NAME cli_util COMMAND cli_util_test ${CMAKE_CURRENT_BINARY_DIR}/cli_util_work)
set_tests_properties(cli_util PROPERTIES LABELS "cli;unit" TIMEOUT 60)

# Installing: a relocatable tree (moved after `cmake --install`), the
# README's C example through pkg-config and find_package(fplab), and the
# installed fplab finding share/fplab (data set, plot scripts).
if(FPLAB_BASH)
  add_test(NAME install_consumers
    COMMAND ${FPLAB_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/install/install_test.sh
            ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR}
            ${CMAKE_CURRENT_BINARY_DIR}/install_work "${FPLAB_SANITIZE}")
  set_tests_properties(install_consumers PROPERTIES LABELS cli TIMEOUT 300)
endif()

# The documents' examples are real: every `$ fplab`, `$ printf` and
# `$ python3` line of the README, docs/cli.md, docs/kernels.md and
# docs/python.md is run
# and its output compared with the one shown (rules at the top of
# tests/cli/doc_examples.sh).  The documents make their inputs with short
# numpy/torch scripts, run with a python3 that has both (Debian's
# /usr/bin/python3; scripts/setup.sh installs them); without one, the
# examples from a document's first `$ python3` line on are reported
# skipped (exit 77).  One test per document, so that they run side by side.
if(FPLAB_BASH)
  set(FPLAB_DOC_PYTHON "")
  find_program(FPLAB_PYTHON3 NAMES python3)
  foreach(py ${FPLAB_PYTHON3} /usr/bin/python3)
    if(NOT FPLAB_DOC_PYTHON AND EXISTS "${py}")
      execute_process(COMMAND ${py} -c "import numpy, torch"
                      RESULT_VARIABLE doc_py_rc OUTPUT_QUIET ERROR_QUIET)
      if(doc_py_rc EQUAL 0)
        set(FPLAB_DOC_PYTHON ${py})
      endif()
    endif()
  endforeach()
  set(doc_py_args "")
  if(FPLAB_DOC_PYTHON)
    set(doc_py_args --python ${FPLAB_DOC_PYTHON})
  else()
    message(STATUS "docs_examples: no python3 with numpy and torch: "
                   "the documents' examples that need one are skipped")
  endif()
  foreach(doc README.md docs/cli.md docs/kernels.md docs/python.md)
    string(REGEX REPLACE "^.*/|\\.md$" "" dname ${doc})
    string(TOLOWER ${dname} dname)
    set(doc_args ${doc_py_args})
    if(dname STREQUAL "python" AND NOT FPLAB_HAVE_PYTHON)
      set(doc_args "")    # no package built: its examples are skipped
    endif()
    add_test(NAME docs_examples_${dname}
      COMMAND ${FPLAB_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/cli/doc_examples.sh
              ${doc_args} ${FPLAB_EXE} ${PROJECT_SOURCE_DIR}/${doc})
    set_tests_properties(docs_examples_${dname} PROPERTIES LABELS cli TIMEOUT 300
      SKIP_RETURN_CODE 77)
  endforeach()
  # docs/python.md imports the package built here
  set_tests_properties(docs_examples_python PROPERTIES ENVIRONMENT
    "PYTHONPATH=${PROJECT_BINARY_DIR}/python")
endif()
