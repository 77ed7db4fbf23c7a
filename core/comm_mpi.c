// core/comm_mpi.c — the MPI communicator (core/comm.h), built when the Makefile finds mpicc
// (POSBENCH_MPI). The sum is deterministic and rank-ordered: the buffer is cut into size fixed
// chunks (chunk c = [n c / size, n (c + 1) / size)); MPI_Alltoallv sends chunk c of every rank to
// rank c, which adds the size copies in rank order 0..size-1 itself; MPI_Allgatherv then gives
// every rank every summed chunk. No MPI reduction operation is used, so neither the library's
// algorithm nor timing can change a bit. The two collectives of a sum are non-blocking
// (MPI_Ialltoallv, MPI_Iallgatherv) and their wait is bounded: a rank that waits longer than
// POSBENCH_MPI_TIMEOUT_S seconds (default 300) for the others names the sum and aborts the job
// (exit 1), so a rank that hangs without dying (stopped, deadlocked, a frozen node: the launcher
// sees nothing) ends the job instead of holding every rank forever. The sums are the per-step
// collectives (every rank does the same work between two of them), so they alone carry the
// bound; broadcast and barrier wait for rank 0's own work (evaluation, records, checkpoints),
// which may legitimately take long, and are not bounded. Errors return (MPI_ERRORS_RETURN) and
// are checked: a failing call is named and the job aborted (MPI_Abort, exit 1); die_input / die_fail on any
// rank abort the job too (set_die_hook), so no rank waits forever for one that has gone; a rank
// the launcher ends because another died (SIGTERM) exits 1 with a message (on_sigterm below).
#include "comm.h"
#include "common.h"
#ifdef POSBENCH_MPI
#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static comm world;
static double timeout_s = 300.0; // POSBENCH_MPI_TIMEOUT_S
static void *recv_buf; // size × the largest chunk, grown as needed
static size_t recv_cap;

static void mpi_abort(int code) {
    signal(SIGTERM, SIG_DFL); // this rank is ending the job itself: the launcher's SIGTERM needs no message
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, code);
    exit(code); // MPI_Abort does not return; in case it does
}

static void check(int rc, const char *call) {
    if (rc == MPI_SUCCESS) return;
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    fprintf(stderr, "posbench: error: rank %d of %d: %s failed: %s; aborting the job\n", world.rank, world.size, call, msg);
    mpi_abort(EXIT_RUN_FAILED);
}

static void die_hook(int code) {
    fprintf(stderr, "posbench: rank %d of %d failed (exit %d): aborting the job\n", world.rank, world.size, code);
    mpi_abort(code);
}

static void add_f32(void *acc, const void *x, size_t n) {
    float *a = acc;
    const float *b = x;
    for (size_t i = 0; i < n; i++) a[i] = a[i] + b[i];
}
static void add_f64(void *acc, const void *x, size_t n) {
    double *a = acc;
    const double *b = x;
    for (size_t i = 0; i < n; i++) a[i] = a[i] + b[i];
}

// Waits for a non-blocking collective, polling (MPI_Test: the library makes progress while it is
// called) with a growing pause (up to 1 ms), at most timeout_s seconds; past it names the call
// and what it was for, and aborts the job.
static void wait_bounded(MPI_Request *req, const char *call, size_t n) {
    double start = now_seconds();
    for (long polls = 0;; polls++) {
        int done = 0;
        check(MPI_Test(req, &done, MPI_STATUS_IGNORE), call);
        if (done) return;
        if (now_seconds() - start > timeout_s) {
            fprintf(stderr, "posbench: error: rank %d of %d: %s of a %zu-element sum over the ranks did not finish within "
                    "%g s (POSBENCH_MPI_TIMEOUT_S): another rank hangs (stopped or stuck, not dead: the launcher did not "
                    "notice it); aborting the job; rerun the same command to resume from the last checkpoint\n",
                    world.rank, world.size, call, n, timeout_s);
            mpi_abort(EXIT_RUN_FAILED);
        }
        if (polls > 1000) { // a busy wait first (the usual case: the others are a moment behind), then pauses
            struct timespec pause = {0, polls > 20000 ? 1000000L : 20000L};
            nanosleep(&pause, NULL);
        }
    }
}

static size_t chunk_lo(size_t n, int c, int size) { return n * (size_t)c / (size_t)size; }

