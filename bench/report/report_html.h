// bench/report/report_html.h — DIR/REPORT.html, written by every `posbench report DIR`: the whole
// report as one self-contained page that a browser reads offline (no script, no external URL,
// no file beside it):
//   - REPORT.md's content (headings, paragraphs, lists, tables; `code` and **bold**), every text
//     escaped for HTML; a contents list of its sections at the top;
//   - findings rows coloured by verdict (holds green, does not hold red, inconclusive amber, not
//     measured grey; the verdict is also written out, so colour is never the only cue) with the
//     90% CIs of their ours cells marked;
//   - "Figures": every DIR/**/figures/<name>.svg that `posbench plot` drew (its data file
//     figures/data/<name>.dat lies beside it; any other SVG is not shown, with a warning), as an
//     image, <img src="data:image/svg+xml;base64,...">, never as inline markup, so no script in
//     an SVG can run in the page; with its file name; a line saying how to draw them when none;
//   - "Commands and commit": the report's own command line and the posbench commit that wrote
//     it, the `posbench run` command of each experiment whose copy is below DIR (with the --scale
//     its runs recorded: report_provenance.h), and the commits
//     and devices the counted runs were made with (root attrs git_commit, device).
// Written atomically (core/safe_file.h: a temporary name of its own, renamed).
#pragma once
#include "../results/results_read.h"
#include <stdio.h>

// Writes DIR/REPORT.html from the report's Markdown md; argv: the arguments after "report".
// 0, or the exit code (1 or 2: report_write_file, the error printed).
int report_html_write(const char *dir, const char *md, const rr_set *set, int argc, char **argv);

// DIR/REPORT.html of `posbench report --index DIR` (report_index.h): md as HTML under the verdict
// legend, with the same style, without figures or commands; relative links [text](path) become
// <a href>. 0, or -1 (the error printed).
int report_html_write_page(const char *dir, const char *md, const char *title);

// The pieces, for tests: text with & < > " ' escaped, controls (but newline and tab) and bytes
// that are not UTF-8 as a visible "\xNN" (core/visible_text.h); REPORT.md's Markdown as HTML (headings get
// ids "s<k>", k counting on from *nsection, which is updated).
void html_escape(FILE *out, const char *text, size_t n);
void html_from_markdown(FILE *out, const char *md, int *nsection);
