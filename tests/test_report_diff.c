// tests/test_report_diff.c — `posbench report DIR --diff OLD.json` (bench/report/findings_diff.h) on
// the synthetic runs of tests/report_runs.c: `report --format json` writes findings.json; an
// OLD.json made from it with one verdict changed, one finding's printed numbers and p changed,
// one finding left out and one finding that no longer exists added must give, in stdout,
// REPORT.md and REPORT.html, a "Changed since" section listing exactly that: the verdict that
// moved (was -> now), the finding added, the finding removed, the numbers that moved (naming p);
// the unchanged findings.json gives "Nothing changed", also when it is DIR/findings.json itself
// rewritten by the same --format json run; a missing file, a tables.json, a non-JSON file and a
// JSON scalar are refused with exit 2 naming the path.
#include "report_runs.h"
#include "../bench/report/report.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The string value of "key" in a one-line JSON object (malloc'd), NULL when absent.
static char *field(const char *line, const char *key) {
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\": \"", key);
    const char *p = strstr(line, pat);
    if (!p) return NULL;
    p += strlen(pat);
    const char *e = p;
    while (*e && !(*e == '"' && e[-1] != '\\')) e++;
    char *v = malloc((size_t)(e - p) + 1);
    if (!v) return NULL;
    memcpy(v, p, (size_t)(e - p)), v[e - p] = '\0';
    return v;
}

// line with the string value of "key" (or its number / null, when number) replaced by value.
static char *with_field(const char *line, const char *key, const char *value, int number) {
    char pat[64];
    snprintf(pat, sizeof pat, number ? "\"%s\": " : "\"%s\": \"", key);
    const char *p = strstr(line, pat);
    if (!p) return NULL;
    p += strlen(pat);
    const char *e = p;
    if (number) while (*e && *e != ',' && *e != '}') e++;
    else while (*e && !(*e == '"' && e[-1] != '\\')) e++;
    size_t len = strlen(line) + strlen(value) + 1;
    char *out = malloc(len);
    if (!out) return NULL;
    snprintf(out, len, "%.*s%s%s", (int)(p - line), line, value, e);
    return out;
}

static int write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    int bad = fputs(text, f) < 0;
    return fclose(f) != 0 || bad ? -1 : 0;
}

static int has(const char *text, const char *needle) { return text && strstr(text, needle) != NULL; }

