"""The `bessemer` command.

    bessemer train train.py --source-dir src --hp epochs=2 --channel train=data/train --processes 2
    bessemer jobs list | describe NAME | logs NAME [--follow] | stop NAME | metrics NAME | compare A B | repair
    bessemer bench ...                 (the benchmark runner)
    bessemer tune MODEL --memory-limit BYTES|auto   (the largest batch that fits, per mode)
    bessemer --version

Each subcommand is one entry of COMMANDS: either `add`, a function that adds its
arguments to its parser and sets `run` (a function of the parsed arguments that
returns the exit code), or `delegate`, a module whose `main(argv)` takes the
rest of the command line as it is. A bad value is one line naming the flag, with
exit code 2, never a usage dump.
"""
from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

from . import __version__
from .jobs import commands as job_commands


@dataclass(frozen=True)
class Command:
    help: str
    add: Optional[Callable[[argparse.ArgumentParser], None]] = None
    delegate: Optional[str] = None
    description: Optional[str] = None


COMMANDS: dict[str, Command] = {
    "train": Command("run a training script as a job (the compiler on by default)", add=job_commands.add_train,
                     description="Run a training script as a job on this machine, as an estimator's fit() does. "
                     "Hyperparameters reach the script as --key value arguments and SM_HP_* variables, "
                     "channels as SM_CHANNEL_* folders."),
    "jobs": Command("list, describe, follow, stop, chart or compare training jobs", add=job_commands.add_jobs),
    "bench": Command("benchmark models (see `bessemer bench --help`)", delegate="bessemer.bench.cli"),
    "tune": Command("the largest batch under a memory limit, per mode (see `bessemer tune --help`)",
                    delegate="bessemer.tune.cli"),
}


class UsageError(Exception):
    """Bad input on the command line; the message is the one line the user sees."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line and exit code 2, instead of argparse's usage dump
        message = re.sub(r"^argument ([^:]+): ", lambda m: m.group(1).split("/")[0] + ": ", message)
        raise UsageError(f"{self.prog}: error: {message} (see `{self.prog} --help`)")


def version_text() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        torch = version("torch")
    except PackageNotFoundError:
        torch = "not installed"
    return f"bessemer {__version__} (torch {torch}, Python {sys.version.split()[0]})"


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="bessemer", description="bessemer: an open training compiler for PyTorch, and training "
                "jobs that run your script with it.")
    p.add_argument("--version", action="version", version=version_text())
    sub = p.add_subparsers(metavar="COMMAND")
    for name, cmd in COMMANDS.items():
        if cmd.delegate:
            sub.add_parser(name, help=cmd.help, add_help=False)
            continue
        sp = sub.add_parser(name, help=cmd.help, description=cmd.description or cmd.help)
        cmd.add(sp)
    return p


def _prog(argv: Sequence[str]) -> str:
    """`bessemer`, `bessemer train` or `bessemer jobs list`: the command `argv` runs."""
    words = ["bessemer"]
    if argv and argv[0] in COMMANDS:
        words.append(argv[0])
        if argv[0] == "jobs" and len(argv) > 1 and not argv[1].startswith("-"):
            words.append(argv[1])
    return " ".join(words)


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in COMMANDS and COMMANDS[argv[0]].delegate:
        return importlib.import_module(COMMANDS[argv[0]].delegate).main(argv[1:])
    parser = build_parser()
    try:
        args, extra = parser.parse_known_args(argv)
        if extra:  # named by the subcommand they were given to, whose --help lists its flags
            prog = _prog(argv)
            raise UsageError(f"{prog}: error: unrecognized arguments: {' '.join(extra)} (see `{prog} --help`)")
    except UsageError as e:
        print(e, file=sys.stderr)
        return 2
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    try:
        code = args.run(args)
        sys.stdout.flush()  # here, so that a reader gone away (`| head`) is caught below
        return code
    except BrokenPipeError:
        # The reader of our output has gone (`bessemer jobs metrics NAME | head`): stop quietly,
        # as a command killed by SIGPIPE does, with nothing left to flush at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + 13
    except (ValueError, UsageError) as e:
        command = "bessemer " + " ".join(argv[:2] if argv[0] == "jobs" else argv[:1])
        print(f"{command}: error: {job_commands.flag_message(str(e))}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
