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
# The optimizer state's format, stochastic rounding of the update, binary16
# accumulation through tensor-core blocks, gradient accumulation and a
# next-character task from a text (the README).
add_test(NAME train_opt_state_sr COMMAND ${FPLAB_EXE} train --policy bf16-pure
  --opt-state fp32 --update-rounding sr --steps 3)
set_tests_properties(train_opt_state_sr PROPERTIES LABELS "amp"
  PASS_REGULAR_EXPRESSION "optimizer state binary32, weight updates rounded stochastically")
add_test(NAME train_update_rounding_bad COMMAND ${FPLAB_EXE} train --update-rounding up)
set_tests_properties(train_update_rounding_bad PROPERTIES LABELS "amp"
  PASS_REGULAR_EXPRESSION "--update-rounding: 'up' \\(rne sr\\)")
add_test(NAME train_accum_block16 COMMAND ${FPLAB_EXE} train --policy fp16-torch
  --steps 2 --accum block16:h100-fp16 --micro-batches 2)
set_tests_properties(train_accum_block16 PROPERTIES LABELS "amp"
  PASS_REGULAR_EXPRESSION "accumulation block16, micro-batches yes")
add_test(NAME train_text COMMAND ${FPLAB_EXE} train --text ${PROJECT_SOURCE_DIR}/README.md
  --context 3 --steps 3 --init-std 0.02)
set_tests_properties(train_text PROPERTIES LABELS "amp"
  PASS_REGULAR_EXPRESSION "summary: final loss [0-9.]+, test accuracy")
add_test(NAME train_text_and_data COMMAND ${FPLAB_EXE} train --text a --data b)
set_tests_properties(train_text_and_data PROPERTIES LABELS "amp"
  PASS_REGULAR_EXPRESSION "--text and --data are two data sets")
