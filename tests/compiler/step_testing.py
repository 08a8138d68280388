"""Helpers for the whole-step tests: a compiled step against eager's, step by step."""
import torch

TOL = dict(rtol=1e-4, atol=1e-6)


def steps_as_eager(step, model, ref, ref_opt, loss_fn, batches, max_grad_norm, seed=None):
    """Runs step(*batch) and eager's zero_grad / backward / clip_grad_norm_ / opt.step on ref for
    each batch (with torch.manual_seed(seed + i) before each when seed is given: the same
    dropout draws), asserting the losses, the clipped norms and every gradient equal."""
    for i, batch in enumerate(batches):
        if seed is not None:
            torch.manual_seed(seed + i)
        loss = step(*batch)
        if seed is not None:
            torch.manual_seed(seed + i)
        ref_opt.zero_grad(set_to_none=True)
        ref_loss = loss_fn(ref, *batch)
        ref_loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(ref.parameters(), max_grad_norm)
        ref_opt.step()
        torch.testing.assert_close(loss, ref_loss.detach(), rtol=1e-5, atol=1e-6)
        torch.testing.assert_close(step.grad_norm, norm, rtol=1e-5, atol=1e-6)
        for (name, p), q in zip(model.named_parameters(), ref.parameters()):
            torch.testing.assert_close(p.grad, q.grad, **TOL, msg=name)


def trained_as_eager(model, opt, ref, ref_opt):
    """The parameters and the optimizer's state equal eager's."""
    for (name, p), q in zip(model.named_parameters(), ref.parameters()):
        torch.testing.assert_close(p, q, **TOL, msg=name)
    for a, b in zip(opt.state.values(), ref_opt.state.values()):
        for k in b:
            torch.testing.assert_close(a[k], b[k], **TOL, msg=k)
