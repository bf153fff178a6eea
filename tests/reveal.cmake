# fplab reveal: the engine against in-process kernels of known models
# (fplab/reveal.h's callback API).
add_executable(test_reveal ${CMAKE_CURRENT_LIST_DIR}/test_reveal.c)
target_link_libraries(test_reveal PRIVATE fplab_reveal fplab_warnings)
foreach(part sum adaptive dot gemm tc bad nan batch lengths)
  add_test(NAME reveal_${part} COMMAND test_reveal ${part})
  set_tests_properties(reveal_${part} PROPERTIES LABELS unit TIMEOUT 300)
endforeach()
add_test(NAME reveal_random_models COMMAND test_reveal random)
set_tests_properties(reveal_random_models PROPERTIES LABELS "unit;long" TIMEOUT 1200)

# `fplab reveal` with `fplab ref` as the black-box kernel (known models),
# and bad kernels (fails, hangs past --timeout, wrong shape/dtype,
# nondeterministic).  The `long` variant validates 10^5 cases per reveal.
find_program(FPLAB_REVEAL_BASH bash)
if(FPLAB_REVEAL_BASH)
  add_test(NAME reveal_cli
    COMMAND ${FPLAB_REVEAL_BASH} ${CMAKE_CURRENT_LIST_DIR}/reveal_cli.sh ${FPLAB_EXE}
            ${CMAKE_CURRENT_SOURCE_DIR}/data/npy ${CMAKE_CURRENT_BINARY_DIR}/reveal_cli.d)
  set_tests_properties(reveal_cli PROPERTIES LABELS "cli" TIMEOUT 300)
  add_test(NAME reveal_cli_long
    COMMAND ${FPLAB_REVEAL_BASH} ${CMAKE_CURRENT_LIST_DIR}/reveal_cli.sh ${FPLAB_EXE}
            ${CMAKE_CURRENT_SOURCE_DIR}/data/npy ${CMAKE_CURRENT_BINARY_DIR}/reveal_cli_long.d
            100000)
  set_tests_properties(reveal_cli_long PROPERTIES LABELS "cli;long" TIMEOUT 1800)
endif()

# Real clients (tests/reveal_clients.py): np.sum float32/float16,
# np.matmul float32, torch.sum float32/float16/bfloat16 and torch.matmul
# float32/bfloat16 (CPU); models that travel are replayed at lengths never
# revealed.
# reveal's model must replay its validation cases and, independently,
# fresh inputs made by the test through `fplab ref --model`.  Debian's
# /usr/bin/python3 has numpy and torch (scripts/setup.sh); the script
# exits 77 where a module is truly missing.  Default: 20000 cases each;
# the `long` variants: 10^5 validation cases and 10^5 fresh ones.
set(FPLAB_REVEAL_PYTHON "")
foreach(py /usr/bin/python3 ${FPLAB_PYTHON3})
  if(NOT FPLAB_REVEAL_PYTHON AND EXISTS "${py}")
    execute_process(COMMAND ${py} -c "import numpy" RESULT_VARIABLE reveal_np_rc
                    OUTPUT_QUIET ERROR_QUIET)
    if(reveal_np_rc EQUAL 0)
      set(FPLAB_REVEAL_PYTHON ${py})
    endif()
  endif()
endforeach()
# More clients: torch.sum on float16 (the NaN rule sign, cascade:8:pairs),
# torch.matmul called 2-D (reveal batches by itself), and kernels that
# stay up (tests/reveal/serve_numpy.py, serve_torch.py).  The ones marked
# long-only run under `long` alone.
set(FPLAB_REVEAL_LONG_ONLY torch-matmul-bfloat16-2d)
foreach(client numpy-sum-float32 numpy-sum-float16 numpy-matmul-float32
        torch-sum-float32 torch-sum-bfloat16 torch-sum-float16
        torch-matmul-float32 torch-matmul-bfloat16 torch-matmul-bfloat16-2d
        numpy-sum-float32-serve torch-matmul-bfloat16-serve)
  set(variants default long)
  if(client IN_LIST FPLAB_REVEAL_LONG_ONLY)
    set(variants long)
  endif()
  foreach(variant ${variants})
    if(variant STREQUAL "long")
      set(tname reveal_client_${client}_long)
      set(targs 100000 100000)
      set(tlabels "cli;long")
    else()
      set(tname reveal_client_${client})
      set(targs 20000 20000)
      set(tlabels "cli")
      # PyTorch starts once (the served kernel) in the default run: the
      # same reveal, without a second of start-up per call; the long
      # variant runs the command per call
      if(client MATCHES "^torch-")
        list(APPEND targs serve)
      endif()
    endif()
    if(FPLAB_REVEAL_PYTHON)
      add_test(NAME ${tname}
        COMMAND ${FPLAB_REVEAL_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/reveal_clients.py
                ${FPLAB_EXE} ${CMAKE_CURRENT_BINARY_DIR}/${tname}.d ${client} ${targs})
    else()
      add_test(NAME ${tname}
        COMMAND sh -c "echo 'no python3 with numpy: ${tname} skipped'; exit 77")
    endif()
    set_tests_properties(${tname} PROPERTIES LABELS "${tlabels}"
      SKIP_RETURN_CODE 77 TIMEOUT 1200)
  endforeach()
endforeach()

# Kernels that stay up (tests/reveal_kernels.sh): `fplab reveal --serve`
# with servers of known models and bad ones, and `--kernel-lib` with
# kernel_lib.so, a module that does not link fplab (it states its output
# format through call->set_out_format); built with -ffp-contract=off so
# that its binary32 sums and products round as written.
add_library(reveal_kernel_lib MODULE ${CMAKE_CURRENT_LIST_DIR}/reveal/kernel_lib.c)
target_include_directories(reveal_kernel_lib PRIVATE ${PROJECT_SOURCE_DIR}/include)
target_compile_options(reveal_kernel_lib PRIVATE -ffp-contract=off)
target_link_libraries(reveal_kernel_lib PRIVATE fplab_warnings)
set_target_properties(reveal_kernel_lib PROPERTIES PREFIX "" OUTPUT_NAME kernel_lib)
if(FPLAB_REVEAL_BASH)
  add_test(NAME reveal_kernels
    COMMAND ${FPLAB_REVEAL_BASH} ${CMAKE_CURRENT_LIST_DIR}/reveal_kernels.sh ${FPLAB_EXE}
            $<TARGET_FILE:reveal_kernel_lib> ${CMAKE_CURRENT_BINARY_DIR}/reveal_kernels.d)
  set_tests_properties(reveal_kernels PROPERTIES LABELS "cli" TIMEOUT 600)
endif()
