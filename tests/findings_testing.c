// tests/findings_testing.c — see findings_testing.h.
#include "findings_testing.h"
#include "testing.h"
#include "../bench/experiment/findings_spec.h"
#include <stdio.h>
#include <string.h>

void findings_check_refusals(const char *dir, const findings_refusal *cases, int n, const char *label) {
    char path[512], err[1024], name[160];
    snprintf(path, sizeof path, "%s/bad.yaml", dir);
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof name, "%s %d: %.40s", label, i + 1, cases[i].needle);
        FILE *f = fopen(path, "w");
        if (!f || fputs(cases[i].text, f) < 0 || fclose(f) != 0) {
            test_fail(name, "cannot write %s", path);
            continue;
        }
        findings_list fl;
        int rc = findings_load(path, &fl, err, sizeof err);
        test_check(name, rc != 0 && strstr(err, cases[i].needle), "rc %d: %s", rc, rc ? err : "(accepted)");
        if (rc == 0) findings_list_free(&fl);
    }
}
