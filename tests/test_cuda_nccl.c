// tests/test_cuda_nccl.c — the NCCL communicator (core/cuda/comm_nccl.cu) on one GPU, as a
// single-rank smoke test (several ranks need several GPUs; NCCL refuses two ranks on one):
// the device's rank-order sum kernel equals the host's ((p0 + p1) + p2) + p3 bit for bit;
// a one-rank NCCL communicator (libnccl loaded with dlopen) sums a buffer through its
// send/receive, sum and all-gather path and gives it back unchanged; and a training run whose
// gradient goes through that NCCL path (the rank path of bench/train/train_step.c, with its
// micro-batch, its device sum, its 1/N scale) equals the plain whole-batch run on the same GPU
// bit for bit (weights and test metrics; dropout and drop path on), the single-rank case of
// "a run on N ranks equals train.accumulate=N". First, on the CPU (any build): the same rank
// path with a one-rank communicator whose device sum is the identity equals the whole-batch
// run bitwise. SKIP lines without a usable GPU, without libnccl (POSBENCH_NCCL_LIB names it),
// or without Fashion-MNIST for the training checks.
#include "testing.h"
#include "cuda_parity.h"
#include "../bench/train/train.h"
#include "../core/comm.h"
#include "../core/common.h"
#include "../core/ops_cuda.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int read_file(const char *path, char **data, long *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    int ok = fseek(f, 0, SEEK_END) == 0 && (*len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0;
    *data = ok ? malloc((size_t)*len + 1) : NULL;
    ok = ok && *data && fread(*data, 1, (size_t)*len, f) == (size_t)*len;
    fclose(f);
    return ok ? 0 : -1;
}

// One small run on `device` (through nc's device sum when nc is given) into dir; 0 when done.
static int train_once(const char *device, const char *data, const char *dir, const comm *nc, train_result *res) {
    const char *keys[] = {"data.limit=256", "data.test_limit=100", "train.epochs=1", "train.batch=32", "eval.batch=50",
                          "model.dim=32", "model.depth=2", "model.heads=2", "model.patch=4", "eval.samples=0",
                          "model.dropout=0.1", "model.drop_path=0.1"};
    config cfg;
    config_defaults(&cfg);
    char kv[4200], err[1024];
    snprintf(kv, sizeof kv, "data.path=%s", data);
    int bad = config_apply_override(&cfg, kv, err, sizeof err) != 0;
    for (size_t i = 0; !bad && i < sizeof keys / sizeof keys[0]; i++) bad = config_apply_override(&cfg, keys[i], err, sizeof err) != 0;
    if (bad) {
        test_fail("training run", "config: %s", err);
        config_free(&cfg);
        return -1;
    }
    train_options opt = {.out_dir = dir, .experiment = "nccl-test", .stage = nc ? "ranked" : "plain", .device = device, .comm = nc};
    int rc = train_run(&cfg, &opt, res);
    config_free(&cfg);
    return rc == 0 && strcmp(res->status, "done") == 0 ? 0 : -1;
}

// The whole-batch run and the run through nc's device sum (the rank path) on `device`: the
// same weights and test metrics, bit for bit.
static void test_training(const char *name, const char *device, const comm *nc) {
    const char *bundle = getenv("POSBENCH_BUNDLE");
    char data[4096] = "/usr/share/datasets/fashion-mnist", probe[4200];
    snprintf(probe, sizeof probe, "%s/train-images-idx3-ubyte.gz", data);
    if (access(probe, R_OK) != 0) snprintf(data, sizeof data, "%s/data/fashion-mnist", bundle ? bundle : "/tmp/pb");
    snprintf(probe, sizeof probe, "%s/train-images-idx3-ubyte.gz", data);
    if (access(probe, R_OK) != 0) {
        test_skip(name, "Fashion-MNIST not found (/usr/share/datasets or the GPU bundle)");
        return;
    }
    char dir_a[] = "/tmp/posbench-nccl-a.XXXXXX", dir_b[] = "/tmp/posbench-nccl-b.XXXXXX";
    if (!mkdtemp(dir_a) || !mkdtemp(dir_b)) {
        test_fail(name, "cannot make temporary directories");
        return;
    }
    train_result plain = {0}, via_nccl = {0};
    int ok_a = train_once(device, data, dir_a, NULL, &plain) == 0;
    int ok_b = ok_a && train_once(device, data, dir_b, nc, &via_nccl) == 0;
    char wa[4200], wb[4200], *a = NULL, *b = NULL;
    long la = 0, lb = 0;
    snprintf(wa, sizeof wa, "%s/%s.weights", dir_a, plain.run_id);
    snprintf(wb, sizeof wb, "%s/%s.weights", dir_b, ok_b ? via_nccl.run_id : "");
    int same = ok_b && read_file(wa, &a, &la) == 0 && read_file(wb, &b, &lb) == 0 && la == lb && la > 0 &&
               memcmp(a, b, (size_t)la) == 0 && plain.top1 == via_nccl.top1 && plain.top5 == via_nccl.top5;
    test_check(name, same, "%s; weights %ld vs %ld bytes; top-1 %.17g vs %.17g", ok_a ? (ok_b ? "both done" : "the ranked run failed")
               : "the plain run failed", la, lb, plain.top1, ok_b ? via_nccl.top1 : 0.0);
    free(a), free(b);
    test_torch_dir_remove(dir_a);
    test_torch_dir_remove(dir_b);
}

