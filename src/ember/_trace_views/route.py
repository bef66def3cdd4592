"""The route view: one call's layers, computed from its recorded trace, as one HTML page.

Layer: _trace_views (imports nothing of ember). In: trace dictionaries
(ember.dispatch's JSON form, schema ember/tools/trace.schema.json), one per
condition or per top-level call. Out: route dictionaries (the stages of "The
route of one call" in docs/design.md: Python binding, operator entry,
dispatcher, autograd kernel, redispatch, backend kernel, with numbered arrows)
and a self-contained page (route_template.html, no network) that draws them,
plays them one stage at a time and switches between conditions.
Nothing here is drawn by hand: every fact shown comes from a recorded event.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

from .render import text_lines

_TEMPLATE = Path(__file__).with_name("route_template.html")
_AUTOGRAD_PREFIXES = ("Autograd",)


def _is_autograd_key(key: str) -> bool:
    return key.startswith(_AUTOGRAD_PREFIXES)


# Keys whose kernel calls the same operator again with its own key excluded (autocast
# casts, a transform's layer unwraps), instead of redispatching below itself.
_RECALLING_PREFIXES = ("Autocast", "FuncTorch", "Functionalize")


def _chain(event: dict) -> list[dict]:
    """The call, its redispatches of the same operator and the calls again of it by a
    recalling key's kernel, outermost first."""
    chain = [event]
    while True:
        step = chain[-1]
        same_op = [c for c in step["children"] if c["op"] == event["op"]]
        below = [c for c in same_op if c["kind"] == "redispatch"]
        if not below and step["key"].startswith(_RECALLING_PREFIXES):
            below = [c for c in same_op if c["kind"] == "call"]
        if not below:
            return chain
        chain.append(below[0])


def _keys(keys: list[str]) -> str:
    return "{" + ", ".join(keys) + "}"


def _result_text(event: dict) -> str:
    results = event.get("result") or []
    if event.get("error"):
        return event["error"]
    if not results:
        return "no tensor"
    parts = []
    for tensor in results:
        text = f"shape {tensor['shape']}, {tensor['dtype']}, {tensor['device']}"
        if "values" in tensor:
            text = f"{tensor['values']} ({text})"
        parts.append(text)
    return "; ".join(parts)


def _backward_node(event: dict) -> str:
    results = event.get("result") or []
    names = [t["grad_fn"] for t in results if t.get("grad_fn")]
    return names[0] if names else "none"


def _kernel_lines(event: dict) -> list[list[str]]:
    kernel = event["kernel"]
    if kernel is None:
        return [["kernel", "missing"]]
    return [
        ["slot", f"{event['key']} [{kernel['label']}]"],
        ["kernel", kernel["name"]],
        ["registered", kernel["registered_at"].removeprefix("registered at ")],
    ]


def _skipped_reason(event: dict) -> str:
    if event["inference_mode"]:
        return "inference mode excludes the Autograd keys (TLS exclude set)"
    if not any(_is_autograd_key(k) for a in event["arguments"] for k in a["keys"]):
        return "no input carries an Autograd key"
    return "the Autograd key was masked or excluded"


