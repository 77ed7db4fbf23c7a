// bench/cli/cmd_version.h — `posbench --version` (bench/cli/cmd_version.c).
#pragma once

// Prints what this binary is and what it runs on, one "key: value" line each; returns 0.
int cmd_version(void);
