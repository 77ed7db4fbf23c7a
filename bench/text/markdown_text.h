// bench/text/markdown_text.h — text from files in REPORT.md (and so in REPORT.html, which is made
// from it): a path, stage or experiment name, attribute value or message can never start a line,
// a heading, a list item, a table row or cell, or end a code span. Each call writes one line:
// a tab becomes a space; other controls (a newline among them) and invalid UTF-8 become a visible
// "\xNN" (visible_text.h), and
//   md_cell   (a table cell, which may hold the report's own `code` and **bold**): '|' as "\|" (no
//             cell ends inside it);
//   md_text   (a file's text in running text or a list item): as md_cell, and '`' and '*' as
//             "\x60", "\x2a" (no code span or bold starts or ends inside it);
//   md_code   (inside a `code span` the caller opens and closes): '`' and '|' as "\x60", "\x7c".
#pragma once
#include <stdio.h>

void md_cell(FILE *out, const char *in);
void md_text(FILE *out, const char *in);
void md_code(FILE *out, const char *in);
// md_text / md_code into a new string (malloc'd).
char *md_text_dup(const char *in);
char *md_code_dup(const char *in);
