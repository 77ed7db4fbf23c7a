// bench/results/machine.c — the machine facts of machine.h, read from /proc/cpuinfo.
#include "machine.h"
#include <stdio.h>
#include <string.h>

void machine_cpu_model(char *out, size_t len) {
    snprintf(out, len, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *c = strchr(line, ':');
        if (!strncmp(line, "model name", 10) && c) {
            c++;
            while (*c == ' ') c++;
            snprintf(out, len, "%.*s", (int)strcspn(c, "\n"), c);
            break;
        }
    }
    if (fclose(f) != 0) snprintf(out, len, "unknown");
}
