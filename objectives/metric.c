// objectives/metric.c — looking a metric up in a metric table and its text form (metric.h).
#include "metric.h"
#include <stdio.h>
#include <string.h>

const metric_info *metric_info_match(const metric_info *table, const char *metric) {
    if (!table || !metric) return NULL;
    size_t n = strcspn(metric, "@");
    for (const metric_info *m = table; m->name; m++)
        if (strlen(m->name) == n && !strncmp(m->name, metric, n)) return m;
    for (const metric_info *m = table; m->name; m++) {
        size_t p = strlen(m->name);
        if (p > 0 && m->name[p - 1] == '*' && p - 1 <= n && !strncmp(m->name, metric, p - 1)) return m;
    }
    return NULL;
}

double metric_value_shown(const metric_info *table, const char *metric, double v) {
    const metric_info *info = metric_info_match(table, metric);
    return info && info->scale != 0 ? v * info->scale : v;
}

int metric_info_format(const metric_info *m, char *buf, size_t len) {
    return snprintf(buf, len, "%s\t%s\t%.17g\t%d\t%d\t%s\t%d\t%d\t%d\t%d", m->name, m->unit ? m->unit : "",
                    m->scale != 0 ? m->scale : 1.0, m->higher_is_better, m->needs_labels, m->header ? m->header : "",
                    m->digits, m->rank, m->mean_only, (int)m->nature);
}

int metric_column_name(const metric_info *m, const char *metric, char *buf, size_t len) {
    const char *at = strchr(metric, '@');
    int n = at ? (int)(at - metric) : (int)strlen(metric);
    if (!m) return snprintf(buf, len, "%s", metric);
    if (m->header && m->header[0]) {
        if (at) return snprintf(buf, len, "%s at %s px", m->header, at + 1);
        return snprintf(buf, len, "%s", m->header);
    }
    if (m->unit && m->unit[0]) {
        if (at) return snprintf(buf, len, "%.*s (%s) at %s px", n, metric, m->unit, at + 1);
        return snprintf(buf, len, "%.*s (%s)", n, metric, m->unit);
    }
    if (at) return snprintf(buf, len, "%.*s at %s px", n, metric, at + 1);
    return snprintf(buf, len, "%s", metric);
}
