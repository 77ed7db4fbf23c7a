// bench/cli/terminal_text.h — text from files (run names, metric keys, paths, messages) made safe
// to print on a terminal: control characters (C0, DEL and UTF-8-encoded C1, which carry ESC
// sequences that move the cursor, retitle the window or rewrite what is shown) and bytes that
// are not valid UTF-8 become visible \xNN escapes; valid UTF-8 text passes unchanged.
#pragma once
#include <stddef.h>

// out (len bytes, NUL-terminated, cut at a whole escape or character when full) = in made safe.
// Returns out.
char *terminal_safe(const char *in, char *out, size_t len);
