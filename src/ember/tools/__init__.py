"""ember's tools: the command line, `ember run`'s import hook, the demo, the key listing.

Layer: tools (the top; only the command line imports it, and it may import the package
root). The trace renderings it prints live in ember._trace_views, beside _c10.
"""
