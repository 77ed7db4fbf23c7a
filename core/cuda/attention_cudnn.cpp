// core/cuda/attention_cudnn.cpp — the cuDNN flash-attention route of the CUDA backend
// (core/cuda/attention_cudnn.h): training attention that cuDNN's SDPA graph can express (no key
// subset, group mask, bias or kept probabilities; bf16; core/attention_route.c decides) runs as
// cuDNN's fused flash kernels instead of route A's materialised T×M matrices.
//
// One C++17 translation unit around the header-only cuDNN frontend (PyPI's nvidia-cudnn-frontend,
// fetched into the build tree by `make deps-gpu`), behind an extern "C" interface: every frontend
// error and exception is caught here and becomes "not available: reason" (the caller falls back to
// the materialised route). libcudnn is opened with dlopen (NV_CUDNN_FRONTEND_USE_DYNAMIC_LOADING;
// the frontend resolves every cuDNN call through cudnn_frontend::cudnn_dlhandle), never linked.
//
// Per call, with hs = C/H and the layouts of core/attention_cudnn_layout.c:
//   forward   qkv16 (B, T, 3C) = bf16(qkv)                          one vectorised pass
//             O16 (B, T, C), lse (B, H, T) = SDPA(q, k, v) read in place with strides from qkv16,
//             scale 1/sqrt(hs) (our attention's), stats on
//             out = O16 widened to fp32                              one vectorised pass
//   backward  qkv16 = bf16(qkv); O16 = bf16(out) (exact: out is widened O16); dO16 = bf16(dout)
//             dqkv16 (B, T, 3C) = dq | dk | dv of SDPA_backward, written with qkv16's strides,
//             deterministic algorithm (set_deterministic_algorithm(true))
//             dqkv += dqkv16 in fp32                                 one vectorised pass
// MP3's compact bf16 layout (attention_kv_forward_bf16) reads q from q16 (B, T, C) and k, v from
// kv16 (B, M, 2C) in place: SDPA with T queries and M keys, graphs of their own in the cache.
// The saved state is the lse only: B·H·T floats of the caller's buffer. The bf16 copies and
// cuDNN's workspace are transient (cuda_alloc_transient: counted by the memory meter); the handle
// is created once, on the stream every other op uses (cuda_stream.h). Graphs are cached per
// (B, H, T, M, hs, strides) and built on the first forward of a shape, backward included, so a
// shape cuDNN refuses falls back for both passes.
//
// Numerics: flash attention normalises after P·V and rounds dq, dk, dv to bf16, so results agree
// with the CPU op within the bf16 tolerance, not bit for bit (tests/parity/cases_attention_routes.c).
// Run to run they are bitwise equal on one GPU, driver and cuDNN version.
extern "C" {
#include "../attention_cudnn_layout.h"
#include "../common.h"
#include "attention_cudnn.h"
#include "bf16_convert.h"
}
#include <stdio.h>
#include <string.h>

#ifdef POSBENCH_CUDNN
#include "cuda_stream.h"
#include "cuda_transient.h"
#include <cudnn_frontend.h>
#include <cudnn_version.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <exception>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace fe = cudnn_frontend;

// The frontend's dynamic loading resolves every cuDNN symbol from this handle (it is ours to set).
namespace cudnn_frontend {
void *cudnn_dlhandle = nullptr;
}

