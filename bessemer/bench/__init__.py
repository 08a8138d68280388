"""bessemer bench: eager vs Inductor vs bessemer on the model zoo, each in fresh processes.

    cli.py      arguments, validation, output files
    suite.py    plans the worker processes and assembles their results
    runner.py   the worker: one (model, mode, phase) per process
    dynamic.py  --dynamic: varying input shapes against a static run (its plan, phases, table)
    measure.py  step times, FLOPs, the matmul peak, peak memory
    fit.py      whether a batch fits, estimated before anything runs
    search.py   the largest batch under a memory limit, found by real steps (`bessemer tune`,
                `bench memory --tune-limit`, a job's batch_size="auto")
    probe.py    one probe of that search: a few steps at one batch size in a fresh process
    report.py   the table, results.md / the tested-models page, the chart
"""
