# fplab train: the block-FMA accumulation policy and the bf16-pure policy.
# The model as the simulator's accumulation policy (fplab train --accum block:MODEL).
add_test(NAME train_accum_block COMMAND ${FPLAB_EXE} train --policy fp16-torch
  --steps 10 --accum block:a100-fp16)
set_tests_properties(train_accum_block PROPERTIES LABELS "amp"
  PASS_REGULAR_EXPRESSION "summary: final loss [0-9.]+, test accuracy")
add_test(NAME train_accum_block_unknown COMMAND ${FPLAB_EXE} train --accum block:v200)
set_tests_properties(train_accum_block_unknown PROPERTIES LABELS "amp"
  PASS_REGULAR_EXPRESSION "unknown tensor-core model 'v200'")
# bf16-pure: bfloat16 weights without a master copy.
add_test(NAME train_bf16_pure COMMAND ${FPLAB_EXE} train --policy bf16-pure --steps 5)
set_tests_properties(train_bf16_pure PROPERTIES LABELS "amp"
  PASS_REGULAR_EXPRESSION "policy bf16-pure: compute bfloat16, weights bfloat16")
# Per-step, per-layer gradient histograms.
add_test(NAME train_hist_out COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/train_hist.sh ${FPLAB_EXE})
set_tests_properties(train_hist_out PROPERTIES LABELS "amp")
# Simulated FP8 and MX training: the policy line names the quantizers, and
# the summary counts what they flushed.
add_test(NAME train_fp8_delayed COMMAND ${FPLAB_EXE} train --policy fp8-hybrid-delayed --steps 5)
set_tests_properties(train_fp8_delayed PROPERTIES LABELS "amp"
  PASS_REGULAR_EXPRESSION "GEMM inputs: activations and weights fp8-e4m3-tensor, output gradients fp8-e5m2-tensor, delayed scaling.*quantized GEMM inputs, all steps: activations [0-9.e-]+% flushed")
add_test(NAME train_mxfp8 COMMAND ${FPLAB_EXE} train --policy mxfp8 --steps 5)
set_tests_properties(train_mxfp8 PROPERTIES LABELS "amp"
  PASS_REGULAR_EXPRESSION "GEMM inputs: activations and weights mxfp8-e4m3:rceil, output gradients mxfp8-e4m3:rceil, blocks along the reduction axis")
