"""Views of a recorded trace: PyTorch's debug-build text, a rich tree, the route view page.

Layer: _trace_views, beside _c10 at the bottom: pure functions over the JSON form
of ember.dispatch's ``Trace`` (schema ember/tools/trace.schema.json), importing nothing of
ember, so that ``Trace.tree()`` / ``Trace.to_html()`` and the command line
(ember.tools) both draw them. render.py: text lines, the rich tree, schema
validation; route.py: the route view (one self-contained HTML page).
"""
