// bench/cli/cmd_data.h — `posbench data ...`: making data sets (bench/cli/cmd_data.c).
#pragma once
// argv starts after "data". Returns the exit status (bad input exits 2 through die_input).
int cmd_data(int argc, char **argv);
