"""The JSON schema of a trace (trace.schema.json) and the check that a trace follows it.

Layer: tools. In: trace dictionaries (ember.dispatch's JSON form, ``Trace.to_dict()``).
Out: nothing, or ``jsonschema.ValidationError``. Used by the tests of traces and the CLI.
"""

from __future__ import annotations

import json
from pathlib import Path

SCHEMA_PATH = Path(__file__).with_name("trace.schema.json")


def load_schema() -> dict:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def validate(trace: dict) -> None:
    """Raise ``jsonschema.ValidationError`` when ``trace`` does not follow trace.schema.json."""
    import jsonschema

    jsonschema.validate(trace, load_schema())
