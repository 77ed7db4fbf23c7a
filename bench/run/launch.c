// bench/run/launch.c — mpirun as a child process, and its exit status turned into posbench's
// (launch.h). The ranks themselves are ordinary `posbench train` processes under MPI
// (core/comm_mpi.c); this file only starts them and reads how the job ended.
#include "launch.h"
#include "../../core/common.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int launch_mpirun_found(void) { return system("command -v mpirun >/dev/null 2>&1") == 0; }

static volatile sig_atomic_t launcher_pid; // mpirun, while it runs

static void pass_on(int sig) {
    if (launcher_pid > 0) kill((pid_t)launcher_pid, sig);
}

int launch_ranks(int ranks, char *const args[], int nargs, const char *log_path, int oversubscribe) {
    char exe[PATH_MAX], np[16];
    if (self_exe_path(exe, sizeof exe) != 0) die_fail("--ranks: cannot find this program (/proc/self/exe): %s", strerror(errno));
    snprintf(np, sizeof np, "%d", ranks);
    const char *extra_env = getenv("POSBENCH_MPIRUN_ARGS");
    char *extra = xstrdup(extra_env ? extra_env : "", "POSBENCH_MPIRUN_ARGS");
    size_t cap = (size_t)nargs + strlen(extra) / 2 + 16, n = 0;
    char **argv = xcalloc(cap, sizeof *argv, "mpirun arguments");
    argv[n++] = "mpirun", argv[n++] = "-np", argv[n++] = np, argv[n++] = "--bind-to", argv[n++] = "none";
    if (geteuid() == 0) argv[n++] = "--allow-run-as-root"; // OpenMPI refuses root without it
    if (oversubscribe) argv[n++] = "--oversubscribe";
    for (char *save = NULL, *w = strtok_r(extra, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) argv[n++] = w;
    argv[n++] = exe;
    for (int i = 0; i < nargs; i++) argv[n++] = args[i];
    argv[n] = NULL;

    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) die_fail("--ranks: fork failed: %s", strerror(errno));
    if (pid == 0) {
        if (log_path) {
            int fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0) {
                fprintf(stderr, "posbench: error: --ranks: cannot write the log %s: %s\n", log_path, strerror(errno));
                _exit(127);
            }
            close(fd);
        }
        execvp("mpirun", argv);
        fprintf(stderr, "posbench: error: --ranks: cannot start mpirun: %s (make deps installs openmpi-bin)\n", strerror(errno));
        _exit(127);
    }
    launcher_pid = pid;
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = pass_on;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGINT, &sa, &old_int) != 0 || sigaction(SIGTERM, &sa, &old_term) != 0)
        die_fail("--ranks: sigaction failed: %s", strerror(errno));
    int status = 0;
    pid_t got;
    while ((got = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {}
    launcher_pid = 0;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    free(argv);
    free(extra);
    if (got < 0) die_fail("--ranks: waiting for mpirun failed: %s", strerror(errno));

    if (WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == EXIT_BAD_INPUT)) return WEXITSTATUS(status);
    if (WIFEXITED(status) && WEXITSTATUS(status) > 128) {
        int sig = WEXITSTATUS(status) - 128;
        fprintf(stderr, "posbench: error: a rank of the %d died on signal %d (%s) without a word (mpirun's exit status %d; "
                "its message above names the rank); the job is ended, exit 1; rerun the same command to resume from the "
                "last checkpoint\n", ranks, sig, strsignal(sig), WEXITSTATUS(status));
    } else if (WIFEXITED(status)) {
        fprintf(stderr, "posbench: error: the run on %d ranks failed (mpirun's exit status %d; the messages above say "
                "why)\n", ranks, WEXITSTATUS(status));
    } else if (WIFSIGNALED(status)) {
        fprintf(stderr, "posbench: error: mpirun itself ended on signal %d (%s); the run on %d ranks stopped; rerun the "
                "same command to resume from the last checkpoint\n", WTERMSIG(status), strsignal(WTERMSIG(status)), ranks);
    }
    return EXIT_RUN_FAILED;
}
