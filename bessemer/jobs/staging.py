"""Input channels and outputs at fsspec URLs, as SageMaker keeps them in S3.

    fit({"train": "s3://bucket/data/train"})        staged into input/data/train/ before the script starts
    fit({"train": {"S3Uri": "s3://..."}})           the same (also TrainingInput, or its .config dict)
    output_path="s3://bucket/runs"                   at the end of the job, SageMaker's layout:
                                                       s3://bucket/runs/<job>/output/model.tar.gz
                                                       s3://bucket/runs/<job>/output/output.tar.gz  (output/data)

Any fsspec URL works: s3:// (the `s3` extra, s3fs), gs:// (gcsfs), file://, and
memory:// (fsspec's in-process store, for tests). A URL is checked before any job
exists: its file system must load, an input must be there, and the bucket of an
s3:// or gs:// output must exist, so a typo is one clear error and nothing starts.
"""
from __future__ import annotations

import os
import posixpath
from pathlib import Path
from typing import Any, Mapping, Union

from ..fsutil import atomic_file

# Protocols whose first path part is a bucket that must exist before anything is written there.
BUCKET_PROTOCOLS = ("s3", "s3a", "gs", "gcs")
# The keys a SageMaker TrainingInput's config, or a short dict, gives its URL under.
_URI_KEYS = ("S3Uri", "s3_data", "FileUri", "uri")


def is_url(text: str) -> bool:
    return "://" in text and not text.startswith("file://")


def protocol(url: str) -> str:
    return url.split("://", 1)[0]


def filesystem(field: str, url: str):
    """(fs, path) for `url`; ValueError naming `field` when its file system cannot load."""
    import fsspec

    try:
        fsspec.get_filesystem_class(protocol(url))
    except ValueError:
        raise ValueError(f"{field} {url!r}: fsspec knows no file system {protocol(url)}://") from None
    except ImportError as e:
        extra = " (pip install 'bessemer[s3]')" if protocol(url) in ("s3", "s3a") else ""
        raise ValueError(f"{field} {url!r} needs a package fsspec did not find: {e}{extra}") from None
    return fsspec.core.url_to_fs(url)


def check_bucket(field: str, url: str) -> None:
    """ValueError naming `field` when the bucket of an s3:// or gs:// URL does not exist."""
    if protocol(url) not in BUCKET_PROTOCOLS:
        return
    fs, path = filesystem(field, url)
    bucket = path.split("/", 1)[0]
    try:
        fs.invalidate_cache()
        there = fs.exists(bucket)
    except Exception as e:  # noqa: BLE001 - credentials, network: one line saying which
        raise ValueError(f"{field} {url!r}: cannot reach bucket {bucket!r}: {type(e).__name__}: {e}") from None
    if not there:
        raise ValueError(f"{field} {url!r}: bucket {bucket!r} does not exist (create it first, or fix the name)")


def channel_source(name: str, value: Any) -> Union[str, os.PathLike]:
    """The path or URL of input channel `name`, from a path, a URL, a SageMaker TrainingInput
    (or its .config dict), or {"S3Uri": ...}; ValueError naming the channel otherwise."""
    if isinstance(value, (str, os.PathLike)):
        return value
    config = getattr(value, "config", value)
    if isinstance(config, Mapping):
        mode = config.get("InputMode", config.get("input_mode"))
        if mode not in (None, "File"):
            raise ValueError(f"inputs[{name!r}]: input_mode {mode!r} is not supported: channels are staged as "
                             "files (SageMaker's 'File' mode)")
        source = config.get("DataSource", {})
        source = source.get("S3DataSource", source.get("FileDataSource", source)) if isinstance(source, Mapping) \
            else {}
        for where in (source, config):
            for key in _URI_KEYS:
                if isinstance(where.get(key), str):
                    return where[key]
    raise ValueError(f"inputs[{name!r}] must be a path, a URL (s3://..., file://...) or a TrainingInput, "
                     f"got {value!r}")


def check_input(field: str, url: str) -> None:
    """ValueError naming `field` when nothing is at input URL `url`."""
    check_bucket(field, url)
    fs, path = filesystem(field, url)
    fs.invalidate_cache()
    if not fs.exists(path):
        raise ValueError(f"{field}: {url!r} does not exist")


def stage_in(url: str, dest: Path) -> int:
    """Copy what is at `url` (a folder or one file) into the folder `dest`; returns how many
    files came. Each file is written to a temporary name first, so a half copy never shows."""
    fs, root = filesystem("inputs", url)
    dest.mkdir(parents=True, exist_ok=True)
    if fs.isfile(root):
        files = [(root, posixpath.basename(root))]
    else:
        base = root.rstrip("/")
        files = [(f, posixpath.relpath(f, base)) for f in sorted(fs.find(root))]
    for remote, rel in files:
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        with atomic_file(target) as tmp:
            fs.get_file(remote, str(tmp))
    return len(files)


def job_output_url(output_url: str, job_name: str) -> str:
    """Where a job's output/ goes under an output_path URL, as SageMaker lays it out."""
    return f"{output_url.rstrip('/')}/{job_name}/output"


def upload(files: Mapping[str, Path], url: str) -> dict[str, str]:
    """Copy each {name: local file} to `url`/name; returns {name: URL}."""
    fs, root = filesystem("output_path", url)
    if protocol(url) in BUCKET_PROTOCOLS:
        check_bucket("output_path", url)  # never made here: s3fs's makedirs would create the bucket
    else:
        fs.makedirs(root, exist_ok=True)
    out = {}
    for name, local in files.items():
        remote = posixpath.join(root, name)
        fs.put_file(str(local), remote)
        out[name] = f"{url.rstrip('/')}/{name}"
    return out
