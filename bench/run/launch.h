// bench/run/launch.h — starts one posbench command on N ranks with mpirun and gives the job one
// exit status that says what happened: `posbench train --ranks N` and `posbench bench --ranks N`.
// mpirun's own status, when a rank is killed outright (SIGKILL, a crash, the OOM killer), is the
// dead rank's 128 + signal (137), which neither the ranks nor a script can change; through this
// launcher the job exits 1 (a run failed, resumable) with a line naming the signal, as every
// other failed run does, 2 when the ranks refused bad input, 0 when the run finished.
#pragma once

// Whether mpirun is on PATH (searched here, as execvp searches it; no shell).
int launch_mpirun_found(void);

// Runs `mpirun -np ranks --bind-to none [--allow-run-as-root when root] [--oversubscribe]
// [$POSBENCH_MPIRUN_ARGS split at blanks, e.g. "--hostfile hosts"] <this program> args[0..nargs)`
// and waits for it; its stdout and stderr go to log_path when given (else they are ours).
// SIGINT and SIGTERM sent to this process are passed on to mpirun (which ends its ranks).
// Returns 0 (every rank finished), 2 (the ranks refused bad input: mpirun's 2) or 1 (anything
// else, with one line on stderr saying why: a rank that failed, died on a signal, or a
// launcher that could not start them or mpirun that could not be started).
int launch_ranks(int ranks, char *const args[], int nargs, const char *log_path, int oversubscribe);

// Programs started with an argument vector (argv[0] found on PATH, argv NULL-terminated), never
// through a shell. launch_reading: its stdout comes through the returned pipe, its stderr goes
// to /dev/null; *pid is the child; NULL when it cannot be started. launch_reading_close closes the
// pipe and waits: the exit status, 128 + signal, or -1 (127: the program could not be run).
#include <stdio.h>
#include <sys/types.h>
FILE *launch_reading(char *const argv[], pid_t *pid);
int launch_reading_close(FILE *f, pid_t pid);
// Runs argv with stdout and stderr to log_path (created or truncated; a symlink there is refused,
// exit 127) and waits: the exit status, 128 + signal, or -1.
int launch_logged(char *const argv[], const char *log_path);
