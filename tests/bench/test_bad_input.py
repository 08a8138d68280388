"""Bad input: one clear line, exit code 2, nothing written."""
import os

import pytest

from bessemer.bench import cli


@pytest.mark.parametrize("argv, words", [
    (["resnet9000"], "unknown model 'resnet9000'"),
    (["gpt2", "--modes", "eager,xla"], "unknown mode 'xla'"),
    (["gpt2", "--scale", "huge"], "unknown scale 'huge'"),
    (["gpt2", "--scale", "tiny", "--batch", "0"], "must be a positive integer"),
    (["gpt2", "--scale", "tiny", "--steps", "many"], "must be a positive integer"),
    (["gpt2", "--scale", "tiny", "--seq", "4096"], "at most 64 tokens"),
    (["gpt2", "--scale", "tiny", "--dtype", "fp8"], "unknown dtype 'fp8'"),
    (["gpt2", "--scale", "tiny", "--batch", "100000000"], "does not fit"),
    (["gpt2", "--frobnicate"], "unrecognized arguments"),
    # --dynamic
    (["gpt2", "--dynamic", "--lengths", "64,abc"], "argument --lengths: must be comma-separated integers"),
    (["gpt2", "--dynamic", "--lengths", "64,1"], "argument --lengths"),
    (["gpt2", "--dynamic", "--batches", "4,x"], "argument --batches"),
    (["gpt2", "--dynamic", "--passes", "1"], "argument --passes"),
    (["mlp", "--dynamic"], "mlp takes no tokens"),
    (["gpt2", "--lengths", "8,12"], "--lengths is an option of --dynamic"),
    (["gpt2", "--dynamic", "--seq", "32"], "--seq does not go with --dynamic"),
    (["gpt2", "--dynamic", "--dropout"], "--dropout does not go with --dynamic"),
    (["gpt2", "--dynamic", "--scale", "tiny", "--lengths", "8,100"], "at most 64 tokens"),
    (["gpt2", "--dynamic", "--scale", "tiny", "--lengths", "8"], "at least two shapes"),
    (["gpt2", "--dynamic", "--scale", "tiny", "--batches", "100000000,2"], "does not fit"),
])
def test_bad_input_is_one_line_exit_2_and_writes_nothing(tmp_path, capsys, argv, words):
    out = tmp_path / "out"
    code = cli.main(argv + ["--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2
    assert words in err
    assert err.count("\n") == 1 and err.startswith("bessemer bench: error:")
    assert not out.exists()
    assert os.listdir(tmp_path) == []


def test_report_of_a_missing_file_is_bad_input(tmp_path, capsys):
    assert cli.main(["--report", str(tmp_path / "nope.json"), "--out", str(tmp_path / "o")]) == 2
    assert "nope.json" in capsys.readouterr().err
    assert os.listdir(tmp_path) == []


def test_readme_without_the_summary_markers_is_bad_input(tmp_path, capsys):
    readme = tmp_path / "README.md"
    readme.write_text("# hello\n")
    assert cli.main(["mlp", "--readme", str(readme), "--out", str(tmp_path / "o")]) == 2
    assert "no summary block" in capsys.readouterr().err
    assert sorted(os.listdir(tmp_path)) == ["README.md"] and readme.read_text() == "# hello\n"


def test_list_shows_the_zoo(capsys):
    assert cli.main(["--list"]) == 0
    out = capsys.readouterr().out
    assert "gpt2" in out and "resnet50" in out and "tiny: batch" in out
