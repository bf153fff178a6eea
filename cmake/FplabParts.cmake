# fplab_library_part(TARGET [INCLUDES dirs...] [OPTIONS flags...])
#
# One part of libfplab (FPLAB_LIBRARY_PARTS, top level): an object library
# TARGET of position-independent code from every *.c file of the calling
# directory, built with the project's warnings (fplab_warnings).  INCLUDES
# are its private include directories, OPTIONS its compile options; what
# else a part needs (public include directories, definitions, per-file
# options, libraries) it adds to TARGET itself.
function(fplab_library_part target)
  cmake_parse_arguments(PART "" "" "INCLUDES;OPTIONS" ${ARGN})
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.c)
  add_library(${target} OBJECT ${sources})
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_link_libraries(${target} PRIVATE fplab_warnings)
  if(PART_INCLUDES)
    target_include_directories(${target} PRIVATE ${PART_INCLUDES})
  endif()
  if(PART_OPTIONS)
    target_compile_options(${target} PRIVATE ${PART_OPTIONS})
  endif()
endfunction()

# fplab_component(NAME)
#
# The component target NAME (and fplab::NAME) of earlier releases, now all
# of libfplab: an installed, exported interface target that links fplab.
function(fplab_component name)
  add_library(${name} INTERFACE)
  add_library(fplab::${name} ALIAS ${name})
  target_link_libraries(${name} INTERFACE fplab)
  install(TARGETS ${name} EXPORT fplabTargets)
endfunction()