// One rank whose "device" sum is the identity: on the CPU backend the rank path of
// train_step (micro-batch, device sum, scale) without NCCL.
static void identity_sum(float *buf, size_t n) { (void)buf, (void)n; }

static void test_cpu_rank_path(void) {
    static comm one;
    one = *comm_single();
    one.name = "single+identity";
    one.sum_f32_device = identity_sum;
    test_training("cpu: the rank path (one rank, an identity device sum) = whole-batch run, bitwise", "cpu", &one);
}

#ifdef POSBENCH_CUDA
static void test_rank_order_sum(void) {
    enum { SIZE = 4 };
    size_t chunk = 100003;
    float *parts = test_rnd(SIZE * chunk, -1, 1, 7), *want = test_zeros(chunk);
    for (int s = 0; s < SIZE; s++) // host: rank order, one rounding per addition
        for (size_t i = 0; i < chunk; i++) want[i] = s == 0 ? parts[i] : want[i] + parts[(size_t)s * chunk + i];
    float *d_parts = parity_upload(parts, SIZE * chunk), *d_out = cuda_alloc(chunk * sizeof(float), "sum");
    comm_nccl_rank_order_sum(d_out, d_parts, SIZE, chunk);
    float *d_want = parity_upload(want, chunk);
    parity_check_identical("nccl rank-order sum kernel = the host's ((p0 + p1) + p2) + p3 (4 x 100003)", d_want, d_out, chunk);
    cuda_free(d_parts), cuda_free(d_out), cuda_free(d_want);
    free(parts), free(want);
}

static void test_one_rank_sum(const comm *nc) {
    size_t n = 1001; // odd: the chunking pads
    float *x = test_rnd(n, -3, 3, 8);
    float *d = parity_upload(x, n), *d_ref = parity_upload(x, n);
    nc->sum_f32_device(d, n);
    parity_check_identical("nccl one-rank sum (send/recv, rank-order sum, all-gather) leaves the buffer (1001)", d_ref, d, n);
    cuda_free(d), cuda_free(d_ref);
    free(x);
}

int main(void) {
    test_cpu_rank_path();
    if (!parity_gpu_or_skip("cuda nccl")) return test_exit_code();
    printf("# GPU: %s\n", cuda_device_name());
    test_rank_order_sum();
    char why[600];
    const comm *nc = comm_nccl_attach(comm_single(), why, sizeof why);
    if (!nc) {
        if (strncmp(why, "NCCL not found", 14) == 0) test_skip("cuda nccl communicator", "%s", why);
        else test_fail("cuda nccl communicator", "%s", why);
        cuda_sync();
        return test_exit_code();
    }
    test_check("cuda nccl communicator: one rank, with a device sum", nc->size == 1 && nc->rank == 0 && nc->sum_f32_device,
               "%s", nc->name);
    test_one_rank_sum(nc);
    test_training("cuda: one-rank training through NCCL (gradient summed by NCCL) = whole-batch run, bitwise", "cuda", nc);
    cuda_sync();
    return test_exit_code();
}

#else // no CUDA backend in this build

int main(void) {
    test_cpu_rank_path();
    test_skip("cuda nccl", "this build has no CUDA backend");
    return test_exit_code();
}

#endif
