// core/cuda/cublas_lazy.cu — cuBLAS and cuBLASLt opened on first use, not at program start.
// Linked, libcublas / libcublasLt cost every posbench process about 0.15 CPU s at start (their
// relocations and initialisers: `posbench --help` took 0.17 CPU s linked, 0.02 not), also the
// many that never touch a GPU (list, report, CPU training). So
// the binary is not linked against them: this file defines each cuBLAS / cuBLASLt function the
// CUDA backend calls, with the header's own prototype (a mismatch does not compile), and forwards
// it to the library's symbol, opened with dlopen (libcublas.so.<CUBLAS_VER_MAJOR>, which brings
// libcublasLt.so.<major> in) and resolved with dlsym on the function's first call. The library is
// found as the linker would find it: LD_LIBRARY_PATH, the executable's run path (the Makefile's
// CUDA_LIB), the linker cache; POSBENCH_CUBLAS_LIB=FILE names another file. A library that
// cannot be opened, or lacks a symbol, makes the call return CUBLAS_STATUS_NOT_INITIALIZED, and
// cublasGetStatusString then names the library and dlerror's reason, so the caller's usual cuBLAS
// error message says what is missing.
// Adding a cuBLAS call to the backend means adding its line below (the link fails otherwise).
#include <cublasLt.h>
#include <cublas_v2.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define LAZY_STR2(x) #x
#define LAZY_STR(x) LAZY_STR2(x)
#define CUBLAS_SONAME "libcublas.so." LAZY_STR(CUBLAS_VER_MAJOR)

static void *g_lib;           // dlopen's handle; NULL when it failed
static char g_why[512];       // why the library or a symbol is missing
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void open_cublas(void) {
    const char *named = getenv("POSBENCH_CUBLAS_LIB"), *name = named && named[0] ? named : CUBLAS_SONAME;
    g_lib = dlopen(name, RTLD_NOW | RTLD_GLOBAL); // GLOBAL: libcublasLt's symbols too
    if (!g_lib) {
        const char *e = dlerror();
        snprintf(g_why, sizeof g_why, "cuBLAS could not be loaded: %s (posbench opens %s on its first cuBLAS call, "
                 "found through the executable's run path, LD_LIBRARY_PATH or the linker cache; POSBENCH_CUBLAS_LIB "
                 "names another file)", e ? e : "dlopen failed", name);
    }
}

// The address of `name` in libcublas (and libcublasLt, which it loads), or NULL with g_why set.
static void *lazy_symbol(const char *name) {
    pthread_once(&g_once, open_cublas);
    if (!g_lib) return NULL;
    void *f = dlsym(g_lib, name);
    if (!f) snprintf(g_why, sizeof g_why, "the loaded %s has no %s (a cuBLAS older than the headers posbench was "
                     "built with, %d.%d)", CUBLAS_SONAME, name, CUBLAS_VER_MAJOR, CUBLAS_VER_MINOR);
    return f;
}

// Defines function `name` (returning cublasStatus_t) with parameter list `params`, forwarding
// `args` to the library's `name`, resolved once (a racing second resolution stores the same
// address).
#define LAZY(name, params, args)                                                   \
    extern "C" cublasStatus_t CUBLASWINAPI name params {                           \
        typedef cublasStatus_t(CUBLASWINAPI * fn_t) params;                        \
        static fn_t fn;                                                            \
        fn_t f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);                           \
        if (!f) {                                                                  \
            f = (fn_t)lazy_symbol(#name);                                          \
            if (!f) return CUBLAS_STATUS_NOT_INITIALIZED;                          \
            __atomic_store_n(&fn, f, __ATOMIC_RELEASE);                            \
        }                                                                          \
        return f args;                                                             \
    }

// ---------------------------------------------------------------- cuBLAS
LAZY(cublasCreate_v2, (cublasHandle_t *handle), (handle))
LAZY(cublasSetStream_v2, (cublasHandle_t handle, cudaStream_t streamId), (handle, streamId))
LAZY(cublasSetMathMode, (cublasHandle_t handle, cublasMath_t mode), (handle, mode))
LAZY(cublasSgemm_v2,
     (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k, const float *alpha,
      const float *A, int lda, const float *B, int ldb, const float *beta, float *C, int ldc),
     (handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc))
LAZY(cublasSgemmStridedBatched,
     (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k, const float *alpha,
      const float *A, int lda, long long int strideA, const float *B, int ldb, long long int strideB, const float *beta,
      float *C, int ldc, long long int strideC, int batchCount),
     (handle, transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB, beta, C, ldc, strideC, batchCount))
