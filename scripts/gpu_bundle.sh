#!/bin/sh
# scripts/gpu_bundle.sh — packs what the GPU machine needs to run posbench and its tests into
# build/gpu-bundle.tar.gz (at most the 64 MiB a device call carries; the script refuses more):
# build/posbench, the CUDA parity programs (build/tests/test_parity, the op table with the
# attention routes; test_dense_bf16; build/tests/test_cuda_* of tests/test_cuda_*.c, the checks
# that are not per-op parity: a binary left by a deleted source is not packed; the
# CPU-only tests run here, and all of them would take the bundle past the 64 MiB a device call
# carries), the test scripts' inputs, and
# each shared library they link except glibc's and CUDA's own (the GPU machine has the CUDA
# driver and toolkit but none of our Debian libraries, and no network). `make gpu-bundle`
# builds it; `make gpu-bundle GPU_BUNDLE_SPEECH=1 GPU_BUNDLE_TESTS=0` the bundle for re-measuring
# experiments (the smoke-scale synthesized Speech Commands set, for reproduce-mp3 smoke, instead of
# the parity programs).
# On the GPU machine, from the repository root:
#   mkdir -p /tmp/pb && tar -xzf build/gpu-bundle.tar.gz -C /tmp/pb
#   /tmp/pb/env.sh build/tests/test_parity --backend cuda   # env.sh sets LD_LIBRARY_PATH and runs its args
set -eu
cd "$(dirname "$0")/.."
stage=build/gpu-bundle
rm -rf "$stage" build/gpu-bundle.tar.gz
mkdir -p "$stage/lib" "$stage/build/tests"
cp build/posbench "$stage/build/"
# GPU_BUNDLE_TESTS=0 leaves the parity programs out (a bundle for re-measuring experiments: room
# for the speech set).
if [ "${GPU_BUNDLE_TESTS:-1}" != 0 ]; then
    for src in tests/test_parity.c tests/test_dense_bf16.c tests/test_cuda_*.c; do
        t=build/tests/$(basename "$src" .c)
        [ -x "$t" ] || { echo "gpu-bundle: $t is not built (make builds it)" >&2; exit 1; }
        cp "$t" "$stage/build/tests/"
    done
