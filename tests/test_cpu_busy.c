// tests/test_cpu_busy.c — the busy-cores warning (bench/train/cpu_busy.h): when it is given (more
// than one OpenMP thread per run, waits not passive, more threads than the load leaves cores),
// what it says, and the load average read from a /proc/loadavg-format file.
#include "../bench/train/cpu_busy.h"
#include "testing.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void check_case(const char *name, double load1, long cores, int jobs, int threads, const char *policy, int want) {
    char text[512];
    int got = cpu_busy_warning(load1, cores, jobs, threads, policy, text, sizeof text);
    test_check(name, got == want && (got ? strlen(text) > 0 : text[0] == 0), "load %.1f, %ld cores, %d x %d threads, policy %s: %s",
               load1, cores, jobs, threads, policy ? policy : "(unset)", got ? text : "no warning");
}

int main(void) {
    check_case("cpu busy: two busy cores, one run of 2 spinning threads: warned", 2.0, 2, 1, 2, NULL, 1);
    check_case("cpu busy: the same with OMP_WAIT_POLICY=passive: no warning", 2.0, 2, 1, 2, "passive", 0);
    check_case("cpu busy: the wait policy is read case-insensitively (PASSIVE)", 2.0, 2, 1, 2, "PASSIVE", 0);
    check_case("cpu busy: OMP_WAIT_POLICY=active still warns", 2.0, 2, 1, 2, "active", 1);
    check_case("cpu busy: one thread per run never spins: no warning however busy", 8.0, 2, 2, 1, NULL, 0);
    check_case("cpu busy: an idle machine: no warning", 0.1, 2, 1, 2, NULL, 0);
    check_case("cpu busy: half a core taken leaves room within the half-core margin: no warning", 0.5, 2, 1, 2, NULL, 0);
    check_case("cpu busy: 16 cores, load 10, 2 jobs x 4 threads (8 of 6 free): warned", 10.0, 16, 2, 4, NULL, 1);
    check_case("cpu busy: 16 cores, load 4, 2 jobs x 4 threads: no warning", 4.0, 16, 2, 4, NULL, 0);

    char text[512];
    cpu_busy_warning(3.4, 2, 2, 2, NULL, text, sizeof text);
    test_check("cpu busy: the warning names the load, the cores, the threads per job and both ways out",
               strstr(text, "load average 3.4") && strstr(text, "on 2 cores") && strstr(text, "2 OpenMP threads per job") &&
                   strstr(text, "--threads 2 (one thread per job)") && strstr(text, "OMP_WAIT_POLICY=passive") &&
                   strstr(text, "results are the same"),
               "%s", text);

    char path[] = "/tmp/posbench-loadavg.XXXXXX";
    int fd = mkstemp(path);
    double load = -1.0;
    int ok = fd >= 0 && write(fd, "1.75 0.98 0.50 3/412 12345\n", 27) == 27;
    if (fd >= 0) close(fd);
    ok = ok && cpu_load1_read(path, &load) == 0;
    test_check("cpu busy: the 1-minute load average read from a /proc/loadavg line", ok && load == 1.75, "%.2f", load);
    FILE *f = fopen(path, "w");
    if (f) fputs("not a number\n", f), fclose(f);
    test_check("cpu busy: a file that does not start with a number is refused", f && cpu_load1_read(path, &load) == -1, "rc");
    unlink(path);
    test_check("cpu busy: a missing file is refused", cpu_load1_read("/nonexistent/loadavg", &load) == -1, "rc");
    return test_exit_code();
}