LAZY(cublasGemmEx,
     (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k, const void *alpha,
      const void *A, cudaDataType Atype, int lda, const void *B, cudaDataType Btype, int ldb, const void *beta, void *C,
      cudaDataType Ctype, int ldc, cublasComputeType_t computeType, cublasGemmAlgo_t algo),
     (handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc, computeType, algo))
LAZY(cublasGemmStridedBatchedEx,
     (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k, const void *alpha,
      const void *A, cudaDataType Atype, int lda, long long int strideA, const void *B, cudaDataType Btype, int ldb,
      long long int strideB, const void *beta, void *C, cudaDataType Ctype, int ldc, long long int strideC,
      int batchCount, cublasComputeType_t computeType, cublasGemmAlgo_t algo),
     (handle, transa, transb, m, n, k, alpha, A, Atype, lda, strideA, B, Btype, ldb, strideB, beta, C, Ctype, ldc,
      strideC, batchCount, computeType, algo))

LAZY(cublasGemmBatchedEx,
     (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k, const void *alpha,
      const void *const Aarray[], cudaDataType Atype, int lda, const void *const Barray[], cudaDataType Btype, int ldb,
      const void *beta, void *const Carray[], cudaDataType Ctype, int ldc, int batchCount,
      cublasComputeType_t computeType, cublasGemmAlgo_t algo),
     (handle, transa, transb, m, n, k, alpha, Aarray, Atype, lda, Barray, Btype, ldb, beta, Carray, Ctype, ldc,
      batchCount, computeType, algo))

// The library's text for status, or, when the library or a symbol is missing, why.
extern "C" const char *CUBLASWINAPI cublasGetStatusString(cublasStatus_t status) {
    typedef const char *(CUBLASWINAPI * fn_t)(cublasStatus_t);
    static fn_t fn;
    if (status == CUBLAS_STATUS_NOT_INITIALIZED && g_why[0]) return g_why; // this file's own failure
    fn_t f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) {
        f = (fn_t)lazy_symbol("cublasGetStatusString");
        if (!f) return g_why;
        __atomic_store_n(&fn, f, __ATOMIC_RELEASE);
    }
    return f(status);
}

// ---------------------------------------------------------------- cuBLASLt
LAZY(cublasLtCreate, (cublasLtHandle_t *lightHandle), (lightHandle))
LAZY(cublasLtMatmulDescCreate, (cublasLtMatmulDesc_t *matmulDesc, cublasComputeType_t computeType, cudaDataType_t scaleType),
     (matmulDesc, computeType, scaleType))
LAZY(cublasLtMatmulDescSetAttribute,
     (cublasLtMatmulDesc_t matmulDesc, cublasLtMatmulDescAttributes_t attr, const void *buf, size_t sizeInBytes),
     (matmulDesc, attr, buf, sizeInBytes))
LAZY(cublasLtMatrixLayoutCreate, (cublasLtMatrixLayout_t *matLayout, cudaDataType type, uint64_t rows, uint64_t cols, int64_t ld),
     (matLayout, type, rows, cols, ld))
LAZY(cublasLtMatmulPreferenceCreate, (cublasLtMatmulPreference_t *pref), (pref))
LAZY(cublasLtMatmulPreferenceDestroy, (cublasLtMatmulPreference_t pref), (pref))
LAZY(cublasLtMatmulPreferenceSetAttribute,
     (cublasLtMatmulPreference_t pref, cublasLtMatmulPreferenceAttributes_t attr, const void *buf, size_t sizeInBytes),
     (pref, attr, buf, sizeInBytes))
LAZY(cublasLtMatmulAlgoGetHeuristic,
     (cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t operationDesc, cublasLtMatrixLayout_t Adesc,
      cublasLtMatrixLayout_t Bdesc, cublasLtMatrixLayout_t Cdesc, cublasLtMatrixLayout_t Ddesc,
      cublasLtMatmulPreference_t preference, int requestedAlgoCount, cublasLtMatmulHeuristicResult_t heuristicResultsArray[],
      int *returnAlgoCount),
     (lightHandle, operationDesc, Adesc, Bdesc, Cdesc, Ddesc, preference, requestedAlgoCount, heuristicResultsArray,
      returnAlgoCount))
LAZY(cublasLtMatmul,
     (cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc, const void *alpha, const void *A,
      cublasLtMatrixLayout_t Adesc, const void *B, cublasLtMatrixLayout_t Bdesc, const void *beta, const void *C,
      cublasLtMatrixLayout_t Cdesc, void *D, cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t *algo,
      void *workspace, size_t workspaceSizeInBytes, cudaStream_t stream),
     (lightHandle, computeDesc, alpha, A, Adesc, B, Bdesc, beta, C, Cdesc, D, Ddesc, algo, workspace,
      workspaceSizeInBytes, stream))