namespace {

const char *const default_library = "libcudnn.so.9";

// Tensor uids of both graphs.
enum : int64_t { UID_Q = 1, UID_K, UID_V, UID_O, UID_STATS, UID_DO, UID_DQ, UID_DK, UID_DV };

struct loaded_library {
    int tried = 0, loaded = 0;   // dlopen attempted / succeeded (version accepted)
    int handle_tried = 0, ok = 0; // cudnnCreate attempted / the route is available
    std::string name;            // what dlopen was given
    std::string path;            // the file it loaded
    size_t version = 0;          // cudnnGetVersion
    std::string why;             // the reason when not ok
    cudnnHandle_t handle = nullptr;
};
loaded_library lib;

struct shape_graphs {
    attention_cudnn_key key;
    int ok = 0;
    std::string why;
    std::shared_ptr<fe::graph::Graph> fwd, bwd;
    int64_t fwd_ws = 0, bwd_ws = 0;
};
// Intentionally leaked: the graphs' destructors would otherwise run at exit, after the CUDA
// runtime may have been torn down.
std::vector<shape_graphs> &cache = *new std::vector<shape_graphs>;

const char *library_name() {
    const char *e = getenv("POSBENCH_CUDNN_LIB");
    return e && *e ? e : default_library;
}

size_t align256(size_t bytes) { return (bytes + 255) / 256 * 256; }

void copy_why(char *why, size_t len, const std::string &s) {
    if (why && len) snprintf(why, len, "%s", s.c_str());
}

// dlopen + version check; never calls into the frontend (its symbol lookups are cached on first
// use, so nothing may reach them before cudnn_dlhandle is set).
void load_library() {
    const char *name = library_name();
    if (lib.tried && (lib.loaded || lib.name == name)) return;
    lib.tried = 1;
    lib.name = name;
    dlerror();
    void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        lib.why = std::string("cannot load ") + (e ? e : name) +
                  " (set POSBENCH_CUDNN_LIB to the file, or put its directory on LD_LIBRARY_PATH)";
        return;
    }
    using version_fn = size_t (*)(void);
    version_fn get_version = reinterpret_cast<version_fn>(dlsym(h, "cudnnGetVersion"));
    if (!get_version) {
        lib.why = std::string(name) + " has no cudnnGetVersion: not a cuDNN library";
        dlclose(h);
        return;
    }
    lib.version = get_version();
    Dl_info info;
    lib.path = dladdr(reinterpret_cast<void *>(get_version), &info) && info.dli_fname ? info.dli_fname : name;
    if (lib.version / 10000 != CUDNN_MAJOR) {
        char text[256];
        snprintf(text, sizeof text, "%s is cuDNN %zu.%zu.%zu; this build's headers are cuDNN %d", lib.path.c_str(),
                 lib.version / 10000, lib.version / 100 % 100, lib.version % 100, CUDNN_MAJOR);
        lib.why = text;
        dlclose(h);
        return;
    }
    // The frontend opens the CUDA runtime itself; name the one this binary runs on, so a second
    // major version on the path (a PyTorch wheel's) is never picked (a user's choice stands).
    char cudart[32];
    snprintf(cudart, sizeof cudart, "libcudart.so.%d", CUDART_VERSION / 1000);
    setenv("CUDNN_FRONTEND_CUDART_LIB_NAME", cudart, 0);
    fe::cudnn_dlhandle = h;
    lib.loaded = 1;
}

int available(std::string &why) {
    load_library();
    if (!lib.loaded) {
        why = lib.why;
        return 0;
    }
    if (!lib.handle_tried) {
        lib.handle_tried = 1;
        try {
            cudnnStatus_t st = fe::detail::create_handle(&lib.handle);
            if (st == CUDNN_STATUS_SUCCESS) st = fe::detail::set_stream(lib.handle, cuda_stream()); // every op's stream
            if (st != CUDNN_STATUS_SUCCESS) {
                lib.why = std::string("cudnnCreate / cudnnSetStream failed: ") + fe::detail::get_error_string(st);
            } else {
                lib.ok = 1;
            }
        } catch (const std::exception &e) {
            lib.why = std::string("cudnnCreate failed: ") + e.what();
        } catch (...) {
            lib.why = "cudnnCreate failed: unknown exception";
        }
    }
    why = lib.why;
    return lib.ok;
}

std::vector<int64_t> vec(const int64_t a[4]) { return std::vector<int64_t>(a, a + 4); }

std::shared_ptr<fe::graph::Tensor_attributes> input(fe::graph::Graph &g, const char *name, int64_t uid,
                                                    const sdpa_tensor_layout &t) {
    return g.tensor(fe::graph::Tensor_attributes().set_name(name).set_uid(uid).set_dim(vec(t.dim)).set_stride(
        vec(t.stride)));
}

void output(const std::shared_ptr<fe::graph::Tensor_attributes> &x, int64_t uid, const sdpa_tensor_layout &t) {
    x->set_output(true).set_uid(uid).set_dim(vec(t.dim)).set_stride(vec(t.stride));
}

