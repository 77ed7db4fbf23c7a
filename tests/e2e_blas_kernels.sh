#!/bin/sh
# tests/e2e_blas_kernels.sh — posbench runs OpenBLAS's AVX2/AVX-512 kernels on a CPU that has them,
# even where OpenBLAS's own detection falls back to pre-AVX2 ones (core/cpu/blas_kernels.c: it
# sets OPENBLAS_CORETYPE and re-executes), and leaves a user's OPENBLAS_CORETYPE alone.
cd "$(dirname "$0")/.." || exit 1
PB=build/posbench
pass() { echo "PASS blas_kernels: $1"; }
fail() { echo "FAIL blas_kernels: $1"; }
flags=$(grep -m1 '^flags' /proc/cpuinfo)
has() { case " $flags " in *" $1 "*) return 0;; esac; return 1; }
core=$(env -u OPENBLAS_CORETYPE $PB --version | sed -n 's/^blas: .*(core \(.*\))$/\1/p')
[ -n "$core" ] && pass "posbench --version names the OpenBLAS core ($core)" || fail "no 'blas: ... (core X)' line in posbench --version"
case "$core" in Prescott|Core2|Penryn|Dunnington|Nehalem|Atom|Sandybridge) old=1;; *) old=0;; esac
if has avx2 && has fma; then
    [ "$old" = 0 ] && pass "a CPU with AVX2 and FMA runs AVX2-or-newer kernels ($core)" \
                   || fail "OpenBLAS runs its pre-AVX2 $core kernels on a CPU with AVX2 and FMA"
else
    echo "SKIP blas_kernels: this CPU has no AVX2+FMA (OpenBLAS's own choice, $core, stands)"
fi
# The user's choice stands, and --version says what it costs.
out=$(OPENBLAS_CORETYPE=Prescott $PB --version)
echo "$out" | grep -q '(core Prescott)' && pass "OPENBLAS_CORETYPE=Prescott set by the user is kept" \
                                        || fail "OPENBLAS_CORETYPE=Prescott was overridden: $(echo "$out" | grep '^blas:')"
if has avx2 && has fma; then
    echo "$out" | grep -q '^blas_note: .*Prescott' && pass "--version notes the slower kernels the user chose" \
                                                  || fail "no blas_note line for OPENBLAS_CORETYPE=Prescott on an AVX2 CPU"
fi
# The re-execution keeps the arguments and the exit code (a bad flag: exit 2).
$PB train --no-such-flag >/dev/null 2>&1; rc=$?
[ "$rc" = 2 ] && pass "arguments and exit code survive the re-execution (bad flag: exit 2)" || fail "bad flag exited $rc, not 2"
