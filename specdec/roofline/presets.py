"""The two objects of the roofline model, a transformer and an accelerator, and their presets from the catalogue.

:class:`Model` is a decoder-only transformer as the step-time model sees it
(parameters, layers, widths, KV cache, and optionally mixture-of-experts
routing and an MLA latent cache); :class:`Hardware` an accelerator or a
tensor-parallel group (bandwidth, FLOP/s, memory, link, an optional
:class:`specdec.calibration.Calibration`). :func:`model_preset` and
:func:`gpu_preset` build them from :mod:`specdec.roofline.catalogue`. The step-time
functions are in :mod:`specdec.roofline.hardware`, which re-exports every name here.

Defined in chapter "The roofline model".
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from specdec._validate import check_choice, check_integer, check_positive, describe
from specdec.roofline import catalogue
from specdec.roofline._calibration_terms import Calibration
from specdec.roofline.catalogue import _medusa_heads

__all__ = ["Model", "Hardware", "model_preset", "head_preset", "gpu_preset", "IDEAL_TAG", "CALIBRATED_TAG"]


def _scalar_positive(value: Any, name: str, unit: str) -> float:
    if np.ndim(value) != 0:
        raise TypeError(f"{name} must be a single number, got an array of shape {np.shape(value)}")
    return float(check_positive(value, name, unit))


def _scalar_int(value: float, name: str, minimum: int = 1) -> int:
    if np.ndim(value) != 0:
        raise TypeError(f"{name} must be a single whole number, got an array of shape {np.shape(value)}")
    return int(check_integer(value, name, minimum=minimum))


#: The tags of a preset's name: which roofline it is on (see :attr:`Hardware.base_name`).
IDEAL_TAG, CALIBRATED_TAG = ", ideal roofline (lower bound)", " (calibrated)"


def _check_name(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"name must be a string, got {describe(value)}")
    return value


@dataclass(frozen=True)
class Model:
    """A dense decoder-only transformer, as the roofline model sees it.

    Defined in chapter "The roofline model".

    Parameters
    ----------
    n_params : float
        Number of parameters (all of them, embeddings included), > 0.
    n_layers : int
        Transformer layers, >= 1.
    d_model : int
        Hidden size, >= 1.
    n_kv_heads : int
        Key/value heads per layer (fewer than query heads with grouped-query
        attention), >= 1 and at most ``n_heads``.
    head_dim : int
        Size of one attention head, >= 1.
    bytes_per_param : float, optional
        Storage per weight in bytes, > 0: 2 for bf16 (default), 1 for fp8,
        0.5 for 4-bit quantization.
    kv_bytes_per_elem : float, optional
        Storage per KV-cache element in bytes, > 0. Default 2 (bf16).
    name : str, optional
        Label used in figures and tables.
    n_heads : int, optional
        Query heads per layer; default ``d_model // head_dim``. Sets the
        attention FLOPs (``n_heads * head_dim`` per layer per position).
    n_experts, experts_per_token : int, optional
        A mixture of experts: routed experts per sparse layer and experts
        each token uses (default 0: dense).
    expert_params : float, optional
        Parameters of all routed experts (all layers), included in
        ``n_params``. A pass over ``M`` tokens reads the share
        :func:`specdec.roofline.catalogue.distinct_experts` of them and multiplies
        ``experts_per_token / n_experts`` of them per token.
    kv_dim : int, optional
        Cached elements per layer and token; default ``2 * n_kv_heads *
        head_dim`` (MLA caches its latent: 576 for DeepSeek-V3).

    Its properties are ``weight_bytes`` (read per pass), ``kv_bytes_per_token``
    (a key and a value per layer) and ``d_attn`` (``n_heads * head_dim``).

    Examples
    --------
    >>> import specdec as sd
    >>> m = sd.hardware.LLAMA_8B
    >>> m.weight_bytes / 1e9
    16.060522496
    >>> m.kv_bytes_per_token          # 2 * 32 * 8 * 128 * 2 bytes = 128 KiB
    131072.0
    """

    n_params: float
    n_layers: int
    d_model: int
    n_kv_heads: int
    head_dim: int
    bytes_per_param: float = 2
    kv_bytes_per_elem: float = 2
    name: str = ""
    n_heads: int | None = field(default=None)
    n_experts: int = 0
    experts_per_token: int = 0
    expert_params: float = 0.0
    kv_dim: int | None = None

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "n_params", _scalar_positive(self.n_params, "n_params", "(parameters)"))
        for attr in ("n_layers", "d_model", "n_kv_heads", "head_dim"):
            set_(self, attr, _scalar_int(getattr(self, attr), attr))
        set_(self, "bytes_per_param", _scalar_positive(self.bytes_per_param, "bytes_per_param", "(bytes)"))
        set_(self, "kv_bytes_per_elem", _scalar_positive(self.kv_bytes_per_elem, "kv_bytes_per_elem", "(bytes)"))
        set_(self, "name", _check_name(self.name))
        if self.n_heads is None:
            if self.d_model % self.head_dim:
                raise ValueError(
                    f"n_heads must be given when head_dim ({self.head_dim}) does not divide d_model ({self.d_model})")
            set_(self, "n_heads", self.d_model // self.head_dim)
        else:
            set_(self, "n_heads", _scalar_int(self.n_heads, "n_heads"))
        assert self.n_heads is not None  # set just above
        if self.n_kv_heads > self.n_heads:
            raise ValueError(f"n_kv_heads must be in [1, n_heads = {self.n_heads}]; got {self.n_kv_heads}")
        set_(self, "n_experts", _scalar_int(self.n_experts, "n_experts", minimum=0))
        set_(self, "experts_per_token", _scalar_int(self.experts_per_token, "experts_per_token", minimum=0))
        if self.n_experts and not 1 <= self.experts_per_token <= self.n_experts:
            raise ValueError(f"experts_per_token must be in [1, n_experts = {self.n_experts}]; "
                             f"got {self.experts_per_token}")
        if np.ndim(self.expert_params) != 0:
            raise TypeError("expert_params must be a single number")
        ep = float(self.expert_params)
        if not (0.0 <= ep < self.n_params) or (ep > 0) != (self.n_experts > 0):
            raise ValueError(f"expert_params must be in [0, n_params) and > 0 exactly when n_experts > 0; got {ep!r}")
        set_(self, "expert_params", ep)
        if self.kv_dim is not None:
            set_(self, "kv_dim", _scalar_int(self.kv_dim, "kv_dim"))

    @property
    def weight_bytes(self) -> float:
        """Bytes of weights read by one forward pass, ``n_params * bytes_per_param``."""
        return self.n_params * self.bytes_per_param

    @property
    def kv_bytes_per_token(self) -> float:
        """Bytes of KV cache per token, ``2 * n_layers * n_kv_heads * head_dim * kv_bytes_per_elem`` (or ``kv_dim``)."""
        per_layer = 2 * self.n_kv_heads * self.head_dim if self.kv_dim is None else self.kv_dim
        return float(self.n_layers * per_layer * self.kv_bytes_per_elem)

    @property
    def active_params(self) -> float:
        """Parameters one token multiplies (``n_params`` for a dense model)."""
        if not self.n_experts:
            return self.n_params
        return self.n_params - self.expert_params * (1.0 - self.experts_per_token / self.n_experts)

    @property
    def d_attn(self) -> int:
        """Width of attention, ``n_heads * head_dim``."""
        assert self.n_heads is not None  # resolved by __post_init__
        return self.n_heads * self.head_dim


@dataclass(frozen=True)
class Hardware:
    """An accelerator (or a tensor-parallel group) as the roofline model sees it.

    Defined in chapter "The roofline model"; the
    calibration in chapter "A calibrated roofline".

    Parameters
    ----------
    bandwidth, flops, memory : float
        Memory bandwidth (bytes/s), peak arithmetic for the weights' number
        format (FLOP/s) and memory (bytes) of the whole group, each > 0.
    name : str, optional
        Label used in figures and tables.
    tp : int, optional
        Devices in the tensor-parallel group, >= 1 (:meth:`scaled` sets it).
    link_bandwidth : float, optional
        Interconnect bytes/s per device and direction, > 0 (default ``inf``).
    calibration : specdec.calibration.Calibration, optional
        Default ``None``: the ideal roofline, a lower bound (see
        :meth:`calibrated`; the GPU presets ``H100``, ``A100`` and
        ``H200`` are calibrated).

    Examples
    --------
    Your own machine: plug in measured numbers (see "Measure your machine").

    >>> import specdec as sd
    >>> laptop = sd.hardware.Hardware(bandwidth=50e9, flops=1e12, memory=16e9, name="laptop")
    >>> laptop.flops / laptop.bandwidth        # FLOPs per byte at the ridge
    20.0
    """

    bandwidth: float
    flops: float
    memory: float
    name: str = ""
    tp: int = 1
    link_bandwidth: float = math.inf
    calibration: Any = None

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "bandwidth", _scalar_positive(self.bandwidth, "bandwidth", "(bytes/s)"))
        set_(self, "flops", _scalar_positive(self.flops, "flops", "(FLOP/s)"))
        set_(self, "memory", _scalar_positive(self.memory, "memory", "(bytes)"))
        set_(self, "name", _check_name(self.name))
        set_(self, "tp", _scalar_int(self.tp, "tp"))
        if not (isinstance(self.link_bandwidth, (int, float, np.floating)) and self.link_bandwidth == math.inf):
            set_(self, "link_bandwidth", _scalar_positive(self.link_bandwidth, "link_bandwidth", "(bytes/s)"))
        if self.calibration is not None and not isinstance(self.calibration, Calibration):
            raise TypeError(f"calibration must be a specdec.calibration.Calibration or None, got {describe(self.calibration)}")

    @property
    def is_ideal(self) -> bool:
        """True on the ideal roofline (no calibration, or one whose every term is ideal)."""
        return self.calibration is None or self.calibration.is_ideal

    @property
    def base_name(self) -> str:
        """The name without its roofline tag: ``"H100 SXM"`` for both ``H100`` and ``H100_IDEAL``."""
        for tag in (IDEAL_TAG, CALIBRATED_TAG):
            if self.name.endswith(tag):
                return self.name[: -len(tag)]
        return self.name

    def scaled(self, n: int) -> Hardware:
        """A tensor-parallel group of ``n`` identical devices.

        Bandwidth, FLOP/s, memory and ``tp`` multiply by ``n`` (an int >= 1);
        the calibration is kept. On the ideal roofline communication between
        the devices is free. Returns the group, named ``"{n}x {name}"``.

        Examples
        --------
        >>> import specdec as sd
        >>> g = sd.hardware.H100.scaled(8)
        >>> g.name, g.bandwidth / 1e12, g.tp
        ('8x H100 SXM (calibrated)', 26.8, 8)
        """
        return _scaled(self, _scalar_int(n, "n"))

    def calibrated(self, calibration: Calibration | None, **changes: Any) -> Hardware:
        """The same hardware with a calibration, optionally changed field by field.

        ``changes`` replace fields of ``calibration``, e.g. ``step_overhead=2e-3``; :meth:`ideal` goes
        back. Defined in chapter "A calibrated roofline".

        Examples
        --------
        >>> import specdec as sd
        >>> from specdec.calibration import Calibration
        >>> slow = sd.hardware.H100_IDEAL.calibrated(Calibration(step_overhead=1e-3))
        >>> round(sd.hardware.step_time(sd.hardware.LLAMA_8B, slow) * 1e3, 3), slow.is_ideal, slow.name
        (5.794, False, 'H100 SXM (calibrated)')
        >>> slow.ideal() == sd.hardware.H100_IDEAL
        True
        """
        if not isinstance(calibration, Calibration):
            raise TypeError(f"calibration must be a specdec.calibration.Calibration, got {describe(calibration)}")
        return _calibrated(self, replace(calibration, **changes) if changes else calibration)

    def ideal(self) -> Hardware:
        """The same hardware on the ideal roofline (no calibration), the lower bound of its step times.

        A name tagged "(calibrated)" is tagged as the ideal roofline instead:
        ``H100.ideal() == H100_IDEAL``. Defined in chapter "A calibrated roofline".
        """
        return _ideal(self)


def _evolve(obj: Any, **values: Any) -> Any:
    """A copy of the frozen dataclass ``obj`` with ``values`` set as given; checks nothing.

    For the package's own derived objects: every value is already valid and in the form the class's
    ``__post_init__`` stores (floats as ``float``, counts as ``int``), so the copy equals what
    :func:`dataclasses.replace` would build, without validating the fields again."""
    new = object.__new__(type(obj))
    new.__dict__.update(obj.__dict__)
    new.__dict__.update(values)
    return new


def _dense_model(*, n_params: float, n_layers: int, d_model: int, n_kv_heads: int, head_dim: int,
                     n_heads: int, name: str) -> Model:
    """A dense bf16 :class:`Model` of catalogue integers, stored as ``Model(...)`` stores it; checks nothing."""
    model = object.__new__(Model)
    model.__dict__.update(n_params=float(n_params), n_layers=int(n_layers), d_model=int(d_model),
                          n_kv_heads=int(n_kv_heads), head_dim=int(head_dim), bytes_per_param=2.0,
                          kv_bytes_per_elem=2.0, name=name, n_heads=int(n_heads), n_experts=0, experts_per_token=0,
                          expert_params=0.0, kv_dim=None)
    return model


def _scaled(hardware: Hardware, n: int) -> Hardware:
    """:meth:`Hardware.scaled` of a validated count ``n`` (an int >= 1) of valid hardware; checks nothing."""
    return _evolve(hardware, bandwidth=hardware.bandwidth * n, flops=hardware.flops * n,
                   memory=hardware.memory * n, name=f"{n}x {hardware.name}" if hardware.name else f"{n}x",
                   tp=hardware.tp * n)


def _calibrated(hardware: Hardware, calibration: Calibration) -> Hardware:
    """:meth:`Hardware.calibrated` of a valid :class:`Calibration` without changes; checks nothing."""
    name = hardware.name
    if name.endswith(IDEAL_TAG):
        name = hardware.base_name + CALIBRATED_TAG
    return _evolve(hardware, calibration=calibration, name=name)


def _ideal(hardware: Hardware) -> Hardware:
    """:meth:`Hardware.ideal` of valid hardware; checks nothing."""
    if hardware.calibration is None:
        return hardware
    name = hardware.base_name + IDEAL_TAG if hardware.name.endswith(CALIBRATED_TAG) else hardware.name
    return _evolve(hardware, calibration=None, name=name)


def model_preset(key: str, weights: str = "bf16", *, name: str | None = None) -> Model:
    """A :class:`Model` built from the catalogue's shape of a model (:data:`specdec.roofline.catalogue.MODEL_SPECS`).

    Defined in chapter "A calibrated roofline".

    Parameters
    ----------
    key : str
        A key of :data:`specdec.roofline.catalogue.MODEL_SPECS` (``"llama-3.1-8b"``, ``"vicuna-13b"``, ``"mixtral-8x7b"``,
        ``"deepseek-v3"``, ...).
    weights : str, optional
        A key of :data:`specdec.roofline.catalogue.WEIGHT_FORMATS`; sets ``bytes_per_param`` (the KV cache stays bf16).
    name : str, optional
        Default: the catalogue's name, with the format unless bf16.

    Returns
    -------
    Model

    Examples
    --------
    >>> import specdec as sd
    >>> m = sd.hardware.model_preset("mixtral-8x7b")
    >>> round(m.n_params / 1e9, 2), round(m.active_params / 1e9, 2), m.n_experts
    (46.7, 12.88, 8)
    >>> sd.hardware.model_preset("llama-3.1-70b", "fp8").bytes_per_param
    1.0
    """
    spec = catalogue.model_spec(key)
    fmt = catalogue.WEIGHT_FORMATS[check_choice(weights, "weights", tuple(catalogue.WEIGHT_FORMATS))]
    label = name if name is not None else spec.name + ("" if weights == "bf16" else f" ({weights} weights)")
    return Model(n_params=spec.n_params, n_layers=spec.n_layers, d_model=spec.hidden, n_kv_heads=spec.n_kv_heads,
                 head_dim=spec.head_dim, bytes_per_param=fmt.bytes_per_param, name=_check_name(label),
                 n_heads=spec.n_heads, n_experts=spec.n_experts, experts_per_token=spec.experts_per_token,
                 expert_params=float(spec.routed_expert_params),
                 kv_dim=spec.kv_dim if spec.kv_lora_rank else None)


def head_preset(target: str, kind: str = "eagle", n_heads: int = 4, *, name: str | None = None) -> Model:
    """A draft head of the catalogue for a target, as a :class:`Model` to price: the one builder of head models.

    ``"eagle"``, ``"eagle2"``, ``"eagle3"``: :func:`specdec.roofline.catalogue.eagle_head`
    of that version (what a pass reads: its layer and the LM head it uses);
    ``"medusa"``: :func:`specdec.roofline.catalogue.medusa_heads`, all ``n_heads``
    heads together.

    Defined in chapter "Predicting a published setup".

    Parameters
    ----------
    target : str
        A key of :data:`specdec.roofline.catalogue.MODEL_SPECS`.
    kind : str, optional
        ``"eagle"`` (default), ``"eagle2"``, ``"eagle3"`` or ``"medusa"``.
    n_heads : int, optional
        Medusa heads, 1 to 16. Default 4.
    name : str, optional
        Default ``"EAGLE-1 head"`` or ``"4 Medusa heads"``.

    Returns
    -------
    Model

    Examples
    --------
    >>> import specdec as sd
    >>> head = sd.presets.head_preset("vicuna-7b")
    >>> head.name, head.n_layers, head.d_model, int(head.n_params)
    ('EAGLE-1 head', 1, 4096, 367013888)
    >>> int(sd.presets.head_preset("vicuna-7b", "medusa").n_params)
    591413248
    """
    kinds: dict[str, int | None] = {"eagle": 1, "eagle2": 2, "eagle3": 3, "medusa": None}
    if kind not in kinds:
        raise ValueError(f"kind must be one of {sorted(kinds)}; got {describe(kind)}")
    spec = catalogue.model_spec(target)
    if kind == "medusa":
        return _medusa_model(spec, _scalar_int(n_heads, "n_heads"), name)
    version = kinds[kind]
    assert version is not None  # Medusa returned above
    h = catalogue.eagle_head(target, version)
    label = f"EAGLE-{version} head" if name is None else name
    return Model(n_params=h["read_params"], n_layers=h["n_layers"], d_model=h["d_model"], n_kv_heads=h["n_kv_heads"],
                 head_dim=h["head_dim"], n_heads=h["n_heads"], name=_check_name(label))


def _medusa_model(spec: catalogue.ModelSpec, n: int, name: str | None) -> Model:
    """:func:`head_preset` of kind ``"medusa"`` for a catalogue spec and a validated head count ``n``.

    Checks only ``name``: the shape is the catalogue's (checked when it was built)."""
    heads = _medusa_heads(spec, n)
    label = f"{heads['n_heads']} Medusa heads" if name is None else name
    return _dense_model(n_params=heads["params"], n_layers=1, d_model=spec.hidden, n_kv_heads=spec.n_kv_heads,
                        head_dim=spec.head_dim, n_heads=spec.n_heads, name=_check_name(label))


