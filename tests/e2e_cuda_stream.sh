#!/bin/sh
# tests/e2e_cuda_stream.sh — the CUDA backend issues everything on its one stream
# (core/cuda/cuda_stream.h), which is what lets a step run without host waits and be captured as
# a CUDA graph. A source check (it needs no GPU): in core/cuda/*.cu, *.cuh and *.cpp, every kernel
# launch `<<<...>>>` names a stream (four launch arguments, the fourth cuda_stream()), no copy or
# memset is synchronous (cudaMemcpy( / cudaMemset( / cudaMemcpy2D( ...), no call passes the legacy
# stream 0 to an *Async call, and cuBLAS and cuDNN handles are set to the stream. Then the check
# itself is checked on a planted file holding each mistake, so a checker that finds nothing fails.
cd "$(dirname "$0")/.." || exit 1
T=$(mktemp -d /tmp/posbench-stream.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT

# Prints one line per offence in the files given: file:line: what.
check() {
    python3 - "$@" <<'PY'
import re, sys
def split_top(s):
    parts, depth, cur = [], 0, ''
    for ch in s:
        if ch in '([{': depth += 1
        elif ch in ')]}': depth -= 1
        if ch == ',' and depth == 0:
            parts.append(cur); cur = ''
        else:
            cur += ch
    return parts + [cur]
for path in sys.argv[1:]:
    text = open(path, encoding='utf-8').read()
    code = re.sub(r'//[^\n]*', lambda m: ' ' * len(m.group(0)), text)          # comments out, lines kept
    code = re.sub(r'/\*.*?\*/', lambda m: re.sub(r'[^\n]', ' ', m.group(0)), code, flags=re.S)
    line = lambda pos: code.count('\n', 0, pos) + 1
    for m in re.finditer(r'<<<(.*?)>>>', code, flags=re.S):
        args = split_top(m.group(1))
        if len(args) != 4 or args[3].strip() != 'cuda_stream()':
            print('%s:%d: kernel launch without cuda_stream(): <<<%s>>>' % (path, line(m.start()), ' '.join(m.group(1).split())))
    for m in re.finditer(r'\b(cudaMemcpy|cudaMemcpy2D|cudaMemcpy3D|cudaMemset|cudaMemset2D|cudaMemcpyToSymbol|cudaMemcpyFromSymbol)\s*\(', code):
        print('%s:%d: synchronous %s (use the Async form on cuda_stream())' % (path, line(m.start()), m.group(1)))
    for m in re.finditer(r'\b(cuda\w*Async|cudaEventRecord|cudaStreamSynchronize|cudaStreamQuery)\s*\(', code):
        depth, i = 1, m.end()
        while i < len(code) and depth:
            depth += {'(': 1, ')': -1}.get(code[i], 0); i += 1
        args = split_top(code[m.end():i - 1])
        if args and args[-1].strip() in ('0', 'NULL', 'nullptr', 'cudaStreamLegacy', 'cudaStreamPerThread'):
            print('%s:%d: %s on the legacy stream' % (path, line(m.start()), m.group(1)))
    if re.search(r'\bcublasCreate\s*\(', code) and not re.search(r'\bcublasSetStream\s*\(', code):
        print('%s: a cuBLAS handle created without cublasSetStream' % path)
    if re.search(r'create_handle\s*\(|\bcudnnCreate\s*\(', code) and not re.search(r'set_stream\s*\(|cudnnSetStream\s*\(', code):
        print('%s: a cuDNN handle created without setting its stream' % path)
    if re.search(r'\bcublasLtMatmul\s*\(', code):
        for m in re.finditer(r'\bcublasLtMatmul\s*\(', code):
            depth, i = 1, m.end()
            while i < len(code) and depth:
                depth += {'(': 1, ')': -1}.get(code[i], 0); i += 1
            if split_top(code[m.end():i - 1])[-1].strip() != 'cuda_stream()':
                print('%s:%d: cublasLtMatmul not on cuda_stream()' % (path, line(m.start())))
PY
}

found=$(check core/cuda/*.cu core/cuda/*.cuh core/cuda/*.cpp)
if [ -n "$found" ]; then
    echo "FAIL cuda stream: work issued outside core/cuda/cuda_stream.h's stream:"
    echo "$found" | sed 's/^/  /'
else
    echo "PASS cuda stream: every launch, copy, memset, event and library call in core/cuda/ is on cuda_stream()"
fi

# The checker itself: each planted mistake must be reported (5 offences), the clean lines not.
cat > "$T/planted.cu" <<'CU'
void f(void) {
    k<<<grid, THREADS>>>(x);                                   // no stream
    k<<<grid, THREADS, 0, cuda_stream()>>>(x);                 // fine
    k<<<dim3(a, b), dim3(c, d),
        smem>>>(x);                                            // no stream, two lines
    CUDA_CHECK(cudaMemcpy(d, s, n, cudaMemcpyHostToDevice));  // synchronous
    CUDA_CHECK(cudaMemsetAsync(d, 0, n, 0));                  // legacy stream
    CUDA_CHECK(cudaMemcpyAsync(d, s, n, kind, cuda_stream())); // fine
    CUBLAS_CHECK(cublasCreate(&h));                           // no cublasSetStream in the file
}
CU
planted=$(check "$T/planted.cu")
n=$(echo "$planted" | grep -c .)
if [ "$n" -eq 5 ] && echo "$planted" | grep -q ':2: kernel launch' && echo "$planted" | grep -q ':4: kernel launch' \
    && echo "$planted" | grep -q ':6: synchronous cudaMemcpy' && echo "$planted" | grep -q ':7: cudaMemsetAsync on the legacy' \
    && echo "$planted" | grep -q 'without cublasSetStream'; then
    echo "PASS cuda stream checker: finds each planted launch, synchronous copy, legacy-stream call and unset handle"
else
    echo "FAIL cuda stream checker: planted file gave $n reports: $(echo "$planted" | tr '\n' ';')"
fi
