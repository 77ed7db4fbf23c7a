// bench/train/progress.h — training progress display: a redrawn one-line bar on a terminal,
// plain periodic lines otherwise (logs, pipes). The environment variable
// POSBENCH_PROGRESS=plain|bar overrides the terminal check.
#pragma once
#include <stdio.h>

typedef struct {
    FILE *out;            // usually stderr
    int tty;              // 1: redraw a one-line bar with '\r'; 0: plain periodic lines
    long total;           // total steps (<= 0: unknown, no percentage or ETA)
    long base_step;       // steps already done before progress_init (a resumed run); 0 by default
    double started, last_draw;
    double interval_s;    // plain mode: at most one line per interval (default 10 s), plus the last step
    char label[64];
    // Last update, so a message can redraw the bar and finish can print an unprinted state.
    long last_step, drawn_step;
    double last_loss, last_ips;
    int bar_shown;        // tty mode: a bar is on the current line
} progress;

// tty = isatty(fileno(out)) unless POSBENCH_PROGRESS is plain or bar (other values: die_input).
void progress_init(progress *p, FILE *out, const char *label, long total_steps);
// step is the 1-based count of steps done. The first update, the last step (step >= total)
// and updates at least interval_s (plain) or 0.1 s (bar) after the previous draw are shown.
// ETA = elapsed since progress_init / (step - base_step) * (total - step).
void progress_update(progress *p, long step, double loss, double images_per_s);
// Prints a whole line (clears the bar first in tty mode, then redraws it).
void progress_message(progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
// Ends the bar line (tty); in plain mode prints the last update if it was not shown.
void progress_finish(progress *p);
// "45s", "3m12s", "2h05m" into buf; "?" when s is not a finite duration (also `posbench watch`'s ETA).
void progress_format_duration(double s, char *buf, size_t n);
