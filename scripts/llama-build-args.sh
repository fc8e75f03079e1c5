#!/usr/bin/env bash
# Prints the CMAKE_ARGS for building llama-cpp-python on this CPU (or on the CPU whose
# /proc/cpuinfo flags are given as $1).
# ggml's AMX kernels segfault on the first Q4_K_M forward pass on some Sapphire Rapids VMs
# (llama.cpp issue 20824; seen on our 2-core machines). A CPU with AMX therefore gets an
# explicit build of its other vector extensions instead of -march=native, which would
# switch the AMX path on. Other CPUs keep the native build.
set -euo pipefail
flags=" ${1:-$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | cut -d: -f2 || true)} "
args="-DLLAVA_BUILD=OFF"
if [[ "$flags" == *" amx_int8 "* ]]; then
  args+=" -DGGML_NATIVE=OFF"
  for pair in avx:AVX avx2:AVX2 fma:FMA f16c:F16C bmi2:BMI2 avx_vnni:AVX_VNNI avx512f:AVX512 \
              avx512vbmi:AVX512_VBMI avx512_vnni:AVX512_VNNI avx512_bf16:AVX512_BF16; do
    if [[ "$flags" == *" ${pair%%:*} "* ]]; then args+=" -DGGML_${pair#*:}=ON"; fi
  done
fi
echo "$args"
