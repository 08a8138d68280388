"""The driver of one attempt of a Ray job: `python -m bessemer.jobs.engines.ray_driver JOB.json [--address A]`.

The job's supervisor (supervisor.py, as for local jobs) starts this process in
place of the script, with its output going to the job's log; everything the
supervisor does around the script (checkpoint sync, retries, max_run, stop
requests, the record) works unchanged, because to it this process *is* the
attempt. The driver:

    connect     a Ray of its own on this machine (address None), or the cluster at --address
    place       a placement group with one bundle per instance (processes_per_instance CPUs,
                and as many GPUs where the cluster has GPUs): STRICT_SPREAD where the cluster
                has a node per instance, PACK otherwise (one machine)
    start       one actor per process (ray_worker.Worker), each in its instance's bundle; rank 0
                gives MASTER_ADDR/MASTER_PORT; workers on nodes that do not see the job's
                folder get its inputs through the object store
    watch       every POLL_S: the workers' output to the log (rank 0 as it is; other ranks'
                stderr with a "[worker R]" prefix, all of it in workers/worker-R.log), rank 0's
                checkpoints back from a staged node, the workers' open files and memory for the
                supervisor (workers/status.json)
    end         all exited 0: rank 0's results back, compiles per worker in the log, exit 0.
                One failed: the others are stopped, its error goes last in the log and its exit
                code is the driver's. An actor lost (killed, its node gone): WorkerLostError.
                SIGTERM (stop, max_run): every worker stopped. Always: actors killed, the
                placement group removed, Ray shut down.

The driver owns its actors and placement group (neither is detached): if the driver
itself is killed, Ray removes them with its job, and each script dies with its actor.
"""
from __future__ import annotations

import argparse
import io
import json
import os
import re
import signal
import sys
import tarfile
import time
from pathlib import Path
from typing import Any, Optional

from ...fsutil import atomic_file, atomic_write_text
from ..layout import JobDir
from ..tail import COMPILED
from .base import JobSpec
from .ray_worker import Worker, host_name

POLL_S = 0.2                  # how often the driver collects the workers' output
STATUS_S = 1.0                # how often it writes workers/status.json for the supervisor
PLACEMENT_TIMEOUT_S = 120.0   # a placement group the cluster cannot hold fails the job after this
WORKER_GRACE_S = 5.0          # SIGTERM -> SIGKILL for a worker's script (the supervisor allows 10 s in all)
# A Ray started for the job holds only the workers' messages in its object store (the job's
# data is read from its folder on this machine), so it gets a small one instead of Ray's
# default of 30% of memory; staged inputs are for clusters, whose object stores are theirs.
LOCAL_OBJECT_STORE_BYTES = 256 * 1024 ** 2
# Inputs sent to nodes without the job's folder travel as one object: beyond this, put the
# data on storage every node mounts at the same path instead (nothing is copied then).
STAGE_MAX_BYTES = 2 * 1024 ** 3
ENV_FORCE_STAGE = "BESSEMER_RAY_STAGE"   # "1": send the inputs even to nodes that see the folder
_OWN_RANK_LINE = re.compile(r"^bessemer\[rank \d+\]: ")


class WorkerLostError(RuntimeError):
    """A worker's actor died (killed, out of memory, its node gone) before its script ended."""


class Stop(Exception):
    """SIGTERM: the supervisor stops the attempt (stop request, max_run, Ctrl-C)."""


def workers_dir(job: JobDir) -> Path:
    """Each worker's whole output (worker-R.log) and the supervisor's samples (status.json)."""
    return job.root / "workers"


def _say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