static void ordered_sum(void *buf, size_t n, size_t elem, MPI_Datatype type, void (*add)(void *, const void *, size_t)) {
    int size = world.size, me = world.rank;
    if (size == 1 || n == 0) return;
    if (n > (size_t)INT_MAX) {
        fprintf(stderr, "posbench: error: rank %d: a sum over the ranks of %zu elements (at most %d per call)\n", me, n, INT_MAX);
        mpi_abort(EXIT_RUN_FAILED);
    }
    int *counts = xmalloc((size_t)size * 4 * sizeof(int), "MPI chunk counts");
    int *displs = counts + size, *rcounts = counts + 2 * size, *rdispls = counts + 3 * size;
    size_t mine_lo = chunk_lo(n, me, size), mine = chunk_lo(n, me + 1, size) - mine_lo;
    for (int c = 0; c < size; c++) {
        counts[c] = (int)(chunk_lo(n, c + 1, size) - chunk_lo(n, c, size));
        displs[c] = (int)chunk_lo(n, c, size);
        rcounts[c] = (int)mine;
        rdispls[c] = (int)(mine * (size_t)c);
    }
    if (mine * (size_t)size * elem > recv_cap) {
        free(recv_buf);
        recv_cap = mine * (size_t)size * elem;
        recv_buf = xmalloc(recv_cap, "MPI reduce-scatter buffer");
    }
    // Chunk `me` of every rank, rank s's at recv_buf + s × mine.
    MPI_Request req;
    check(MPI_Ialltoallv(buf, counts, displs, type, recv_buf, rcounts, rdispls, type, MPI_COMM_WORLD, &req), "MPI_Ialltoallv");
    wait_bounded(&req, "MPI_Ialltoallv", n);
    char *out = (char *)buf + mine_lo * elem;
    if (mine > 0) { // a rank's chunk is empty when n < size
        memcpy(out, recv_buf, mine * elem);
        for (int s = 1; s < size; s++) add(out, (char *)recv_buf + (size_t)s * mine * elem, mine);
    }
    check(MPI_Iallgatherv(MPI_IN_PLACE, 0, type, buf, counts, displs, type, MPI_COMM_WORLD, &req), "MPI_Iallgatherv");
    wait_bounded(&req, "MPI_Iallgatherv", n);
    free(counts);
}

static void mpi_sum_f32(float *buf, size_t n) { ordered_sum(buf, n, sizeof(float), MPI_FLOAT, add_f32); }
static void mpi_sum_f64(double *buf, size_t n) { ordered_sum(buf, n, sizeof(double), MPI_DOUBLE, add_f64); }

static void mpi_broadcast(void *buf, size_t bytes, int root) {
    for (size_t done = 0; done < bytes;) { // MPI counts are ints
        size_t part = bytes - done < (size_t)INT_MAX ? bytes - done : (size_t)INT_MAX;
        check(MPI_Bcast((char *)buf + done, (int)part, MPI_BYTE, root, MPI_COMM_WORLD), "MPI_Bcast");
        done += part;
    }
}

static void mpi_barrier(void) { check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }

// A rank that dies outright (SIGKILL, a crash, a lost node) cannot say so: the launcher notices
// and names it ("mpirun noticed that process rank 1 ... exited on signal 9"), then ends the
// surviving ranks with SIGTERM (OpenMPI's mpirun: within about a second; its own exit status is
// the dead rank's, 128 + signal, e.g. 137). Each survivor says why it stops and exits 1 at
// once, writing nothing more: checkpoints are written to a temporary file and renamed
// (core/tensorfile.c), so the last complete one is kept and the rerun resumes from it. The
// message is made at MPI_Init; the handler only writes it (async-signal-safe).
static char term_message[320];
static size_t term_length;

static void on_sigterm(int sig) {
    (void)sig;
    ssize_t ignored = write(STDERR_FILENO, term_message, term_length);
    (void)ignored;
    _exit(EXIT_RUN_FAILED);
}

static void catch_launcher_termination(void) {
    int n = snprintf(term_message, sizeof term_message,
                     "posbench: error: rank %d of %d: the launcher ended this rank (SIGTERM): another rank died or "
                     "failed (the launcher's message names it); exit 1, nothing more written; rerun the same command "
                     "to resume from the last checkpoint\n", world.rank, world.size);
    term_length = n > 0 && (size_t)n < sizeof term_message ? (size_t)n : sizeof term_message - 1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigterm;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGTERM, &sa, NULL) != 0) {
        fprintf(stderr, "posbench: error: rank %d: sigaction(SIGTERM) failed: %s\n", world.rank, strerror(errno));
        mpi_abort(EXIT_RUN_FAILED);
    }
}

static void mpi_finalize(void) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
}

int comm_mpi_built(void) { return 1; }

const comm *comm_mpi_init(void) {
    int provided = 0;
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "posbench: error: MPI_Init_thread failed (started by mpirun? see docs/usage.md \"One run across processes\")\n");
        exit(EXIT_RUN_FAILED);
    }
    world = (comm){.name = "mpi", .sum_f32 = mpi_sum_f32, .sum_f64 = mpi_sum_f64, .broadcast = mpi_broadcast,
                   .barrier = mpi_barrier, .abort = mpi_abort};
    check(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
    check(MPI_Comm_rank(MPI_COMM_WORLD, &world.rank), "MPI_Comm_rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &world.size), "MPI_Comm_size");
    if (provided < MPI_THREAD_FUNNELED) {
        fprintf(stderr, "posbench: error: this MPI library gives thread level %d; posbench needs MPI_THREAD_FUNNELED\n", provided);
        mpi_abort(EXIT_RUN_FAILED);
    }
    timeout_s = comm_timeout_seconds("POSBENCH_MPI_TIMEOUT_S", timeout_s); // bad value: exit 2 on every rank
    set_die_hook(die_hook);
    catch_launcher_termination();
    atexit(mpi_finalize);
    return &world;
}
#else
int comm_mpi_built(void) { return 0; }
const comm *comm_mpi_init(void) { return NULL; }
#endif
