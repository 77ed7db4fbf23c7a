// tests/test_ops_support.c — per-op support of a backend (core/ops_support.h, generated from
// core/ops_list.h): every op has an id and a name that round-trip; the shipped backends (cpu,
// cpu-guarded, and cuda when built) implement every op; a partial backend reports exactly the
// ops it lacks; and ops_complete's table (what device_backend hands the trainer) keeps the ops it
// has and, for a missing one, dies with exit 1 naming the backend and the op — called directly
// and from inside a model's forward — instead of crashing on a NULL pointer.
#include "testing.h"
#include "../core/common.h"
#include "../core/device.h"
#include "../core/ops.h"
#include "../core/ops_cuda.h"
#include "../core/ops_support.h"
#include "../models/model.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static void test_names(void) {
    int ok = 1, i;
    for (i = 0; i < OPS_COUNT && ok; i++) ok = ops_op_name((ops_id)i) && ops_op_find(ops_op_name((ops_id)i)) == i;
    test_check("ops_support: every op id has a name that finds it again", ok, "%d ops, first bad id %d", OPS_COUNT,
               ok ? -1 : i - 1);
    ok = !strcmp(ops_op_name(OPS_ID(linear_forward)), "linear_forward") && !strcmp(ops_op_name(OPS_ID(adamw_update)), "adamw_update")
         && ops_op_name(OPS_COUNT) == NULL && ops_op_find("no_such_op") == -1 && ops_op_find(NULL) == -1;
    test_check("ops_support: names are ops_list.h's; unknown ids and names are refused", ok, "%s",
               ops_op_name(OPS_ID(linear_forward)));
    // The table is `name` and one function pointer per list entry: nothing else, nothing missed.
    test_check("ops_support: ops_backend holds exactly one entry per op of the list",
               sizeof(ops_backend) == sizeof(const char *) + OPS_COUNT * sizeof(void (*)(void)), "%zu bytes, %d ops",
               sizeof(ops_backend), OPS_COUNT);
}

static void test_complete_backends(void) {
    const ops_backend *all[] = {&ops_cpu, &ops_cpu_guarded,
#ifdef POSBENCH_CUDA
                                &ops_cuda,
#endif
    };
    for (size_t k = 0; k < sizeof all / sizeof *all; k++) {
        char names[512], label[128];
        int missing = ops_missing(all[k], names, sizeof names);
        int every = 1;
        for (int i = 0; i < OPS_COUNT; i++) every &= ops_supports(all[k], (ops_id)i);
        ops_backend storage;
        snprintf(label, sizeof label, "ops_support: backend %s implements every op (ops_complete returns it as is)",
                 all[k]->name);
        test_check(label, missing == 0 && every && ops_complete(all[k], &storage) == all[k], "missing %d: %s", missing,
                   names);
    }
    char why[256];
    const ops_backend *cpu = device_backend("cpu", why, sizeof why);
    test_check("ops_support: device_backend(cpu) is ops_cpu itself", cpu == &ops_cpu, "%s", cpu ? cpu->name : why);
}

// ops_cpu without rope_forward and gelu_forward.
static ops_backend partial_backend(void) {
    ops_backend p = ops_cpu;
    p.name = "partial";
    p.rope_forward = NULL;
    p.gelu_forward = NULL;
    return p;
}

static void test_partial(void) {
    ops_backend p = partial_backend();
    char names[512];
    int missing = ops_missing(&p, names, sizeof names);
    int right = !ops_supports(&p, OPS_ID(rope_forward)) && !ops_supports(&p, OPS_ID(gelu_forward));
    for (int i = 0; i < OPS_COUNT; i++)
        if (i != OPS_ID(rope_forward) && i != OPS_ID(gelu_forward)) right &= ops_supports(&p, (ops_id)i);
    test_check("ops_support: a partial backend lacks exactly the ops left NULL, named in list order",
               right && missing == 2 && !strcmp(names, "gelu_forward, rope_forward"), "%d missing: %s", missing, names);
    char tiny[8];
    missing = ops_missing(&p, tiny, sizeof tiny);
    test_check("ops_support: the missing names are truncated to the buffer", missing == 2 && !strcmp(tiny, "gelu_fo"),
               "'%s'", tiny);
    ops_backend storage;
    const ops_backend *c = ops_complete(&p, &storage);
    int kept = c == &storage && c->linear_forward == ops_cpu.linear_forward && c->alloc == ops_cpu.alloc
               && c->rope_backward == ops_cpu.rope_backward && c->gelu_forward && c->rope_forward
               && !strcmp(c->name, "partial") && ops_missing(c, NULL, 0) == 0;
    test_check("ops_support: ops_complete keeps the backend's ops and fills only the missing ones", kept, "%s",
               kept ? "" : "table differs");
}

// The exit code of fn run in a child (stderr into err), -1 when it did not exit.
static int child_exit(void (*fn)(void *), char *err, size_t len) {
    int status = test_child_stderr(fn, NULL, err, len);
    err[strcspn(err, "\n")] = '\0'; // the message's first line
    return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static ops_backend partial, partial_storage;

static void call_missing_rope(void *ctx) {
    const ops_backend *c = ops_complete(&partial, &partial_storage);
    float qkv[3 * 4 * 2] = {0}, table[2] = {1, 0};
    c->rope_forward(qkv, table, table, 1, 2, 4, 2, 0);
}

// A small ViT whose blocks need gelu_forward, on the partial backend: its first forward dies.
static void forward_missing_gelu(void *ctx) {
    const ops_backend *c = ops_complete(&partial, &partial_storage);
    model_config cfg = {.channels = 1, .image_size = 8, .patch = 4, .dim = 8, .depth = 1, .heads = 2, .mlp_ratio = 2,
                        .cls = 1, .num_classes = 3};
    model m;
    model_create(&m, &cfg, c, 2, 7);
    rng_addr rng = {.seed = 1};
    model_forward(&m, 2, 0, rng);
}

static void test_missing_dies(void) {
    partial = partial_backend();
    char err[4096];
    int rc = child_exit(call_missing_rope, err, sizeof err);
    test_check("ops_support: calling a missing op dies (exit 1) naming the backend and the op",
               rc == 1 && strstr(err, "backend 'partial' does not implement op 'rope_forward'"), "exit %d: %.200s", rc, err);
    rc = child_exit(forward_missing_gelu, err, sizeof err);
    test_check("ops_support: a model forward on a partial backend dies naming the op it needs",
               rc == 1 && strstr(err, "backend 'partial' does not implement op 'gelu_forward'"), "exit %d: %.200s", rc, err);
}

int main(void) {
    posbench_set_threads(1);
    test_names();
    test_complete_backends();
    test_partial();
    test_missing_dies();
    return test_exit_code();
}
