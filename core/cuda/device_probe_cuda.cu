// core/cuda/device_probe_cuda.cu — whether this process can use the CUDA backend (core/ops_cuda.h:
// cuda_built, cuda_usable, cuda_device_name), asked in a child process. The question must not
// initialise CUDA in the caller: `posbench run` asks it (validating --device) and then forks one
// process per run, and a CUDA context does not survive fork — every forked run failed its first
// cudaMalloc with "initialization error" (seen on the H200, reproduce-mp3 SCALE=smoke
// DEVICE=cuda). The child runs cudaGetDeviceCount and cudaGetDeviceProperties, sends the answer
// through a pipe and exits; the caller initialises CUDA only when it first allocates. Where fork
// or the pipe fails, the probe runs in the caller (correct, only not fork-safe afterwards).
#include "ops_cuda_internal.cuh"
extern "C" {
#include "../ops_cuda.h"
}
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct {
    int usable;
    char reason[256]; // why not, when not usable
    char name[256];   // the GPU's name, when usable
} cuda_probe_answer;

// The probe itself: initialises CUDA in the calling process.
static void probe_in_this_process(cuda_probe_answer *a) {
    memset(a, 0, sizeof *a);
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        snprintf(a->reason, sizeof a->reason, "no usable GPU: %s (%s)", cudaGetErrorName(err),
                 cudaGetErrorString(err));
        cudaGetLastError(); // reset the last-error state so later calls do not report this one
    } else if (count == 0) {
        snprintf(a->reason, sizeof a->reason, "no GPU found (cudaGetDeviceCount = 0)");
    } else {
        cudaDeviceProp prop;
        err = cudaGetDeviceProperties(&prop, 0);
        if (err != cudaSuccess) {
            snprintf(a->reason, sizeof a->reason, "GPU 0 cannot be queried: %s", cudaGetErrorString(err));
        } else if (prop.major < 8) {
            snprintf(a->reason, sizeof a->reason, "GPU 0 (%.160s) is sm_%d%d; this build targets sm_80 and sm_90",
                     prop.name, prop.major, prop.minor);
        } else {
            snprintf(a->name, sizeof a->name, "%s", prop.name);
            a->usable = 1;
        }
    }
}

// The probe in a child process; 0 when the child could not be run or did not answer.
static int probe_in_child(cuda_probe_answer *a) {
    int fds[2];
    if (pipe(fds) != 0) return 0;
    fflush(NULL); // the child exits with _exit: nothing of the caller's buffers is written twice
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return 0;
    }
    if (pid == 0) {
        close(fds[0]);
        cuda_probe_answer mine;
        probe_in_this_process(&mine);
        ssize_t w = write(fds[1], &mine, sizeof mine);
        _exit(w == (ssize_t)sizeof mine ? 0 : 1);
    }
    close(fds[1]);
    size_t got = 0;
    while (got < sizeof *a) {
        ssize_t r = read(fds[0], (char *)a + got, sizeof *a - got);
        if (r <= 0) break;
        got += (size_t)r;
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) break;
    }
    if (got != sizeof *a) return 0;
    a->reason[sizeof a->reason - 1] = '\0';
    a->name[sizeof a->name - 1] = '\0';
    return 1;
}

static cuda_probe_answer answer;

extern "C" int cuda_built(void) { return 1; }

extern "C" int cuda_usable(char *why, size_t len) {
    static int checked = 0;
    if (!checked) {
        checked = 1;
        if (!probe_in_child(&answer)) probe_in_this_process(&answer);
    }
    if (!answer.usable && why && len) snprintf(why, len, "%s", answer.reason);
    return answer.usable;
}

extern "C" const char *cuda_device_name(void) { return answer.name; }
