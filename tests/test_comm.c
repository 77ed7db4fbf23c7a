// tests/test_comm.c — the communicator (core/comm.h): the single-process one leaves buffers
// bit for bit, comm_world without a launcher is it; then, with an MPI build and mpirun, this
// program runs itself on 3 ranks (--ranks) where the rank-ordered sum of float and double
// buffers (lengths 0, 1, 2 < ranks, 1001 and 100003: chunks of unequal length) must equal, bit for
// bit on every rank, ((b_0 + b_1) + b_2) computed here in that order, and a broadcast from rank
// 2 must arrive whole. Values span 12 decades so another order would give other bits.
#include "testing.h"
#include "../core/comm.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static float value_f(int rank, size_t i) { // deterministic, wide range, sign mixed
    unsigned h = (unsigned)(i * 2654435761u) ^ (unsigned)(rank * 40503u + 17u);
    h ^= h >> 13, h *= 0x5bd1e995u, h ^= h >> 15;
    float mant = (float)(h & 0xffffu) / 65536.0f + 0.5f;
    int expo = (int)((h >> 16) % 25u) - 12;
    return ((h >> 31) ? -1.0f : 1.0f) * ldexpf(mant, expo * 3 / 2);
}

static int rank_mode(void) {
    const comm *c = comm_world();
    int ok_all = 1;
    char name[96];
    snprintf(name, sizeof name, "comm mpi: 3 ranks (rank %d)", c->rank);
    if (strcmp(c->name, "mpi") || c->size != 3) {
        test_fail(name, "comm_world is %s with %d ranks (want mpi, 3)", c->name, c->size);
        return 1;
    }
    const size_t lens[] = {0, 1, 2, 1001, 100003};
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        size_t n = lens[k];
        float *f = malloc((n + 1) * sizeof(float)), *want = malloc((n + 1) * sizeof(float));
        double *d = malloc((n + 1) * sizeof(double)), *wantd = malloc((n + 1) * sizeof(double));
        if (!f || !want || !d || !wantd) return 1;
        int order_matters = 0;
        for (size_t i = 0; i < n; i++) {
            f[i] = value_f(c->rank, i);
            d[i] = (double)value_f(c->rank, i) * 1.0000001;
            want[i] = (value_f(0, i) + value_f(1, i)) + value_f(2, i);
            wantd[i] = ((double)value_f(0, i) * 1.0000001 + (double)value_f(1, i) * 1.0000001) + (double)value_f(2, i) * 1.0000001;
            float other = value_f(0, i) + (value_f(1, i) + value_f(2, i));
            if (memcmp(&other, &want[i], sizeof other)) order_matters = 1;
        }
        c->sum_f32(f, n);
        c->sum_f64(d, n);
        int ok = (n == 0 || !memcmp(f, want, n * sizeof(float))) && (n == 0 || !memcmp(d, wantd, n * sizeof(double)));
        snprintf(name, sizeof name, "comm mpi: rank-ordered sum of %zu floats and doubles (rank %d)", n, c->rank);
        if (c->rank == 0 || !ok) test_check(name, ok, "bit for bit ((b0 + b1) + b2)%s", order_matters ? "; another order differs here" : "");
        ok_all &= ok;
        free(f), free(want), free(d), free(wantd);
    }
    char msg[64] = "";
    if (c->rank == 2) snprintf(msg, sizeof msg, "from rank 2: %d", 424242);
    c->broadcast(msg, sizeof msg, 2);
    int ok = !strcmp(msg, "from rank 2: 424242");
    snprintf(name, sizeof name, "comm mpi: broadcast from rank 2 (rank %d)", c->rank);
    if (c->rank == 0 || !ok) test_check(name, ok, "'%s'", msg);
    c->barrier();
    return ok_all && ok ? test_exit_code() : 1;
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "--ranks")) return rank_mode();
    unsetenv("OMPI_COMM_WORLD_SIZE"), unsetenv("PMI_SIZE");
    const comm *s = comm_single();
    float x[5] = {1.0f, -0.0f, NAN, 3e38f, 1e-45f}, y[5];
    memcpy(y, x, sizeof x);
    s->sum_f32(x, 5);
    s->broadcast(x, sizeof x, 0);
    s->barrier();
    test_check("comm single: rank 0 of 1, sum and broadcast leave the buffer bit for bit",
               s->rank == 0 && s->size == 1 && !memcmp(x, y, sizeof x), "rank %d, size %d", s->rank, s->size);
    test_check("comm_world without a launcher is the single-process communicator", comm_world() == s && comm_launched_size() == 0,
               "%s", comm_world()->name);
    if (!comm_mpi_built()) {
        test_skip("comm mpi", "this build has no MPI (mpicc not found at build time: make deps, then make)");
        return test_exit_code();
    }
    if (system("command -v mpirun >/dev/null 2>&1") != 0) {
        test_skip("comm mpi", "mpirun not found (make deps installs openmpi-bin)");
        return test_exit_code();
    }
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "timeout 120 mpirun -np 3 --oversubscribe --allow-run-as-root --bind-to none %s --ranks 2>&1", argv[0]);
    FILE *p = popen(cmd, "r");
    if (!p) {
        test_fail("comm mpi: 3 ranks", "cannot run %s", cmd);
        return test_exit_code();
    }
    char line[1024];
    int lines = 0;
    while (fgets(line, sizeof line, p)) {
        if (!strncmp(line, "PASS ", 5) || !strncmp(line, "FAIL ", 5)) fputs(line, stdout), lines++;
    }
    int rc = pclose(p);
    test_check("comm mpi: the 3-rank job ran and exited 0", rc == 0 && lines >= 6, "status %d, %d result lines", rc, lines);
    return test_exit_code();
}
