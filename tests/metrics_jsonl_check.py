#!/usr/bin/python3
"""tests/metrics_jsonl_check.py LABEL RUN.metrics.jsonl RUN.h5 [REFERENCE.metrics.jsonl] — checks a
finished run's live-metrics file (bench/train/metrics_log.h) against its HDF5 file, read with h5py:
  - every line is strict JSON (RFC 8259: no NaN/Infinity tokens) ending in a newline, run_id = the file's;
  - the lines' steps are exactly the logged steps the rules name: the multiples of
    max(1, total_steps // 1000), every /eval step and the last step, each once, in order;
  - loss, lr and grad_norm equal /train's at that step, eval_<metric> and eval_loss equal /eval's
    (the numbers are written as the shortest round-trip decimal: equal as doubles);
  - with REFERENCE (an uninterrupted run of the same config): step, epoch, loss, loss_avg, lr,
    grad_norm and the eval values equal the reference's line for line (a resumed run lost and
    duplicated nothing).
Prints PASS/FAIL lines "LABEL: ..."; SKIP when h5py is missing."""
import json
import sys


def fail_constant(name):
    raise ValueError(f"non-JSON number {name}")


def main():
    label, path, h5path = sys.argv[1:4]
    ref = sys.argv[4] if len(sys.argv) > 4 else None
    try:
        import h5py
    except ImportError:
        print(f"SKIP {label}: h5py is not installed (make deps installs python3-h5py)")
        return 0
    text = open(path, encoding="utf-8").read()
    ok, why = True, []
    lines = text.split("\n")
    if lines[-1] != "":
        ok = False
        why.append("the last line has no newline")
    rows = []
    for i, line in enumerate(lines[:-1]):
        try:
            rows.append(json.loads(line, parse_constant=fail_constant))
        except ValueError as e:
            ok = False
            why.append(f"line {i + 1} is not strict JSON: {e}")
    print(("PASS" if ok else "FAIL") + f" {label}: every line strict JSON ({len(rows)} lines)" + ("" if ok else ": " + "; ".join(why[:3])))
    with h5py.File(h5path, "r") as f:
        run_id = f.attrs["run_id"]
        run_id = run_id.decode() if isinstance(run_id, bytes) else str(run_id)
        train = {k: f["train"][k][()] for k in ("step", "loss", "lr", "grad_norm")}
        ev = {k: f["eval"][k][()] for k in f["eval"].keys()}
    total = int(train["step"][-1])
    every = max(1, total // 1000)
    eval_steps = set(int(s) for s in ev["step"])
    want = [s for s in range(1, total + 1) if s % every == 0 or s in eval_steps or s == total]
    got = [r.get("step") for r in rows]
    same_ids = all(r.get("run_id") == run_id for r in rows)
    print(("PASS" if got == want and same_ids else "FAIL") + f" {label}: one line per logged step, in order ({len(want)} steps of {total}, every {every})"
          + ("" if got == want and same_ids else f": got steps {got[:20]}, want {want[:20]}, run ids match: {same_ids}"))
    bad = []
    for r in rows:
        s = r["step"]
        i = s - 1
        for k in ("loss", "lr", "grad_norm"):
            if r.get(k) != float(train[k][i]):
                bad.append(f"step {s} {k} {r.get(k)} vs /train {float(train[k][i])}")
        if s in eval_steps:
            j = list(int(x) for x in ev["step"]).index(s)
            for k in ev:
                if k in ("step", "epoch"):
                    continue
                if r.get("eval_" + k) != float(ev[k][j]):
                    bad.append(f"step {s} eval_{k} {r.get('eval_' + k)} vs /eval {float(ev[k][j])}")
        elif any(k.startswith("eval_") for k in r):
            bad.append(f"step {s} has eval keys without an evaluation")
    print(("PASS" if not bad else "FAIL") + f" {label}: values equal the HDF5 file's /train and /eval" + ("" if not bad else ": " + "; ".join(bad[:3])))
    if ref:
        rrows = [json.loads(l, parse_constant=fail_constant) for l in open(ref, encoding="utf-8") if l.strip()]
        keys = ("step", "epoch", "loss", "loss_avg", "lr", "grad_norm")
        diff = [f"line {i + 1}" for i, (a, b) in enumerate(zip(rows, rrows))
                if any(a.get(k) != b.get(k) for k in keys) or
                any(a.get(k) != b.get(k) for k in set(a) | set(b) if k.startswith("eval_"))]
        same = len(rows) == len(rrows) and not diff
        print(("PASS" if same else "FAIL") + f" {label}: equal to the uninterrupted run's lines ({len(rows)} vs {len(rrows)} lines)"
              + ("" if same else ": differ at " + ", ".join(diff[:5])))
    return 0


sys.exit(main())
