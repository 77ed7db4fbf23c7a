// core/cuda/graph_cuda.cu — CUDA graphs of a step (core/ops_list.h "CUDA graphs of a step"):
// stream capture on the backend's stream (cuda_stream.h), thread-local mode, so a call that
// cannot be captured (a download, a synchronize, a synchronous allocation) invalidates the
// capture and graph_end says why instead of hanging; one instantiated graph is kept (the step
// of the run) and replaced by the next successful capture. A replay reads its per-step values
// from the device addresses captured (core/ops.h STEP_*, the step's inputs uploaded from pinned
// buffers), so the caller uploads them before each replay. Pinned uploads inside the graph are
// memcpy nodes from the same host addresses: after a replay every pinned range counts as read
// by it (memory_cuda.cu's upload_wait waits for the replay), and every cached bf16 weight copy
// (linear_lt_cuda.cu) is stale after it: host bookkeeping inside the captured ops ran once, at
// the capture, not at each replay. CPU twin: core/cpu/graph_cpu.c.
#include "ops_cuda_internal.cuh"
#include "graph_capture.h"
#include <stdio.h>

static cudaGraph_t graph;
static cudaGraphExec_t graph_exec;
static const char *refused; // why the capture in progress cannot be used (graph_capture.h)

int cuda_graph_capturing(void) {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    CUDA_CHECK(cudaStreamIsCapturing(cuda_stream(), &status));
    return status != cudaStreamCaptureStatusNone;
}

void cuda_graph_refuse(const char *why) {
    if (!refused) refused = why;
}

int cuda_graph_begin(char *why, size_t len) {
    refused = NULL;
    if (!cuda_stream()) { // the legacy default stream cannot be captured
        if (why && len)
            snprintf(why, len, "the backend issues its work on the legacy default stream, which cannot be captured "
                     "(POSBENCH_STREAM=own gives it a stream of its own)");
        return 0;
    }
    cudaError_t err = cudaStreamBeginCapture(cuda_stream(), cudaStreamCaptureModeThreadLocal);
    if (err != cudaSuccess) {
        if (why && len) snprintf(why, len, "cudaStreamBeginCapture failed: %s", cudaGetErrorString(err));
        (void)cudaGetLastError(); // handled here: the caller runs eagerly
        return 0;
    }
    return 1;
}

int cuda_graph_end(char *why, size_t len) {
    cudaGraph_t captured = NULL;
    cudaError_t err = cudaStreamEndCapture(cuda_stream(), &captured);
    cudaGraphExec_t exec = NULL;
    if (err == cudaSuccess && captured && !refused) err = cudaGraphInstantiate(&exec, captured, 0);
    if (err != cudaSuccess || !captured || refused) {
        if (why && len)
            snprintf(why, len, "the step could not be captured: %s",
                     refused ? refused : err != cudaSuccess ? cudaGetErrorString(err) : "no graph came back");
        refused = NULL;
        (void)cudaGetLastError(); // handled here: the caller issues the step again, eagerly
        if (captured) CUDA_CHECK(cudaGraphDestroy(captured));
        return 0;
    }
    if (graph_exec) CUDA_CHECK(cudaGraphExecDestroy(graph_exec));
    if (graph) CUDA_CHECK(cudaGraphDestroy(graph));
    graph = captured, graph_exec = exec;
    return 1;
}

void cuda_graph_replay(void) {
    if (!graph_exec) die_fail("internal: graph_replay before a graph was built (graph_end said no)");
    CUDA_CHECK(cudaGraphLaunch(graph_exec, cuda_stream()));
    cuda_pinned_uploads_issued(); // its memcpy nodes read the pinned inputs
    cuda_weights_replayed();      // its AdamW wrote parameters the host's bookkeeping did not see
}
