"""Failure reasons a person can act on: the script's exception line first, its own frames at
the paths of the user's folder, a hint where the cause is known, never bessemer's banner."""
from bessemer.jobs.errors import ScriptContext, failure_reason, parse_last_error

CTX = ScriptContext(code_dir="/runs/job-1/code", source_dir="/home/me/project", channels=("train",),
                    python="/venv/bin/python")

TORCHRUN_LOG = """\
bessemer: training job job-1 (pytorch, engine local, 1 instance x 2 process(es))
bessemer: training compiler configured (enabled=True, debug=False)
step 1
Traceback (most recent call last):
  File "/runs/job-1/code/train.py", line 30, in <module>
    main()
  File "/runs/job-1/code/train.py", line 20, in main
    batch = load(i)
            ^^^^^^^
  File "/venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 700, in __next__
    data = self._next_data()
  File "/runs/job-1/code/data.py", line 5, in load
    raise ValueError("bad batch")
ValueError: bad batch
[rank0]: more noise
Traceback (most recent call last):
  File "/venv/bin/torchrun", line 8, in <module>
    sys.exit(main())
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
train.py FAILED
""".splitlines()


def test_the_reason_starts_with_the_exception_and_shows_the_users_frames():
    reason = failure_reason(1, TORCHRUN_LOG, CTX)
    lines = reason.splitlines()
    assert lines[0] == "ValueError: bad batch"
    assert lines[1:7] == [
        '  File "/home/me/project/train.py", line 30, in <module>',
        "    main()",
        '  File "/home/me/project/train.py", line 20, in main',
        "    batch = load(i)",
        '  File "/home/me/project/data.py", line 5, in load',
        '    raise ValueError("bad batch")',
    ]
    assert lines[-1] == "(the script exited with code 1)"
    assert "dataloader.py" not in reason and "ChildFailedError" not in reason
    assert "bessemer:" not in reason and "more noise" not in reason


def test_a_frame_outside_the_script_is_kept_when_it_raised():
    log = ["Traceback (most recent call last):",
           '  File "/runs/job-1/code/train.py", line 3, in <module>',
           "    torch.load(p)",
           '  File "/venv/lib/python3.11/site-packages/torch/serialization.py", line 9, in load',
           "    raise RuntimeError(msg)",
           "RuntimeError: Error(s) in loading state_dict:",
           "\tMissing key(s): fc.weight",
           ""]
    lines = failure_reason(1, log, CTX).splitlines()
    assert lines[:2] == ["RuntimeError: Error(s) in loading state_dict:", "\tMissing key(s): fc.weight"]
    assert lines[2] == '  File "/home/me/project/train.py", line 3, in <module>'
    assert lines[4] == '  File "/venv/lib/python3.11/site-packages/torch/serialization.py", line 9, in load'


def test_a_missing_file_hints_at_source_dir_and_channels():
    log = ["Traceback (most recent call last):",
           '  File "/runs/job-1/code/train.py", line 12, in <module>',
           '    rows = open("../data/train.csv").read()',
           "FileNotFoundError: [Errno 2] No such file or directory: '../data/train.csv'"]
    reason = failure_reason(1, log, CTX)
    assert reason.startswith("FileNotFoundError: [Errno 2] No such file or directory: '../data/train.csv'")
    [hint] = [ln for ln in reason.splitlines() if ln.startswith("hint: ")]
    assert "--source-dir" in hint and "--channel NAME=PATH" in hint and "SM_CHANNEL_NAME" in hint
    assert "/runs/job-1/code" in hint


def test_other_known_causes_get_hints():
    def hint(message, frames=()):
        log = ["Traceback (most recent call last):", *frames, message]
        return [ln for ln in failure_reason(1, log, CTX).splitlines() if ln.startswith("hint: ")]

    [h] = hint("ModuleNotFoundError: No module named 'timm.layers'")
    assert "install timm into that environment" in h and "/venv/bin/python" in h
    [h] = hint("KeyError: 'SM_CHANNEL_TEST'")
    assert "channels are: train" in h and "--channel NAME=PATH" in h
    [h] = hint("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB")
    assert "batch size" in h
    [h] = hint("bessemer.compiler.codegen.build.BuildError: g++ failed",
               ['  File "/src/bessemer/compiler/capture/backend.py", line 80, in compile_graph', "    cg = run()"])
    assert "--no-compiler" in h
    assert hint("ZeroDivisionError: division by zero") == []


def test_without_a_traceback_the_reason_is_the_scripts_last_lines_not_the_banner():
    log = ["bessemer: training job j (pytorch, engine local, 1 instance x 1 process(es))",
           "bessemer: running python train.py", "epoch 0", "asked to fail"]
    assert failure_reason(1, log, CTX).splitlines() == ["epoch 0", "asked to fail",
                                                        "(the script exited with code 1)"]
    lines = failure_reason(-9, ["training..."], CTX).splitlines()
    assert lines[-1] == "(the script was killed by SIGKILL)" and "out of memory" in lines[-2]
    assert failure_reason(2, [], CTX).splitlines()[0] == "(the script printed nothing)"


def test_the_last_of_several_tracebacks_is_the_one_shown():
    log = ["Traceback (most recent call last):", '  File "/runs/job-1/code/a.py", line 1, in <module>',
           "KeyError: 'x'", "", "During handling of the above exception, another exception occurred:", "",
           "Traceback (most recent call last):", '  File "/runs/job-1/code/a.py", line 3, in <module>',
           "ValueError: no x"]
    error = parse_last_error(log)
    assert error.message == ["ValueError: no x"] and error.kind == "ValueError"
    assert failure_reason(1, log, CTX).startswith("ValueError: no x\n")
