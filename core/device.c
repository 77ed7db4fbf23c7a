// core/device.c — `--device` name -> op backend (core/device.h).
#include "device.h"
#include "attention_route.h"
#include "common.h"
#include "ops_cuda.h"
#include "ops_support.h"
#include <stdio.h>
#include <stdlib.h>
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

int device_attention_from_env(void) {
    const char *v = getenv("POSBENCH_ATTENTION");
    if (!v || !*v) return -1;
    int route = attention_route_setting_named(v);
    if (route < 0)
        die_input("environment variable POSBENCH_ATTENTION='%s' is not valid (valid: " ATTENTION_ROUTE_SETTINGS ")", v);
    return route;
}

// The CUDA backend's switches from the environment (core/ops_cuda.h), read whenever a backend
// is chosen (so a bad value is refused on any device; the CPU backends ignore them):
// POSBENCH_LINEAR=gemmex|lt, POSBENCH_KERNELS=v1|v2, POSBENCH_STREAM=legacy|own,
// POSBENCH_ATTENTION=auto|materialised|fused|cudnn|materialised-inplace; unset or empty keeps what is in force (at
// start gemmex, v1, legacy, auto). Any other value is bad input (exit 2).
void device_cuda_switches_from_env(void) {
    int route = device_attention_from_env();
    if (route >= 0) cuda_set_attention_route(route);
    const char *v = getenv("POSBENCH_LINEAR");
    if (v && *v) {
        if (strcmp(v, "gemmex") && strcmp(v, "lt"))
            die_input("environment variable POSBENCH_LINEAR='%s' is not valid (valid: gemmex, lt)", v);
        cuda_set_linear_route(!strcmp(v, "lt") ? CUDA_LINEAR_LT : CUDA_LINEAR_GEMMEX);
    }
    v = getenv("POSBENCH_KERNELS");
    if (v && *v) {
        if (strcmp(v, "v1") && strcmp(v, "v2"))
            die_input("environment variable POSBENCH_KERNELS='%s' is not valid (valid: v1, v2)", v);
        cuda_set_kernels(!strcmp(v, "v2") ? CUDA_KERNELS_V2 : CUDA_KERNELS_V1);
    }
    v = getenv("POSBENCH_STREAM");
    if (v && *v) {
        if (strcmp(v, "legacy") && strcmp(v, "own"))
            die_input("environment variable POSBENCH_STREAM='%s' is not valid (valid: legacy, own)", v);
        cuda_set_stream_mode(!strcmp(v, "own") ? CUDA_STREAM_OWN : CUDA_STREAM_LEGACY);
    }
}

const ops_backend *device_backend(const char *name, char *why, size_t len) {
    if (!name) name = "auto";
    if (!device_name_valid(name)) {
        snprintf(why, len, "--device '%s' is not valid (valid: %s)", name, DEVICE_CHOICES);
        return NULL;
    }
    device_cuda_switches_from_env();
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
