// bench/results/run_metrics.c — the trainer's metric table and the /final `metric_info`
// attribute (run_metrics.h).
#include "run_metrics.h"
#include "../../core/common.h"
#include "../../objectives/objective.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const metric_info run_metrics_common[] = {
    {"loss", "", 1, -1, 0, NULL, 4, 10, 0, METRIC_SAMPLED},
    {"params", "M", 1e-6, 0, 0, "params (M)", 3, 90, 1, METRIC_EXACT},
    {"flops_per_step", "GFLOP", 1e-9, 0, 0, "GFLOP/step", 3, 91, 1, METRIC_EXACT},
    {"train_time_s", "s", 1, -1, 0, "train_time (s)", 1, 92, 0, METRIC_SAMPLED},
    {"images_per_s", "images/s", 1, 1, 0, "images/s", 1, 93, 0, METRIC_SAMPLED},
    {"init_pe_to_content", "", 1, 0, 0, "PE/content RMS at init", 2, 79, 0, METRIC_SAMPLED}, // /init posenc_rms / content_rms
    {"step_time_ms", "ms", 1, -1, 0, "step (ms)", 1, 80, 0, METRIC_TIMED}, // the median of /train step_time_ms
    {"act_bytes", "MiB", 1.0 / 1048576.0, -1, 0, "activations (MiB)", 1, 81, 0, METRIC_EXACT}, // one step's activation arena
    {"backend_peak_bytes", "MiB", 1.0 / 1048576.0, -1, 0, "backend mem (MiB)", 1, 82, 0, METRIC_EXACT}, // the backend's high-water mark
    {"peak_mem_bytes", "MiB", 1.0 / 1048576.0, -1, 0, "peak_mem (MiB)", 1, 94, 0, METRIC_SAMPLED}, // process peak RSS: varies
    {"knn_top1", "%", 100, 1, 1, NULL, 2, 3, 0, METRIC_SAMPLED},
    {"knn_top1_last", "%", 100, 1, 1, NULL, 2, 3, 0, METRIC_SAMPLED},
    {"knn_pixels_top1", "%", 100, 1, 1, NULL, 2, 3, 0, METRIC_SAMPLED},
    {"knn_init_top1", "%", 100, 1, 1, NULL, 2, 3, 0, METRIC_SAMPLED},
    {"knn_val_top1", "%", 100, 1, 1, NULL, 2, 3, 0, METRIC_SAMPLED},
    {"probe_top1", "%", 100, 1, 1, NULL, 2, 3, 0, METRIC_SAMPLED},
    {"probe_top1_mean", "%", 100, 1, 1, NULL, 2, 3, 0, METRIC_SAMPLED},
    {"probe_top1_cls", "%", 100, 1, 1, NULL, 2, 3, 0, METRIC_SAMPLED},
    {"probe_val_top1", "%", 100, 1, 1, NULL, 2, 3, 0, METRIC_SAMPLED},
    {"probe_best_top1", "%", 100, 1, 1, NULL, 2, 3, 0, METRIC_SAMPLED},
    {"probe_best_val_top1", "%", 100, 1, 1, NULL, 2, 3, 0, METRIC_SAMPLED},
    // an objective with its own probe view (GVP) is probed both ways, labelled
    {"probe_causal_top1", "%", 100, 1, 1, "linear probe top1, causal mask as in pretraining (%)", 2, 3, 0, METRIC_SAMPLED},
    {"probe_full_top1", "%", 100, 1, 1, "linear probe top1, full attention (%)", 2, 3, 0, METRIC_SAMPLED},
    {"probe_causal_best_top1", "%", 100, 1, 1, "best-block linear probe top1, causal mask as in pretraining (%)", 2, 3, 0, METRIC_SAMPLED},
    {"probe_full_best_top1", "%", 100, 1, 1, "best-block linear probe top1, full attention (%)", 2, 3, 0, METRIC_SAMPLED},
    {"best_val_top1", "%", 100, 1, 1, NULL, 2, 3, 0, METRIC_SAMPLED}, // train.early_stop
    {"foreground_attention", "%", 100, 0, 0, "[CLS] attention on non-blank patches (%)", 1, 60, 0, METRIC_SAMPLED}, // /views (docs/views.md)
    // the per-run arrays the figures draw (/knn, /probe, /position, /resolution, /speech_*)
    {"top1_*", "%", 100, 1, 1, NULL, 2, 3, 0, METRIC_SAMPLED},
    {"top5_*", "%", 100, 1, 1, NULL, 2, 3, 0, METRIC_SAMPLED},
    {"val_top1*", "%", 100, 1, 1, NULL, 2, 3, 0, METRIC_SAMPLED},
    {"init_top1*", "%", 100, 1, 1, NULL, 2, 3, 0, METRIC_SAMPLED},
    {"init_top5*", "%", 100, 1, 1, NULL, 2, 3, 0, METRIC_SAMPLED},
    {"init_val_top1*", "%", 100, 1, 1, NULL, 2, 3, 0, METRIC_SAMPLED},
    {"pixels_top*", "%", 100, 1, 1, NULL, 2, 3, 0, METRIC_SAMPLED},
    {NULL},
};

