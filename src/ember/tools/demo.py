"""`ember demo`: the mm program of examples/01_mm_grad_fn.py under each condition, traced, and its route view.

Layer: tools. In: nothing (the program is fixed: a [1, 2] @ [3, 4]^T product,
the same values every time). Out: for each condition (grad / plain / no_grad /
inference_mode, on cpu and on meta, with no transform, under autocast or under
vmap) the
recorded trace of the ``mm`` call, a printed summary of each route, and
``route.html`` built from those traces.
"""

from __future__ import annotations

import contextlib

MODES = ("grad", "plain", "no_grad", "inference_mode")
DEVICES = ("cpu", "meta")
# autocast: torch.autocast("cpu", dtype=torch.bfloat16) around the mm; vmap: the mm of
# torch.vmap(lambda x: torch.mm(x, b)) over a batch of one a
TRANSFORMS = ("none", "autocast", "vmap")

PROGRAM = """\
import ember as torch
with CONTEXT:          # grad, plain: nothing; no_grad: torch.no_grad(); inference_mode: torch.inference_mode()
                       # autocast adds torch.autocast("cpu", dtype=torch.bfloat16) around the mm;
                       # vmap calls torch.vmap(lambda x: torch.mm(x, b))(a[None]) instead
    a = torch.tensor([[1., 2.]], requires_grad=REQUIRES_GRAD, device=DEVICE)   # plain: False
    b = torch.tensor([[3.], [4.]], device=DEVICE)
    with torch.dispatch.trace() as t:
        y = torch.mm(a, b)
print(y, y.grad_fn)    # grad: 11 and MmBackward0; the others: 11 and None"""


def _context(mode: str):
    import ember

    if mode == "no_grad":
        return ember.no_grad()
    if mode == "inference_mode":
        return ember.inference_mode()
    return contextlib.nullcontext()


def _transform(transform: str):
    import ember

    if transform == "autocast":
        return ember.autocast("cpu", dtype=ember.bfloat16)
    return contextlib.nullcontext()


def record(mode: str, device: str = "cpu", transform: str = "none") -> dict:
    """The trace (JSON form) of examples/01's ``torch.mm(a, b)`` under one condition."""
    import ember

    with _context(mode):
        a = ember.tensor([[1.0, 2.0]], requires_grad=mode != "plain", device=device)
        b = ember.tensor([[3.0], [4.0]], device=device)
        if transform == "vmap":
            batch = a[None]
            with ember.dispatch.trace() as recorded:
                y = ember.vmap(lambda x: ember.mm(x, b))(batch)
            del y
            return recorded.to_dict()
        with _transform(transform), ember.dispatch.trace() as recorded:
            y = ember.mm(a, b)
    del y
    return recorded.to_dict()


def record_all() -> list[dict]:
    """Every condition, as the variants ``route.page`` takes."""
    return [
        {
            "condition": {"mode": mode, "device": device, "transform": transform},
            "trace": record(mode, device, transform),
        }
        for transform in TRANSFORMS
        for device in DEVICES
        for mode in MODES
    ]


def write_page(path, variants: list[dict] | None = None) -> list[dict]:
    from ember._trace_views import route

    variants = variants if variants is not None else record_all()
    html = route.page(
        variants,
        {"mode": list(MODES), "device": list(DEVICES), "transform": list(TRANSFORMS)},
        "ember: the route of torch.mm(a, b)",
        PROGRAM,
    )
    with open(path, "w", encoding="utf-8") as out:
        out.write(html)
    return variants


def _under(condition: dict) -> str:
    transform = condition.get("transform", "none")
    return "" if transform == "none" else f" under {transform}"


def summary_lines(variant: dict) -> list[str]:
    """The printed account of one condition's route."""
    from ember._trace_views import route

    condition = variant["condition"]
    path = route.route_of(variant["trace"]["events"][0])
    facts = path["summary"]
    return [
        f"== {condition['mode']} on {condition['device']}{_under(condition)} ==",
        *path["text"].rstrip("\n").split("\n"),
        f"   key set {facts['dispatch_keys']}",
        f"   kernels {facts['kernels']}",
        f"   backward node {facts['backward_node']}; result {facts['result']}",
    ]
