# The Python package (label python): pytest on tests/python against the
# extension built in ${PROJECT_BINARY_DIR}/python and the fplab command, one
# CTest test per file so that they run side by side.  Skipped (77) without
# the package (no Python headers or NumPy at configure time; a sanitizer
# build, whose module python cannot load) or pytest (python3-pytest).
file(GLOB FPLAB_PYTESTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/python/test_*.py)
foreach(t ${FPLAB_PYTESTS})
  get_filename_component(name ${t} NAME_WE)
  string(REGEX REPLACE "^test_" "" name ${name})
  if(FPLAB_HAVE_PYTHON)
    add_test(NAME python_${name}
      COMMAND ${FPLAB_PYTHON_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/python/run_pytest.py
              ${t})
    set_tests_properties(python_${name} PROPERTIES
      ENVIRONMENT "PYTHONPATH=${PROJECT_BINARY_DIR}/python;FPLAB_EXE=$<TARGET_FILE:fplab_cli>;PYTHONDONTWRITEBYTECODE=1"
      LABELS python TIMEOUT 300 SKIP_RETURN_CODE 77)
  else()
    add_test(NAME python_${name}
      COMMAND sh -c "echo 'no Python package in this build (python3-dev and python3-numpy missing, or a sanitizer build): skipped'; exit 77")
    set_tests_properties(python_${name} PROPERTIES LABELS python SKIP_RETURN_CODE 77)
  endif()
endforeach()
