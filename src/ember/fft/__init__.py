"""ember.fft: the discrete Fourier transforms of torch.fft.

Layer: torch face. Mirrors torch/fft/__init__.py, whose functions are the bindings of the
`python_module: fft` operators (torch._C._fft): `fft` is aten::fft_fft, `fftfreq`
aten::fft_fftfreq.
"""

from ember.aten._generated import python_fft_functions as _f

fft = _f.fft_fft
ifft = _f.fft_ifft
fft2 = _f.fft_fft2
ifft2 = _f.fft_ifft2
fftn = _f.fft_fftn
ifftn = _f.fft_ifftn
rfft = _f.fft_rfft
irfft = _f.fft_irfft
rfft2 = _f.fft_rfft2
irfft2 = _f.fft_irfft2
rfftn = _f.fft_rfftn
irfftn = _f.fft_irfftn
hfft = _f.fft_hfft
ihfft = _f.fft_ihfft
hfft2 = _f.fft_hfft2
ihfft2 = _f.fft_ihfft2
hfftn = _f.fft_hfftn
ihfftn = _f.fft_ihfftn
fftfreq = _f.fft_fftfreq
rfftfreq = _f.fft_rfftfreq
fftshift = _f.fft_fftshift
ifftshift = _f.fft_ifftshift

__all__ = [
    "fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
    "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq",
    "rfftfreq", "fftshift", "ifftshift",
]  # fmt: skip
