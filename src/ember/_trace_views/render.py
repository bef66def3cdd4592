"""Terminal renderings of traces: PyTorch's debug-build text lines and a rich tree.

Layer: _trace_views (imports nothing of ember). In: trace dictionaries (ember.dispatch's
JSON form, schema ember/tools/trace.schema.json). Out: the debug-build text lines and a
``rich.tree.Tree`` (one node per dispatch: label, operator, chosen key, kernel, time, result).
"""

from __future__ import annotations


def text_lines(event: dict):
    """PyTorch's debug-build trace lines for one event and everything below it."""
    label = "[call]" if event["kind"] == "call" else "[redispatch]"
    yield f"{' ' * (event['depth'] + 1)}{label} op=[{event['op']}], key=[{event['key']}]\n"
    for child in event["children"]:
        yield from text_lines(child)


def trace_text(trace: dict) -> str:
    """The lines EMBER_SHOW_DISPATCH_TRACE=1 prints, from a trace's JSON form."""
    return "".join(line for event in trace["events"] for line in text_lines(event))


def _duration(ns: int) -> str:
    if ns < 1_000:
        return f"{ns} ns"
    if ns < 1_000_000:
        return f"{ns / 1_000:.1f} µs"
    return f"{ns / 1_000_000:.2f} ms"


def _result(event: dict) -> str:
    if event.get("error"):
        return f"[red]{event['error']}[/]"
    parts = []
    for tensor in event.get("result") or []:
        grad = f" grad_fn={tensor['grad_fn']}" if tensor.get("grad_fn") else ""
        parts.append(f"{tensor['dtype']}{list(tensor['shape'])}{grad}")
    return ", ".join(parts)


def event_label(event: dict) -> str:
    """One node's text, in rich markup."""
    from rich.markup import escape

    kernel = event["kernel"]
    colour = "cyan" if event["kind"] == "call" else "magenta"
    text = f"[{colour}]{escape('[' + event['kind'] + ']')}[/] [bold]{escape(event['op'])}[/]"
    text += f" -> [yellow]{escape(event['key'])}[/]"
    if kernel is not None:
        fall = "fallthrough " if kernel["fallthrough"] else ""
        text += f" [dim]{escape(kernel['name'])} {escape('[' + fall + kernel['label'] + ']')}[/]"
    text += f" [green]{_duration(event['elapsed_ns'])}[/]"
    result = _result(event)
    if result:
        text += f" => {escape(result) if not event.get('error') else result}"
    return text


def trace_tree(trace: dict, title: str = "dispatch trace"):
    """A ``rich.tree.Tree`` with one node per dispatch, children nested under their kernel."""
    from rich.tree import Tree

    root = Tree(f"[bold]{title}[/]")

    def add(parent, event: dict) -> None:
        node = parent.add(event_label(event))
        for child in event["children"]:
            add(node, child)

    for event in trace["events"]:
        add(root, event)
    return root
