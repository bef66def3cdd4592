"""Tensor subclasses built on the Python key (mirrors torch/_subclasses/)."""

from ember._subclasses.fake_tensor import FakeTensor, FakeTensorMode  # noqa: F401
