// tests/test_report_formats.c — `posbench report DIR --format md,csv,json` (issue 32 §1) on the
// synthetic runs of tests/report_runs.c: md alone (the default) writes no CSV or JSON; with
// csv,json the tables and findings files appear beside REPORT.md and equal its content
// (tests/report_formats_check.py, Python's csv and a strict json reader: every table cell and
// every findings row); bad --format values exit 2 naming what is valid.
#include "report_runs.h"
#include "../bench/report/report.h"
#include "../bench/report/report_html.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int exists(const char *dir, const char *name) {
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

// REPORT.md's Markdown subset as HTML: headings numbered on, tables (a '\|' inside a cell), lists,
// `code` and **bold**, every text escaped; a '|' line that is no table is a paragraph (it once
// could loop forever), and findings rows get their verdict's class.
static void test_markdown_html(void) {
    const char *md = "# title <x>\n\nline one & `a<b>`\n| not a table\n\n## stage `s`\n\n| k | top1 (%) |\n|---|---:|\n"
                     "| a \\| b | 81.20 ± 1.30 |\n\n- **Caveat** \"q\" 'x'\n- two\n\n| claim | ours | paper | verdict |\n"
                     "|---|---|---|---|\n| c | 1 vs 2 (90% CI [+0.80, +4.70]) | p | inconclusive (1 seed) |\n";
    char *html = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&html, &n);
    int k = 3;
    html_from_markdown(f, md, &k);
    fclose(f);
    const char *want[] = {"<h1 id=\"s4\">title &lt;x&gt;</h1>", "<p>line one &amp; <code>a&lt;b&gt;</code></p>\n<p>| not a table</p>",
                          "<h2 id=\"s5\">stage <code>s</code></h2>", "<th class=\"num\">top1 (%)</th>", "<td>a | b</td>",
                          "<td class=\"num\">81.20 ± 1.30</td>", "<li><strong>Caveat</strong> &quot;q&quot; &#39;x&#39;</li>",
                          "<tr class=\"verdict-inconclusive\">", "<span class=\"ci\">90% CI [+0.80, +4.70]</span>"};
    int missing = -1;
    for (size_t i = 0; i < sizeof want / sizeof *want && missing < 0; i++)
        if (!html || !strstr(html, want[i])) missing = (int)i;
    const char *name = "report html: the report's Markdown as escaped HTML (headings, tables, lists, code, bold, verdict rows)";
    if (missing < 0 && k == 5) test_pass(name, "%zu fragments found", sizeof want / sizeof *want);
    else test_fail(name, "missing %s; k %d; got: %.900s", missing >= 0 ? want[missing] : "-", k, html ? html : "");
    free(html);
}

int main(void) {
    test_markdown_html();
    if (report_runs_setup() != 0) return 1;
    char *out = NULL, *err = NULL;
    int rc = capture(cmd_report, 1, (char *[]){g_dir}, &out, &err);
    int none = !exists(g_dir, "findings.csv") && !exists(g_dir, "tables.json") && !exists(g_dir, "tables");
    test_check("report formats: md (the default) writes REPORT.md and no CSV or JSON", rc == 0 && exists(g_dir, "REPORT.md") && none,
               "exit %d; stderr %.300s", rc, err ? err : "");
    char mdpath[600];
    snprintf(mdpath, sizeof mdpath, "%s/REPORT.md", g_dir);
    char *md_default = slurp(mdpath);
    free(out), free(err);

    rc = capture(cmd_report, 3, (char *[]){g_dir, "--format", "md,csv,json"}, &out, &err);
    int all = exists(g_dir, "findings.csv") && exists(g_dir, "findings.json") && exists(g_dir, "tables.json") &&
              exists(g_dir, "tables/exp_finetune.csv");
    test_check("report formats: --format md,csv,json writes findings.csv/.json, tables.json and tables/*.csv", rc == 0 && all,
               "exit %d; stderr %.300s", rc, err ? err : "");
    char *md = slurp(mdpath);
    test_check("report formats: REPORT.md is the same with --format csv,json", md && md_default && !strcmp(md, md_default),
               "REPORT.md differs");
    free(md), free(md_default), free(out), free(err);

    char cmd[900];
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 tests/report_formats_check.py '%s'", g_dir);
    fflush(stdout);
    if (access("/usr/bin/python3", X_OK) != 0) test_skip("report formats: content", "/usr/bin/python3 is missing");
    else if (system(cmd) != 0) test_fail("report formats: content", "%s did not run", cmd);

    // A later report without csv,json removes their files (they held the earlier numbers); a table
    // file this report does not have goes too, a file that is not ours (not .csv) stays.
    char path[700];
    snprintf(path, sizeof path, "%s/tables/exp_gone.csv", g_dir);
    FILE *f = fopen(path, "w");
    if (f) fputs("old\r\n", f), fclose(f);
    rc = capture(cmd_report, 3, (char *[]){g_dir, "--format", "md,csv"}, &out, &err);
    test_check("report formats: a table the report no longer has is removed, the json of an earlier --format too",
               rc == 0 && !exists(g_dir, "tables/exp_gone.csv") && exists(g_dir, "tables/exp_finetune.csv") &&
                   !exists(g_dir, "tables.json") && !exists(g_dir, "findings.json") && err && strstr(err, "removed"),
               "exit %d; stderr %.300s", rc, err ? err : "");
    free(out), free(err);
    snprintf(path, sizeof path, "%s/tables/notes.txt", g_dir);
    f = fopen(path, "w");
    if (f) fputs("mine\n", f), fclose(f);
    rc = capture(cmd_report, 1, (char *[]){g_dir}, &out, &err);
    test_check("report formats: md alone after csv removes findings.csv and tables/*.csv, keeps other files",
               rc == 0 && !exists(g_dir, "findings.csv") && !exists(g_dir, "tables/exp_finetune.csv") && exists(g_dir, "tables/notes.txt"),
               "exit %d; stderr %.300s", rc, err ? err : "");
    free(out), free(err);

    expect_status("report formats: --format xml is refused", cmd_report, 3, (char *[]){g_dir, "--format", "xml"}, 2,
                  "unknown format 'xml' (valid: md, csv, json, html");
    expect_status("report formats: --format with nothing after it is refused", cmd_report, 2, (char *[]){g_dir, "--format"}, 2,
                  "--format needs a list");
    report_runs_cleanup();
    return test_exit_code();
}
