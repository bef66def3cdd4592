"""The parts of ember.nn.functional, one module per family; functional.py re-exports them."""