def gpu_preset(key: str, number_format: str = "bf16") -> Hardware:
    """One GPU of the catalogue (:data:`specdec.roofline.catalogue.GPU_SPECS`) on the ideal roofline.

    ``number_format`` picks the peak FLOP/s (the ``compute`` of a
    :class:`specdec.roofline.catalogue.WeightFormat`). Calibrate it with :meth:`Hardware.calibrated`
    or :meth:`specdec.calibration.profiles.EngineProfile.on`.

    Defined in chapter "A calibrated roofline".

    Parameters
    ----------
    key : str
        A key of :data:`specdec.roofline.catalogue.GPU_SPECS`.
    number_format : str, optional
        A key of that GPU's ``flops`` (``"bf16"``, ``"fp16"``, ``"fp8"``, ``"int8"``).

    Returns
    -------
    Hardware

    Examples
    --------
    >>> import specdec as sd
    >>> g = sd.hardware.gpu_preset("l40s", "fp8")
    >>> g.bandwidth / 1e9, g.flops / 1e12, g.name
    (864.0, 733.0, 'L40S fp8, ideal roofline (lower bound)')
    >>> sd.hardware.gpu_preset("h100-sxm") == sd.hardware.H100_IDEAL
    True
    """
    spec = catalogue.gpu_spec(key)
    label = spec.name + ("" if number_format == "bf16" else f" {number_format}") + IDEAL_TAG
    return Hardware(bandwidth=spec.bandwidth, flops=spec.peak(number_format), memory=spec.memory, name=label,
                    link_bandwidth=spec.link_bandwidth)
