"""ember's tools: the command line, trace rendering, the route view.

Layer: tools (the top; only the command line imports it).
"""
