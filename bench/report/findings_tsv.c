// bench/report/findings_tsv.c — reads the findings.tsv of an older results folder into today's
// finding structs (format: findings_tsv.h; the reader of that time, adapted).
#include "findings_tsv.h"
#include "../../core/safe_file.h"
#include "../../core/common.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NFIELDS = 12 };

// Decodes one escaped field in place. Returns 0, or -1 on a backslash at the end.
static int unescape(char *s) {
    char *out = s;
    for (char *p = s; *p; p++) {
        if (*p != '\\') {
            *out++ = *p;
            continue;
        }
        p++;
        if (!*p) return -1;
        *out++ = *p == 't' ? '\t' : *p == 'n' ? '\n' : *p == 'r' ? '\r' : *p;
    }
    *out = '\0';
    return 0;
}

// Splits an escaped match field "k=v,k=v" into pairs (each part then unescaped).
// Returns 0, or -1 with a message in err.
static int parse_match(const char *field, finding_sel *sel, char *err, size_t errlen) {
    char *copy = xstrdup(field, "findings match");
    char *start = copy;
    for (char *p = copy;; p++) {
        if (*p == '\\' && p[1]) {
            p++;
            continue;
        }
        if (*p != ',' && *p != '\0') continue;
        int last = *p == '\0';
        *p = '\0';
        if (*start || !last || sel->nmatch) { // "" is an empty match; "a=1," has an empty pair
            char *eq = start;
            while (*eq && *eq != '=') eq += eq[0] == '\\' && eq[1] ? 2 : 1;
            if (*eq != '=' || eq == start) {
                snprintf(err, errlen, "match pair '%s' is not key=value", start);
                free(copy);
                return -1;
            }
            *eq = '\0';
            char *key = start, *value = eq + 1;
            if (unescape(key) || unescape(value)) {
                snprintf(err, errlen, "match pair ends in a lone backslash");
                free(copy);
                return -1;
            }
            finding_pair *m = realloc(sel->match, (size_t)(sel->nmatch + 1) * sizeof *m);
            if (!m) die_fail("out of memory reading findings");
            sel->match = m;
            m[sel->nmatch].key = xstrdup(key, "findings match");
            m[sel->nmatch++].value = xstrdup(value, "findings match");
        }
        if (last) break;
        start = p + 1;
    }
    free(copy);
    return 0;
}

static char *opt_dup(const char *s) { return s[0] ? xstrdup(s, "findings") : NULL; }

// Splits a line at its tabs into at most max fields (strsep keeps empty ones). Returns the
// number of fields the line has (more than max when it has too many; field is then partial).
static int split_tabs(char *line, char **field, int max) {
    int total = 1;
    for (const char *c = line; *c; c++) total += *c == '\t';
    if (total > max) return total;
    char *p = line;
    for (int n = 0; n < total; n++) field[n] = strsep(&p, "\t");
    return total;
}

// One finding line (fields unescaped here) into f. 0, or -1 with a message in err.
static int parse_finding(char **field, finding *f, char *err, size_t errlen) {
    for (int i = 0; i < NFIELDS; i++)
        if (i != 4 && i != 7 && unescape(field[i])) { // the match fields are split first
            snprintf(err, errlen, "field %d ends in a lone backslash", i + 1);
            return -1;
        }
    f->kind = finding_kind_index(field[0]);
    if (f->kind < 0 || f->kind > FINDING_DECREASING) {
        snprintf(err, errlen, "unknown kind '%s' (a findings.tsv holds greater, at_least, at_most, peak_inside, increasing or decreasing)", field[0]);
        return -1;
    }
    const finding_kind_info *k = &finding_kinds[f->kind];
    if (!field[1][0] || !field[3][0] || !field[5][0]) {
        snprintf(err, errlen, "claim, a.stage and a.metric must not be empty");
        return -1;
    }
    if (k->needs_b && (!field[6][0] || !field[8][0])) {
        snprintf(err, errlen, "kind %s needs b.stage and b.metric", k->name);
        return -1;
    }
    char *end;
    f->value = strtod(field[9], &end);
    if (k->needs_value && (!field[9][0] || *end || !isfinite(f->value))) {
        snprintf(err, errlen, "kind %s needs a number in the value field, got '%s'", k->name, field[9]);
        return -1;
    }
    if (k->needs_x && !field[10][0]) {
        snprintf(err, errlen, "kind %s needs x", k->name);
        return -1;
    }
    f->claim = xstrdup(field[1], "findings"), f->paper = xstrdup(field[2], "findings");
    f->a.stage = xstrdup(field[3], "findings"), f->a.metric = xstrdup(field[5], "findings");
    if (parse_match(field[4], &f->a, err, errlen)) return -1;
    if (k->needs_b) {
        f->b.stage = xstrdup(field[6], "findings"), f->b.metric = xstrdup(field[8], "findings");
        if (parse_match(field[7], &f->b, err, errlen)) return -1;
    }
    f->x = k->needs_x ? opt_dup(field[10]) : NULL;
    f->per = opt_dup(field[11]);
    return 0;
}

// One non-comment line: the experiment header first, then findings. 0, or -1 with err set.
static int read_line(const char *path, char *line, int lineno, findings_list *out, int *cap, char *err, size_t errlen) {
    char *field[NFIELDS], msg[512];
    int nf = split_tabs(line, field, NFIELDS);
    if (!out->experiment[0]) {
        if (nf != 2 || strcmp(field[0], "experiment") || !field[1][0] || strlen(field[1]) >= sizeof out->experiment) {
            snprintf(err, errlen, "%s:%d: expected 'experiment<TAB>NAME' before the findings", path, lineno);
            return -1;
        }
        snprintf(out->experiment, sizeof out->experiment, "%s", field[1]);
        return 0;
    }
    if (nf != NFIELDS) {
        snprintf(err, errlen,
                 "%s:%d: expected %d tab-separated fields (kind, claim, paper, a.stage, a.match, a.metric, b.stage, b.match, "
                 "b.metric, value, x, per), found %d", path, lineno, NFIELDS, nf);
        return -1;
    }
    if (out->n == *cap) {
        *cap = *cap ? 2 * *cap : 8;
        finding *g = realloc(out->items, (size_t)*cap * sizeof *g);
        if (!g) die_fail("out of memory reading %s", path);
        out->items = g;
    }
    finding *f = &out->items[out->n++];
    memset(f, 0, sizeof *f);
    if (parse_finding(field, f, msg, sizeof msg) != 0) {
        snprintf(err, errlen, "%s:%d: %s", path, lineno, msg);
        return -1;
    }
    return 0;
}

int findings_tsv_load(const char *path, findings_list *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    FILE *f;
    if (safe_fopen_read(path, SAFE_TEXT_CAP, SAFE_NOFOLLOW, &f, NULL, err, errlen) != SAFE_OK) return -1; // regular, capped
    char *line = NULL;
    size_t len = 0;
    int lineno = 0, cap = 0, rc = 0;
    while (rc == 0 && getline(&line, &len, f) >= 0) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '\0' || line[0] == '#') continue;
        rc = read_line(path, line, lineno, out, &cap, err, errlen);
    }
    if (rc == 0 && ferror(f)) snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno)), rc = -1;
    if (rc == 0 && !out->experiment[0]) snprintf(err, errlen, "%s:%d: no 'experiment<TAB>NAME' line", path, lineno), rc = -1;
    free(line);
    fclose(f);
    if (rc != 0) findings_list_free(out);
    return rc;
}
