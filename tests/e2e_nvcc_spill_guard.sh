#!/bin/sh
# tests/e2e_nvcc_spill_guard.sh — every CUDA kernel compiles under -Werror and without register
# spills or local memory, and the guard that says so cannot silently vanish:
#   - the Makefile's compile line of every core/**/*.cu (make's dry run, nothing built) carries
#     -Werror all-warnings, ptxas's -warn-spills and -warn-lmem-usage, and both -gencode targets
#     (sm_80, sm_90);
#   - with nvcc: the Makefile's own flags (NVCC_FLAGS) reject a kernel that spills registers (64
#     live accumulators under a 32-register launch bound) and one that keeps a dynamically indexed
#     array in local memory, naming the kernel, and accept a plain kernel (so the rejections are
#     the guard's, not a broken command line). Three small compiles in a temp dir, a few seconds.
# Without nvcc the compile checks print SKIP (the dry-run check still runs).
cd "$(dirname "$0")/.." || exit 1
T=$(mktemp -d /tmp/posbench-spill.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
check() { if [ "$2" -eq 0 ]; then echo "PASS spill guard: $1"; else echo "FAIL spill guard: $1: $3"; fi; }

# The compile line of every .cu, from make's dry run (-B: as if every object were out of date).
cu=$(find core -name '*.cu' | sort)
if [ -z "$cu" ]; then
    echo "FAIL spill guard: no CUDA sources found under core/"
    exit 0
fi
objs=$(printf '%s\n' $cu | sed 's|^|build/|; s|\.cu$|.o|')
# shellcheck disable=SC2086
make -n -B $objs > "$T/dry" 2> "$T/dry.err"
rc=$?
if [ $rc -ne 0 ]; then
    check "make -n of the CUDA objects" 1 "exit $rc: $(head -c 300 "$T/dry.err")"
else
    # The files allowed local memory (the Makefile names each with its reason and bytes).
    allowed=$(make -s --no-print-directory --eval 'print-lmem: ; @echo $(NVCC_LMEM_ALLOWED)' print-lmem 2> /dev/null)
    missing=""
    for f in $cu; do
        line=$(grep -F -- "-c -o build/${f%.cu}.o $f" "$T/dry")
        lmem="-warn-lmem-usage"
        case " $allowed " in *" $f "*) lmem="" ;; esac
        for flag in "-Werror all-warnings" "-warn-spills" $lmem "arch=compute_80,code=sm_80" "arch=compute_90,code=sm_90"; do
            case "$line" in
                *"$flag"*) ;;
                *) missing="$missing $f:'$flag'" ;;
            esac
        done
    done
    n=$(printf '%s\n' $cu | wc -l)
    check "the compile line of every .cu ($n files) has -Werror all-warnings, -warn-spills, sm_80 and sm_90, and -warn-lmem-usage but for the Makefile's NVCC_LMEM_ALLOWED (${allowed:-none})" \
        "$([ -z "$missing" ] && echo 0 || echo 1)" "missing:$missing"
    for f in $allowed; do # an exemption names a source that exists and says why
        if [ ! -f "$f" ] || ! grep -q "^# - $f: .*[0-9]-byte" Makefile; then
            check "NVCC_LMEM_ALLOWED's $f" 1 "not a source, or no '# - $f: ... N-byte ...' reason in the Makefile"
        fi
    done
fi

NVCC=$(make -s --no-print-directory --eval 'print-nvcc: ; @echo $(NVCC)' print-nvcc 2> /dev/null)
if [ -z "$NVCC" ] || [ ! -x "$NVCC" ]; then
    echo "SKIP spill guard: compiles of a spilling kernel: nvcc not found (the CUDA toolkit provides it)"
    exit 0
fi
FLAGS=$(make -s --no-print-directory --eval 'print-flags: ; @echo $(NVCC_FLAGS)' print-flags 2> /dev/null)

# 64 accumulators live across a loop under __launch_bounds__(1024, 2) (at most 32 registers).
cat > "$T/spill.cu" << 'EOF'
__global__ void __launch_bounds__(1024, 2) spilling_kernel(const float *x, float *y, int n) {
    float acc[64];
#pragma unroll
    for (int i = 0; i < 64; i++) acc[i] = x[threadIdx.x + i * 1024];
    for (int k = 0; k < n; k++) {
#pragma unroll
        for (int i = 0; i < 64; i++) acc[i] = acc[i] * acc[(i + 7) % 64] + x[k];
    }
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < 64; i++) s += acc[i] * (float)i;
    y[threadIdx.x] = s;
}
EOF
# A per-thread array of computed values read at runtime indices: a stack frame in local memory.
cat > "$T/lmem.cu" << 'EOF'
__global__ void local_array_kernel(const float *x, const int *idx, float *y) {
    float row[64];
    for (int i = 0; i < 64; i++) row[i] = x[threadIdx.x + i * 256] * (float)i;
    float s = 0.0f;
    for (int k = 0; k < 8; k++) s += row[idx[threadIdx.x * 8 + k] & 63];
    y[threadIdx.x] = s;
}
EOF
cat > "$T/plain.cu" << 'EOF'
__global__ void plain_kernel(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}
EOF
compile() { # $1 = name: compiles $T/$1.cu with the Makefile's flags into $T/$1.log; returns nvcc's status
    # shellcheck disable=SC2086
    "$NVCC" $FLAGS -c -o "$T/$1.o" "$T/$1.cu" > "$T/$1.log" 2>&1
}
compile plain
rc=$?
check "the Makefile's nvcc flags compile a plain kernel" $rc "exit $rc: $(head -c 400 "$T/plain.log")"
compile spill
rc=$?
if [ $rc -ne 0 ] && grep -q "Registers are spilled to local memory in function '.*spilling_kernel" "$T/spill.log"; then
    check "a kernel that spills registers fails the build ($(grep -o '[0-9]* bytes spill stores' "$T/spill.log" | head -n 1))" 0 ""
else
    check "a kernel that spills registers fails the build" 1 "nvcc exit $rc: $(head -c 400 "$T/spill.log")"
fi
compile lmem
rc=$?
if [ $rc -ne 0 ] && grep -q "Local memory used for function '.*local_array_kernel" "$T/lmem.log"; then
    check "a kernel with a local-memory array fails the build" 0 ""
else
    check "a kernel with a local-memory array fails the build" 1 "nvcc exit $rc: $(head -c 400 "$T/lmem.log")"
fi
