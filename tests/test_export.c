// tests/test_export.c — the field writers of `posbench export` (bench/results/export.h), without
// any run file: CSV fields quoted per RFC 4180 exactly when they hold ',', '"', CR or LF (quotes
// doubled); JSON strings escaped per RFC 8259 (quote, backslash, control characters; valid
// multi-byte UTF-8 kept); in both a byte that is not valid UTF-8 is the visible text "\xNN"; numbers as the shortest decimal that reads
// back as the same double, and non-finite numbers as "" (never "nan" or "inf").
#include "testing.h"
#include "../bench/results/export.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// What f writes for text, into a static buffer.
static const char *render(void (*f)(FILE *, const char *), const char *text) {
    static char out[512];
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) return "(open_memstream failed)";
    f(m, text);
    fclose(m);
    snprintf(out, sizeof out, "%s", buf ? buf : "");
    free(buf);
    return out;
}

int main(void) {
    static const struct {
        const char *in, *csv, *json;
    } cases[] = {
        {"plain", "plain", "\"plain\""},
        {"", "", "\"\""},
        {"a,b", "\"a,b\"", "\"a,b\""},
        {"say \"hi\"", "\"say \"\"hi\"\"\"", "\"say \\\"hi\\\"\""},
        {"two\nlines", "\"two\nlines\"", "\"two\\nlines\""},
        {"cr\rlf", "\"cr\rlf\"", "\"cr\\rlf\""},
        {"tab\there \\ back", "tab\there \\ back", "\"tab\\there \\\\ back\""},
        {"bell\a", "bell\a", "\"bell\\u0007\""},
        {"\xc3\xa9\xe4\xb8\xad", "\xc3\xa9\xe4\xb8\xad", "\"\xc3\xa9\xe4\xb8\xad\""},
        {"bad \xff byte \xc3", "bad \\xff byte \\xc3", "\"bad \\\\xff byte \\\\xc3\""},
        {"surrogate \xed\xa0\x80", "surrogate \\xed\\xa0\\x80", "\"surrogate \\\\xed\\\\xa0\\\\x80\""},
        {"latin-1 path /r/caf\xe9/x.h5, quoted", "\"latin-1 path /r/caf\\xe9/x.h5, quoted\"", "\"latin-1 path /r/caf\\\\xe9/x.h5, quoted\""},
        {"C1 \xc2\x85 kept", "C1 \xc2\x85 kept", "\"C1 \xc2\x85 kept\""},
    };
    int wrong = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char csv[512];
        snprintf(csv, sizeof csv, "%s", render(export_csv_field, cases[i].in));
        const char *json = render(export_json_string, cases[i].in);
        if (strcmp(csv, cases[i].csv) || strcmp(json, cases[i].json))
            wrong++, test_fail("export field", "case %zu: csv [%s] want [%s], json [%s] want [%s]", i, csv, cases[i].csv, json, cases[i].json);
    }
    test_check("export: CSV fields quoted exactly when needed (quotes doubled), JSON strings escaped, bytes that are not UTF-8 as a visible \\xNN in both",
               wrong == 0, "%zu cases, %d wrong", sizeof cases / sizeof cases[0], wrong);

    static const double values[] = {0.1, 0.482 * 100, 1e-5, 2e-3, 1.0 / 3, 123456789, -0.0, 5e-324, 1.7976931348623157e308, 12};
    wrong = 0;
    char buf[64], why[256] = "";
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        export_number(values[i], buf, sizeof buf);
        double back = strtod(buf, NULL);
        // shortest: one digit fewer does not read back
        int shorter_ok = 0;
        char shorter[64];
        for (int p = 1; p < 17; p++) {
            snprintf(shorter, sizeof shorter, "%.*g", p, values[i]);
            if (strtod(shorter, NULL) == values[i]) {
                shorter_ok = strlen(shorter) < strlen(buf);
                break;
            }
        }
        int whole = values[i] == floor(values[i]) && fabs(values[i]) < 1e15; // written as a whole number instead
        if (back != values[i] || signbit(back) != signbit(values[i]) || (shorter_ok && !whole) || (whole && strpbrk(buf, "e.")))
            wrong++, snprintf(why, sizeof why, "%.17g -> %s", values[i], buf);
    }
    // Whole numbers (steps, counts, a float key 60) as integers, never 1e+01: pandas reads them as ints.
    static const struct {
        double v;
        const char *want;
    } whole[] = {{10, "10"}, {20, "20"}, {60, "60"}, {1e6, "1000000"}, {1e14, "100000000000000"}, {-3, "-3"}, {1e15, "1e+15"}};
    for (size_t i = 0; i < sizeof whole / sizeof whole[0]; i++) {
        export_number(whole[i].v, buf, sizeof buf);
        if (strcmp(buf, whole[i].want)) wrong++, snprintf(why, sizeof why, "%.17g -> %s, want %s", whole[i].v, buf, whole[i].want);
    }
    static const double bad[] = {NAN, INFINITY, -INFINITY};
    for (size_t i = 0; i < 3; i++) {
        export_number(bad[i], buf, sizeof buf);
        if (buf[0]) wrong++, snprintf(why, sizeof why, "non-finite -> '%s'", buf);
    }
    test_check("export: numbers read back exactly in the fewest digits, whole numbers below 1e15 as integers; nan, inf, -inf "
               "written as nothing", wrong == 0,
               "%d wrong %s", wrong, why);
    return test_exit_code();
}