// Throws std::runtime_error naming the step when a frontend call reports an error.
void check(fe::error_t e, const char *step) {
    if (e.is_bad()) throw std::runtime_error(std::string(step) + ": " + e.get_message());
}

void finish(fe::graph::Graph &g, int64_t *workspace, const char *which) {
    check(g.validate(), which);
    check(g.build_operation_graph(lib.handle), which);
    check(g.create_execution_plans({fe::HeurMode_t::A}), which);
    check(g.check_support(lib.handle), which);
    check(g.build_plans(lib.handle), which);
    check(g.get_workspace_size(*workspace), which);
}

std::shared_ptr<fe::graph::Graph> new_graph() {
    auto g = std::make_shared<fe::graph::Graph>();
    g->set_io_data_type(fe::DataType_t::BFLOAT16)
        .set_intermediate_data_type(fe::DataType_t::FLOAT)
        .set_compute_data_type(fe::DataType_t::FLOAT);
    return g;
}

// The forward and backward graphs of one shape: q, k, v, O and dO laid out as L says (the packed
// qkv, or the compact layout's q and k|v with T queries and M keys).
void build(shape_graphs &s, const sdpa_layouts &L, const attention_desc *d) {
    const float scale = 1.0f / sqrtf((float)(d->C / d->H)); // our attention's scale

    s.fwd = new_graph();
    {
        fe::graph::Graph &g = *s.fwd;
        auto q = input(g, "Q", UID_Q, L.q), k = input(g, "K", UID_K, L.k), v = input(g, "V", UID_V, L.v);
        auto opts = fe::graph::SDPA_attributes().set_name("posbench_sdpa").set_generate_stats(true).set_attn_scale(
            scale);
        auto [o, stats] = g.sdpa(q, k, v, opts);
        output(o, UID_O, L.o);
        output(stats, UID_STATS, L.stats);
        stats->set_data_type(fe::DataType_t::FLOAT);
        finish(g, &s.fwd_ws, "forward graph");
    }
    s.bwd = new_graph();
    {
        fe::graph::Graph &g = *s.bwd;
        auto q = input(g, "Q", UID_Q, L.q), k = input(g, "K", UID_K, L.k), v = input(g, "V", UID_V, L.v);
        auto o = input(g, "O", UID_O, L.o), dO = input(g, "dO", UID_DO, L.o);
        auto stats = input(g, "Stats", UID_STATS, L.stats);
        stats->set_data_type(fe::DataType_t::FLOAT);
        auto opts = fe::graph::SDPA_backward_attributes()
                        .set_name("posbench_sdpa_backward")
                        .set_attn_scale(scale)
                        .set_deterministic_algorithm(true);
        auto [dq, dk, dv] = g.sdpa_backward(q, k, v, o, dO, stats, opts);
        output(dq, UID_DQ, L.q);
        output(dk, UID_DK, L.k);
        output(dv, UID_DV, L.v);
        finish(g, &s.bwd_ws, "backward graph");
    }
}

// The layouts and cache key of a call: the packed qkv's (compact 0) or the compact layout's (1).
void layouts_of(const attention_desc *d, int compact, sdpa_layouts *L) {
    if (compact) attention_cudnn_layouts_kv(d->B, d->T, d->M, d->C, d->H, L);
    else attention_cudnn_layouts(d->B, d->T, d->C, d->H, L);
}
attention_cudnn_key key_of(const attention_desc *d, int compact) {
    return compact ? attention_cudnn_key_of_kv(d->B, d->T, d->M, d->C, d->H)
                   : attention_cudnn_key_of(d->B, d->T, d->C, d->H, d->M);
}

shape_graphs *find(const attention_desc *d, int compact) {
    attention_cudnn_key key = key_of(d, compact);
    for (auto &s : cache)
        if (attention_cudnn_key_equal(&s.key, &key)) return &s;
    return nullptr;
}

