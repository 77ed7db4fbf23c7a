// bench/run/launch.c — child processes started without a shell (launch.h): mpirun, with its
// exit status turned into posbench's (the ranks themselves are ordinary `posbench train`
// processes under MPI, core/comm_mpi.c), and programs whose output is read or logged (the
// PyTorch step of `posbench bench`, the runs of `bench --ranks`): an argument vector, so no path
// or value is ever read by a shell.
#include "launch.h"
#include "../../core/safe_file.h"
#include "../../core/common.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

// Whether PATH names an executable regular file called `name`, as execvp would search it (an
// empty entry is the current directory; no PATH: execvp's default). No shell is asked.
static int on_path(const char *name) {
    const char *path = getenv("PATH");
    if (!path) path = "/bin:/usr/bin";
    for (const char *p = path;; p++) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char full[PATH_MAX];
        struct stat st;
        int n = snprintf(full, sizeof full, "%.*s%s%s", (int)len, p, len ? "/" : "", name);
        if (n > 0 && (size_t)n < sizeof full && stat(full, &st) == 0 && S_ISREG(st.st_mode) && access(full, X_OK) == 0)
            return 1;
        if (!end) return 0;
        p = end;
    }
}

int launch_mpirun_found(void) { return on_path("mpirun"); }

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
            int fd;
            char err[4400];
            int rc = safe_open_update(log_path, O_WRONLY | O_CREAT | O_TRUNC, &fd, err, sizeof err); // never through a link
            if (rc != SAFE_OK || dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0) {
                error_msg("--ranks: cannot write the log %s", rc != SAFE_OK ? err : strerror(errno));
                _exit(127);
            }
            close(fd);
        }
        execvp("mpirun", argv);
        error_msg("--ranks: cannot start mpirun: %s (make deps installs openmpi-bin)", strerror(errno));
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
        error_msg("a rank of the %d died on signal %d (%s) without a word (mpirun's exit status %d; "
                "its message above names the rank); the job is ended, exit 1; rerun the same command to resume from the "
                "last checkpoint", ranks, sig, strsignal(sig), WEXITSTATUS(status));
    } else if (WIFEXITED(status)) {
        fprintf(stderr, "posbench: error: the run on %d ranks failed (mpirun's exit status %d; the messages above say "
                "why)\n", ranks, WEXITSTATUS(status));
    } else if (WIFSIGNALED(status)) {
        error_msg("mpirun itself ended on signal %d (%s); the run on %d ranks stopped; rerun the "
                "same command to resume from the last checkpoint", WTERMSIG(status), strsignal(WTERMSIG(status)), ranks);
    }
    return EXIT_RUN_FAILED;
}

// The child's side of launch_reading / launch_logged: stdout (and, when `both`, stderr) to fd,
// the rest of stderr to /dev/null, then argv; 127 when it cannot start.
static void exec_child(char *const argv[], int fd, int both) {
    int null = open("/dev/null", O_WRONLY);
    if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0 || (null >= 0 && dup2(both ? fd : null, STDERR_FILENO) < 0)) _exit(127);
    execvp(argv[0], argv);
    _exit(127);
}

// Waits for pid: its exit status, 128 + signal, or -1.
static int wait_child(pid_t pid) {
    int status = 0;
    pid_t got;
    while ((got = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {}
    if (got < 0) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
}

FILE *launch_reading(char *const argv[], pid_t *pid) {
    int fds[2];
    if (pipe(fds) != 0) return NULL;
    fflush(stdout);
    fflush(stderr);
    pid_t p = fork();
    if (p < 0) {
        close(fds[0]), close(fds[1]);
        return NULL;
    }
    if (p == 0) {
        close(fds[0]);
        exec_child(argv, fds[1], 0);
    }
    close(fds[1]);
    FILE *f = fdopen(fds[0], "r");
    if (!f) {
        close(fds[0]);
        kill(p, SIGTERM);
        wait_child(p);
        return NULL;
    }
    *pid = p;
    return f;
}

int launch_reading_close(FILE *f, pid_t pid) {
    fclose(f);
    return wait_child(pid);
}

int launch_logged(char *const argv[], const char *log_path) {
    fflush(stdout);
    fflush(stderr);
    pid_t p = fork();
    if (p < 0) return -1;
    if (p == 0) {
        int fd;
        char err[4400];
        if (safe_open_update(log_path, O_WRONLY | O_CREAT | O_TRUNC, &fd, err, sizeof err) != SAFE_OK) { // a regular file only
            error_msg("cannot write the log %s", err);
            _exit(127);
        }
        exec_child(argv, fd, 1);
    }
    return wait_child(p);
}
