#!/usr/bin/env bash
# The GPU checks of issue #21, in one script, for a lent GPU machine (one NVIDIA GPU, CUDA 13,
# Python 3.12 with CuPy, PyTorch, Numba and numba-cuda installed, no network).
#
#   bash tools/gpu_check.sh fetch        HERE, on the development machine (it has the network):
#                                        download into .whl/ the wheels the GPU machine may
#                                        lack (NumPy 2.4: numba-cuda does not take NumPy 2.5)
#   bash tools/gpu_check.sh run [PARTS]  THERE, from the repository's root, with OUT set: the
#                                        checks, their logs written under $OUT
#
# PARTS (default: tests bench): any of
#   tests   pytest tests/gpu (the GPU tests) and tests/cuda (the @cuda.jit kernels on the
#           GPU), then tests/test_cuda_tensors_*.py with MINIGRAD_TEST_REAL_GPU=1 (the
#           simulated-GPU op tables, on the real GPU: tests/gpu/real_gpu.py)
#   bench   benchmarks/bench_gpu.py: every model on minigrad CUDA/CPU and PyTorch CUDA/CPU,
#           with the profile of minigrad CUDA's steps
#   train   the GPU training tests alone (tests/gpu/test_training_on_gpu.py), and the special
#           functions' op table on the real GPU
#   reference  bench_gpu.py's minigrad CUDA column on the NumPy references through CuPy
#   blocking   bench_gpu.py's Shakespeare-char profile with CUDA_LAUNCH_BLOCKING=1
#   kernels    benchmarks/bench_cuda.py: issue #22's cases on CUDA tensors against PyTorch
#              CUDA, both CUDA convolutions (--impl both)
#   ncu        tools/profile_cuda_kernels.py under Nsight Compute (one attention and two
#              pooling steps, minigrad's kernels and PyTorch's), then its --host profile
#   parts      tools/profile_cuda_kernels.py --parts: each case's step, wall time against the
#              host's time alone, and attention's kernel functions and the expressions
#              around them (is the step the host's or the GPU's?)
#   next       what the evening session of 2026-11-28 left for the next GPU call: the GPU
#              tests (kernels and GPU tests only, no op tables), parts, the kernels of
#              attention and pooling (--only attention,pool), every model's training step
#              on CUDA against PyTorch CUDA, and the blocking-launch profile, with limits
#              that fit one call of timeout_s=480 (each still settable by its variable)
#   race       compute-sanitizer's racecheck over the attention kernels' reference tests
#              (tests/cuda/test_attention_cuda.py -k match_reference): shared-memory races
#   cpu16      benchmarks/bench_transformer.py: issue #24's Shakespeare-char step on the
#              host's CPU cores against PyTorch CPU (--threads nproc), and its profile
#
# BENCH_FRAMEWORKS=minigrad-cuda,torch-cuda limits the bench part's columns (the CPU ones
# take about 90 s: minigrad's Shakespeare-char step is seconds on the CPU); KERNEL_REPEAT
# sets bench_cuda's --repeat (default 20); TESTS_TIMEOUT, REAL_GPU_TIMEOUT (0: the op
# tables left out), KERNELS_TIMEOUT, BENCH_TIMEOUT, CPU_TIMEOUT, RACE_TIMEOUT, NCU_TIMEOUT
# and PARTS_TIMEOUT are the parts' limits in seconds. TEST_DIST=load spreads the tests of a
# file over the workers (default loadfile); KERNEL_ARGS adds bench_cuda.py's arguments
# (e.g. "--only attention"); NCU_CASES limits the profiled cases; HOST_PROFILE=0 skips
# --host.
#
# With the device tool (15 minutes of device time in all, 10 per command), from the repository
# whose checkout travels, after `fetch` (which also has git ignore .whl/):
#   run(command="bash tools/gpu_check.sh run", carry=[".whl"], timeout_s=590)
# A machine takes 30-60 s to start, so one call of several parts costs less than several
# calls; keep the parts' limits (plus about 25 s of setup) under the call's timeout_s. The
# run of 2026-11-28 (H200): `tests kernels bench cpu16 race` took 177 s in all, with
# TESTS_TIMEOUT=120 REAL_GPU_TIMEOUT=0 KERNEL_REPEAT=10 KERNELS_TIMEOUT=130
# BENCH_FRAMEWORKS=minigrad-cuda,torch-cuda BENCH_TIMEOUT=90 CPU_TIMEOUT=140 RACE_TIMEOUT=45.
# A second call can rerun one part while the machine is still warm (30 s after a call).
# Then copy $OUT's files (at most 8 come back: env.txt, tests.log, bench_cuda.txt,
# bench_gpu.txt, ...) out of files_at, and the figures into benchmarks/RESULTS.md.
set -u