shape_graphs &ready(const attention_desc *d, int compact, const char *who) {
    shape_graphs *s = find(d, compact);
    if (!s || !s->ok)
        die_fail("%s: the cuDNN route has no graph for B=%d T=%d C=%d H=%d (cuda_attention_cudnn_prepare first)", who,
                 d->B, d->T, d->C, d->H);
    return *s;
}

void run(const fe::graph::Graph &g, std::unordered_map<int64_t, void *> &ptrs, void *ws, const char *who) {
    fe::error_t e;
    try {
        e = g.execute(lib.handle, ptrs, ws);
    } catch (const std::exception &x) {
        die_fail("%s: cuDNN execution failed: %s", who, x.what());
    }
    if (e.is_bad()) die_fail("%s: cuDNN execution failed: %s", who, e.get_message().c_str());
}

// bf16 elements -> bytes, rounded up to the workspace alignment.
size_t bf16_bytes(size_t n) { return align256(n * sizeof(uint16_t)); }

int available_impl(char *why, size_t len) {
    std::string w;
    int ok = available(w);
    copy_why(why, len, ok ? std::string() : w);
    return ok;
}

int prepare_impl(const attention_desc *d, int compact, char *why, size_t len) {
    std::string w;
    if (!available(w)) {
        copy_why(why, len, w);
        return 0;
    }
    shape_graphs *s = find(d, compact);
    if (!s) {
        cache.emplace_back();
        s = &cache.back();
        s->key = key_of(d, compact);
        try {
            sdpa_layouts L;
            layouts_of(d, compact, &L);
            build(*s, L, d);
            s->ok = 1;
        } catch (const std::exception &e) {
            s->why = e.what();
        } catch (...) {
            s->why = "unknown exception";
        }
        if (!s->ok) {
            s->fwd.reset();
            s->bwd.reset();
            fprintf(stderr,
                    "posbench: cuDNN attention not available for B=%d H=%d T=%d M=%d hs=%d%s (%s); the fused "
                    "kernels serve it (core/attention_route.h)\n",
                    d->B, d->H, d->T, d->M, d->C / d->H, compact ? " (compact k|v)" : "", s->why.c_str());
        }
    }
    copy_why(why, len, s->ok ? std::string() : s->why);
    return s->ok;
}

// The passes on bf16 storage, q read in place from q16 and k, v from kv16 through their strides
// (the packed layout: both qkv16 (B, T, 3C); compact: q16 (B, T, C), kv16 (B, M, 2C)): the forward
// writes O into o16 (B, T, C); the backward writes dq into dq16 and dk, dv into dkv16 with the same
// layouts, every element (together they cover every channel). Only the graph's workspace is allocated.
void forward16_impl(uint16_t *o16, float *lse, const uint16_t *q16, const uint16_t *kv16, int compact,
                    const attention_desc *d) {
    shape_graphs &s = ready(d, compact, "attention_forward (cudnn)");
    sdpa_layouts L;
    layouts_of(d, compact, &L);
    void *ws = s.fwd_ws ? cuda_alloc_transient((size_t)s.fwd_ws, "cuDNN attention workspace") : nullptr;
    uint16_t *q = const_cast<uint16_t *>(q16), *kv = const_cast<uint16_t *>(kv16);
    std::unordered_map<int64_t, void *> ptrs = {
        {UID_Q, q + L.q.offset}, {UID_K, kv + L.k.offset}, {UID_V, kv + L.v.offset}, {UID_O, o16}, {UID_STATS, lse}};
    run(*s.fwd, ptrs, ws, "attention_forward (cudnn)");
    cuda_free_transient(ws);
}

void backward16_impl(uint16_t *dq16, uint16_t *dkv16, const uint16_t *do16, const uint16_t *q16, const uint16_t *kv16,
                     const uint16_t *o16, const float *lse, int compact, const attention_desc *d) {
    shape_graphs &s = ready(d, compact, "attention_backward (cudnn)");
    sdpa_layouts L;
    layouts_of(d, compact, &L);
    void *ws = s.bwd_ws ? cuda_alloc_transient((size_t)s.bwd_ws, "cuDNN attention backward workspace") : nullptr;
    uint16_t *q = const_cast<uint16_t *>(q16), *kv = const_cast<uint16_t *>(kv16);
    std::unordered_map<int64_t, void *> ptrs = {
        {UID_Q, q + L.q.offset},       {UID_K, kv + L.k.offset},      {UID_V, kv + L.v.offset},
        {UID_O, const_cast<uint16_t *>(o16)}, {UID_DO, const_cast<uint16_t *>(do16)}, {UID_STATS, const_cast<float *>(lse)},
        {UID_DQ, dq16 + L.q.offset},   {UID_DK, dkv16 + L.k.offset},  {UID_DV, dkv16 + L.v.offset}};
    run(*s.bwd, ptrs, ws, "attention_backward (cudnn)");
    cuda_free_transient(ws);
}

