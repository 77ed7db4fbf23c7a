// bench/train/progress.c — progress bar / periodic progress lines with loss, throughput and ETA.
#include "progress.h"
#include "../../core/common.h"
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { BAR_WIDTH = 20 };
static const double BAR_INTERVAL_S = 0.1; // tty mode: at most 10 redraws a second

void progress_init(progress *p, FILE *out, const char *label, long total_steps) {
    memset(p, 0, sizeof *p);
    p->out = out;
    p->total = total_steps;
    p->interval_s = 10.0;
    snprintf(p->label, sizeof p->label, "%s", label ? label : "");
    const char *mode = getenv("POSBENCH_PROGRESS");
    if (mode && strcmp(mode, "plain") == 0) p->tty = 0;
    else if (mode && strcmp(mode, "bar") == 0) p->tty = 1;
    else if (!mode || !mode[0] || strcmp(mode, "auto") == 0) {
        int fd = fileno(out);
        p->tty = fd >= 0 && isatty(fd);
    } else die_input("POSBENCH_PROGRESS=%s: expected plain, bar or auto", mode);
    p->started = now_seconds();
    p->last_draw = p->started;
}

// "45s", "3m12s", "2h05m"; "?" when unknown.
void progress_format_duration(double s, char *buf, size_t n) {
    if (!isfinite(s) || s < 0 || s > 1e9) {
        snprintf(buf, n, "?");
        return;
    }
    long t = (long)(s + 0.5);
    if (t < 60) snprintf(buf, n, "%lds", t);
    else if (t < 3600) snprintf(buf, n, "%ldm%02lds", t / 60, t % 60);
    else snprintf(buf, n, "%ldh%02ldm", t / 3600, (t % 3600) / 60);
}

static void draw(progress *p, double now) {
    long step = p->last_step;
    double elapsed = now - p->started;
    long done = step - p->base_step;
    char eta[32], el[32], pct[16] = "", count[48];
    if (p->total > 0 && step >= p->total) snprintf(eta, sizeof eta, "0s");
    else if (p->total > 0 && done > 0)
        progress_format_duration(elapsed / (double)done * (double)(p->total - step), eta, sizeof eta);
    else snprintf(eta, sizeof eta, "?");
    progress_format_duration(elapsed, el, sizeof el);
    double frac = p->total > 0 ? (double)step / (double)p->total : 0.0;
    if (frac < 0) frac = 0;
    if (frac > 1) frac = 1;
    if (p->total > 0) {
        snprintf(pct, sizeof pct, "%d%%", (int)(frac * 100.0));
        snprintf(count, sizeof count, "%ld/%ld", step, p->total);
    } else snprintf(count, sizeof count, "%ld", step);

    if (p->tty) {
        char bar[BAR_WIDTH + 1];
        int filled = (int)(frac * BAR_WIDTH);
        for (int i = 0; i < BAR_WIDTH; i++) bar[i] = i < filled ? '#' : '.';
        bar[BAR_WIDTH] = '\0';
        // \033[K clears what a longer previous line left behind.
        fprintf(p->out, "\r%s [%s]  %s  %s  loss %.4f  %.0f img/s  ETA %s\033[K", p->label, bar, count, pct,
                p->last_loss, p->last_ips, eta);
        p->bar_shown = 1;
    } else {
        fprintf(p->out, "%s step %s%s%s%s loss %.4f %.0f img/s elapsed %s ETA %s\n", p->label, count,
                pct[0] ? " (" : "", pct, pct[0] ? ")" : "", p->last_loss, p->last_ips, el, eta);
    }
    fflush(p->out);
    p->drawn_step = step;
    p->last_draw = now;
}

void progress_update(progress *p, long step, double loss, double images_per_s) {
    p->last_step = step;
    p->last_loss = loss;
    p->last_ips = images_per_s;
    double now = now_seconds();
    int first = p->drawn_step == 0;
    int last = p->total > 0 && step >= p->total;
    double interval = p->tty ? BAR_INTERVAL_S : p->interval_s;
    if (first || last || now - p->last_draw >= interval) draw(p, now);
}

void progress_message(progress *p, const char *fmt, ...) {
    char small[512], *line = small;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n >= sizeof small) {
        line = xmalloc((size_t)n + 1, "progress message");
        va_start(ap, fmt);
        vsnprintf(line, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    int had_bar = p->tty && p->bar_shown;
    if (had_bar) fputs("\r\033[K", p->out);
    fputs(line, p->out);
    if (n == 0 || line[n - 1] != '\n') fputc('\n', p->out);
    if (line != small) free(line);
    p->bar_shown = 0;
    if (had_bar) draw(p, now_seconds());
    else fflush(p->out);
}

void progress_finish(progress *p) {
    if (p->last_step > p->drawn_step) draw(p, now_seconds());
    if (p->tty && p->bar_shown) fputc('\n', p->out);
    p->bar_shown = 0;
    fflush(p->out);
}
