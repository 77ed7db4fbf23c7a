// core/visible_text.h — the rule every output format's escaper starts from: text from
// files (paths, attribute values, stage names, metric keys) is shown as it is where it is valid
// UTF-8 and printable, and every byte that is not — C0 controls (newline, ESC, ...), DEL, the C1
// controls U+0080..U+009F, and bytes that are not valid UTF-8 (a Latin-1 file name) — becomes a
// visible four-character escape "\xNN" instead of being dropped, replaced or passed on. It
// lives in core/ because the messages of every layer go through it: die_input, die_fail,
// warn_msg and error_msg escape their whole message, vis() (core/common.h) one argument of any
// other message. The format escapers (markdown_text.h, yaml_text.h, html in
// bench/report/report_html.h, gnuplot data in bench/report/gnuplot.h, CSV/JSON in
// bench/results/export.h, the terminal in bench/cli/terminal_text.h) add the characters their
// format gives a meaning to.
#pragma once
#include <stddef.h>
#include <stdio.h>

// Length of the valid, printable UTF-8 character at s (1..4), 0 when the bytes there are not
// one (invalid, overlong, a surrogate, above U+10FFFF, or a C1 control). ASCII controls are
// valid here (1): callers decide about them.
int text_char_length(const unsigned char *s);
// Writes in to out with controls (C0, DEL, C1), invalid bytes and every ASCII character listed in
// `also` (NULL: none) as "\xNN". Returns the bytes written.
size_t visible_text(FILE *out, const char *in, const char *also);
// (visible_dup, the same into a new string, and vis() are in core/common.h: they allocate.)
