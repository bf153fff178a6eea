# fplab_pkgconfig(NAME DESCRIPTION text LIBS flags... [REQUIRES modules]
#                 [LIBS_PRIVATE flags...])
#
# Writes NAME.pc from cmake/pkgconfig.pc.in into the build tree and installs
# it into LIBDIR/pkgconfig.  The prefix is relative to the .pc file
# (${pcfiledir}/../..), so `cmake --install build --prefix P` (or moving
# the installed tree) gives correct flags without reconfiguring; an absolute
# CMAKE_INSTALL_LIBDIR or INCLUDEDIR is written as it is.  libfplab is one
# module (fplab.pc: -lfplab, and LIBS_PRIVATE for `pkg-config --static`);
# another library would get its own file by a second call.
function(fplab_pkgconfig name)
  cmake_parse_arguments(PC "" "DESCRIPTION;REQUIRES" "LIBS;LIBS_PRIVATE" ${ARGN})
  if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
    set(FPLAB_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
    set(FPLAB_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
  else()
    # from PREFIX/LIBDIR/pkgconfig back up to PREFIX
    file(RELATIVE_PATH up "/fplab-prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig"
         "/fplab-prefix")
    string(REGEX REPLACE "/$" "" up "${up}")
    set(FPLAB_PC_PREFIX "\${pcfiledir}/${up}")
    set(FPLAB_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
  endif()
  if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
    set(FPLAB_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
  else()
    set(FPLAB_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
  endif()
  set(FPLAB_PC_NAME "${name}")
  set(FPLAB_PC_DESCRIPTION "${PC_DESCRIPTION}")
  set(FPLAB_PC_REQUIRES "${PC_REQUIRES}")
  string(JOIN " " FPLAB_PC_LIBS ${PC_LIBS})
  string(JOIN " " FPLAB_PC_LIBS_PRIVATE ${PC_LIBS_PRIVATE})
  configure_file(${PROJECT_SOURCE_DIR}/cmake/pkgconfig.pc.in
                 ${PROJECT_BINARY_DIR}/${name}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${name}.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endfunction()
