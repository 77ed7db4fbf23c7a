// tests/test_cublas_lazy.c — cuBLAS and cuBLASLt opened on first use (core/cuda/cublas_lazy.cu),
// checked without a GPU: the library is not in the process before the first cuBLAS call and is
// after it; calls reach the library (cublasGetStatusString(0) is the library's text, "success";
// a cuBLASLt matmul preference, a host-side object, is created and destroyed); with
// POSBENCH_CUBLAS_LIB naming a missing file a call returns CUBLAS_STATUS_NOT_INITIALIZED and the
// status text names the file and the loader's reason (in a child process: the library is opened
// once per process). A build without the CUDA backend prints one SKIP line.
// The prototypes below are cuBLAS's (cublas_api.h, cublasLt.h) with its handle and enum types
// spelt as the pointers and ints they are: the test programs are compiled without CUDA's headers.
#include "testing.h"
#include <stdio.h>

#ifdef POSBENCH_CUDA
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

const char *cublasGetStatusString(int status);
int cublasLtMatmulPreferenceCreate(void **pref);
int cublasLtMatmulPreferenceDestroy(void *pref);
enum { STATUS_SUCCESS = 0, STATUS_NOT_INITIALIZED = 1 };

// Is a file whose name holds `lib` mapped into this process?
static int mapped(const char *lib) {
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return -1;
    char line[4096];
    int found = 0;
    while (fgets(line, sizeof line, f))
        if (strstr(line, lib)) found = 1;
    fclose(f);
    return found;
}

int main(void) {
    int before = mapped("libcublasLt.so");
    test_check("cublas lazy: libcublasLt is not loaded at start", before == 0, "mapped before the first call: %d", before);

    // The missing-library path, in a child before this process opens the library.
    int fds[2];
    if (pipe(fds) != 0) {
        test_fail("cublas lazy: missing library", "pipe failed");
        return test_exit_code();
    }
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        setenv("POSBENCH_CUBLAS_LIB", "/nonexistent/libcublas.so.99", 1);
        void *pref = NULL;
        char out[1024];
        int st = cublasLtMatmulPreferenceCreate(&pref);
        snprintf(out, sizeof out, "%d %s", st, cublasGetStatusString(st));
        ssize_t w = write(fds[1], out, strlen(out) + 1);
        _exit(w > 0 ? 0 : 1);
    }
    close(fds[1]);
    char got[1024] = "";
    ssize_t n = pid > 0 ? read(fds[0], got, sizeof got - 1) : -1;
    got[n > 0 ? n : 0] = '\0';
    close(fds[0]);
    int status = 0;
    if (pid > 0) waitpid(pid, &status, 0);
    test_check("cublas lazy: a missing library makes the call fail and the status text name the file",
               atoi(got) == STATUS_NOT_INITIALIZED && strstr(got, "/nonexistent/libcublas.so.99") &&
                   strstr(got, "cuBLAS could not be loaded"),
               "child said: %.300s", got);

    const char *text = cublasGetStatusString(STATUS_SUCCESS);
    test_check("cublas lazy: calls reach the library (its status text)", text && strcasestr(text, "success") && !strstr(text, "could not be loaded"),
               "cublasGetStatusString(0) = %s", text ? text : "(null)");
    int after = mapped("libcublasLt.so");
    test_check("cublas lazy: libcublasLt is loaded after the first call", after == 1, "mapped: %d", after);
    void *pref = NULL;
    int made = cublasLtMatmulPreferenceCreate(&pref), gone = pref ? cublasLtMatmulPreferenceDestroy(pref) : -1;
    test_check("cublas lazy: a cuBLASLt matmul preference is created and destroyed", made == STATUS_SUCCESS && gone == STATUS_SUCCESS,
               "create %d, destroy %d", made, gone);
    return test_exit_code();
}
#else
int main(void) {
    test_skip("cublas lazy", "this build has no CUDA backend");
    return 0;
}
#endif