fi
# The copies without their symbol tables (the build keeps its own): about 8% smaller each.
strip --strip-unneeded "$stage/build/posbench" "$stage"/build/tests/* 2>/dev/null || true
# The PyTorch step scripts `posbench bench` runs (found next to the binary: ../bench/perf/).
mkdir -p "$stage/bench/perf" "$stage/tests"
cp bench/perf/torch_cpu_step.py bench/perf/torch_gpu_step.py "$stage/bench/perf/"
cp tests/torch_vit.py "$stage/tests/"
# Fashion-MNIST (Debian's dataset-fashion-mnist, 31 MB compressed) for scripts/gpu_session.sh: the
# GPU machine has no Debian packages.
# Its test set whole and the first 16384 training images (the session trains on at most 1024;
# the whole set would take the bundle past the 64 MiB a device call carries).
mkdir -p "$stage/data/fashion-mnist"
cp /usr/share/datasets/fashion-mnist/t10k-*-ubyte.gz "$stage/data/fashion-mnist/"
python3 - "$stage/data/fashion-mnist" 16384 <<'EOP'
import gzip, struct, sys
out, n = sys.argv[1], int(sys.argv[2])
for name, item in (('train-images-idx3-ubyte.gz', 28 * 28), ('train-labels-idx1-ubyte.gz', 1)):
    with gzip.open('/usr/share/datasets/fashion-mnist/' + name) as f:
        data = f.read()
    dims = data[3]
    header = bytearray(data[:4 + 4 * dims])
    struct.pack_into('>I', header, 4, n)  # the item count, first dimension
    with gzip.open(out + '/' + name, 'wb') as f:
        f.write(bytes(header) + data[4 + 4 * dims:4 + 4 * dims + n * item])
EOP
# The synthesized Speech Commands set at smoke scale (reproduce-mp3 SCALE=smoke reads it; the
# GPU machine has no espeak-ng to synthesize it): written here once when missing.
SPEECH=data/speech-commands-synth/smoke
# Only with GPU_BUNDLE_SPEECH=1 (20 MB: gpu_session.sh step 6 and re-measuring speech experiments
# read it; the evidence call, scripts/gpu_evidence.sh, does not): with the parity programs as well
# the bundle would pass 64 MiB, so that bundle is made with GPU_BUNDLE_TESTS=0.
if [ "${GPU_BUNDLE_SPEECH:-0}" != 0 ]; then
    if [ ! -f "$SPEECH/testing_list.txt" ]; then
        mkdir -p data/speech-commands-synth
        build/posbench data speech-synth --scale smoke --out "$SPEECH" --quiet
    fi
    mkdir -p "$stage/data/speech-commands-synth"
    cp -r "$SPEECH" "$stage/data/speech-commands-synth/"
fi
# Libraries: what ldd resolves for the binaries, minus glibc (the GPU machine's newer one
# serves) and CUDA's runtime (the GPU machine's toolkit matches its driver). cuBLAS and cuBLASLt
# (core/cuda/cublas_lazy.cu: the toolkit's, through env.sh's LD_LIBRARY_PATH), NCCL and cuDNN are
# not linked (dlopen at run time: env.sh below finds them), so they are not among them.
for b in "$stage"/build/posbench "$stage"/build/tests/*; do ldd "$b"; done |
    awk '/=> \//{print $3}' | sort -u |
    grep -v -E '/(libc|libm|libdl|libpthread|librt|libresolv|ld-linux[^/]*|libcudart|libcublas|libcublasLt)\.so' |
    while read -r lib; do cp -L "$lib" "$stage/lib/"; done
# The commit the bundle was built from (+dirty when the tree had changes): the GPU machine's copy
# of .git is not this checkout's, so scripts/gpu_session.sh reads the commit from here.
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
{ git diff --quiet HEAD && [ -z "$(git ls-files --others --exclude-standard -- '*.c' '*.h' '*.cu' '*.cuh' '*.cpp' Makefile)" ]; } 2>/dev/null ||
    commit="$commit+dirty" # a changed tracked file, or an untracked source the build may have compiled
echo "$commit" > "$stage/COMMIT"
# Whether this binary carries the cuDNN attention route (make deps-gpu before make compiles it in).
build/posbench --version | grep '^cudnn: ' || true
cat > "$stage/env.sh" <<'EOS'
#!/bin/sh
# Runs its arguments with the bundle's libraries first, then the CUDA toolkit's.
here=$(cd "$(dirname "$0")" && pwd)
cuda=$(dirname "$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")
export LD_LIBRARY_PATH="$here/lib:$cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# NCCL (core/cuda/comm_nccl.cu loads libnccl.so.2 with dlopen; at ~200 MB the bundle does not
# carry it): PyTorch's nvidia-nccl wheel's, else the toolkit's lib directory.
nccl=$(python3 -c 'import nvidia.nccl as m; print(list(m.__path__)[0] + "/lib")' 2>/dev/null)
for d in $nccl "$cuda/lib"; do
    if [ -f "$d/libnccl.so.2" ]; then export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$d"; break; fi
done
# cuDNN (the cuDNN attention route, core/cuda/attention_cudnn.cpp, loads libcudnn.so.9 with dlopen;
# ~1 GB with its engines, not carried): PyTorch's nvidia-cudnn wheel's, else the toolkit's.
cudnn=$(python3 -c 'import nvidia.cudnn as m; print(list(m.__path__)[0] + "/lib")' 2>/dev/null)
for d in $cudnn "$cuda/lib" "$cuda/lib64"; do
    if [ -f "$d/libcudnn.so.9" ]; then export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$d"; break; fi
done
export POSBENCH_BUNDLE="$here" # scripts/gpu_session.sh finds Fashion-MNIST under it
exec "$@"
EOS
chmod +x "$stage/env.sh"
tar -czf build/gpu-bundle.tar.gz -C "$stage" .
# A device call carries at most 64 MiB (the working tree's ignored paths, all together).
bytes=$(wc -c < build/gpu-bundle.tar.gz)
if [ "$bytes" -gt $((64 * 1024 * 1024)) ]; then
    echo "gpu-bundle: build/gpu-bundle.tar.gz is $((bytes / 1048576)) MiB, past the 64 MiB a device call carries:" \
        "leave out the speech set (GPU_BUNDLE_SPEECH=0, the default) or the parity programs (GPU_BUNDLE_TESTS=0)" >&2
    exit 1
fi
echo "gpu-bundle: build/gpu-bundle.tar.gz ($(du -h build/gpu-bundle.tar.gz | cut -f1)); on the GPU machine: mkdir -p /tmp/pb && tar -xzf build/gpu-bundle.tar.gz -C /tmp/pb && /tmp/pb/env.sh /tmp/pb/build/tests/test_parity --backend cuda"
