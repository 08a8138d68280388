"""A small GPT-2 (transformers' GPT2LMHeadModel, random weights) learning to continue Python's
own documentation: the language reference's topics that ship with every Python, in the
standard library's pydoc_data (Python Software Foundation License), so nothing is downloaded.

    python train.py --steps 60 --batch_size 8 --learning_rate 1e-3

With `model = bessemer.compile(model, optimizer=opt)` it trains compiled in a bessemer
job with the compiler on, and eagerly with it off. Each step prints its loss and its
time; at the end one more step is measured for its peak tensor memory, as `bessemer bench`
measures it. `workload(batch_size)` is what `bessemer tune --entry-point train.py` and
batch_size="auto" run.
"""
from __future__ import annotations

import argparse
import collections
import re
import time

import torch
import transformers

import bessemer

# The shape of the benchmark's small DistilGPT-2 (bessemer bench distilgpt2 --scale small).
ARCH = {"n_layer": 2, "n_embd": 256, "n_head": 4, "vocab_size": 8192, "n_positions": 256}
SEQ = 128


def corpus() -> list[str]:
    """The text, split into words and punctuation."""
    from pydoc_data.topics import topics

    text = "\n".join(topics[k] for k in sorted(topics))
    return re.findall(r"\w+|[^\w\s]", text)


def token_ids(words: list[str], vocab_size: int) -> torch.Tensor:
    """Word-level ids: the most frequent words get ids 1..vocab_size-1, any other is 0."""
    counts = collections.Counter(words)
    vocab = {w: i + 1 for i, (w, _) in enumerate(counts.most_common(vocab_size - 1))}
    return torch.tensor([vocab.get(w, 0) for w in words], dtype=torch.long)


def make_model() -> torch.nn.Module:
    torch.manual_seed(0)
    # dropout off: compiled and eager then train the same numbers, step by step
    config = transformers.GPT2Config(**ARCH, resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0,
                                     bos_token_id=0, eos_token_id=0)  # GPT-2's 50256 is past this vocabulary
    return transformers.GPT2LMHeadModel(config)


def batches(ids: torch.Tensor, batch_size: int):
    """Consecutive windows of SEQ tokens, batch_size at a time, round and round."""
    per = ids.numel() // SEQ
    windows = ids[: per * SEQ].view(per, SEQ)
    i = 0
    while True:
        rows = torch.arange(i, i + batch_size) % per
        i += batch_size
        x = windows[rows]
        yield {"input_ids": x, "labels": x}


def workload(batch_size: int):
    ids = token_ids(corpus(), ARCH["vocab_size"])
    return make_model(), next(batches(ids, batch_size)), lambda m, b: m(**b).loss


def peak_step_bytes(step, model, opt) -> int:
    """The peak of live tensor memory during one training step, as the benchmark measures it
    (the torch CPU allocator's events under the profiler; the CUDA allocator's peak on a GPU)."""
    from bessemer.bench.measure import PeakMemory

    device = next(model.parameters()).device
    existing = [p for p in model.parameters()] + [p.grad for p in model.parameters() if p.grad is not None] + \
        [t for s in opt.state.values() for t in s.values() if torch.is_tensor(t)]
    tracker = PeakMemory(device, existing)
    with tracker:
        with tracker.measured_step():
            step()
    return tracker.peak_bytes


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=60)
    p.add_argument("--batch_size", type=int, default=8)
    p.add_argument("--learning_rate", type=float, default=1e-3)
    args = p.parse_args()
    ids = token_ids(corpus(), ARCH["vocab_size"])
    print(f"corpus: {ids.numel():,} tokens of Python's reference documentation (pydoc_data)", flush=True)
    model = make_model()
    opt = torch.optim.AdamW(model.parameters(), lr=args.learning_rate)
    model = bessemer.compile(model, optimizer=opt)
    data = batches(ids, args.batch_size)

    def step():
        loss = model(**next(data)).loss
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss

    for i in range(args.steps):
        t0 = time.perf_counter()
        loss = step().item()
        ms = (time.perf_counter() - t0) * 1e3
        print(f"step={i} loss={loss:.6f} step_ms={ms:.2f}", flush=True)
    peak = peak_step_bytes(step, model, opt)
    print(f"peak_step_mib={peak / 2**20:.1f}", flush=True)


if __name__ == "__main__":
    main()
