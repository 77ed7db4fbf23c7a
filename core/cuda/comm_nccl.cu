// core/cuda/comm_nccl.cu — the NCCL transport of core/comm.h for CUDA ranks (comm_nccl_attach):
// the gradient summed on the device in rank order (ncclSend / ncclRecv of fixed chunks, a sum
// kernel adding the ranks' copies in rank order, ncclAllGather), bootstrapped through the host
// communicator (MPI: rank 0's ncclUniqueId broadcast), with a non-blocking NCCL communicator
// whose every wait is bounded (ncclCommGetAsyncError polled; POSBENCH_NCCL_TIMEOUT_S). NCCL is
// loaded with dlopen (libnccl.so.2 is ~200 MB: the GPU bundle does not carry it; PyTorch's
// nvidia-nccl wheel or the CUDA toolkit provides it), so only its header is needed to build.
#include "cuda_common.cuh"
#include "../ops_cuda.h"
#include <dlfcn.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
extern "C" {
#include "../comm.h"
}

// The NCCL entry points posbench calls, resolved from the loaded library.
typedef struct {
    ncclResult_t (*GetVersion)(int *);
    ncclResult_t (*GetUniqueId)(ncclUniqueId *);
    ncclResult_t (*CommInitRankConfig)(ncclComm_t *, int, ncclUniqueId, int, ncclConfig_t *);
    ncclResult_t (*CommGetAsyncError)(ncclComm_t, ncclResult_t *);
    ncclResult_t (*CommAbort)(ncclComm_t);
    ncclResult_t (*Send)(const void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
    ncclResult_t (*Recv)(void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
    ncclResult_t (*AllGather)(const void *, void *, size_t, ncclDataType_t, ncclComm_t, cudaStream_t);
    ncclResult_t (*GroupStart)(void);
    ncclResult_t (*GroupEnd)(void);
    const char *(*GetErrorString)(ncclResult_t);
} nccl_api;

static nccl_api api;
static comm world;        // host's, with sum_f32_device
static const comm *host;  // the bootstrap communicator
static ncclComm_t nccl;
static double timeout_s = 300.0;
// Device scratch (grown as needed): the padded send buffer (size × chunk), the received chunks
// (size × chunk), this rank's summed chunk (chunk) and the gathered result (size × chunk).
static float *send_pad, *recv_parts, *my_sum, *gathered;
static size_t scratch_chunk;

// Loads libnccl and resolves every entry point; 0 with why on failure.
static int load_nccl(char *why, size_t len) {
    if (api.GroupEnd) return 1;
    const char *named = getenv("POSBENCH_NCCL_LIB");
    const char *candidates[] = {named && *named ? named : "libnccl.so.2", "libnccl.so", "/usr/local/cuda/lib/libnccl.so.2",
                                "/usr/local/cuda/lib64/libnccl.so.2"};
    void *lib = NULL;
    const char *tried_error = "";
    for (size_t i = 0; !lib && i < sizeof candidates / sizeof candidates[0]; i++) {
        if (i > 0 && named && *named) break; // a named file only
        lib = dlopen(candidates[i], RTLD_NOW | RTLD_LOCAL);
        if (!lib && i == 0) tried_error = dlerror();
    }
    if (!lib) {
        snprintf(why, len, "NCCL not found (%s; set POSBENCH_NCCL_LIB to libnccl.so.2, e.g. from PyTorch's nvidia-nccl "
                 "wheel or the CUDA toolkit's lib directory)", tried_error ? tried_error : "dlopen failed");
        return 0;
    }
#define RESOLVE(field, symbol)                                                                      \
    do {                                                                                            \
        *(void **)&api.field = dlsym(lib, symbol);                                                  \
        if (!api.field) {                                                                           \
            snprintf(why, len, "the loaded NCCL has no %s (NCCL 2.14 or later is needed)", symbol); \
            memset(&api, 0, sizeof api);                                                            \
            return 0;                                                                               \
        }                                                                                           \
    } while (0)
    RESOLVE(GetVersion, "ncclGetVersion");
    RESOLVE(GetUniqueId, "ncclGetUniqueId");
    RESOLVE(CommInitRankConfig, "ncclCommInitRankConfig");
    RESOLVE(CommGetAsyncError, "ncclCommGetAsyncError");
    RESOLVE(CommAbort, "ncclCommAbort");
    RESOLVE(Send, "ncclSend");
    RESOLVE(Recv, "ncclRecv");
    RESOLVE(AllGather, "ncclAllGather");
    RESOLVE(GroupStart, "ncclGroupStart");
    RESOLVE(GetErrorString, "ncclGetErrorString");
    RESOLVE(GroupEnd, "ncclGroupEnd"); // last: api.GroupEnd set means every entry is
#undef RESOLVE
    return 1;
}

// A failed NCCL step: named, the communicator aborted, the job ended (exit 1).
static void nccl_fail(const char *what, ncclResult_t st) {
    fprintf(stderr, "posbench: error: rank %d of %d: NCCL %s failed: %s; aborting the job\n", world.rank, world.size, what,
            api.GetErrorString ? api.GetErrorString(st) : "?");
    if (nccl) api.CommAbort(nccl);
    nccl = NULL;
    host->abort(EXIT_RUN_FAILED);
}

static void check_call(ncclResult_t st, const char *what) {
    if (st != ncclSuccess && st != ncclInProgress) nccl_fail(what, st);
}

// Waits until the communicator has no operation in progress (non-blocking NCCL) and, when
// `stream_too`, the backend stream's work is done; bounded by timeout_s.
static void wait_done(const char *what, int stream_too) {
    double start = now_seconds();
    for (;;) {
        ncclResult_t st = ncclSuccess;
        ncclResult_t got = api.CommGetAsyncError(nccl, &st);
        if (got != ncclSuccess) nccl_fail("ncclCommGetAsyncError", got);
        if (st != ncclSuccess && st != ncclInProgress) nccl_fail(what, st);
        int ready = st == ncclSuccess;
        if (ready && stream_too) {
            cudaError_t q = cudaStreamQuery(cuda_stream());
            if (q != cudaSuccess && q != cudaErrorNotReady) CUDA_CHECK(q);
            ready = q == cudaSuccess;
        }
        if (ready) return;
        if (now_seconds() - start > timeout_s) {
            fprintf(stderr, "posbench: error: rank %d of %d: NCCL %s did not finish within %g s (POSBENCH_NCCL_TIMEOUT_S): "
                    "another rank has died or hangs; aborting the job\n", world.rank, world.size, what, timeout_s);
            api.CommAbort(nccl);
            nccl = NULL;
            host->abort(EXIT_RUN_FAILED);
        }
        usleep(200);
    }
}

// out (chunk) = ((parts[0] + parts[1]) + parts[2]) + ... over `size` parts of `chunk` floats:
// rank order, one rounding per addition (__fadd_rn: never contracted).
__global__ void rank_order_sum_kernel(float *out, const float *parts, int size, size_t chunk) {
    size_t i = flat_index();
    if (i >= chunk) return;
    float acc = parts[i];
    for (int s = 1; s < size; s++) acc = __fadd_rn(acc, parts[(size_t)s * chunk + i]);
    out[i] = acc;
}

// For tests (tests/test_cuda_nccl.c): the device sum of `size` parts in rank order.
extern "C" void comm_nccl_rank_order_sum(float *out, const float *parts, int size, size_t chunk) {
    if (chunk == 0) return;
    rank_order_sum_kernel<<<cuda_blocks(chunk, 256), 256, 0, cuda_stream()>>>(out, parts, size, chunk);
    CUDA_LAUNCH_CHECK();
}

static void grow_scratch(size_t chunk) {
    if (chunk <= scratch_chunk) return;
    cuda_free(send_pad), cuda_free(recv_parts), cuda_free(my_sum), cuda_free(gathered);
    size_t all = chunk * (size_t)world.size * sizeof(float);
    send_pad = (float *)cuda_alloc(all, "NCCL send chunks");
    recv_parts = (float *)cuda_alloc(all, "NCCL received chunks");
    my_sum = (float *)cuda_alloc(chunk * sizeof(float), "NCCL summed chunk");
    gathered = (float *)cuda_alloc(all, "NCCL gathered sums");
    scratch_chunk = chunk;
}

static void nccl_sum_f32_device(float *buf, size_t n) {
    if (n == 0) return;
    int size = world.size;
    size_t chunk = (n + (size_t)size - 1) / (size_t)size, padded = chunk * (size_t)size;
    grow_scratch(chunk);
    CUDA_CHECK(cudaMemcpyAsync(send_pad, buf, n * sizeof(float), cudaMemcpyDeviceToDevice, cuda_stream()));
    if (padded > n) CUDA_CHECK(cudaMemsetAsync(send_pad + n, 0, (padded - n) * sizeof(float), cuda_stream()));
    // Reduce-scatter by hand: chunk c of every rank to rank c.
    check_call(api.GroupStart(), "ncclGroupStart");
    for (int peer = 0; peer < size; peer++) {
        check_call(api.Send(send_pad + (size_t)peer * chunk, chunk, ncclFloat, peer, nccl, cuda_stream()), "ncclSend");
        check_call(api.Recv(recv_parts + (size_t)peer * chunk, chunk, ncclFloat, peer, nccl, cuda_stream()), "ncclRecv");
    }
    check_call(api.GroupEnd(), "ncclGroupEnd");
    wait_done("send/receive of the gradient chunks", 1);
    comm_nccl_rank_order_sum(my_sum, recv_parts, size, chunk);
    check_call(api.AllGather(my_sum, gathered, chunk, ncclFloat, nccl, cuda_stream()), "ncclAllGather");
    wait_done("all-gather of the summed chunks", 1);
    CUDA_CHECK(cudaMemcpyAsync(buf, gathered, n * sizeof(float), cudaMemcpyDeviceToDevice, cuda_stream()));
    CUDA_CHECK(cudaStreamSynchronize(cuda_stream()));
}

extern "C" const comm *comm_nccl_attach(const comm *from, char *why, size_t len) {
    if (nccl) return &world;
    // Every rank or none: each says whether it can, the host sum counts them (a rank that
    // returned alone would leave the others waiting in the broadcast below).
    int mine = cuda_usable(why, len) && load_nccl(why, len);
    double able = mine;
    from->sum_f64(&able, 1);
    if (able < from->size) {
        if (mine) snprintf(why, len, "NCCL cannot be used on %d of the %d ranks", from->size - (int)able, from->size);
        return NULL;
    }
    timeout_s = comm_timeout_seconds("POSBENCH_NCCL_TIMEOUT_S", timeout_s);
    host = from;
    world = *from;
    ncclUniqueId id;
    memset(&id, 0, sizeof id);
    if (from->rank == 0) {
        ncclResult_t st = api.GetUniqueId(&id);
        if (st != ncclSuccess) {
            snprintf(why, len, "ncclGetUniqueId failed: %s", api.GetErrorString(st));
            // the other ranks wait for the id: end the job rather than let them hang
            if (from->size > 1) {
                fprintf(stderr, "posbench: error: rank 0: %s; aborting the job\n", why);
                from->abort(EXIT_RUN_FAILED);
            }
            return NULL;
        }
    }
    from->broadcast(&id, sizeof id, 0);
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0; // calls return at once; wait_done bounds every wait
    ncclResult_t st = api.CommInitRankConfig(&nccl, from->size, id, from->rank, &config);
    if (st != ncclSuccess && st != ncclInProgress) nccl_fail("ncclCommInitRankConfig", st);
    wait_done("communicator setup (ncclCommInitRankConfig)", 0);
    int version = 0;
    api.GetVersion(&version);
    static char name[48];
    snprintf(name, sizeof name, "%s+nccl%d", from->name, version);
    world.name = name;
    world.sum_f32_device = nccl_sum_f32_device;
    return &world;
}
