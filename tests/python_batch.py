#!/usr/bin/python3
"""Runs several Python checks of one test program in one interpreter (tests/testing.c's
test_python_flush): torch and numpy are imported once instead of once per check (about 1.3 CPU
seconds each with Debian's PyTorch 1.13).

Usage: /usr/bin/python3 tests/python_batch.py LIST STATUS

LIST has one check a line, tab-separated: SCRIPT TAG LABEL DUMP. Each SCRIPT is run as
`python3 SCRIPT DUMP` would run it (runpy as __main__, sys.argv [SCRIPT, DUMP], its folder first
on sys.path), its stdout and stderr printed after it ends with "PASS TAG ..." / "FAIL TAG ..."
renamed "PASS TAG[LABEL] ..." / "FAIL TAG[LABEL] ..."; its exit status (sys.exit's code, 1 for
an exception, whose traceback is printed) is written to STATUS as "INDEX STATUS" a line, INDEX
counting the checks from 0. Exit status 0 when every line was run, 2 when LIST or STATUS
cannot be read or written.
"""
import contextlib
import io
import os
import runpy
import sys
import traceback


def run_one(script, dump):
    out = io.StringIO()
    folder = os.path.dirname(os.path.abspath(script))
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = [script, dump]
    sys.path.insert(0, folder)
    status = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            try:
                runpy.run_path(script, run_name="__main__")
            except SystemExit as e:
                if e.code is None:
                    status = 0
                elif isinstance(e.code, int):
                    status = e.code
                else:
                    print(e.code, file=sys.stderr)
                    status = 1
            except Exception:  # the script's own failure: its traceback, status 1
                traceback.print_exc()
                status = 1
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
    return status, out.getvalue()


def relabel(text, tag, label):
    lines = []
    for line in text.splitlines():
        for word in ("PASS ", "FAIL "):
            if line.startswith(word + tag):
                line = word + tag + "[" + label + "]" + line[len(word + tag):]
        lines.append(line)
    return "\n".join(lines) + ("\n" if lines else "")


def main(argv):
    if len(argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    try:
        with open(argv[1]) as f:
            checks = [line.rstrip("\n").split("\t") for line in f if line.strip()]
        status_file = open(argv[2], "w")
    except OSError as e:
        print(f"python_batch: {e}", file=sys.stderr)
        return 2
    for i, fields in enumerate(checks):
        if len(fields) != 4:
            print(f"python_batch: {argv[1]}:{i + 1}: want SCRIPT TAG LABEL DUMP (tab-separated), got {len(fields)} fields",
                  file=sys.stderr)
            return 2
    with status_file:
        for i, (script, tag, label, dump) in enumerate(checks):
            status, text = run_one(script, dump)
            sys.stdout.write(relabel(text, tag, label))
            sys.stdout.flush()
            status_file.write(f"{i} {status}\n")
            status_file.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
