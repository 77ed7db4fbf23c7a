// core/device.c — `--device` name -> op backend (core/device.h).
#include "device.h"
#include "ops_cuda.h"
#include "ops_support.h"
#include <stdio.h>
#include <string.h>

int device_name_valid(const char *name) {
    return name && (!strcmp(name, "auto") || !strcmp(name, "cpu") || !strcmp(name, "cpu-guarded") || !strcmp(name, "cuda"));
}

// b itself when it implements every op of core/ops_list.h; a partial backend's table with its
// missing ops filled by stand-ins that die naming the op (core/ops_support.h).
static const ops_backend *complete(const ops_backend *b) {
    static ops_backend cpu, guarded, cuda;
    ops_backend *storage = b == &ops_cpu ? &cpu : b == &ops_cpu_guarded ? &guarded : &cuda;
    return ops_complete(b, storage);
}

const ops_backend *device_backend(const char *name, char *why, size_t len) {
    if (!name) name = "auto";
    if (!device_name_valid(name)) {
        snprintf(why, len, "--device '%s' is not valid (valid: %s)", name, DEVICE_CHOICES);
        return NULL;
    }
    if (!strcmp(name, "cpu")) return complete(&ops_cpu);
    if (!strcmp(name, "cpu-guarded")) return complete(&ops_cpu_guarded);
    char cuda_why[256];
    int usable = cuda_usable(cuda_why, sizeof cuda_why);
#ifdef POSBENCH_CUDA
    if (usable) return complete(&ops_cuda);
#endif
    if (!strcmp(name, "auto")) return complete(&ops_cpu);
    snprintf(why, len, "--device cuda: %s (use --device cpu or auto)", usable ? "no CUDA backend in this build" : cuda_why);
    return NULL;
}
