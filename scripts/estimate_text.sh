# scripts/estimate_text.sh — sourced by scripts/reproduce.sh and scripts/reproduce_all.sh (not run
# itself): the wording of their up-front estimate (bench/run/estimate.h), so both say it alike.
# about_minutes SECONDS: "under a minute", "about N min", from two hours "about N min (H.H h)", from
# two days "about N h (D days)" (as posbench run says it).
about_minutes() {
    if [ "$1" -lt 60 ]; then echo "under a minute"
    elif [ "$1" -lt 7200 ]; then echo "about $(( ($1 + 30) / 60 )) min"
    elif [ "$1" -lt 172800 ]; then echo "about $(( ($1 + 30) / 60 )) min ($(( $1 / 3600 )).$(( $1 % 3600 * 10 / 3600 )) h)"
    else echo "about $(( ($1 + 1800) / 3600 )) h ($(( ($1 + 43200) / 86400 )) days)"; fi
}
# How the estimate is made, after "N runs to train, about T on this machine".
ESTIMATE_HOW="(estimated: training, evaluation and linear-probe FLOPs at measured fractions of this machine's sgemm, plus each run's setup, on an otherwise idle machine)"
# estimate_device_note DEVICE: what the estimate means on a GPU ("" on the CPU).
estimate_device_note() { [ "$1" = cuda ] && echo "; a CPU estimate: on a GPU the runs take far less"; }
