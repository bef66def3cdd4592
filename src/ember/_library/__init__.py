"""The custom-operator layer behind ember.library (mirrors torch/_library/ and optests).

infer_schema (type hints -> schema), fake_impl (register_fake's Meta kernel,
get_ctx), autograd (register_autograd's kernel), custom_ops (custom_op /
CustomOpDef), api (the module-level register_* functions and get_kernel),
opcheck (torch.library.opcheck) with graph_capture (its traced-graph check),
python_kernel (the adapter of user kernels and fallbacks) and schema_tags (the
schemas the out / inplace tags allow).
"""
