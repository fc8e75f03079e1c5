"""scripts/llama-build-args.sh: the llama.cpp build options setup.sh uses for a CPU."""

from __future__ import annotations

import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "llama-build-args.sh"
SAPPHIRE_RAPIDS = ("fpu sse avx avx2 fma f16c bmi2 avx_vnni avx512f avx512dq avx512vbmi "
                   "avx512_vnni avx512_bf16 avx512_fp16 amx_bf16 amx_tile amx_int8")


def build_args(flags: str) -> list[str]:
    out = subprocess.run(["bash", str(SCRIPT), flags], capture_output=True, text=True,
                         check=True)
    return out.stdout.split()


def test_a_cpu_without_amx_keeps_the_native_build():
    assert build_args("fpu sse avx avx2 fma f16c avx512f avx512_vnni") == ["-DLLAVA_BUILD=OFF"]


def test_a_cpu_with_amx_gets_its_vector_extensions_without_the_native_amx_path():
    args = build_args(SAPPHIRE_RAPIDS)
    assert "-DGGML_NATIVE=OFF" in args
    for flag in ("AVX", "AVX2", "FMA", "F16C", "BMI2", "AVX_VNNI", "AVX512", "AVX512_VBMI",
                 "AVX512_VNNI", "AVX512_BF16"):
        assert f"-DGGML_{flag}=ON" in args
    assert not any("AMX" in a for a in args)


def test_an_extension_the_cpu_lacks_is_not_switched_on():
    args = build_args("avx avx2 amx_int8")  # no avx512f: "avx512" must not match "avx"
    assert "-DGGML_AVX2=ON" in args and "-DGGML_AVX512=ON" not in args
    assert "-DGGML_FMA=ON" not in args
