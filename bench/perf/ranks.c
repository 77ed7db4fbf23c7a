// bench/perf/ranks.c — `posbench bench --ranks N` (ranks.h). Both sides are real `posbench
// train` runs of this binary (/proc/self/exe) in a temporary directory ($TMPDIR or /tmp, removed
// when both finished, kept with their logs when one failed), started from argument vectors (no
// shell), the N-rank one by mpirun; their /final step_time_ms (the median over the run's steps,
// evaluation excluded) are compared. Communication per step and rank, from core/comm_mpi.c's algorithm: the
// reduce-scatter sends (N-1)/N of the gradient and the all-gather sends the rank's chunk to the
// N-1 others: 2 (N-1)/N × 4 bytes × parameters (plus N doubles of losses).
#include "ranks.h"
#include "../results/results_read.h"
#include "../run/launch.h"
#include "../../core/comm.h"
#include "../../core/safe_file.h"
#include "../../core/common.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// The run's /final step_time_ms and params, from the one .h5 under dir; 0 ok.
static int read_run(const char *dir, double *step_ms, double *params) {
    char **paths = NULL, err[512];
    int n = 0;
    if (rr_find_files(dir, "*.h5", &paths, &n, err, sizeof err) != 0 || n != 1) {
        error_msg("bench --ranks: no finished run in %s", dir);
        for (int i = 0; i < n; i++) free(paths[i]);
        free(paths);
        return -1;
    }
    rr_run r;
    int rc = rr_read(paths[0], RR_ATTRS, &r, err, sizeof err);
    if (rc == 0) {
        const rr_attr *t = rr_attr_get(&r.final, "step_time_ms"), *p = rr_attr_get(&r.final, "params");
        *step_ms = t ? t->num : 0.0, *params = p ? p->num : 0.0;
        rr_free(&r);
    } else {
        error_msg("bench --ranks: %s", err);
    }
    for (int i = 0; i < n; i++) free(paths[i]);
    free(paths);
    return rc;
}

int bench_ranks(int ranks, int iters, int threads) {
    if (ranks < 2) die_input("--ranks needs 2 or more (got %d)", ranks);
    if (!comm_mpi_built())
        die_input("--ranks needs a posbench built with MPI (mpicc was not found at build time: make deps, then make)");
    if (!launch_mpirun_found()) die_input("--ranks needs mpirun (make deps installs openmpi-bin)");
    char exe[PATH_MAX];
    if (self_exe_path(exe, sizeof exe) != 0) die_fail("bench --ranks: cannot find this program (/proc/self/exe): %s", strerror(errno));
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !tmp[0]) tmp = "/tmp";
    if (strlen(tmp) > 3900) die_input("bench --ranks: TMPDIR is %zu bytes long (at most 3900)", strlen(tmp));
    char dir[4000];
    snprintf(dir, sizeof dir, "%.3900s/posbench-ranks.XXXXXX", tmp);
    if (!mkdtemp(dir)) die_fail("bench --ranks: cannot make a temporary directory %s: %s", vis(dir), strerror(errno));
    int per_rank = threads / ranks > 0 ? threads / ranks : 1, batch = ranks * ((64 + ranks - 1) / ranks);
    char cfg[512];
    snprintf(cfg, sizeof cfg,
             "data.limit=%d data.test_limit=100 eval.batch=100 eval.samples=0 train.batch=%d train.steps=%d "
             "model.dim=64 model.depth=4 model.heads=4 model.patch=4", batch * (iters + 1), batch, iters);
    printf("bench --ranks %d: ViT d 64, 4 blocks, patch 4 on 28 px Fashion-MNIST, global batch %d, %d steps; "
           "one process with %d thread(s) against %d ranks of %d thread(s)\n", ranks, batch, iters, per_rank * ranks, ranks, per_rank);
    fflush(stdout);
    // Both runs' arguments, one word each (no shell): train, the config's key=value words, then
    // --threads T --out DIR/<side>, with this program in front of the one-process run.
    char *args[24], threads_s[16], one_out[PATH_MAX], one_log[PATH_MAX], ranks_out[PATH_MAX], ranks_log[PATH_MAX];
    int nargs = 0;
    args[nargs++] = exe;
    args[nargs++] = "train";
    for (char *save = NULL, *w = strtok_r(cfg, " ", &save); w; w = strtok_r(NULL, " ", &save)) args[nargs++] = w;
    snprintf(threads_s, sizeof threads_s, "%d", per_rank * ranks);
    snprintf(one_out, sizeof one_out, "%s/one", dir);
    snprintf(one_log, sizeof one_log, "%s/one.log", dir);
    snprintf(ranks_out, sizeof ranks_out, "%s/ranks", dir);
    snprintf(ranks_log, sizeof ranks_log, "%s/ranks.log", dir);
    int keys_end = nargs;
    args[nargs++] = "--threads", args[nargs++] = threads_s, args[nargs++] = "--out", args[nargs++] = one_out;
    args[nargs] = NULL;
    if (setenv("POSBENCH_PROGRESS", "plain", 1) != 0) die_fail("bench --ranks: setenv failed");
    int rc1 = launch_logged(args, one_log);
    snprintf(threads_s, sizeof threads_s, "%d", per_rank);
    nargs = keys_end;
    args[nargs++] = "--threads", args[nargs++] = threads_s, args[nargs++] = "--out", args[nargs++] = ranks_out;
    int rcN = launch_ranks(ranks, args + 1, nargs - 1, ranks_log, 1); // oversubscribed when ranks > cores (the note below)
    double t1 = 0, tN = 0, p1 = 0, pN = 0;
    int status = 0;
    if (rc1 != 0 || rcN != 0 || read_run(one_out, &t1, &p1) || read_run(ranks_out, &tN, &pN)) {
        error_msg("bench --ranks: a training failed (one process: status %d, %d ranks: status %d); "
                "logs kept in %s", rc1, ranks, rcN, dir);
        return EXIT_RUN_FAILED;
    }
    double bytes = 2.0 * (ranks - 1) / ranks * 4.0 * pN + 2.0 * (ranks - 1) * 8.0;
    printf("%-6s %-8s %-14s %-8s %-11s %-10s %s\n", "ranks", "batch", "step ms (med)", "speedup", "efficiency", "params",
           "sent per rank per step");
    printf("%-6d %-8d %-14.2f %-8s %-11s %-10.0f %s\n", 1, batch, t1, "1.00", "100%", p1, "0");
    char eff[32];
    snprintf(eff, sizeof eff, "%.0f%%", 100.0 * t1 / (ranks * tN));
    printf("%-6d %-8d %-14.2f %-8.2f %-11s %-10.0f %.2f MB (gradient reduce-scatter + all-gather, rank-ordered sums)\n", ranks,
           batch, tN, t1 / tN, eff, pN, bytes / 1e6);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores > 0 && (long)ranks * per_rank > cores)
        printf("note: %d ranks x %d threads exceed this machine's %ld cores: the efficiency measures oversubscription\n", ranks,
               per_rank, cores);
    char err[PATH_MAX + 256];
    if (safe_remove_tree(dir, err, sizeof err) != SAFE_OK) warn_msg("bench --ranks: %s", err);
    return status;
}
