"""The custom-operator layer behind ember.library (mirrors torch/_library/).

infer_schema (type hints -> schema), fake_impl (register_fake's Meta kernel),
autograd (register_autograd's kernel), custom_ops (custom_op / CustomOpDef),
api (the module-level register_* functions), opcheck (torch.library.opcheck).
"""