int main(void) {
    if (report_runs_setup() != 0) return 1;
    char *out = NULL, *err = NULL, path[700], old_path[700], md_path[700], html_path[700];
    int rc = capture(cmd_report, 3, (char *[]){g_dir, "--format", "md,json"}, &out, &err);
    snprintf(path, sizeof path, "%s/findings.json", g_dir);
    char *json = slurp(path);
    free(out), free(err);
    test_check("report diff: setup: --format json writes findings.json", rc == 0 && json, "exit %d", rc);
    if (!json) return test_exit_code();

    size_t cap = strlen(json) * 2 + 4096; // OLD.json's size at most
    // The objects, one per line: " {...}," (findings_rows_json).
    char *lines[64];
    int n = 0;
    for (char *save = NULL, *l = strtok_r(json, "\n", &save); l && n < 64; l = strtok_r(NULL, "\n", &save))
        if (strstr(l, "{\"experiment\"")) lines[n++] = l;
    char *claim[3] = {NULL, NULL, NULL}, *verdict0 = n ? field(lines[0], "verdict") : NULL;
    for (int i = 0; i < 3 && i < n; i++) claim[i] = field(lines[i], "claim");
    if (n < 4 || !verdict0 || !claim[0] || !claim[1] || !claim[2]) {
        test_fail("report diff: setup", "findings.json has %d findings (want >= 4)", n);
        return test_exit_code();
    }
    // OLD.json: verdict of finding 1 changed, numbers of finding 2 changed, finding 3 absent, one
    // finding that this report does not have.
    const char *planted = strcmp(verdict0, "holds") ? "holds" : "does not hold";
    char *l0 = with_field(lines[0], "verdict", planted, 0), *l0b = l0 ? with_field(l0, "verdict_text", planted, 0) : NULL;
    char *l1 = with_field(lines[1], "ours", "10.00 vs 20.00 (old numbers)", 0), *l1b = l1 ? with_field(l1, "p", "0.5", 1) : NULL;
    char *gone = with_field(lines[n - 1], "claim", "a claim that was dropped", 0);
    if (!l0b || !l1b || !gone) {
        test_fail("report diff: setup", "cannot edit findings.json's lines");
        return test_exit_code();
    }
    char *old = malloc(cap);
    if (!old) return 1;
    snprintf(old, cap, "[\n");
    for (int i = 0; i < n; i++) {
        const char *l = i == 0 ? l0b : i == 1 ? l1b : lines[i];
        if (i == 2) continue;
        size_t len = strlen(l);
        snprintf(old + strlen(old), cap - strlen(old), "%.*s,\n", (int)(l[len - 1] == ',' ? len - 1 : len), l);
    }
    size_t len = strlen(gone);
    snprintf(old + strlen(old), cap - strlen(old), "%.*s\n]\n", (int)(gone[len - 1] == ',' ? len - 1 : len), gone);
    snprintf(old_path, sizeof old_path, "%s/../old-findings.json", g_dir);
    if (write_text(old_path, old) != 0) return test_fail("report diff: setup", "cannot write %s", old_path), 1;

    rc = capture(cmd_report, 5, (char *[]){g_dir, "--diff", old_path, "--format", "md,json"}, &out, &err);
    snprintf(md_path, sizeof md_path, "%s/REPORT.md", g_dir);
    snprintf(html_path, sizeof html_path, "%s/REPORT.html", g_dir);
    char *md = slurp(md_path), *html = slurp(html_path);
    char heading[800], moved[1200], added[800], removed[400], numbers[800];
    snprintf(heading, sizeof heading, "## Changed since `%s`", old_path);
    snprintf(moved, sizeof moved, "**Verdicts that moved:**\n\n| experiment | claim | was | now |\n|---|---|---|---|\n| exp | %s | %s | %s",
             claim[0], planted, verdict0);
    snprintf(added, sizeof added, "**Findings added:**\n\n| experiment | claim | verdict |\n|---|---|---|\n| exp | %s |", claim[2]);
    snprintf(removed, sizeof removed, "**Findings removed:**\n\n| experiment | claim | verdict then |\n|---|---|---|\n| exp | a claim that was dropped |");
    snprintf(numbers, sizeof numbers, "| exp | %s | p 0.500 → ", claim[1]);
    test_check("report diff: exit 0, the section in stdout and REPORT.md", rc == 0 && has(out, heading) && has(md, heading),
               "exit %d; stderr %.300s", rc, err ? err : "");
    test_check("report diff: the section counts what changed",
               has(out, "findings then, ") && has(out, "1 verdicts moved, 1 findings added, 1 removed, 1 with other printed numbers"),
               "%.600s", out && strstr(out, "Generated by `posbench report --diff`") ? strstr(out, "Generated by `posbench report --diff`") : "");
    test_check("report diff: the verdict that moved, was -> now", has(out, moved), "want %s", moved);
    test_check("report diff: the finding added and the finding removed", has(out, added) && has(out, removed), "want %s / %s", added, removed);
    test_check("report diff: the numbers that moved (ours then and now, p named)",
               has(out, numbers) && has(out, "| 10.00 vs 20.00 (old numbers) |"), "want %s", numbers);
    test_check("report diff: REPORT.html has the section", has(html, "Changed since") && has(html, "a claim that was dropped"), "REPORT.html %s", html ? "read" : "missing");
    free(out), free(err), free(md), free(html);

    // The unchanged findings.json: nothing changed; also when it is DIR/findings.json itself,
    // rewritten by the same run (read before the report writes anything).
    rc = capture(cmd_report, 5, (char *[]){g_dir, "--diff", path, "--format", "md,json"}, &out, &err);
    char *again = slurp(path);
    test_check("report diff: against its own findings.json (rewritten by the same --format json): nothing changed",
               rc == 0 && has(out, "Nothing changed: the same findings, verdicts and printed numbers.") &&
                   has(out, "0 verdicts moved, 0 findings added, 0 removed, 0 with other printed numbers") && again,
               "exit %d; stderr %.300s", rc, err ? err : "");
    free(out), free(err), free(again);

    // Refusals: exit 2 naming the path and what is wrong.
    char missing[700], tables[700], text[700], scalar[700];
    snprintf(missing, sizeof missing, "%s/no-such.json", g_dir);
    snprintf(text, sizeof text, "%s/../not-json.json", g_dir);
    snprintf(scalar, sizeof scalar, "%s/../scalar.json", g_dir);
    write_text(text, "[{\"experiment\": \n");
    write_text(scalar, "\"just a string\"\n");
    rc = capture(cmd_report, 5, (char *[]){g_dir, "--format", "md,json", "--diff", missing}, &out, &err);
    test_check("report diff: a missing OLD.json: exit 2 naming it", rc == 2 && has(err, missing) && has(err, "cannot read"), "exit %d; %.300s", rc, err ? err : "");
    free(out), free(err);
    snprintf(tables, sizeof tables, "%s/tables.json", g_dir);
    rc = capture(cmd_report, 5, (char *[]){g_dir, "--format", "md,json", "--diff", tables}, &out, &err);
    test_check("report diff: a tables.json: exit 2, not a findings file", rc == 2 && has(err, tables) && has(err, "not a findings file"),
               "exit %d; %.300s", rc, err ? err : "");
    free(out), free(err);
    rc = capture(cmd_report, 3, (char *[]){g_dir, "--diff", text}, &out, &err);
    test_check("report diff: broken JSON: exit 2 naming the file", rc == 2 && has(err, "not-json.json") && has(err, "not JSON"),
               "exit %d; %.300s", rc, err ? err : "");
    free(out), free(err);
    rc = capture(cmd_report, 3, (char *[]){g_dir, "--diff", scalar}, &out, &err);
    test_check("report diff: a JSON string, not an array: exit 2", rc == 2 && has(err, "not an array"), "exit %d; %.300s", rc, err ? err : "");
    free(out), free(err);
    rc = capture(cmd_report, 2, (char *[]){g_dir, "--diff"}, &out, &err);
    test_check("report diff: --diff without a file: exit 2", rc == 2 && has(err, "--diff needs a file"), "exit %d; %.300s", rc, err ? err : "");
    free(out), free(err);

    free(l0), free(l0b), free(l1), free(l1b), free(gone), free(old), free(verdict0), free(json);
    for (int i = 0; i < 3; i++) free(claim[i]);
    report_runs_cleanup();
    return test_exit_code();
}