// The fp32 interface: bf16 copies of its inputs in one transient, then the passes above.
void forward_impl(float *out, float *lse, const float *qkv, const attention_desc *d) {
    const size_t n_out = (size_t)d->B * d->T * d->C, n_qkv = 3 * n_out;
    const size_t o_at = bf16_bytes(n_qkv);
    char *ws = (char *)cuda_alloc_transient(o_at + bf16_bytes(n_out), "cuDNN attention (bf16 q, k, v, O)");
    uint16_t *qkv16 = (uint16_t *)ws, *o16 = (uint16_t *)(ws + o_at);
    cuda_f32_to_bf16(qkv16, qkv, n_qkv);
    forward16_impl(o16, lse, qkv16, qkv16, 0, d);
    cuda_bf16_to_f32(out, o16, n_out);
    cuda_free_transient(ws);
}

void backward_impl(float *dqkv, const float *dout, const float *qkv, const float *out, const float *lse,
                   const attention_desc *d) {
    const size_t n_out = (size_t)d->B * d->T * d->C, n_qkv = 3 * n_out;
    const size_t dqkv_at = bf16_bytes(n_qkv), o_at = dqkv_at + bf16_bytes(n_qkv);
    const size_t do_at = o_at + bf16_bytes(n_out), total = do_at + bf16_bytes(n_out);
    char *ws = (char *)cuda_alloc_transient(total, "cuDNN attention backward (bf16 q, k, v, O, dO, dq, dk, dv)");
    uint16_t *qkv16 = (uint16_t *)ws, *dqkv16 = (uint16_t *)(ws + dqkv_at);
    uint16_t *o16 = (uint16_t *)(ws + o_at), *do16 = (uint16_t *)(ws + do_at);
    cuda_f32_to_bf16(qkv16, qkv, n_qkv);
    cuda_f32_to_bf16(o16, out, n_out);
    cuda_f32_to_bf16(do16, dout, n_out);
    backward16_impl(dqkv16, dqkv16, do16, qkv16, qkv16, o16, lse, 0, d);
    cuda_bf16_add_to_f32(dqkv, dqkv16, n_qkv);
    cuda_free_transient(ws);
}

void version_impl(char *buf, size_t len) {
    load_library();
    char found[640];
    if (lib.loaded)
        snprintf(found, sizeof found, "%zu.%zu.%zu at %s", lib.version / 10000, lib.version / 100 % 100,
                 lib.version % 100, lib.path.c_str());
    else
        snprintf(found, sizeof found, "not loaded (%s)", lib.why.c_str());
    snprintf(buf, len,
             "cudnn: attention route compiled in (frontend %d.%d.%d, cuDNN %d.%d.%d headers; loaded at run time; "
             "posbench bench --attention cudnn)\n"
             "cudnn_library: %s\n",
             CUDNN_FRONTEND_MAJOR_VERSION, CUDNN_FRONTEND_MINOR_VERSION, CUDNN_FRONTEND_PATCH_VERSION, CUDNN_MAJOR,
             CUDNN_MINOR, CUDNN_PATCHLEVEL, found);
}

} // namespace

// The C boundary: nothing thrown gets past it. Preparing turns any exception into "not available"
// (the caller falls back); the passes, reached only after a successful prepare, die naming it.
extern "C" int cuda_attention_cudnn_available(char *why, size_t len) {
    try {
        return available_impl(why, len);
    } catch (const std::exception &e) {
        copy_why(why, len, std::string("not available: ") + e.what());
    } catch (...) {
        copy_why(why, len, "not available: unknown exception");
    }
    return 0;
}

