// bench/run/runner.h — `posbench run` and `posbench slurm`: execute an experiment's runs.
#pragma once

// argv: the arguments after "run" / "slurm". Return the exit status.
int cmd_run(int argc, char **argv);   // runner.c
int cmd_slurm(int argc, char **argv); // slurm_script.c: the sbatch job-array script

// Validates a --device value (core/device.h: auto | cpu | cpu-guarded | cuda); a name that is
// not one, or cuda where this build or machine cannot run it, is bad input (exit 2) saying why.
void device_flag_validate(const char *value);
