// tests/test_parity.c — the op parity harness (tests/parity/parity.h): every case of every family
// (tests/parity/families.h) on the CPU backend and on each other backend present, compared output
// by output: cpu-guarded bit for bit (always: it runs here), cuda within each case's tolerance when
// a GPU can run it (one SKIP line otherwise, never a PASS). First the coverage of core/ops_list.h:
// an op in no case and in no exemption (tests/parity/coverage.c) is a FAIL line naming it, and a
// check that this rule fires for an op added without cases.
//   build/tests/test_parity [--op NAME] [--family NAME] [--backend cpu-guarded|cuda] [--list]
// --op runs the cases whose ops list NAME, --family one family's, --backend one backend, --list
// prints the cases. The CUDA switches come from the environment as for a run (POSBENCH_LINEAR,
// POSBENCH_KERNELS, POSBENCH_STREAM, POSBENCH_ATTENTION: core/device.c); a case that sets a switch
// itself runs under it. Bad arguments: a message naming the argument and what is valid, exit 2.
#include "testing.h"
#include "parity/parity.h"
#include "../core/common.h"
#include "../core/device.h"
#include "../core/ops_cuda.h"
#include "../core/ops_support.h"
#include <stdio.h>
#include <string.h>

static const char *const OP_NAMES[] = {
#define OP(ret, name, params, args) #name,
#include "../core/ops_list.h"
};
enum { N_OPS = (int)(sizeof OP_NAMES / sizeof OP_NAMES[0]) };

static void check_coverage(void) {
    char missing[1024];
    int n = parity_coverage(OP_NAMES, N_OPS, parity_families, parity_family_count, parity_exemptions,
                            parity_exemption_count, missing, sizeof missing);
    int cases = 0;
    for (int f = 0; f < parity_family_count; f++) cases += *parity_families[f].count;
    test_check("parity coverage: every op of core/ops_list.h has a case or an exemption", n == 0,
               "%d ops, %d cases in %d families, %d exemptions; %d not covered%s%s (add a case to "
               "tests/parity/cases_<family>.c or an exemption with its reason to tests/parity/coverage.c; "
               "a name with '?' is no op)",
               N_OPS, cases, parity_family_count, parity_exemption_count, n, n ? ": " : "", missing);
    // The rule fires: the same op list with one op added that no case lists.
    const char *more[N_OPS + 1];
    memcpy(more, OP_NAMES, sizeof OP_NAMES);
    more[N_OPS] = "op_added_without_cases";
    int m = parity_coverage(more, N_OPS + 1, parity_families, parity_family_count, parity_exemptions,
                            parity_exemption_count, missing, sizeof missing);
    test_check("parity coverage: an op added without cases is reported", m == n + 1 && strstr(missing, "op_added_without_cases"),
               "%d reported (expected %d): %s", m, n + 1, missing);
    // ... and so is an exemption that names no op.
    parity_exemption stale[1] = {{"op_removed_since", "stale"}};
    m = parity_coverage(OP_NAMES, N_OPS, parity_families, parity_family_count, stale, 1, missing, sizeof missing);
    test_check("parity coverage: an exemption naming no op is reported", strstr(missing, "op_removed_since?") != NULL,
               "%d reported: %s", m, missing);
}

static void list_cases(void) {
    for (int f = 0; f < parity_family_count; f++)
        for (int k = 0; k < *parity_families[f].count; k++) {
            const parity_case *c = &parity_families[f].cases[k];
            printf("%s\t%s\t[%s]%s%s%s%s%s%s%s%s\n", parity_families[f].name, c->ops, c->label,
                   c->precision == MATMUL_BF16 ? " bf16" : "", c->cpu_fp32 ? " (cpu fp32)" : "", c->repeat ? " repeat" : "",
                   c->large ? " large" : "", c->cuda ? " cuda route: " : "", c->cuda ? c->cuda : "",
                   c->twin ? "; twin: " : "", c->twin ? c->twin : "");
        }
}

static int usage_error(const char *fmt, const char *arg) {
    fprintf(stderr, "test_parity: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nusage: test_parity [--op NAME] [--family NAME] [--backend cpu-guarded|cuda] [--list]\n");
    return 2;
}

int main(int argc, char **argv) {
    const char *op = NULL, *family = NULL, *backend = NULL;
    for (int i = 1; i < argc; i++) {
        const char **dst = !strcmp(argv[i], "--op") ? &op : !strcmp(argv[i], "--family") ? &family
                         : !strcmp(argv[i], "--backend") ? &backend : NULL;
        if (!strcmp(argv[i], "--list")) {
            list_cases();
            return 0;
        }
        if (!dst) return usage_error("unknown argument '%s'", argv[i]);
        if (i + 1 == argc) return usage_error("%s needs a value", argv[i]);
        *dst = argv[++i];
    }
    if (op && ops_op_find(op) < 0) return usage_error("--op '%s' is not an op of core/ops_list.h", op);
    if (family) {
        int known = 0;
        for (int f = 0; f < parity_family_count; f++) known |= !strcmp(family, parity_families[f].name);
        if (!known) return usage_error("--family '%s' is not a family of tests/parity/families.h", family);
    }
    if (backend && strcmp(backend, "cpu-guarded") && strcmp(backend, "cuda"))
        return usage_error("--backend '%s' is not valid (valid: cpu-guarded, cuda)", backend);
    device_cuda_switches_from_env(); // exit 2 naming a bad POSBENCH_* value

    if (!op && !family && !backend) check_coverage();
    int skipped, ran = 0, backends = 0;
    if (!backend || !strcmp(backend, "cpu-guarded")) {
        parity_backend g = {"cpu-guarded", &ops_cpu_guarded, 1, 0};
        ran += parity_run_families(&g, op, family, &skipped);
        backends++;
        if (skipped)
            test_skip("parity cpu-guarded: the large cases",
                      "%d cases run against cuda only (their CPU reference takes seconds)", skipped);
    }
    if (!backend || !strcmp(backend, "cuda")) {
        char why[256];
        if (!cuda_usable(why, sizeof why)) {
            test_skip("parity cuda", "%s", why);
        } else {
#ifdef POSBENCH_CUDA
            printf("# GPU: %s; linear route %s, kernels v%d\n", cuda_device_name(),
                   cuda_linear_route() == CUDA_LINEAR_LT ? "lt" : "gemmex", cuda_kernels());
            parity_backend c = {"cuda", &ops_cuda, 0, 1};
            ran += parity_run_families(&c, op, family, &skipped);
            backends++;
#endif
        }
    }
    if (backends && ran == 0 && (op || family)) test_fail("parity: the filter", "no case matches --op %s --family %s", op ? op : "(any)",
                                              family ? family : "(any)");
    return test_exit_code();
}