NUMPY_WHEEL="numpy==2.4.6"  # the newest 2.4 in this repository's dev environment

fetch() {
    local exclude
    exclude="$(git rev-parse --git-path info/exclude)"  # .git/info/exclude (a worktree's too)
    mkdir -p "$(dirname "$exclude")"
    grep -qx "/.whl/" "$exclude" 2>/dev/null || echo "/.whl/" >> "$exclude"
    python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
        --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
        --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
        -d .whl "$NUMPY_WHEEL"
    ls -l .whl
}

setup() {
    : "${OUT:=/tmp/gpu_check_out}"
    mkdir -p "$OUT"
    export PYTHONPATH="$PWD" PYTHONUNBUFFERED=1
    # numba-cuda 0.30 imports np.row_stack, which NumPy 2.5 removed: cuda.is_available() is
    # still True, but the first kernel compile fails (seen on an H100, 2026-11-27), so the
    # carried NumPy 2.4 is put first on the path whenever it is there
    if ls .whl/*.whl >/dev/null 2>&1; then
        echo "installing the carried wheels (.whl/) first on the path"
        python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
            --target /tmp/site .whl/*.whl || exit 1
        export PYTHONPATH="/tmp/site:$PWD"
    fi
    {
        date -u
        nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
        nproc
        python3 - <<'EOF'
import sys
print("python", sys.version.split()[0])
for name in ("numpy", "numba", "numba_cuda", "cupy", "torch"):
    try:
        module = __import__(name)
        print(name, getattr(module, "__version__", "?"), module.__file__)
    except Exception as error:
        print(name, "NOT IMPORTABLE:", error)
import numba.cuda
import numpy
import minigrad as mg
print("numba.cuda.is_available():", numba.cuda.is_available())
@numba.cuda.jit
def twice(a):  # one kernel compiled and run: what is_available() does not prove
    i = numba.cuda.grid(1)
    if i < a.size:
        a[i] *= 2
a = numba.cuda.to_device(numpy.arange(4.0)); twice[1, 4](a)
print("a @cuda.jit kernel ran:", a.copy_to_host().tolist())
print("mg.cuda.is_available():", mg.cuda.is_available(), "device:", mg.cuda.get_device_name())
x = mg.randn(3, 4, device="cuda", requires_grad=True)
(x * x).sum().backward()
print("a CUDA tensor's step:", x.device, type(x.array).__module__, x.grad.device)
EOF
    } 2>&1 | tee "$OUT/env.txt"
}

run_tests() {
    # one file per worker (the suite's --dist loadfile); 8 workers: each compiles the kernels
    # it uses once (Numba caches them on disk) and holds a CUDA context
    # GPU_TESTS=tests/gpu leaves the @cuda.jit kernel suite (tests/cuda) out
    timeout "${TESTS_TIMEOUT:-200}" python3 -m pytest -p no:cacheprovider -n 8 \
        --dist "${TEST_DIST:-loadfile}" ${GPU_TESTS:-tests/gpu tests/cuda} -rfE --durations=15 \
        2>&1 | tee "$OUT/tests.log"
    [ "${REAL_GPU_TIMEOUT:-100}" = 0 ] && return  # 0: the op tables left out
    MINIGRAD_TEST_REAL_GPU=1 timeout "${REAL_GPU_TIMEOUT:-100}" python3 -m pytest -p no:cacheprovider \
        -n 8 tests/test_cuda_tensors_*.py -rfE --durations=10 2>&1 | tee "$OUT/tests_real_gpu.log"
}

run_bench() {
    # the CUDA columns: 3 repeats of 4 steps after 3 warm-up steps; the CPU ones 3 of 2 after 1
    # (minigrad's Shakespeare-char step takes about 5.5 s on 16 cores)
    timeout "${BENCH_TIMEOUT:-200}" python3 benchmarks/bench_gpu.py --repeat 3 --steps 4 --profile \
        ${BENCH_FRAMEWORKS:+--frameworks "$BENCH_FRAMEWORKS"} --json "$OUT/bench_gpu.json" \
        2>&1 | tee "$OUT/bench_gpu.txt"
}

run_kernels() {
    timeout "${KERNELS_TIMEOUT:-300}" python3 benchmarks/bench_cuda.py --impl both \
        --repeat "${KERNEL_REPEAT:-20}" ${KERNEL_ARGS:-} 2>&1 \
        | tee "$OUT/bench_cuda.txt"
}

run_cpu16() {
    # issue #24's 16-core goal: the Shakespeare-char step, both frameworks pinned to every
    # core of the host, 3 turns each, then 2 minigrad steps under cProfile
    timeout "${CPU_TIMEOUT:-150}" python3 benchmarks/bench_transformer.py --cases shakespeare \
        --threads "$(nproc)" --no-torch-1 --repeat 3 --profile 2 2>&1 | tee "$OUT/cpu16.txt"
}

run_ncu() {
    local ncu
    ncu="$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)"
    timeout "${NCU_TIMEOUT:-120}" "${ncu:-ncu}" --clock-control none --profile-from-start off \
        --section SpeedOfLight --section Occupancy --section LaunchStats \
        python3 tools/profile_cuda_kernels.py ${NCU_CASES:+--cases "$NCU_CASES"} 2>&1 \
        | tee "$OUT/ncu.txt"
    [ "${HOST_PROFILE:-1}" = 0 ] && return  # 0: the host's cProfile left out
    timeout 60 python3 tools/profile_cuda_kernels.py --host 2>&1 | tee "$OUT/host.txt"
}

run_parts() {
    timeout "${PARTS_TIMEOUT:-90}" python3 tools/profile_cuda_kernels.py --parts 2>&1 \
        | tee "$OUT/parts.txt"
}

run_race() {
    # the naive forward once gave garbage on the simulator (a per-query mask, float32): a
    # shared-memory race would show here; the tiled kernels are checked alike
    timeout "${RACE_TIMEOUT:-60}" compute-sanitizer --tool racecheck --print-limit 20 \
        python3 -m pytest -p no:cacheprovider -n 0 -rfE tests/cuda/test_attention_cuda.py \
        -k match_reference 2>&1 | tee "$OUT/race.txt"
}

run_train() {
    # the training runs alone, one test a worker, and the op table's count of copies
    timeout 120 python3 -m pytest -p no:cacheprovider -n 3 --dist load \
        tests/gpu/test_training_on_gpu.py -rfE --durations=5 2>&1 | tee "$OUT/train.log"
    MINIGRAD_TEST_REAL_GPU=1 timeout 40 python3 -m pytest -p no:cacheprovider -n 0 \
        tests/test_cuda_tensors_special.py -rfE 2>&1 | tee -a "$OUT/train.log"
}

run_reference() {
    # minigrad CUDA on the NumPy references through CuPy (cuBLAS products) instead of the
    # @cuda.jit kernels: how much of a step the kernels cost
    timeout 90 python3 benchmarks/bench_gpu.py --frameworks minigrad-cuda --cuda-backend numpy \
        --repeat 3 --steps 4 --json "$OUT/bench_reference.json" 2>&1 | tee "$OUT/bench_reference.txt"
}

run_blocking() {
    # every launch waits for its kernel (CUDA_LAUNCH_BLOCKING=1), so the profile charges the
    # GPU's time to the op that launched it: where the Shakespeare-char step goes
    CUDA_LAUNCH_BLOCKING=1 timeout 60 python3 benchmarks/bench_gpu.py --models gpt-shakespeare \
        --frameworks minigrad-cuda --warmup 1 --repeat 1 --steps 2 --profile 2>&1 \
        | tee "$OUT/profile_blocking.txt"
}

case "${1:-}" in
    fetch)
        fetch
        ;;
    run)
        shift
        setup
        parts=("$@")
        [ ${#parts[@]} -eq 0 ] && parts=(tests bench)
        for part in "${parts[@]}"; do
            case "$part" in
                tests) run_tests ;;
                bench) run_bench ;;
                train) run_train ;;
                reference) run_reference ;;
                blocking) run_blocking ;;
                kernels) run_kernels ;;
                cpu16) run_cpu16 ;;
                race) run_race ;;
                ncu) run_ncu ;;
                parts) run_parts ;;
                next)
                    : "${TESTS_TIMEOUT:=140}" "${REAL_GPU_TIMEOUT:=0}" "${TEST_DIST:=load}"
                    : "${PARTS_TIMEOUT:=60}" "${KERNEL_REPEAT:=10}" "${KERNELS_TIMEOUT:=90}"
                    : "${KERNEL_ARGS:=--only attention,pool}" "${BENCH_TIMEOUT:=90}"
                    : "${BENCH_FRAMEWORKS:=minigrad-cuda,torch-cuda}"
                    export TEST_DIST KERNEL_ARGS BENCH_FRAMEWORKS
                    run_tests; run_parts; run_kernels; run_bench; run_blocking ;;
                *) echo "gpu_check.sh: unknown part '$part'"; exit 2 ;;
            esac
        done
        ls -l "$OUT"
        ;;
    *)
        echo "usage: bash tools/gpu_check.sh fetch | run [tests] [bench]"
        exit 2
        ;;
esac
