// tests/test_terminal_text.c — terminal_safe (bench/cli/terminal_text.c): ESC sequences, other
// C0 controls, DEL, C1 controls and invalid UTF-8 become visible \xNN; valid UTF-8 passes; a
// full buffer is cut between characters, never inside an escape.
#include "testing.h"
#include "../bench/cli/terminal_text.h"
#include <string.h>

static void expect(const char *name, const char *in, size_t len, const char *want) {
    char out[256];
    terminal_safe(in, out, len);
    test_check(name, strcmp(out, want) == 0, "got '%s', want '%s'", out, want);
}

int main(void) {
    expect("plain ASCII unchanged", "run-0 a=b (x)", 256, "run-0 a=b (x)");
    expect("ESC sequence escaped (clear screen)", "ab\x1b[2Jcd", 256, "ab\\x1b[2Jcd");
    expect("window-title sequence escaped (OSC ... BEL)", "\x1b]0;pwned\x07", 256, "\\x1b]0;pwned\\x07");
    expect("newline, tab, carriage return and DEL escaped", "a\nb\tc\rd\x7f", 256, "a\\x0ab\\x09c\\x0dd\\x7f");
    expect("UTF-8 letters pass (é, η, →, 𝑥)", "\xc3\xa9 \xce\xb7 \xe2\x86\x92 \xf0\x9d\x91\xa5", 256,
           "\xc3\xa9 \xce\xb7 \xe2\x86\x92 \xf0\x9d\x91\xa5");
    expect("UTF-8 C1 control (CSI, U+009B) escaped byte by byte", "x\xc2\x9b" "2Jy", 256, "x\\xc2\\x9b2Jy");
    expect("Latin-1 byte (invalid UTF-8) escaped", "caf\xe9!", 256, "caf\\xe9!");
    expect("truncated UTF-8 sequence escaped", "a\xe2\x86", 256, "a\\xe2\\x86");
    expect("overlong encoding escaped", "\xc0\xaf", 256, "\\xc0\\xaf");
    expect("a full buffer is cut before an escape, not inside it", "ab\x1b", 6, "ab");
    expect("a full buffer is cut before a multibyte character", "ab\xe2\x86\x92", 5, "ab");
    expect("NULL text is empty", NULL, 256, "");
    return test_exit_code();
}