extern "C" int cuda_attention_cudnn_prepare(const attention_desc *d, char *why, size_t len) {
    try {
        return prepare_impl(d, 0, why, len);
    } catch (const std::exception &e) {
        copy_why(why, len, std::string("not available: ") + e.what());
    } catch (...) {
        copy_why(why, len, "not available: unknown exception");
    }
    return 0;
}

extern "C" void cuda_attention_cudnn_forward(float *out, float *lse, const float *qkv, const attention_desc *d) {
    try {
        forward_impl(out, lse, qkv, d);
    } catch (const std::exception &e) {
        die_fail("attention_forward (cudnn): %s", e.what());
    } catch (...) {
        die_fail("attention_forward (cudnn): unknown exception");
    }
}

extern "C" void cuda_attention_cudnn_backward(float *dqkv, const float *dout, const float *qkv, const float *out,
                                              const float *lse, const attention_desc *d) {
    try {
        backward_impl(dqkv, dout, qkv, out, lse, d);
    } catch (const std::exception &e) {
        die_fail("attention_backward (cudnn): %s", e.what());
    } catch (...) {
        die_fail("attention_backward (cudnn): unknown exception");
    }
}

extern "C" void cuda_attention_cudnn_forward_bf16(void *out16, float *lse, const void *qkv16, const attention_desc *d) {
    try {
        forward16_impl((uint16_t *)out16, lse, (const uint16_t *)qkv16, (const uint16_t *)qkv16, 0, d);
    } catch (const std::exception &e) {
        die_fail("attention_forward_bf16 (cudnn): %s", e.what());
    } catch (...) {
        die_fail("attention_forward_bf16 (cudnn): unknown exception");
    }
}

extern "C" void cuda_attention_cudnn_backward_bf16(void *dqkv16, const void *dout16, const void *qkv16, const void *out16,
                                                   const float *lse, const attention_desc *d) {
    try {
        backward16_impl((uint16_t *)dqkv16, (uint16_t *)dqkv16, (const uint16_t *)dout16, (const uint16_t *)qkv16,
                        (const uint16_t *)qkv16, (const uint16_t *)out16, lse, 0, d);
    } catch (const std::exception &e) {
        die_fail("attention_backward_bf16 (cudnn): %s", e.what());
    } catch (...) {
        die_fail("attention_backward_bf16 (cudnn): unknown exception");
    }
}

extern "C" int cuda_attention_cudnn_kv_prepare(const attention_desc *d, char *why, size_t len) {
    try {
        return prepare_impl(d, 1, why, len);
    } catch (const std::exception &e) {
        copy_why(why, len, std::string("not available: ") + e.what());
    } catch (...) {
        copy_why(why, len, "not available: unknown exception");
    }
    return 0;
}

extern "C" void cuda_attention_cudnn_kv_forward_bf16(void *out16, float *lse, const void *q16, const void *kv16,
                                                     const attention_desc *d) {
    try {
        forward16_impl((uint16_t *)out16, lse, (const uint16_t *)q16, (const uint16_t *)kv16, 1, d);
    } catch (const std::exception &e) {
        die_fail("attention_kv_forward_bf16 (cudnn): %s", e.what());
    } catch (...) {
        die_fail("attention_kv_forward_bf16 (cudnn): unknown exception");
    }
}

extern "C" void cuda_attention_cudnn_kv_backward_bf16(void *dq16, void *dkv16, const void *dout16, const void *q16,
                                                      const void *kv16, const void *out16, const float *lse,
                                                      const attention_desc *d) {
    try {
        backward16_impl((uint16_t *)dq16, (uint16_t *)dkv16, (const uint16_t *)dout16, (const uint16_t *)q16,
                        (const uint16_t *)kv16, (const uint16_t *)out16, lse, 1, d);
    } catch (const std::exception &e) {
        die_fail("attention_kv_backward_bf16 (cudnn): %s", e.what());
    } catch (...) {
        die_fail("attention_kv_backward_bf16 (cudnn): unknown exception");
    }
}