void run_metrics_write(results *r, const metric_info *objective_metrics) {
    size_t cap = 4096, used = 0;
    char *text = xmalloc(cap, "metric_info");
    text[0] = 0;
    const metric_info *tables[2] = {run_metrics_common, objective_metrics};
    for (int t = 0; t < 2; t++)
        for (const metric_info *m = tables[t]; m && m->name; m++) {
            char line[1024];
            int n = metric_info_format(m, line, sizeof line);
            if (n < 0 || (size_t)n >= sizeof line) die_fail("internal: metric %s: its metric_info line is too long", m->name);
            while (used + (size_t)n + 2 > cap) text = xrealloc(text, cap *= 2, "metric_info");
            used += (size_t)snprintf(text + used, cap - used, "%s%s", used ? "\n" : "", line);
        }
    results_attr_str(r, "/final", "metric_info", text);
    free(text);
}

#define OBJECTIVE_ENTRY(name) &objective_##name,
static const objective_kind *const objective_tables[] = {OBJECTIVE_KINDS(OBJECTIVE_ENTRY)};
#undef OBJECTIVE_ENTRY

const metric_info *run_metrics_builtin(const char *metric) {
    const metric_info *m = metric_info_match(run_metrics_common, metric);
    for (size_t k = 0; !m && k < sizeof objective_tables / sizeof objective_tables[0]; k++)
        m = metric_info_match(objective_tables[k]->metrics, metric);
    return m;
}

metric_info *run_metrics_parse(const char *text, char *err, size_t errlen) {
    size_t lines = 1, len = strlen(text);
    for (const char *p = text; *p; p++) lines += *p == '\n';
    metric_info *t = xcalloc(1, (lines + 1) * sizeof *t + len + 1, "metric_info");
    char *s = (char *)(t + lines + 1);
    memcpy(s, text, len + 1);
    int n = 0;
    for (char *line = s; line && *line;) {
        char *next = strchr(line, '\n');
        if (next) *next++ = 0;
        char *f[10];
        int nf = 0;
        for (char *p = line; nf < 10; nf++) {
            f[nf] = p;
            p = strchr(p, '\t');
            if (!p) { nf++; break; }
            *p++ = 0;
        }
        char *end;
        metric_info m = {.name = f[0]};
        if (nf != 10 || !*f[0]) goto bad;
        m.unit = f[1];
        m.scale = strtod(f[2], &end);
        if (end == f[2] || *end) goto bad;
        m.higher_is_better = (int)strtol(f[3], &end, 10), m.needs_labels = (int)strtol(f[4], &end, 10);
        m.header = *f[5] ? f[5] : NULL;
        m.digits = (int)strtol(f[6], &end, 10), m.rank = (int)strtol(f[7], &end, 10);
        m.mean_only = (int)strtol(f[8], &end, 10), m.nature = (metric_nature_kind)strtol(f[9], &end, 10);
        if (m.nature > METRIC_TIMED || m.digits > 9) goto bad;
        t[n++] = m;
        line = next;
        continue;
    bad:
        snprintf(err, errlen, "metric_info line %d: expected 10 tab-separated fields (name unit scale higher_is_better "
                 "needs_labels header digits rank mean_only nature)", n + 1);
        free(t);
        return NULL;
    }
    return t;
}
