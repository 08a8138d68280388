"""`pad_to_multiple_of`: sequence lengths in buckets, so a few static graphs serve every batch.

Text batches padded per batch (Hugging Face's `DataCollatorWithPadding`) have a new
length at nearly every step, and each new shape is a new compile of the model's graphs.
With `TrainingCompilerConfig(pad_to_multiple_of=N)` the compiled model pads its
sequence inputs, before Dynamo sees them, up to the next multiple of N, and cuts its
sequence outputs back to the real length. A dataset whose lengths run from 1 to L then
compiles at most L / N shapes.

What is padded, along dimension 1 (the sequence), with what:

  input_ids, decoder_input_ids        the model's pad token (config.pad_token_id, else 0)
  attention_mask, decoder_attention_mask   0: no real token attends to a padded one
  token_type_ids, position_ids        0
  inputs_embeds, decoder_inputs_embeds     0.0
  labels (when it has a sequence dimension)  -100: the loss ignores padded positions

An attention mask of ones is made when the caller gave none. Outputs with a sequence
dimension of the padded length (logits, hidden states, attentions' query dimension) are
cut back; a key/value cache is returned as the model made it (over the padded length).

The padding is exact (the real tokens' values, the loss and the gradients are those of
the unpadded batch, up to the order of floating-point sums) only where the attention
mask hides the padded tokens from every real one. So it is offered only for models
whose forward takes `attention_mask`, and refused for a sequence classifier that finds
each sequence's last token by the pad token without having one (GPT-2 style heads).
"""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable

import torch

FIELD = "TrainingCompilerConfig.pad_to_multiple_of"
LABEL_IGNORE = -100

# (input name, what it is padded with: "pad" for the pad token, else the value)
_PAD_VALUES = {
    "input_ids": "pad", "decoder_input_ids": "pad",
    "attention_mask": 0, "decoder_attention_mask": 0,
    "token_type_ids": 0, "position_ids": 0, "decoder_position_ids": 0,
    "inputs_embeds": 0.0, "decoder_inputs_embeds": 0.0,
    "labels": LABEL_IGNORE,
}
# the inputs of the decoder's sequence (an encoder-decoder's second length); labels go
# with the decoder when there is one
_DECODER = {"decoder_input_ids", "decoder_attention_mask", "decoder_position_ids", "decoder_inputs_embeds"}


def check_model(model: torch.nn.Module, multiple: int) -> None:
    """Raise ValueError if padding would not be exact for `model`."""
    if not isinstance(model, torch.nn.Module):
        raise ValueError(f"{FIELD} applies to nn.Module models (Hugging Face style), "
                         f"not {type(model).__name__}")
    params = inspect.signature(model.forward).parameters
    if "attention_mask" not in params:
        raise ValueError(f"{FIELD}={multiple}: {type(model).__name__}.forward takes no attention_mask, so "
                         f"padded tokens could change the real ones; padding is offered only where the "
                         f"attention mask makes it exact")
    config = getattr(model, "config", None)
    pad = getattr(config, "pad_token_id", None)
    if type(model).__name__.endswith("ForSequenceClassification") and pad is None \
            and not getattr(config, "is_encoder_decoder", False) and _finds_last_token(model):
        raise ValueError(f"{FIELD}={multiple}: {type(model).__name__} finds each sequence's last token by "
                         f"the pad token, and its config has no pad_token_id; set config.pad_token_id "
                         f"(and pad with it) or leave pad_to_multiple_of unset")


def _finds_last_token(model: torch.nn.Module) -> bool:
    """Does the model's forward look for the last non-pad token (decoder-style classifiers)?"""
    try:
        src = inspect.getsource(type(model).forward)
    except (OSError, TypeError):
        return True   # unknown: assume the worst
    return "pad_token_id" in src


