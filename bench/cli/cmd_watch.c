// bench/cli/cmd_watch.c — `posbench watch DIR [--once] [--interval S]`: a live table of every run
// below a results directory (state, step, loss, ETA, last evaluation; bench/run/run_watch.h),
// redrawn in place on a terminal, printed as plain lines otherwise (logs, pipes, tests);
// POSBENCH_PROGRESS=plain|bar overrides the terminal check as for training progress.
#include "cmd_watch.h"
#include "../config/config.h"
#include "terminal_text.h"
#include "../run/run_watch.h"
#include "../train/progress.h"
#include "../../core/common.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void watch_help(void) {
    printf("usage: posbench watch DIR [--once] [--interval S]\n"
           "Every run below DIR (a results folder of posbench run, sweep or train) with its state, step,\n"
           "training loss, ETA and last evaluation, from the runs' files and <run-id>.metrics.jsonl.\n"
           "States: running (its lock names a live process), queued (not started: only its names/ link),\n"
           "stopped (interrupted: a .h5.partial or checkpoint, resumed by the next run), done, diverged,\n"
           "damaged (the results file as posbench run judges it). On a terminal the table is redrawn in\n"
           "place every S seconds until Ctrl-C; otherwise (or with POSBENCH_PROGRESS=plain) it is printed\n"
           "as plain lines every S seconds.\n"
           "  --once         print the table once and exit (scripts, tests)\n"
           "  --interval S   seconds between refreshes (default 2)\n"
           "Exit status: 0, or 2 when DIR is not a directory.\n");
}

static void print_table(const char *dir, const watch_run *runs, int n, FILE *out) {
    int count[WATCH_STATES] = {0}, width = 3;
    for (int i = 0; i < n; i++) {
        count[runs[i].state]++;
        int len = (int)strlen(runs[i].label);
        if (len > width) width = len;
    }
    if (width > 72) width = 72;
    char now[32];
    time_t t = time(NULL);
    struct tm tm;
    strftime(now, sizeof now, "%Y-%m-%d %H:%M:%S UTC", gmtime_r(&t, &tm));
    char shown[4 * 1024];
    fprintf(out, "posbench watch %s  %s  %d run%s:", terminal_safe(dir, shown, sizeof shown), now, n, n == 1 ? "" : "s");
    for (int s = 0, first = 1; s < WATCH_STATES; s++)
        if (count[s]) fprintf(out, "%s %d %s", first ? "" : ",", count[s], watch_state_name((watch_state)s)), first = 0;
    fprintf(out, "\n%-8s  %-*s  %13s  %8s  %7s  %s\n", "state", width, "run", "step", "loss", "ETA", "last eval");
    for (int i = 0; i < n; i++) {
        const watch_run *r = &runs[i];
        char step[48] = "-", loss[32] = "-", eta[32] = "-", eval[320] = "-";
        if (r->has_metrics) {
            snprintf(step, sizeof step, "%ld/%ld", r->step, r->total_steps);
            if (isfinite(r->loss)) snprintf(loss, sizeof loss, "%.4f", r->loss);
            else snprintf(loss, sizeof loss, "null");
        }
        if (isfinite(r->eta_s)) progress_format_duration(r->eta_s, eta, sizeof eta);
        if (r->eval[0]) snprintf(eval, sizeof eval, "%s (step %ld)", r->eval, r->eval_step);
        if (r->state == WATCH_DAMAGED) snprintf(eval, sizeof eval, "%s", r->why);
        char label[4 * 1024], eval_shown[4 * sizeof eval]; // run names and metric keys come from files: no ESC reaches the terminal
        fprintf(out, "%-8s  %-*s  %13s  %8s  %7s  %s\n", watch_state_name(r->state), width, terminal_safe(r->label, label, sizeof label),
                step, loss, eta, terminal_safe(eval, eval_shown, sizeof eval_shown));
    }
}

int cmd_watch(int argc, char **argv) {
    const char *dir = NULL;
    int once = 0;
    double interval = 2.0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            watch_help();
            return 0;
        } else if (!strcmp(a, "--once")) {
            once = 1;
        } else if (!strcmp(a, "--interval")) {
            const char *v = i + 1 < argc ? argv[++i] : "";
            char *end;
            interval = strtod(v, &end);
            if (!*v || *end || !(interval >= 0.1 && interval <= 86400))
                die_input("--interval needs seconds between 0.1 and 86400, got '%s'", v);
        } else if (a[0] == '-') {
            const char *valid = "--once, --interval S, --help";
            die_input("unknown flag '%s'%s for posbench watch (valid: %s)", a, cfg_flag_hint(a, valid), valid);
        } else if (!dir) {
            dir = a;
        } else {
            die_input("posbench watch takes one directory (got '%s' and '%s')", dir, a);
        }
    }
    if (!dir) die_input("posbench watch needs a results directory (posbench watch --help)");
    const char *mode = getenv("POSBENCH_PROGRESS");
    int tty = isatty(fileno(stdout));
    if (mode && !strcmp(mode, "plain")) tty = 0;
    else if (mode && !strcmp(mode, "bar")) tty = 1;
    else if (mode && mode[0] && strcmp(mode, "auto")) die_input("POSBENCH_PROGRESS=%s: expected plain, bar or auto", mode);
    for (;;) {
        watch_run *runs;
        int n;
        char err[4400];
        if (watch_scan(dir, &runs, &n, err, sizeof err) != 0) die_input("%s", err);
        if (tty && !once) fputs("\033[H\033[J", stdout); // home, clear: the table in place
        print_table(dir, runs, n, stdout);
        watch_runs_free(runs, n);
        fflush(stdout);
        if (once) return 0;
        struct timespec ts = {(time_t)interval, (long)((interval - floor(interval)) * 1e9)};
        nanosleep(&ts, NULL);
        if (!tty) fputc('\n', stdout);
    }
}
