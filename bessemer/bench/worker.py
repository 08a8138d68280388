"""The benchmark's worker process: one job, a (model, mode, phase), in a fresh process.

    python -m bessemer.bench.worker JOB.json

The phases of a benchmark run are runner.py's (run, warm, memory); those of
`bessemer bench --dynamic` are dynamic.py's (shapes, static). The result is
written to the job's result_path, a failure as one line (the traceback goes to
the worker's log).
"""
from __future__ import annotations

import json
import sys
import traceback

from . import dynamic, runner


def run_job(job: dict) -> dict:
    stage = runner.Stage()
    try:
        if job["phase"] in runner.PHASES:
            return {"ok": True, **runner.run_phase(job, stage)}
        return {"ok": True, **dynamic.run_worker(job, stage)}
    except BaseException as e:  # noqa: BLE001 - every failure becomes a result row
        traceback.print_exc()
        msg = " ".join(str(e).split()) or "(no message)"
        if len(msg) > 300:
            msg = msg[:297] + "..."
        return {"ok": False, "stage": stage.name, "error": f"{type(e).__name__}: {msg}"}


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m bessemer.bench.worker JOB.json", file=sys.stderr)
        return 2
    with open(argv[0]) as f:
        job = json.load(f)
    runner.write_json(job["result_path"], run_job(job))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