extern "C" void cuda_attention_cudnn_version_text(char *buf, size_t len) {
    try {
        version_impl(buf, len);
    } catch (const std::exception &e) {
        snprintf(buf, len, "cudnn: attention route compiled in; its state could not be read: %s\n", e.what());
    }
}

#else // the route compiled out: the Makefile found no frontend headers (or no cudnn.h)

// The Makefile's reason: 2 no cudnn.h, else (1, or a build outside it) no frontend headers.
#if defined(POSBENCH_CUDNN_MISSING) && POSBENCH_CUDNN_MISSING == 2
#define POSBENCH_CUDNN_WHY "cudnn.h and cudnn_version.h were not found when posbench was built (make CUDNN_INC=dir)"
#else
#define POSBENCH_CUDNN_WHY "the cuDNN frontend headers were not found when posbench was built (make deps-gpu fetches them)"
#endif

static int compiled_out(char *why, size_t len) {
    if (why && len) snprintf(why, len, "not compiled in: %s", POSBENCH_CUDNN_WHY);
    return 0;
}

extern "C" int cuda_attention_cudnn_available(char *why, size_t len) { return compiled_out(why, len); }

extern "C" int cuda_attention_cudnn_prepare(const attention_desc *d, char *why, size_t len) {
    (void)d;
    return compiled_out(why, len);
}

extern "C" void cuda_attention_cudnn_forward(float *out, float *lse, const float *qkv, const attention_desc *d) {
    (void)out, (void)lse, (void)qkv, (void)d;
    die_fail("attention_forward (cudnn): the cuDNN route is not compiled in: %s", POSBENCH_CUDNN_WHY);
}

extern "C" void cuda_attention_cudnn_backward(float *dqkv, const float *dout, const float *qkv, const float *out,
                                              const float *lse, const attention_desc *d) {
    (void)dqkv, (void)dout, (void)qkv, (void)out, (void)lse, (void)d;
    die_fail("attention_backward (cudnn): the cuDNN route is not compiled in: %s", POSBENCH_CUDNN_WHY);
}

extern "C" void cuda_attention_cudnn_forward_bf16(void *out16, float *lse, const void *qkv16, const attention_desc *d) {
    (void)out16, (void)lse, (void)qkv16, (void)d;
    die_fail("attention_forward_bf16 (cudnn): the cuDNN route is not compiled in: %s", POSBENCH_CUDNN_WHY);
}

extern "C" void cuda_attention_cudnn_backward_bf16(void *dqkv16, const void *dout16, const void *qkv16, const void *out16,
                                                   const float *lse, const attention_desc *d) {
    (void)dqkv16, (void)dout16, (void)qkv16, (void)out16, (void)lse, (void)d;
    die_fail("attention_backward_bf16 (cudnn): the cuDNN route is not compiled in: %s", POSBENCH_CUDNN_WHY);
}

extern "C" int cuda_attention_cudnn_kv_prepare(const attention_desc *d, char *why, size_t len) {
    (void)d;
    return compiled_out(why, len);
}

extern "C" void cuda_attention_cudnn_kv_forward_bf16(void *out16, float *lse, const void *q16, const void *kv16,
                                                     const attention_desc *d) {
    (void)out16, (void)lse, (void)q16, (void)kv16, (void)d;
    die_fail("attention_kv_forward_bf16 (cudnn): the cuDNN route is not compiled in: %s", POSBENCH_CUDNN_WHY);
}

extern "C" void cuda_attention_cudnn_kv_backward_bf16(void *dq16, void *dkv16, const void *dout16, const void *q16,
                                                      const void *kv16, const void *out16, const float *lse,
                                                      const attention_desc *d) {
    (void)dq16, (void)dkv16, (void)dout16, (void)q16, (void)kv16, (void)out16, (void)lse, (void)d;
    die_fail("attention_kv_backward_bf16 (cudnn): the cuDNN route is not compiled in: %s", POSBENCH_CUDNN_WHY);
}

extern "C" void cuda_attention_cudnn_version_text(char *buf, size_t len) {
    snprintf(buf, len, "cudnn: attention route not compiled in (%s)\n", POSBENCH_CUDNN_WHY);
}

#endif
