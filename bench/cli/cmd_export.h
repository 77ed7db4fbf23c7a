// bench/cli/cmd_export.h — `posbench export` (bench/cli/cmd_export.c; tables in bench/results/export.h).
#pragma once

int cmd_export(int argc, char **argv);
