"""The hardware model: the cost of one forward pass on a GPU.

Its modules:

- ``hardware``: the roofline of one pass (weights, KV cache and arithmetic against a GPU's bandwidth and
  compute), the step time, and the verification and draft costs c_v and c_d; the calibrated presets
  (``sd.hardware.H100``) and the ideal bound (``H100_IDEAL``);
- ``kernels``: matrix products at small M (tile quantization, the arithmetic a kernel hides);
- ``catalogue``: the one catalogue of GPUs, models, draft heads and weight formats, each entry cited;
- ``presets``: ``Model`` and ``Hardware`` built from the catalogue;
- ``memory``: weights and KV cache against a GPU's memory, and what fits;
- ``measure``: timing a matrix product on the reader's machine.

Chapters "The roofline model" and "Why verification is not free" explain it.
"""
