# Tensor-core block-FMA model: hand-worked cases.
if(FPLAB_HAVE_CHECK)
  add_executable(test_tcmodel ${CMAKE_CURRENT_LIST_DIR}/test_tcmodel.c)
  target_link_libraries(test_tcmodel PRIVATE fplab PkgConfig::CHECK fplab_warnings)
  add_test(NAME tcmodel COMMAND test_tcmodel)
  set_tests_properties(tcmodel PROPERTIES LABELS unit)
endif()
# The model as the simulator's accumulation policy (fplab train --accum block:MODEL).
add_test(NAME train_accum_block COMMAND ${FPLAB_EXE} train --policy fp16-torch
  --steps 10 --accum block:a100-fp16)
set_tests_properties(train_accum_block PROPERTIES LABELS "amp"
  PASS_REGULAR_EXPRESSION "summary: final loss [0-9.]+, test accuracy")
add_test(NAME train_accum_block_unknown COMMAND ${FPLAB_EXE} train --accum block:v200)
set_tests_properties(train_accum_block_unknown PROPERTIES LABELS "amp"
  PASS_REGULAR_EXPRESSION "unknown tensor-core model 'v200'")
