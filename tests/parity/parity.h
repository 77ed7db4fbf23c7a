// tests/parity/parity.h — the table-driven op parity harness (tests/test_parity.c), in the manner
// of ggml's test-backend-ops: every op of core/ops_list.h has cases declared once in a table (one
// case file per op family, tests/parity/cases_<family>.c), and each case runs on the CPU backend
// (the reference) and on every other backend present (cpu-guarded always, cuda when a GPU can
// run it) from the same inputs; each output the case names is compared element by element.
//
// A case is a run function plus integer parameters. The run function draws its inputs through
// pr_in / pr_in_host (the same values on every backend: inputs are drawn from the case's own
// random streams in call order), calls the ops through pr_ops(r) on backend memory, and names
// the outputs to compare with pr_out_* (downloaded at once; gradients start from drawn values,
// so the "+=" contract is checked). Everything a run allocates is freed when it ends.
//
// Comparison, per output, against the CPU backend's result for the same case:
//   cpu-guarded: bit for bit (it runs the CPU's code on protected memory: any difference is a
//                bug), whatever the tolerance says;
//   cuda:        |got - ref| <= atol + rtol·|ref| (parity_tol; atol < 0: bit for bit), NaN fails.
// A case with repeat = 1 runs twice on the backend under test and its outputs must be the same
// bits (determinism). Each check prints one line: "PASS parity <backend> <op...> [<label>]
// <output>: max |d| X vs tolerance" (tests/run_all.sh counts PASS/FAIL/SKIP lines).
//
// Adding a family: write tests/parity/cases_<family>.c defining
//   const parity_case parity_cases_<family>[]; const int parity_cases_<family>_count;
// and add FAMILY(<family>) to tests/parity/families.h (the Makefile builds every file of this
// folder into build/tests/test_parity). docs/testing.md "Op parity" says more.
#pragma once
#include "../../core/ops.h"
#include <stddef.h>

// |got - ref| <= atol + rtol·|ref|; atol < 0: bit for bit. marks, any of:
//   PARITY_MARK_SAME_ROUTES: in a case with a twin route (parity_case.twin), the output is also the
//     twin route's bit for bit;
//   PARITY_MARK_OWN: the output is in the backend's own form (a route's private saved state: the
//     CPU's probabilities, CUDA's row log-sum-exp or bf16 P), so it is not compared with the CPU's
//     (cpu-guarded, which runs the CPU's code, still is, bit for bit); only run to run (repeat) and
//     against the twin route (with PARITY_MARK_SAME_ROUTES), bit for bit.
enum { PARITY_MARK_SAME_ROUTES = 1, PARITY_MARK_OWN = 2 };
typedef struct {
    double atol, rtol;
    int marks;
} parity_tol;
#define PARITY_BITWISE ((parity_tol){-1, 0, 0})
#define PARITY_SAME_ROUTES(t) ((parity_tol){(t).atol, (t).rtol, (t).marks | PARITY_MARK_SAME_ROUTES})
#define PARITY_OWN ((parity_tol){-1, 0, PARITY_MARK_OWN})

typedef struct parity_run parity_run;

typedef struct parity_case {
    const char *ops;   // the core/ops_list.h ops this case checks, space-separated (coverage, --op)
    const char *label; // shapes and options, printed in every line
    void (*run)(parity_run *r, const int *p);
    int p[8];          // the run function's parameters (shapes, options)
    int precision;     // MATMUL_FP32 (0, the default) or MATMUL_BF16: set on both backends first
    int repeat;        // 1: a second run on the backend under test must give the same bits
    int large;         // 1: its CPU reference takes seconds; run against cuda only
    const char *cuda;  // CUDA switches for this case, as the environment spells them
                       // ("POSBENCH_LINEAR=lt", "POSBENCH_KERNELS=v2", "POSBENCH_ATTENTION=fused",
                       // and POSBENCH_CUDNN_LIB, read when the cuDNN route first loads: a missing
                       // file hides the library); the other backends run the case without them
    const char *twin;  // with cuda: switches of a second route the case also runs under on the
                       // backend; each output marked PARITY_SAME_ROUTES must be its bits
                       // ("POSBENCH_KERNELS=v1": the v2 kernels bitwise v1)
    int cpu_fp32;      // 1: the CPU backends run the case in fp32 and `precision` is cuda's alone
                       // (a bf16 route judged against the exact op rather than the CPU's emulation
                       // of its rounding)
} parity_case;

