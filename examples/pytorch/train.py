"""Train a small MLP classifier: a SageMaker-style PyTorch training script.

Hyperparameters come as `--key value` arguments, paths from the SM_* environment
variables, so the script runs unchanged as a SageMaker job or a bessemer job
(and by hand: `python train.py`, with data/train.csv beside it). The one line
bessemer adds is `model = bessemer.compile(model)`, which follows the job's
compiler config (on or off, debug).

Run with several processes (torchrun, `processes_per_instance` > 1) it trains
with DistributedDataParallel. `batch_size` is the global batch, split evenly
across the processes, and the samples are ordered by a seeded sampler, so the
result matches single-process training.

After each epoch it prints the loss and the speed (`samples_per_s`) and saves a
checkpoint (model, optimizer, epoch) to SM_CHECKPOINT_DIR, written whole or not
at all; started again with that checkpoint there (a job with the same
checkpoint_path), it resumes after the saved epoch and trains to the same model.
`repeat` makes an epoch pass over the data several times (more steps per epoch).
"""
import argparse
import json
import os
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

import bessemer

HERE = os.path.dirname(os.path.abspath(__file__))


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--batch_size", type=int, default=32, help="global batch, over all processes")
    p.add_argument("--learning_rate", type=float, default=0.05)
    p.add_argument("--momentum", type=float, default=0.9)
    p.add_argument("--hidden", type=int, default=32)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--repeat", type=int, default=1, help="passes over the data per epoch")
    p.add_argument("--model-dir", default=os.environ.get("SM_MODEL_DIR", os.path.join(HERE, "model")))
    p.add_argument("--train", default=os.environ.get("SM_CHANNEL_TRAIN", os.path.join(HERE, "data")))
    p.add_argument("--output-data-dir", default=os.environ.get("SM_OUTPUT_DATA_DIR", os.path.join(HERE, "output")))
    p.add_argument("--checkpoint-dir", default=os.environ.get("SM_CHECKPOINT_DIR"))
    return p.parse_args()


def load_dataset(folder: str, repeat: int = 1) -> TensorDataset:
    data = np.loadtxt(os.path.join(folder, "train.csv"), delimiter=",", dtype=np.float32, ndmin=2)
    data = np.tile(data, (repeat, 1))
    x = torch.from_numpy(data[:, :-1].copy())
    y = torch.from_numpy(data[:, -1].astype(np.int64))
    return TensorDataset(x, y)


def save_checkpoint(folder: str, state: dict) -> None:
    """Written to a temporary name and renamed: a job stopped mid-save keeps the previous one."""
    path = os.path.join(folder, "checkpoint.pt")
    torch.save(state, path + ".tmp")
    os.replace(path + ".tmp", path)


def main() -> None:
    args = parse_args()
    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    use_cuda = torch.cuda.is_available()
    if world > 1:
        dist.init_process_group(backend=os.environ.get("SM_DIST_BACKEND", "nccl" if use_cuda else "gloo"))
    device = torch.device(f"cuda:{int(os.environ.get('LOCAL_RANK', '0'))}" if use_cuda else "cpu")
    if args.batch_size % world:
        raise ValueError(f"batch_size {args.batch_size} must divide evenly over {world} processes")

    dataset = load_dataset(args.train, args.repeat)
    features = dataset.tensors[0].shape[1]
    classes = int(dataset.tensors[1].max()) + 1

    torch.manual_seed(args.seed)
    model = nn.Sequential(nn.Linear(features, args.hidden), nn.ReLU(), nn.Linear(args.hidden, classes)).to(device)
    model = bessemer.compile(model)
    print(f"rank {rank}/{world}: model ready (bessemer compiler enabled="
          f"{bessemer.TrainingCompilerConfig.from_env().enabled})", flush=True)
    net = DistributedDataParallel(model) if world > 1 else model

    sampler = DistributedSampler(dataset, num_replicas=world, rank=rank, shuffle=True,
                                 seed=args.seed, drop_last=True)
    loader = DataLoader(dataset, batch_size=args.batch_size // world, sampler=sampler, drop_last=True)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.learning_rate, momentum=args.momentum)
    loss_fn = nn.CrossEntropyLoss()

    history, start = [], 0
    checkpoint = os.path.join(args.checkpoint_dir, "checkpoint.pt") if args.checkpoint_dir else None
    if checkpoint and os.path.exists(checkpoint):
        state = torch.load(checkpoint, map_location=device, weights_only=True)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        history, start = state.get("history", []), state["epoch"] + 1
        print(f"rank {rank}/{world}: resuming from epoch {start} (checkpoint of epoch {state['epoch']})", flush=True)
    for epoch in range(start, args.epochs):
        sampler.set_epoch(epoch)
        total = torch.zeros(2, device=device)  # loss sum, batches: summed on the device, read once an epoch
        began = time.perf_counter()
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad(set_to_none=True)
            loss = loss_fn(net(x), y)
            loss.backward()
            optimizer.step()
            total += torch.stack([loss.detach(), torch.ones((), device=device)])
        if world > 1:
            dist.all_reduce(total)
        epoch_loss = (total[0] / total[1]).item()  # waits for the epoch's last step: the time below is whole
        seconds = time.perf_counter() - began
        history.append(epoch_loss)
        if rank == 0:
            samples = len(loader) * args.batch_size
            print(f"epoch={epoch} loss={epoch_loss:.6f} samples_per_s={samples / seconds:.1f}", flush=True)
            if args.checkpoint_dir:
                save_checkpoint(args.checkpoint_dir, {"epoch": epoch, "model": model.state_dict(),
                                                      "optimizer": optimizer.state_dict(), "history": history})

    if rank == 0:
        os.makedirs(args.model_dir, exist_ok=True)
        torch.save(model.state_dict(), os.path.join(args.model_dir, "model.pt"))
        os.makedirs(args.output_data_dir, exist_ok=True)
        with open(os.path.join(args.output_data_dir, "history.json"), "w") as f:
            json.dump({"loss": history, "world_size": world}, f)
    if world > 1:
        dist.barrier()
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
    if int(os.environ.get("WORLD_SIZE", "1")) > 1:
        # Everything is saved and the process group is destroyed. torch's C++ static
        # destructors at exit can still abort a gloo process on a loaded machine
        # ("terminate called without an active exception", after Python has finished),
        # turning a finished job into a failed one: leave without running them.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)