class Driver:
    def __init__(self, spec: JobSpec, address: Optional[str]):
        self.spec, self.address = spec, address
        self.job = JobDir(Path(spec.job_dir))
        self.ray: Any = None
        self.pg: Any = None
        self.actors: list[Any] = []
        self.nodes: list[dict] = []
        self.staged = False
        self.running = False
        self.compiles: dict[int, list[bool]] = {}    # rank -> cache hit of each compiled graph
        self.worker_logs: dict[int, Any] = {}
        self.open_files: dict[int, list[str]] = {}
        self.memory: dict[int, int] = {}
        self.began = time.monotonic()

    @property
    def world(self) -> int:
        return self.spec.instance_count * self.spec.processes_per_instance

    # -- the attempt ---------------------------------------------------------------------
    def run(self) -> int:
        self._connect()
        self._place()
        self._start()
        return self._watch()

    def _connect(self) -> None:
        import ray

        self.ray = ray
        quiet = {"include_dashboard": False, "log_to_driver": False, "configure_logging": False}
        if self.address is None:
            # address="local": always a new Ray, never one a `ray start` left running here.
            ray.init(address="local", num_cpus=max(os.cpu_count() or 1, self.world),
                     object_store_memory=LOCAL_OBJECT_STORE_BYTES, **quiet)
            where = "a Ray started for the job on this machine"
        else:
            ray.init(address=self.address, **{k: v for k, v in quiet.items() if k != "include_dashboard"})
            where = f"the Ray cluster at {self.address}"
        # Ray's core worker puts its own SIGTERM handler in place (it dumps a stack and ends the
        # process): the driver's own, which stops the workers first, goes back.
        signal.signal(signal.SIGTERM, _raise_stop)
        res = ray.cluster_resources()
        nodes = [n for n in ray.nodes() if n.get("Alive")]
        _say(f"bessemer: ray: {where}: {len(nodes)} node(s), {res.get('CPU', 0):g} CPUs, "
             f"{res.get('GPU', 0):g} GPUs (ray {ray.__version__}; {self._elapsed()})")

    def _place(self) -> None:
        from ray.util.placement_group import placement_group

        ray, spec = self.ray, self.spec
        nodes = [n for n in ray.nodes() if n.get("Alive")]
        self.gpus = 1 if ray.cluster_resources().get("GPU", 0) >= spec.processes_per_instance else 0
        bundle = {"CPU": spec.processes_per_instance}
        if self.gpus:
            bundle["GPU"] = spec.processes_per_instance
        # One instance per node where there are enough nodes (as instances are machines); on
        # fewer nodes (a laptop) the instances share them, packed.
        strategy = "STRICT_SPREAD" if spec.instance_count > 1 and len(nodes) >= spec.instance_count else "PACK"
        self.pg = placement_group([dict(bundle) for _ in range(spec.instance_count)], strategy=strategy)
        try:
            ray.get(self.pg.ready(), timeout=PLACEMENT_TIMEOUT_S)
        except ray.exceptions.GetTimeoutError:
            raise RuntimeError(f"the Ray cluster could not place {spec.instance_count} instance(s) of {bundle} "
                               f"({strategy}) within {PLACEMENT_TIMEOUT_S:.0f} s; it has "
                               f"{ray.available_resources()} available") from None
        _say(f"bessemer: ray: placement group of {spec.instance_count} x {bundle} ({strategy}) ready "
             f"({self._elapsed()})")

    def _start(self) -> None:
        from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

        ray, spec = self.ray, self.spec
        remote = ray.remote(Worker)
        ppi = spec.processes_per_instance
        spec_json = spec.to_json()
        for rank in range(self.world):
            node_rank, local_rank = divmod(rank, ppi)
            strategy = PlacementGroupSchedulingStrategy(self.pg, placement_group_bundle_index=node_rank)
            self.actors.append(remote.options(num_cpus=1, num_gpus=self.gpus, max_restarts=0,
                                              scheduling_strategy=strategy)
                               .remote(spec_json, rank, local_rank, node_rank))
        force = os.environ.get(ENV_FORCE_STAGE) == "1"
        self.nodes = ray.get([a.node.remote(force) for a in self.actors])
        away = [r for r, n in enumerate(self.nodes) if not n["sees_job_dir"]]
        if away:
            self._stage(away)
        hosts = [host_name(i) for i in range(spec.instance_count)]
        master = self.nodes[0]
        gpus_of = {i: [g for r, n in enumerate(self.nodes) if r // ppi == i for g in n["gpus"]]
                   for i in range(spec.instance_count)}
        cache = os.environ.get("BESSEMER_CACHE_DIR")
        starts = []
        for rank, actor in enumerate(self.actors):
            node_rank, local_rank = divmod(rank, ppi)
            contract = {"RANK": str(rank), "LOCAL_RANK": str(local_rank), "WORLD_SIZE": str(self.world),
                        "LOCAL_WORLD_SIZE": str(ppi), "GROUP_RANK": str(node_rank), "NODE_RANK": str(node_rank),
                        "ROLE_RANK": str(rank), "ROLE_WORLD_SIZE": str(self.world),
                        "MASTER_ADDR": master["ip"], "MASTER_PORT": str(master["port"])}
            # One kernel cache per node: every worker of a node compiles through the same folder
            # (the cache's file locks make that safe), so a graph is compiled once per node.
            if cache and "BESSEMER_CACHE_DIR" not in spec.environment:
                contract["BESSEMER_CACHE_DIR"] = cache
            starts.append(actor.start.remote(contract, hosts, gpus_of[node_rank]))
        pids = ray.get(starts)
        self.running = True
        workers_dir(self.job).mkdir(exist_ok=True)
        for rank, (node, pid) in enumerate(zip(self.nodes, pids)):
            _say(f"bessemer: ray: worker {rank} (rank {rank}, {host_name(rank // ppi)}) on {node['hostname']} "
                 f"({node['ip']}), script pid {pid}" + (", staged inputs" if rank in away else ""))
            self.worker_logs[rank] = open(workers_dir(self.job) / f"worker-{rank}.log", "a", encoding="utf-8")
        _say(f"bessemer: ray: {self.world} worker(s) started ({self._elapsed()})")

    def _elapsed(self) -> str:
        return f"{time.monotonic() - self.began:.1f} s since the driver started"

    def _stage(self, ranks: list[int]) -> None:
        """Send code/, input/ (channel links followed) and checkpoints/ to the workers in `ranks`."""
        job = self.job
        size = sum(f.stat().st_size for d in (job.code, job.input, job.checkpoints)
                   for f in d.rglob("*") if f.is_file())
        if size > STAGE_MAX_BYTES:
            raise RuntimeError(f"{len(ranks)} worker(s) run on nodes that do not see {job.root}, and the job's "
                               f"inputs ({size / 2**20:.0f} MiB) are more than the {STAGE_MAX_BYTES / 2**20:.0f} MiB "
                               "sent through Ray's object store: put output_path and the channels on storage "
                               "every node mounts at the same path")
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w", dereference=True) as tar:
            for d in (job.code, job.input, job.checkpoints):
                tar.add(d, arcname=d.name)
        ref = self.ray.put(buf.getvalue())
        self.ray.get([self.actors[r].stage.remote(ref) for r in ranks])
        self.staged = True
        _say(f"bessemer: ray: the job's inputs ({size / 2**20:.1f} MiB) sent through the object store to "
             f"{len(ranks)} worker(s) on nodes that do not see {job.root}")

    def _watch(self) -> int:
        codes: dict[int, int] = {}
        next_status = time.monotonic()
        while True:
            for rank, report in self._poll():
                self._take(rank, report)
                if report["code"] is not None:
                    codes[rank] = report["code"]
            failed = [r for r, c in codes.items() if c != 0]
            if failed:
                return self._failed(failed[0], codes[failed[0]])
            if len(codes) == self.world:
                return self._completed()
            if time.monotonic() >= next_status:
                next_status = time.monotonic() + STATUS_S
                self._write_status()
            time.sleep(POLL_S)

    def _poll(self) -> list[tuple[int, dict]]:
        refs = [a.poll.remote() for a in self.actors]
        out = []
        for rank, ref in enumerate(refs):
            try:
                out.append((rank, self.ray.get(ref)))
            except self.ray.exceptions.RayActorError as e:
                raise self._lost(rank, e) from None
        return out

    def _lost(self, rank: int, error: Exception) -> WorkerLostError:
        node = self.nodes[rank]
        cause = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        self._stop_workers(but=rank)
        return WorkerLostError(f"worker {rank} (rank {rank}, {host_name(rank // self.spec.processes_per_instance)} "
                               f"on {node['ip']}) was lost before its script ended: {cause}")

    def _take(self, rank: int, report: dict) -> None:
        """A worker's new output into the log (and its own log); its samples; its checkpoints."""
        log = self.worker_logs.get(rank)
        for stream, line in report["lines"]:
            m = COMPILED.match(line)
            if m:
                self.compiles.setdefault(rank, []).append(m["cache"] == "hit")
            if log is not None:
                log.write(line + "\n")
            if rank == 0:
                _say(line)
            elif stream == "err":
                _say(line if _OWN_RANK_LINE.match(line) else f"[worker {rank}] {line}")
        if log is not None:
            log.flush()
        self.open_files[rank] = report.get("open_files", [])
        self.memory[rank] = report.get("memory", 0)
        for rel, data in report.get("checkpoints", {}).items():
            target = self.job.checkpoints / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            with atomic_file(target) as tmp:
                Path(tmp).write_bytes(data)

    def _write_status(self) -> None:
        status = {"open_files": sorted({f for fs in self.open_files.values() for f in fs}),
                  "memory": sum(self.memory.values()), "time": time.time()}
        atomic_write_text(workers_dir(self.job) / "status.json", json.dumps(status))

    def _failed(self, rank: int, code: int) -> int:
        """Worker `rank` exited with `code`: stop the others, then put its error last in the log."""
        errors = self._final_report(rank)
        self._stop_workers(but=rank)
        for other, report in self._drain():
            self._take(other, report)
        node = self.nodes[rank]
        _say(f"bessemer: ray: worker {rank} (rank {rank}, {host_name(rank // self.spec.processes_per_instance)} "
             f"on {node['ip']}) failed (exit code {code}); the other workers were stopped. Its last output:")
        for line in errors:
            _say(line)
        return code if code > 0 else 128 - code    # killed by signal N: 128 + N, as a shell says

    def _final_report(self, rank: int) -> list[str]:
        try:
            report = self.ray.get(self.actors[rank].poll.remote())
        except self.ray.exceptions.RayActorError:
            return []
        self._take(rank, report)
        return report.get("error_lines", [])

    def _drain(self) -> list[tuple[int, dict]]:
        try:
            return self._poll()
        except WorkerLostError:
            return []

    def _completed(self) -> int:
        self.running = False
        if self.staged:
            data = self.ray.get(self.actors[0].results.remote())
            if data:
                with tarfile.open(fileobj=io.BytesIO(data)) as tar:
                    tar.extractall(self.job.root, filter="data")
        parts = []
        for rank in range(self.world):
            hits = self.compiles.get(rank, [])
            parts.append(f"rank {rank}: {len(hits)} graph(s) compiled, {sum(hits)} from the cache")
        if self.spec.compiler_enabled:
            _say("bessemer: ray: compiles per worker (one kernel cache per node): " + "; ".join(parts))
        return 0

    def _stop_workers(self, but: Optional[int] = None) -> None:
        if not self.running:
            return
        self.running = False
        refs = [a.stop.remote(WORKER_GRACE_S) for r, a in enumerate(self.actors) if r != but]
        for ref in refs:
            try:
                self.ray.get(ref, timeout=WORKER_GRACE_S + 2)
            except Exception:  # noqa: BLE001 - a lost or stuck actor is killed below
                pass

    def close(self) -> None:
        """Every worker stopped, the actors killed, the placement group removed, Ray shut down."""
        if self.ray is None:
            return
        ray = self.ray
        try:
            self._stop_workers()
            if self.staged:
                for r in range(self.world):
                    try:
                        ray.get(self.actors[r].cleanup.remote(), timeout=10)
                    except Exception:  # noqa: BLE001 - best effort: the node's temp folder
                        pass
            for actor in self.actors:
                try:
                    ray.kill(actor)
                except Exception:  # noqa: BLE001
                    pass
            if self.pg is not None:
                from ray.util.placement_group import remove_placement_group

                remove_placement_group(self.pg)
        finally:
            for log in self.worker_logs.values():
                log.close()
            ray.shutdown()


def _raise_stop(signum, frame):  # noqa: ARG001
    raise Stop()


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m bessemer.jobs.engines.ray_driver")
    p.add_argument("spec")
    p.add_argument("--address", default=None)
    args = p.parse_args(argv)
    signal.signal(signal.SIGTERM, _raise_stop)
    driver = Driver(JobSpec.load(Path(args.spec)), args.address)
    try:
        return driver.run()
    except Stop:
        _say("bessemer: ray: stopping every worker")
        return 143
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)   # the clean-up itself is not interrupted
        driver.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