def route_of(event: dict) -> dict:
    """The stages and arrows of one top-level call's route (docs/design.md's stages)."""
    chain = _chain(event)
    first, last = chain[0], chain[-1]
    stages = [
        {
            "id": "binding",
            "layer": "Python binding",
            "title": event.get("binding") or "ember.ops",
            "lines": [["code", event.get("source") or "?"], ["at", event.get("caller") or "?"]],
        },
        {
            "id": "entry",
            "layer": "Operator entry",
            "title": event["op"],
            "lines": [["schema", event.get("schema") or event["op"]]],
        },
        {
            "id": "dispatcher",
            "layer": "Dispatcher",
            "title": f"key set -> {first['key']}",
            "lines": [[a["name"], _keys(a["keys"])] for a in first["arguments"]]
            + [
                ["| included", _keys(first["tls_included"])],
                ["- excluded", _keys(first["tls_excluded"])],
                ["which removes", _keys(_removed(first))],
                ["& mask drops", _keys(first["mask_dropped"])],
                ["=", _keys(first["dispatch_keys"])],
                ["highest key", first["key"]],
            ],
        },
    ]
    arrows = ["handle.call(...)", "compute the key set"]
    has_autograd = any(_is_autograd_key(step["key"]) for step in chain)
    if not has_autograd:  # keep the layers in place, greyed, so conditions compare
        reason = _skipped_reason(first)
        stages.append(_skipped("autograd", "Autograd kernel", reason))
        if len(chain) == 1:
            stages.append(_skipped("redispatch", "Redispatch", reason))
    redispatches = 0
    for index, step in enumerate(chain):
        previous = chain[index - 1] if index > 0 else None
        if previous is not None and step["kind"] == "call":
            stages.append(
                {
                    "id": f"call{index}",
                    "layer": "Call again",
                    "title": f"key set -> {step['key']}",
                    "lines": [
                        ["- excluded", _keys(step["tls_excluded"])],
                        ["keys", _keys(step["dispatch_keys"])],
                        ["highest key", step["key"]],
                    ],
                }
            )
            arrows.append(f"call {event['op']} again, {previous['key']} excluded")
        elif previous is not None:
            redispatches += 1
            stages.append(
                {
                    "id": "redispatch" if redispatches == 1 else f"redispatch{index}",
                    "layer": "Redispatch",
                    "title": f"key set -> {step['key']}",
                    "lines": [["keys", _keys(step["dispatch_keys"])], ["highest key", step["key"]]],
                }
            )
            arrows.append(f"redispatch below {previous['key']}")
        is_last = step is last
        if _is_autograd_key(step["key"]) and not any(s["id"] == "autograd" for s in stages):
            stage_id, layer = "autograd", "Autograd kernel"
        elif is_last and step["key"].startswith(_RECALLING_PREFIXES):
            stage_id, layer = "backend", f"{step['key']} kernel"  # a batching rule, say
        elif is_last:
            stage_id, layer = "backend", "Backend kernel"
        else:
            stage_id, layer = f"kernel{index}", f"{step['key']} kernel"
        lines = _kernel_lines(step)
        if stage_id == "autograd":
            lines.append(["grad mode", "on" if step["grad_mode"] else "off"])
            lines.append(["backward node", _backward_node(event)])
        if is_last and step["key"].startswith(_RECALLING_PREFIXES):
            calls = dict.fromkeys(c["op"] for c in step["children"] if c["kind"] == "call")
            lines.append(["then calls", ", ".join(calls) or "nothing"])
        if is_last:
            lines.append(["result", _result_text(event)])
        stages.append({"id": stage_id, "layer": layer, "title": step["key"], "lines": lines})
        arrows.append(f"table[{step['key']}]")
    arrows = arrows[: len([s for s in stages if not s.get("skipped")]) - 1]
    return {
        "op": event["op"],
        "stages": stages,
        "arrows": arrows,
        "summary": {
            "dispatch_keys": _keys(first["dispatch_keys"]),
            "kernels": " -> ".join(
                f"{s['key']} [{s['kernel']['label']}]" for s in chain if s["kernel"]
            ),
            "backward_node": _backward_node(event),
            "result": _result_text(event),
        },
        "text": "".join(text_lines(event)),
    }


def _removed(event: dict) -> list[str]:
    """Keys of (arguments | included) that the exclude set took away."""
    present = [k for a in event["arguments"] for k in a["keys"]] + event["tls_included"]
    kept = set(event["keys_before_mask"])
    return [k for k in dict.fromkeys(present) if k not in kept]


def _skipped(stage_id: str, layer: str, reason: str) -> dict:
    return {
        "id": stage_id,
        "layer": layer,
        "title": "not on this route",
        "lines": [["why", reason]],
        "skipped": True,
    }


def page(
    variants: list[dict], controls: dict[str, list[str]], title: str, program: str = ""
) -> str:
    """The self-contained HTML page.

    ``variants``: each ``{"condition": {control: value}, "trace": <trace dict>}``; the
    route drawn is that of the trace's first top-level event (or ``"event"`` index).
    ``controls``: the values of each control, in display order; the first is the default.
    """
    routes = []
    for variant in variants:
        trace = variant["trace"]
        event = trace["events"][variant.get("event", 0)]
        routes.append({"condition": variant["condition"], "route": route_of(event), "trace": trace})
    data = {"title": title, "program": program, "controls": controls, "routes": routes}
    payload = json.dumps(data).replace("</", "<\\/")
    text = _TEMPLATE.read_text(encoding="utf-8")
    return text.replace("{{TITLE}}", html.escape(title)).replace("{{DATA}}", payload)


def trace_page(trace: dict, title: str) -> str:
    """A route view of every top-level call of one trace; a control picks the call."""
    names = [f"{i + 1}: {event['op']}" for i, event in enumerate(trace["events"])]
    if not names:
        raise ValueError("the trace recorded no calls")
    variants = [
        {"condition": {"call": name}, "trace": _one_event(trace, i), "event": 0}
        for i, name in enumerate(names)
    ]
    return page(variants, {"call": names}, title)


def _one_event(trace: dict, index: int) -> dict:
    return {"schema_version": trace["schema_version"], "events": [trace["events"][index]]}