def wrap(forward: Callable, model: torch.nn.Module, multiple: int) -> Callable:
    """`forward` (the compiled one) called with its sequence inputs padded to a multiple of
    `multiple` and its sequence outputs cut back."""
    sig = inspect.signature(model.forward)
    positional = [n for n, p in sig.parameters.items()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    config = getattr(model, "config", None)
    pad_token = getattr(config, "pad_token_id", None)
    pad_token = 0 if pad_token is None else int(pad_token)
    enc_dec = bool(getattr(config, "is_encoder_decoder", False))

    @functools.wraps(forward)
    def run(*args: Any, **kwargs: Any) -> Any:
        if len(args) > len(positional):
            return forward(*args, **kwargs)   # not a call padding understands: leave it alone
        kwargs = {**dict(zip(positional, args)), **kwargs}
        lengths = _lengths(kwargs, enc_dec)
        if lengths is None:
            return forward(**kwargs)
        enc, dec = lengths
        if kwargs.get("attention_mask") is None:
            base = kwargs.get("input_ids")
            if base is None:
                base = kwargs["inputs_embeds"][..., 0]
            kwargs["attention_mask"] = torch.ones(base.shape[:2], dtype=torch.long, device=base.device)
        elif kwargs["attention_mask"].dim() != 2:
            raise ValueError(f"{FIELD}: attention_mask must be [batch, length] to pad it, got "
                             f"{tuple(kwargs['attention_mask'].shape)}")
        targets = {"enc": (enc, _up(enc, multiple)),
                   "dec": (dec, _up(dec, multiple)) if dec is not None else None}
        for name, how in _PAD_VALUES.items():
            t = kwargs.get(name)
            if not isinstance(t, torch.Tensor) or t.dim() < 2:
                continue
            side = "dec" if (name in _DECODER or (name == "labels" and dec is not None)) else "enc"
            if targets[side] is None or t.shape[1] != targets[side][0]:
                continue   # not of a sequence length this call has: left as given
            padded = targets[side][1]
            value = pad_token if how == "pad" else how
            kwargs[name] = _pad(t, padded, value)
        out = forward(**kwargs)
        return _cut(out, targets)

    run._bessemer_padding = multiple
    return run


def _lengths(kwargs: dict, enc_dec: bool):
    """(encoder length, decoder length or None), or None when there is no sequence input."""
    enc = _seq_length(kwargs, ("input_ids", "inputs_embeds"))
    if enc is None:
        return None
    # an encoder-decoder given only labels makes its decoder inputs from them
    dec = _seq_length(kwargs, ("decoder_input_ids", "decoder_inputs_embeds") + (("labels",) if enc_dec else ()))
    return enc, dec


def _seq_length(kwargs: dict, names: tuple):
    """Dimension 1 of the first of `names` given with a sequence dimension, or None."""
    for name in names:
        t = kwargs.get(name)
        if isinstance(t, torch.Tensor) and t.dim() >= 2:
            return t.shape[1]
    return None


def _up(n: int, multiple: int) -> int:
    return -(-n // multiple) * multiple


def _pad(t: torch.Tensor, length: int, value) -> torch.Tensor:
    if t.shape[1] == length:
        return t
    shape = list(t.shape)
    shape[1] = length - t.shape[1]
    return torch.cat([t, t.new_full(shape, value)], dim=1)


def _cut(out: Any, targets: dict) -> Any:
    """Sequence outputs cut back to the real length: ModelOutput fields, dicts, tuples, tensors."""
    if isinstance(out, torch.Tensor):
        return _cut_tensor(out, "", targets)
    if isinstance(out, dict):
        if hasattr(out, "to_tuple"):   # a transformers ModelOutput: its fields are set in place
            for k in list(out.keys()):
                out[k] = _cut_any(out[k], k, targets)
            return out
        return {k: _cut_any(v, k, targets) for k, v in out.items()}
    if isinstance(out, tuple):
        return tuple(_cut_any(v, "", targets) for v in out)
    return out


def _cut_any(v: Any, name: str, targets: dict) -> Any:
    if isinstance(v, torch.Tensor):
        return _cut_tensor(v, name, targets)
    if isinstance(v, tuple) and all(isinstance(x, torch.Tensor) for x in v):
        return tuple(_cut_tensor(x, name, targets) for x in v)
    return v   # caches and anything else as the model made them


def _side(name: str, targets: dict) -> str:
    return "enc" if (name.startswith("encoder_") or targets["dec"] is None) else "dec"


def _cut_tensor(t: torch.Tensor, name: str, targets: dict) -> torch.Tensor:
    if t.dim() < 3:
        return t   # a loss, or [batch, classes] logits: no sequence dimension
    if name.endswith("attentions") and t.dim() == 4:   # [batch, heads, query, key]
        q_real, q_pad = targets[_side(name, targets)]
        k_real, k_pad = targets["enc" if name == "cross_attentions" else _side(name, targets)]
        if t.shape[2] == q_pad and t.shape[3] == k_pad:
            return t[:, :, :q_real, :k_real]
        return t
    real, padded = targets[_side(name, targets)]
    if real == padded or t.shape[1] != padded:
        return t
    return t[:, :real]
