// core/ops_cuda.h — the CUDA backend as C sees it: whether it was built, whether a GPU can run
// it, device memory, and the op table `ops_cuda`. The ops keep core/ops_list.h's contracts exactly
// (shapes, accumulation, fixed-order reductions); every pointer an op takes is a device
// pointer, and ops run on the backend's one stream (core/cuda/cuda_stream.h) in call order. Built when nvcc is found
// (the Makefile defines POSBENCH_CUDA=1 and compiles core/cuda/*.cu); without it,
// core/cuda_absent.c answers "not built" and `ops_cuda` does not exist.
#pragma once
#include <stddef.h>
#include "ops.h"

#ifdef __cplusplus
extern "C" {
#endif

int cuda_built(void); // 1 when this binary holds the CUDA backend
// 1 when the CUDA backend is built and a GPU can run it; otherwise 0 and the reason in why.
int cuda_usable(char *why, size_t len);
const char *cuda_device_name(void); // the GPU's name once cuda_usable said yes, else ""

// Device memory. Each dies (exit 1) with a message naming `what` and the CUDA error.
void *cuda_alloc(size_t bytes, const char *what); // zeroed
void cuda_free(void *p);                          // NULL is fine
void cuda_to_device(void *dst, const void *src, size_t bytes);
void cuda_to_host(void *dst, const void *src, size_t bytes);
void cuda_sync(void); // waits for every op launched so far; dies naming a failed kernel's error

// Which attention the CUDA backend trains with (attention_desc.keep_probs == 0), process-wide:
// AUTO the size rule (the materialised bf16 route, core/cuda/attention_gemm_cuda.cu, when
// train.precision is bf16 and T, M <= 1024; else the fused online-softmax fp32 kernels),
// MATERIALISED that route whenever the precision is bf16, FUSED the fused kernels always, CUDNN
// cuDNN's flash attention (core/cuda/attention_cudnn.cpp) for the bf16 calls it can express (no
// key subset, group mask or bias) when libcudnn loads, else AUTO's choice (core/attention_route.c).
// MATERIALISED_INPLACE is MATERIALISED whose bf16-storage calls (train.activations=bf16) read and
// write their operands in place, without the head-major packs and unpacks, where the rows allow it
// (no kv_index, 16-byte aligned head matrices: core/attention_gemm_layout.h attn_inplace_usable;
// other calls pack as MATERIALISED does); not yet measured on a GPU, so not what AUTO takes.
// Set it before building a model: the attention state is sized by the route. The environment
// variable POSBENCH_ATTENTION=auto|materialised|fused|cudnn|materialised-inplace sets it when the backend is chosen
// (core/device.c); the key train.attention and `posbench bench --attention` set it for a run. A
// build without CUDA ignores it.
enum { CUDA_ATTN_AUTO = 0, CUDA_ATTN_MATERIALISED = 1, CUDA_ATTN_FUSED = 2, CUDA_ATTN_CUDNN = 3, CUDA_ATTN_MATERIALISED_INPLACE = 4 };
void cuda_set_attention_route(int route);
int cuda_attention_route(void); // the setting in force (CUDA_ATTN_AUTO without CUDA)
// The route (core/attention_route.h's attention_route) that attention_forward / attention_backward
// take for d under the setting and matmul precision in force (under CUDNN this prepares the
// shape's graphs, as the call would); -1 in a build without CUDA.
int cuda_attention_route_of(const attention_desc *d);
// The route of attention_kv_forward_bf16 / attention_kv_backward_bf16 (the compact layout: q (B, T, C)
// and k|v (B, M, 2C) apart): the same rule, with the cuDNN route's answer for that layout.
int cuda_attention_kv_route_of(const attention_desc *d);
// Calls (forwards and backwards) so far that read and wrote their operands in place under
// MATERIALISED_INPLACE (core/cuda/attention_gemm_cuda.cu); the others of that setting packed. 0
// without CUDA. The parity cases check that the path they name ran.
long cuda_attention_inplace_calls(void);
// 1 when the CUDNN route can run: compiled in (the cuDNN frontend headers were found at build
// time), libcudnn loads at run time (POSBENCH_CUDNN_LIB names the file, else libcudnn.so.9 on the
// loader's path), its major version is the headers' and a cuDNN handle could be created (a GPU);
// otherwise 0 and the reason in why. The answer is kept; a failed load is retried when
// POSBENCH_CUDNN_LIB names another file.
int cuda_attention_cudnn_available(char *why, size_t len);

// How the CUDA backend multiplies its linear layers under train.precision=bf16, process-wide
// (fp32 always takes cublasSgemm): GEMMEX (the default) converts both operands to bf16 and
// calls cublasGemmEx with the bias written first and read back (beta = 1); LT calls cublasLtMatmul
// with the bias in its epilogue, an algorithm chosen once per shape and cached, the bf16 copy
// of each weight kept until the weights change (core/cuda/linear_lt_cuda.cu). The environment
// variable POSBENCH_LINEAR=gemmex|lt sets it when the backend is chosen (core/device.c);
// `posbench bench --linear` overrides. A build without CUDA ignores it.
enum { CUDA_LINEAR_GEMMEX = 0, CUDA_LINEAR_LT = 1 };
void cuda_set_linear_route(int route);
int cuda_linear_route(void); // the route in force (CUDA_LINEAR_GEMMEX without CUDA)
// Which elementwise kernels the CUDA backend runs: V1 (the default) one element per thread;
// V2 16-byte vectors with a grid-stride loop and 32-bit indices (GELU, residual, LayerNorm,
// column sums, the bf16 conversion, AdamW in one launch over the parameter arena), bitwise
// equal to V1 element by element. POSBENCH_KERNELS=v1|v2 sets it when the backend is chosen;
// `posbench bench --kernels` overrides.
enum { CUDA_KERNELS_V1 = 1, CUDA_KERNELS_V2 = 2 };
void cuda_set_kernels(int version);
// The stream the CUDA backend issues its work on (core/cuda/cuda_stream.h): CUDA_STREAM_LEGACY,
// the legacy default stream (the default until a GPU call has passed its parity and whole-run
// checks with the backend's own stream), or CUDA_STREAM_OWN, a non-blocking stream of its own,
// which a CUDA graph of the training step needs (train.graph=on captures only on it).
// Environment: POSBENCH_STREAM=legacy|own (core/device.c). Set before the first CUDA op.
enum { CUDA_STREAM_LEGACY = 0, CUDA_STREAM_OWN = 1 };
void cuda_set_stream_mode(int mode);
int cuda_kernels(void); // the version in force (CUDA_KERNELS_V1 without CUDA)

#ifdef POSBENCH_CUDA
extern const ops_backend ops_cuda;
#endif

#ifdef __cplusplus
}
#endif
