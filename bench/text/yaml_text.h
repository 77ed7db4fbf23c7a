// bench/text/yaml_text.h — text in a YAML file posbench writes (`posbench sweep`'s experiment,
// `posbench train --print-config`, a run's config_yaml): a value can never end its scalar and
// start another key, and a comment never leaves its line.
//   yaml_quoted   a double-quoted scalar: '"' and '\' backslash-escaped, newline "\n", tab "\t",
//                 CR "\r", other controls (C0, DEL, C1) "\xNN" (YAML's escapes, so a YAML reader
//                 gets the text back); a byte that is not valid UTF-8 cannot be written in YAML
//                 and is written as "\xNN" too (U+00NN when read back: visible, not silent).
//   yaml_comment  the text of a "# ..." comment: one line, controls and invalid bytes as a
//                 visible "\xNN" (visible_text.h).
#pragma once
#include <stdio.h>

void yaml_quoted(FILE *out, const char *in);
void yaml_comment(FILE *out, const char *in);
