// bench/run/sgemm_cache.h — the sgemm rate behind `posbench run`'s time estimate, measured once a
// day per machine and build instead of on every call (each measurement costs about 0.3 CPU s).
// The rate is estimate_sgemm_cpu_gflops()'s (bench/run/estimate.h); it is kept in the per-user
// cache file `sgemm-rate` (core/user_cache.h: checksummed, written atomically):
//   posbench sgemm rate per CPU second, valid for a day
//   host <hostname>
//   cpu <CPU model, bench/results/machine.h>
//   build <POSBENCH_VERSION> <commit> <size and mtime of the executable>
//   measured <Unix seconds>
//   gflops <rate, %.17g>
// and used while host, cpu and build match this process and it is less than SGEMM_CACHE_MAX_AGE_S
// old (and not from the future). Otherwise the rate is measured and the file rewritten; a damaged
// file (failed checksum, or lines that do not parse) is named in a warning, then measured and
// rewritten the same way. The estimate printed is the same with or without the file: it is
// computed from the rate alone, which the file holds at full precision.
#pragma once

#define SGEMM_CACHE_MAX_AGE_S 86400

// The sgemm rate per CPU second from the cache or, failing that, measured (and cached); NaN when
// the measurement fails (nothing is cached then).
double sgemm_rate_cached(void);