// The backend the run computes on.
const ops_backend *pr_ops(parity_run *r);
// n floats uniform in [lo, hi) (the case's next random stream), in backend memory.
float *pr_in(parity_run *r, size_t n, float lo, float hi);
// Backend copies of host arrays (the run owns them).
float *pr_in_host(parity_run *r, const float *host, size_t n);
int *pr_in_ints(parity_run *r, const int *host, size_t n);
bfloat16 *pr_in_bf16(parity_run *r, const bfloat16 *host, size_t n);
// Zeroed backend memory of `bytes` (outputs; the run owns it).
void *pr_buf(parity_run *r, size_t bytes);
// pr_in / pr_buf at `off` floats past the start of their own allocation (unaligned operands).
float *pr_in_at(parity_run *r, size_t n, float lo, float hi, int off);
float *pr_buf_at(parity_run *r, size_t n, int off);
// Host memory freed when the run ends (n bytes, zeroed).
void *pr_host(parity_run *r, size_t bytes);
// The host values pr_in / pr_in_host uploaded to backend pointer dev (NULL for another pointer).
const float *pr_host_of(parity_run *r, const float *dev);
// Downloads of n floats / ints / bf16 values at dev (backend memory), or one host value, as
// output `name`, compared with tolerance tol.
void pr_out(parity_run *r, const char *name, const float *dev, size_t n, parity_tol tol);
void pr_out_ints(parity_run *r, const char *name, const int *dev, size_t n);
void pr_out_bf16(parity_run *r, const char *name, const bfloat16 *dev, size_t n, parity_tol tol);
void pr_out_value(parity_run *r, const char *name, double value, parity_tol tol);
// A host array (n floats / bf16 values) as output `name` (a helper that downloads itself).
void pr_out_host(parity_run *r, const char *name, const float *host, size_t n, parity_tol tol);
void pr_out_host_bf16(parity_run *r, const char *name, const bfloat16 *host, size_t n, parity_tol tol);
// A fact of the run (e.g. "the test rows hold a tie", "the route taken is fused"): a FAIL line
// naming it (the first that fails) when ok is 0; a case that states facts prints one PASS line
// per backend run when all of them hold. A fact of one backend only is stated on that backend
// (pr_ops(r)->name).
void pr_require(parity_run *r, const char *what, int ok);
// The fact "n floats at backend pointers a and b of this run agree within tol" (PARITY_BITWISE:
// bit for bit), e.g. one route against another on the same backend; the FAIL names the largest
// difference.
void pr_require_near(parity_run *r, const char *what, const float *a, const float *b, size_t n, parity_tol tol);
// The case cannot run on this backend (e.g. the cuDNN route where libcudnn does not load): one
// SKIP line with why, nothing of this case compared on this backend. The run function returns
// after calling it.
void pr_skip(parity_run *r, const char *why);

// Tolerances shared by the families (the CUDA backend against the CPU's):
// elementwise arithmetic (the GPU's expf/erff differ by an ulp or two)
#define PARITY_EW ((parity_tol){1e-6, 1e-5, 0})
// a sum of K products or terms of values in [-1, 1] in another order (cuBLAS tiling, warp
// trees): ≈ ulp(1)·K with margin, never below 1e-5; rtol 1e-4
parity_tol parity_gemm_tol(double K);
// a column sum over N rows (bias, LayerNorm parameter gradients): the CPU's float running sum
// errs like a random walk, 5e-7·N with margin, never below 1e-5; rtol 1e-4
parity_tol parity_sum_tol(double N);

// LayerNorm's row statistics of x (N, C), formed in double on the host (cases_dense.c): inputs
// for a backward checked apart from the forward that would save them.
void parity_layernorm_stats(const float *x, int N, int C, float *mean, float *rstd);

// One family's table.
typedef struct {
    const char *name;
    const parity_case *cases;
    const int *count;
} parity_family;

#define FAMILY(f) extern const parity_case parity_cases_##f[]; extern const int parity_cases_##f##_count;
#include "families.h"
#undef FAMILY

// The families, in families.h's order, and their number.
extern const parity_family parity_families[];
extern const int parity_family_count;

// Ops that have no parity case, each with the reason (tests/parity/coverage.c).
typedef struct {
    const char *op, *why;
} parity_exemption;
extern const parity_exemption parity_exemptions[];
extern const int parity_exemption_count;

// Coverage: for each of the n op names, whether a case of the families lists it or an exemption
// names it. Prints nothing; returns how many are neither, their names (space-separated,
// truncated) in missing (len bytes). Exemptions or case ops that name no op count too (a stale
// entry): named in missing with a trailing '?'.
int parity_coverage(const char *const *op_names, int n, const parity_family *fams, int nfam,
                    const parity_exemption *ex, int nex, char *missing, size_t len);

// Runs every case of the families that matches the filters (NULL: all) against backend dut
// (bitwise: 1 for cpu-guarded), printing one line per check; returns the number of cases run.
// op: a case whose ops list holds this name; family: that family's cases.
typedef struct {
    const char *name; // printed: "cpu-guarded", "cuda"
    const ops_backend *ops;
    int bitwise;      // every output bit for bit, whatever the case's tolerance
    int is_cuda;      // the cases with CUDA switches and the large ones run
} parity_backend;
int parity_run_families(const parity_backend *dut, const char *op, const char *family, int *skipped);
