# plots/training_labels.gp — what each training policy does, as the short
# label a figure shows (the report's table has the long form), and the
# colours of the policies lab_style.gp does not name.  Loaded by the
# training figures after lab_style.gp.
plab(n) = n eq "fp32" ? "binary32" : \
          n eq "fp16" ? "fp16 autocast, unscaled" : \
          n eq "fp16-static:1024" ? "fp16 autocast, scale 1024" : \
          n eq "fp16-torch" ? "fp16 autocast, GradScaler" : \
          n eq "fp16-torch-i50" ? "GradScaler, interval 50" : \
          n eq "o2" ? "fp16 weights, fp32 master" : \
          n eq "o3" ? "fp16 weights+state, unscaled" : \
          n eq "o3-state32" ? "fp16 weights, fp32 state" : \
          n eq "bf16" ? "bf16 autocast" : \
          n eq "bf16-pure" ? "bf16 weights+state" : \
          n eq "bf16-pure-sr" ? "bf16 weights+state, SR" : \
          n eq "fp16-pure" ? "fp16 weights, fp32 state" : \
          n eq "fp16-pure-sr" ? "fp16 weights, fp32 state, SR" : \
          n eq "fp16-acc16" ? "unscaled, fp16 accumulation" : \
          n eq "fp16-torch-acc16" ? "GradScaler, fp16 accumulation" : \
          n eq "fp16-torch-tc32" ? "GradScaler, H100 blocks, fp32 acc." : \
          n eq "fp16-torch-tc16" ? "GradScaler, H100 blocks, fp16 acc." : n
C_OLIVE = "#6B8E23"
C_TEAL = "#1B7F8C"
C_MAROON = "#8B1A4A"
tcol(n) = n eq "o3-state32" ? C_TEAL : n eq "bf16-pure-sr" ? C_BLUE : \
          n eq "fp16-pure" ? C_PURPLE : n eq "fp16-pure-sr" ? C_TEAL : \
          n eq "fp16-acc16" ? C_MAROON : n eq "fp16-torch-acc16" ? C_BROWN : \
          n eq "fp16-torch-tc32" ? C_GREEN : n eq "fp16-torch-tc16" ? C_ORANGE : pcol(n)
