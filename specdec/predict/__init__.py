"""Predicting a published setup: the speedup of one configuration, with an interval.

:func:`predict_speedup` prices one speculative round of any draft kind on a calibrated roofline
and divides the tokens it emits by its time:

.. math:: S = \\frac{\\tau\\, T_0}{T_\\text{draft} + T_\\text{verify} + T_\\text{overhead}}

with ``tau`` the measured mean acceptance length (the target's token included) and ``T0`` one plain
step on the same engine and hardware; what each draft kind runs per round is in
:func:`round_plan`, the heads in :func:`head_model`. ``parallelism="tp"`` pays two all-reduces per
layer; ``"layers"`` (``device_map="auto"``) costs one GPU's pass over all layers plus one
activation hop per boundary.

Defined in chapter "Predicting a published setup".
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from specdec._validate import (
    check_choice,
    check_count,
    check_instance,
    check_nonnegative,
    check_positive,
    check_probability,
    check_scalar,
    describe,
)
from specdec.acceptance import expected_tokens_per_position
from specdec.calibration import H100_CALIBRATION, fit_uncertainty, profiles
from specdec.calibration.profiles import _base_calibration
from specdec.roofline import catalogue
from specdec.roofline.hardware import GPUS, Hardware, Model, _step_time, gpu_preset, model_preset
from specdec.roofline.presets import _medusa_model, head_preset
from specdec.verification.trees import tree_depths

if TYPE_CHECKING:
    from specdec.calibration.fit_uncertainty import Replicate
    from specdec.roofline.catalogue import ModelSpec, WeightFormat

__all__ = ["DRAFT_KINDS", "PARALLELISMS", "Prediction", "RoundPlan", "head_model", "model_presets", "one_layer_module", "predict_speedup",
           "round_plan"]

_CHAPTER = "Predicting a published setup"

#: Draft kinds priced by name (a separate draft is passed as a :class:`~specdec.roofline.hardware.Model`).
DRAFT_KINDS = ("eagle", "eagle2", "eagle3", "medusa", "mtp", "ngram", "pld", "lookahead")
#: How a model is spread over several GPUs.
PARALLELISMS = ("tp", "layers")
_HEAD_KINDS = ("eagle", "eagle2", "eagle3", "mtp")
_LOOKUP_KINDS = ("ngram", "pld")
#: Bytes per activation element sent between the GPUs of a layer split (bf16).
_ACT_BYTES = 2.0


# --------------------------------------------------------------------------
# the shape of a round
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class RoundPlan:
    """What one round runs: the draft passes (tokens per pass) and the tokens verified.

    Defined in chapter "Predicting a published setup".

    Attributes
    ----------
    draft_tokens : tuple of int
        Tokens per sequence of each draft pass, in order (empty: no draft pass).
    verify_tokens : int
        Tokens per sequence of the verification pass (``k + 1``, or ``n_nodes + 1``).
    n_nodes : int
        Draft tokens proposed (``k`` for a chain).
    depth : int
        Longest path of the proposal (``k`` for a chain).
    """

    draft_tokens: tuple
    verify_tokens: int
    n_nodes: int
    depth: int


def _level_sizes(parents: np.ndarray) -> tuple[int, list[int]]:
    """Nodes per depth (1..D) of a tree, and per depth the nodes that have children."""
    par = np.asarray(parents)
    depths = tree_depths(par)
    if depths.ndim != 1:
        raise ValueError(f"tree must be one tree (a 1-D parents array); got shape {depths.shape}")
    d_max = int(depths.max())
    has_child = np.zeros(par.size, dtype=bool)
    has_child[par[par >= 0]] = True
    expanded = [int(np.sum(has_child & (depths == d))) for d in range(1, d_max + 1)]
    return d_max, expanded


def round_plan(kind: str, *, k: int | None = None, tree: ArrayLike | None = None, n_nodes: int | None = None,
               depth: int | None = None, width: int | None = None, tau: float = 1.0,
               lookahead: tuple[int, int, int] | None = None) -> RoundPlan:
    """The passes of one round of a draft kind: tokens per draft pass and tokens verified.

    Give exactly one proposal: a chain of ``k`` drafts, a ``tree`` (its
    parents array, :mod:`specdec.verification.trees`), or a tree by ``n_nodes`` and
    ``depth`` (with ``width``, the nodes expanded per level, default the mean
    level size ``ceil(n_nodes / depth)``); ``"lookahead"`` takes
    ``lookahead=(window, ngram, guesses)`` instead.

    * a separate draft (``kind="model"``): a chain runs ``k`` one-token steps; a tree one pass per
      level but the last, over the nodes that level expands (the first over the root);
    * a head (``"eagle"``, ``"eagle2"``, ``"eagle3"``, ``"mtp"``): ``depth`` passes, the first over
      the ``round(tau)`` tokens accepted in the previous round (as EAGLE's ``topK_genrate``), the
      others over the nodes each level expands (1 for a chain, ``width`` for a tree);
    * ``"medusa"`` (heads inside the target's pass), ``"ngram"``, ``"pld"`` (``lookup_time`` only),
      ``"lookahead"`` (``(window + guesses) (ngram - 1)`` extra verified tokens): no draft pass.

    Defined in chapter "Predicting a published setup".

    Parameters
    ----------
    kind : str
        ``"model"`` or one of :data:`DRAFT_KINDS`.
    k : int, optional
        Chain length, 1 to 64.
    tree : array_like of int, optional
        Parents of each node (-1 for the root's children), at most 1024 nodes.
    n_nodes, depth, width : int, optional
        A tree by its size: ``n_nodes`` in [1, 1024], ``depth`` in [1, n_nodes],
        ``width`` in [1, n_nodes].
    tau : float, optional
        Mean acceptance length, >= 1 (sets the first head pass). Default 1.
    lookahead : tuple of 3 int, optional
        Lookahead decoding's ``(window, ngram, guesses)``: window and guesses
        >= 1, ngram >= 2.

    Returns
    -------
    RoundPlan

    Examples
    --------
    >>> import specdec as sd
    >>> sd.predict.round_plan("eagle2", n_nodes=60, depth=6, width=10, tau=4.2)
    RoundPlan(draft_tokens=(4, 10, 10, 10, 10, 10), verify_tokens=61, n_nodes=60, depth=6)
    >>> sd.predict.round_plan("model", k=4).draft_tokens
    (1, 1, 1, 1)
    >>> sd.predict.round_plan("lookahead", lookahead=(15, 5, 15)).verify_tokens
    121
    """
    check_choice(kind, "kind", ("model",) + DRAFT_KINDS)
    tau = float(check_scalar(tau, "tau", check_positive))
    if tau < 1.0:
        raise ValueError(f"tau must be >= 1 (tokens per round, the target's token included); got {tau!r}")
    return _round_plan(kind, k, tree, n_nodes, depth, width, tau, lookahead)


def _round_plan(kind: str, k: int | None, tree: ArrayLike | None, n_nodes: int | None, depth: int | None,
                width: int | None, tau: float, lookahead: tuple[int, int, int] | None) -> RoundPlan:
    """:func:`round_plan` after its checks of ``kind`` and ``tau``; checks the shape (k, tree or node count)."""
    if kind == "lookahead":
        if any(v is not None for v in (k, tree, n_nodes, depth, width)):
            raise ValueError("kind 'lookahead' takes lookahead=(window, ngram, guesses), not k, tree, n_nodes, "
                             "depth or width")
        if lookahead is None:
            raise ValueError("kind 'lookahead' needs lookahead=(window, ngram, guesses), e.g. (15, 5, 15)")
        if not isinstance(lookahead, (tuple, list)) or len(lookahead) != 3:
            raise TypeError(f"lookahead must be a tuple (window, ngram, guesses); got {describe(lookahead)}")
        w, n, g = (check_count(lookahead[0], "lookahead window", 1, 256), check_count(lookahead[1], "lookahead ngram",
                   2, 16), check_count(lookahead[2], "lookahead guesses", 1, 256))
        extra = (w + g) * (n - 1)
        return RoundPlan((), extra + 1, extra, n - 1)
    if lookahead is not None:
        raise ValueError(f"lookahead applies only to kind 'lookahead'; got kind {kind!r}")
    given = [name for name, v in (("k", k), ("tree", tree), ("n_nodes", n_nodes)) if v is not None]
    if len(given) != 1:
        raise ValueError(f"give exactly one of k, tree or n_nodes (with depth); got {given or 'none'}")
    if k is not None:
        if depth is not None or width is not None:
            raise ValueError("depth and width describe a tree by node count; a chain of k drafts takes neither")
        kk = check_count(k, "k", 1, 64)
        n_nodes_, depth_, expanded = kk, kk, [1] * kk          # every level expands its one node
    elif tree is not None:
        if depth is not None or width is not None:
            raise ValueError("depth and width are read from the tree's parents; give neither with tree")
        par = np.asarray(tree)
        if par.ndim != 1 or not 1 <= par.size <= 1024:
            raise ValueError(f"tree must be a 1-D parents array of 1 to 1024 nodes; got shape {par.shape}")
        depth_, per_level = _level_sizes(par)
        n_nodes_ = int(par.size)
        expanded = [1] + per_level[:-1]                        # the root, then each level's parents
    else:
        n_nodes_ = check_count(n_nodes, "n_nodes", 1, 1024)
        if depth is None:
            raise ValueError("a tree by node count needs depth (its longest path), in [1, n_nodes]")
        depth_ = check_count(depth, "depth", 1, n_nodes_)
        w = math.ceil(n_nodes_ / depth_) if width is None else check_count(width, "width", 1, n_nodes_)
        expanded = [1] + [w] * (depth_ - 1)
    if kind == "model":
        passes = tuple(expanded)
    elif kind in _HEAD_KINDS:
        passes = (max(1, int(round(tau))),) + tuple(expanded[1:])
    else:
        passes = ()
    return RoundPlan(passes, n_nodes_ + 1, n_nodes_, depth_)


# --------------------------------------------------------------------------
# the prediction
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Prediction:
    """A predicted speedup, its interval and the parts of the round (times in seconds).

    Defined in chapter "Predicting a published setup".

    Attributes
    ----------
    speedup : float
        ``tau * t0 / t_round``.
    interval : tuple of float
        ``(low, high)`` over the calibration's uncertainty, at ``confidence``.
    tau, t0, t_draft, t_verify, t_overhead : float
        Tokens per round, one plain decode step, all draft passes of a round,
        the verification pass and the per-round overhead (seconds).
    plan : RoundPlan
        The passes priced.
    target, draft, hardware, engine : str
        What was priced: names, and the engine profile used.
    batch, context : int
    confidence : float
    """

    speedup: float
    interval: tuple
    tau: float
    t0: float
    t_draft: float
    t_verify: float
    t_overhead: float
    plan: RoundPlan
    target: str
    draft: str
    hardware: str
    engine: str
    batch: int
    context: int
    confidence: float

    @property
    def t_round(self) -> float:
        """Seconds per round: draft passes + verification + overhead."""
        return self.t_draft + self.t_verify + self.t_overhead

    def parts(self) -> dict:
        """The round's parts in ms: ``t0``, ``t_draft``, ``t_verify``, ``t_overhead`` and ``t_round``."""
        return {name: getattr(self, name) * 1e3 for name in ("t0", "t_draft", "t_verify", "t_overhead", "t_round")}

    def report(self) -> str:
        """The prediction as a few lines of text: speedup, interval, the round's parts, the profile."""
        lo, hi = self.interval
        p = self.parts()
        sizes = ", ".join(str(n) for n in self.plan.draft_tokens)
        passes = f"{len(self.plan.draft_tokens)} passes over {sizes} tokens" if sizes else "no draft pass"
        return "\n".join([
            f"Predicted speedup: {self.speedup:.2f}x ({self.confidence:.0%} interval {lo:.2f} to {hi:.2f})",
            f"setup: {self.target} + {self.draft} on {self.hardware}, batch {self.batch}, context {self.context}",
            f"engine profile: {self.engine}",
            f"tau = {self.tau:.3g} tokens per round; T0 = {p['t0']:.3f} ms",
            f"round = {p['t_round']:.3f} ms: draft {p['t_draft']:.3f} ms ({passes}), "
            f"verify {p['t_verify']:.3f} ms ({self.plan.verify_tokens} tokens), overhead {p['t_overhead']:.3f} ms",
        ])

    def __repr__(self) -> str:
        lo, hi = self.interval
        p = self.parts()
        return (f"Prediction({self.target} + {self.draft} on {self.hardware}, engine {self.engine!r}, "
                f"batch {self.batch}, context {self.context}: speedup {self.speedup:.2f}x "
                f"[{lo:.2f}, {hi:.2f}] at {self.confidence:.0%}; tau {self.tau:.2f}, T0 {p['t0']:.3f} ms, "
                f"round {p['t_round']:.3f} ms = draft {p['t_draft']:.3f} + verify {p['t_verify']:.3f} + "
                f"overhead {p['t_overhead']:.3f})")


def model_presets() -> dict:
    """Every model a prediction can name by key: the catalogue's models (:data:`specdec.roofline.catalogue.MODEL_SPECS`).

    Defined in chapter "Predicting a published setup".

    Returns
    -------
    dict of str to specdec.roofline.hardware.Model
        bf16 weights (:func:`specdec.roofline.hardware.model_preset` for other formats).

    Examples
    --------
    >>> import specdec as sd
    >>> sd.predict.model_presets()["vicuna-13b"].name
    'Vicuna 13B v1.3'
    """
    return {key: model_preset(key) for key in catalogue.MODEL_SPECS}


def head_model(target: str, kind: str, n_heads: int = 4) -> Model:
    """The draft head of a kind for a catalogue target, as a :class:`~specdec.roofline.hardware.Model` to price.

    * ``"eagle"``, ``"eagle2"``: :func:`specdec.roofline.catalogue.eagle_head` version 1/2;
      ``"eagle3"``: version 3 (its own LM head over 32,000 tokens); ``"mtp"``:
      :func:`one_layer_module`. Each pass reads the layer plus the LM head.
    * ``"medusa"``: :func:`specdec.roofline.catalogue.medusa_heads`, all ``n_heads`` together.

    Defined in chapter "Predicting a published setup".

    Parameters
    ----------
    target : str
        A key of :data:`specdec.roofline.catalogue.MODEL_SPECS`.
    kind : str
        ``"eagle"``, ``"eagle2"``, ``"eagle3"``, ``"mtp"`` or ``"medusa"``.
    n_heads : int, optional
        Medusa heads, 1 to 16. Default 4.

    Returns
    -------
    specdec.roofline.hardware.Model

    Examples
    --------
    >>> import specdec as sd
    >>> head = sd.predict.head_model("vicuna-7b", "eagle")
    >>> head.n_layers, round(head.n_params / 1e9, 3)
    (1, 0.367)
    >>> int(sd.predict.head_model("vicuna-7b", "medusa").n_params)
    591413248
    """
    check_choice(target, "target", tuple(catalogue.MODEL_SPECS))
    check_choice(kind, "kind", _HEAD_KINDS + ("medusa",))
    if kind == "mtp":
        return one_layer_module(catalogue.model_spec(target), name="MTP module")
    if kind == "medusa":
        return _medusa_model(catalogue.model_spec(target), check_count(n_heads, "n_heads", 1, 16), None)
    return head_preset(target, kind, 4)


def one_layer_module(spec: ModelSpec, weights: str = "bf16", *, name: str = "one-layer module") -> Model:
    """A ``2d -> d`` projection, one decoder layer of the target and its LM head, as a model to price.

    The layout of an EAGLE-1 head and of an MTP module (DeepSeek-V3's report, section 2.2), with the
    target's average layer (for a mixture of experts, a sparse layer with all its routed experts).

    Defined in chapter "Predicting a published setup".

    Parameters
    ----------
    spec : specdec.roofline.catalogue.ModelSpec
        The target's shape.
    weights : str, optional
        A key of :data:`specdec.roofline.catalogue.WEIGHT_FORMATS`. Default ``"bf16"``.
    name : str, optional

    Returns
    -------
    specdec.roofline.hardware.Model

    Examples
    --------
    >>> from specdec import catalogue, predict
    >>> m = predict.one_layer_module(catalogue.MODEL_SPECS["vicuna-7b"])
    >>> m.n_layers, round(m.n_params / 1e9, 3)
    (1, 0.367)
    """
    check_instance(spec, catalogue.ModelSpec, "spec")
    d = spec.hidden
    outside = spec.vocab * d * (1 if spec.tied_embeddings else 2) + d
    if spec.is_moe:
        sparse = spec.n_layers - spec.dense_layers
        mlp_e = 3 * d * spec.expert_intermediate
        attn_norms: float = (spec.n_params - outside - spec.dense_layers * 3 * d * spec.intermediate
                      - sparse * (spec.shared_experts * mlp_e + d * spec.n_experts) - spec.routed_expert_params)
        attn_norms /= spec.n_layers
        routed = spec.routed_expert_params / sparse
        layer = attn_norms + spec.shared_experts * mlp_e + d * spec.n_experts + routed
    else:
        layer, routed = (spec.n_params - outside) / spec.n_layers, 0.0
    params = layer + 2 * d * d + d + spec.vocab * d          # the layer, the projection (with bias), the LM head
    fmt = _weight_format(weights)
    return Model(n_params=params, n_layers=1, d_model=d, n_kv_heads=spec.n_kv_heads, head_dim=spec.head_dim,
                 n_heads=spec.n_heads, bytes_per_param=fmt.bytes_per_param, name=name,
                 n_experts=spec.n_experts, experts_per_token=spec.experts_per_token, expert_params=routed,
                 kv_dim=spec.kv_dim if spec.kv_lora_rank else None)


def _weight_format(weights: str | WeightFormat) -> WeightFormat:
    """A catalogue WeightFormat from a key or a WeightFormat."""
    if isinstance(weights, catalogue.WeightFormat):
        return weights
    if not isinstance(weights, str) or weights not in catalogue.WEIGHT_FORMATS:
        raise ValueError(f"weights must be a specdec.roofline.catalogue.WeightFormat or one of "
                         f"{', '.join(catalogue.WEIGHT_FORMATS)}; got {describe(weights)}")
    return catalogue.WEIGHT_FORMATS[weights]


def _resolve_model(value: Any, name: str,
                   weights: str = "bf16") -> tuple[Model, str | None]:
    """(Model, catalogue key or None) from a Model or a catalogue key."""
    if isinstance(value, Model):
        return value, None
    if isinstance(value, str):
        if value not in catalogue.MODEL_SPECS:
            raise ValueError(f"{name} must be a specdec.roofline.hardware.Model or a key of specdec.roofline.catalogue.MODEL_SPECS "
                             f"({', '.join(catalogue.MODEL_SPECS)}); got {value!r}")
        return _catalogue_model(value, weights), value
    raise TypeError(f"{name} must be a specdec.roofline.hardware.Model or a catalogue key; got {describe(value)}")


@functools.lru_cache(maxsize=64)
def _ideal_preset(key: str, number_format: str) -> Hardware:
    """``gpu_preset(key, number_format)``, the ideal roofline of a catalogue GPU, built (and validated) once."""
    return gpu_preset(key, number_format)


@functools.lru_cache(maxsize=128)
def _catalogue_model(key: str, weights: str) -> Model:
    """``model_preset(key, weights)``, built (and validated) once: a Model is immutable, so predictions share it."""
    return model_preset(key, weights)


@functools.lru_cache(maxsize=128)
def _catalogue_head(target: str, kind: str) -> Model:
    """``head_model(target, kind)`` for a catalogue target, built (and validated) once."""
    return head_model(target, kind)


def _check_tau(tau: float | None, acceptance: ArrayLike | None,
               plan_depth_bound: int | None) -> tuple[float, int | None]:
    if (tau is None) == (acceptance is None):
        raise ValueError("give exactly one of tau (mean acceptance length) or acceptance (per-position rates)")
    if acceptance is not None:
        a = check_probability(acceptance, "acceptance")
        if a.ndim != 1 or not 1 <= a.size <= 64:
            raise ValueError(f"acceptance must be a 1-D list of 1 to 64 per-position rates; got shape {a.shape}")
        return float(expected_tokens_per_position(a)), int(a.size)
    value = float(check_scalar(tau, "tau", check_positive))
    if not 1.0 <= value <= 65.0:
        raise ValueError(f"tau must be in [1, depth + 1] (tokens per round, the target's token included); "
                         f"got {value!r}")
    return value, None


@dataclass(frozen=True)
class _Engine:
    """One GPU calibrated for an engine, and the profile's name."""

    one: Hardware
    name: str


@functools.lru_cache(maxsize=128)
def _engine(gpu: Any, engine: str | None, number_format: str) -> _Engine:
    """The GPU with the engine profile's calibration (or the preset's own, without an engine).

    Built (and validated) once per GPU, engine and number format: the hardware is immutable."""
    if isinstance(gpu, str):
        if gpu not in catalogue.GPU_SPECS:
            raise ValueError(f"gpu must be a Hardware or one of {', '.join(repr(g) for g in catalogue.GPU_SPECS)}; "
                             f"got {gpu!r}")
        key = gpu
    else:
        check_instance(gpu, Hardware, "gpu")
        key = None
    if engine is None:
        if key is None:
            return _Engine(gpu, gpu.calibration.name if gpu.calibration is not None else "ideal roofline")
        if key in GPUS and number_format == "bf16":
            one = GPUS[key]
        else:
            base = gpu_preset(key, number_format)
            one = base.calibrated(_base_calibration(base))
        return _Engine(one, one.calibration.name)
    check_choice(engine, "engine", tuple(profiles.PROFILES))
    prof = profiles.profile(engine)
    base = gpu_preset(key, number_format) if key is not None else gpu
    return _Engine(prof.on(base), f"{engine} ({prof.label})")


#: Engine profile -> the key of its fixed cost in a bootstrap replicate's terms.
_FIXED_KEY = {"sglang": "SGLang", "vllm": "vLLM"}


def _replicate_engine(replicate: Replicate, engine: str, ideal_gpu: Hardware, name: str) -> _Engine:
    """The engine's hardware with one bootstrap replicate's terms (:func:`specdec.calibration.fit_uncertainty.bootstrap`).

    The GPU family's terms come from the replicate (Ampere and Ada: its A100
    calibration; Hopper and Blackwell: its H100 calibration); the fixed cost
    is the engine's fitted one (``trtllm``, ``hf-eager`` and ``research``
    carry gpt-fast's, as their profiles do); an eager engine's cost per layer
    is the profile's, scaled by the replicate's A100 eager fit (the RTX 3090's
    own fit, from one timing, is not resampled).
    """
    prof = profiles.profile(engine)
    family = replicate.h100 if _base_calibration(ideal_gpu) is H100_CALIBRATION else replicate.a100
    on = prof.on(ideal_gpu, base=family)
    fixed = replicate.terms[f"step_overhead[{_FIXED_KEY.get(engine, 'gpt-fast')}]"]
    layer = on.calibration.layer_overhead
    if prof.launch == "eager" and "RTX 3090" not in ideal_gpu.name:
        layer *= replicate.terms["eager_layer[a100-80gb]"] / prof.eager_cost("a100-80gb")
    return _Engine(on.calibrated(on.calibration, step_overhead=fixed, layer_overhead=layer), name)


@functools.lru_cache(maxsize=1)
def _replicates() -> tuple:
    return tuple(fit_uncertainty.bootstrap(64, seed=0))


@functools.lru_cache(maxsize=64)
def _replicate_engines(engine: str, ideal_gpu: Hardware, name: str) -> tuple[_Engine, ...]:
    """The engine's hardware under every bootstrap replicate, built (and validated) once per engine and GPU."""
    return tuple(_replicate_engine(rep, engine, ideal_gpu, name) for rep in _replicates())


def _pass_time(model: Model, one: Hardware, n_gpus: int, parallelism: str, batch: int, context: int,
               tokens: int) -> float:
    """One forward pass of ``model`` over ``tokens`` new tokens per sequence on the placement.

    Inputs are validated by :func:`predict_speedup`; the pass is priced by the unchecked kernel."""
    if parallelism == "tp" or n_gpus == 1:
        hw = _scaled(one, n_gpus) if n_gpus > 1 else one
        return float(_step_time(model, hw, batch, context, tokens, None))
    # layer split: the slices run one after the other on single GPUs (their sum is one GPU's pass over all
    # the layers) and the activations hop across each of the n_gpus - 1 boundaries.
    cal = one.calibration
    latency = 0.0 if one.is_ideal else cal.allreduce_latency
    link = one.link_bandwidth * (1.0 if one.is_ideal else cal.link_efficiency)
    hop = latency + batch * tokens * model.d_model * _ACT_BYTES / link
    return float(_step_time(model, one, batch, context, tokens, None)) + (n_gpus - 1) * hop


@functools.lru_cache(maxsize=256)
def _scaled(one: Hardware, n_gpus: int) -> Hardware:
    """``one.scaled(n_gpus)``, built (and validated) once per GPU and count: a prediction prices every pass of
    every bootstrap replicate on the same few placements."""
    return one.scaled(n_gpus)


def _medusa_heads(target: Model, head: Model) -> Model:
    """The target with the heads' parameters added (they run on the target's pass)."""
    return replace(target, n_params=target.n_params + head.n_params, name=f"{target.name} + Medusa heads")


def _priced(eng: _Engine, base: _Engine, target: Model, draft: str | Model, head: Model | None, plan: RoundPlan,
            n_gpus: int, parallelism: str, batch: int, context: int, draft_tp: int,
            lookup_time: float) -> tuple[float, float, float, float]:
    """(T0, T_draft, T_verify, T_overhead) of a round on ``eng``, with T0 on the baseline engine ``base``."""
    t0, t_draft, t_verify = _round_times(target, draft, head, plan, eng, n_gpus, parallelism, batch, context,
                                         draft_tp, lookup_time)
    if base is not eng:
        t0 = _pass_time(target, base.one, n_gpus, parallelism, batch, context, 1)
    return t0, t_draft, t_verify, 0.0


def _round_times(target: Model, draft: str | Model, head: Model | None, plan: RoundPlan, eng: _Engine, n_gpus: int,
                 parallelism: str, batch: int, context: int, draft_tp: int,
                 lookup_time: float) -> tuple[float, float, float]:
    one, args = eng.one, (batch, context)
    t0 = _pass_time(target, one, n_gpus, parallelism, *args, 1)
    verify_model = target
    if draft == "medusa":
        assert head is not None  # predict_speedup resolves the heads of a Medusa draft
        verify_model = _medusa_heads(target, head)
    t_verify = _pass_time(verify_model, one, n_gpus, parallelism, *args, plan.verify_tokens)
    t_draft = 0.0
    if draft == "medusa":
        plain = _pass_time(target, one, n_gpus, parallelism, *args, plan.verify_tokens)
        t_draft, t_verify = t_verify - plain, plain
    elif draft in _LOOKUP_KINDS:
        t_draft = lookup_time
    elif isinstance(draft, Model) or draft in _HEAD_KINDS:
        model = draft if isinstance(draft, Model) else head
        assert model is not None  # predict_speedup resolves the head of a head draft
        if parallelism == "layers":        # the draft (or head) on one GPU of the split
            d_gpus, d_par = 1, "tp"
        else:
            d_gpus, d_par = draft_tp, "tp"
        t_draft = sum(_pass_time(model, one, d_gpus, d_par, *args, n) for n in plan.draft_tokens)
    return t0, t_draft, t_verify


def predict_speedup(target: Model | str, draft: Model | str, *, tau: float | None = None,
                    acceptance: ArrayLike | None = None, k: int | None = None,
                    tree: ArrayLike | None = None, n_nodes: int | None = None,
                    depth: int | None = None, width: int | None = None, gpu: str | Hardware = "h100-sxm",
                    n_gpus: int = 1, parallelism: str = "tp", batch: int = 1, context: int = 0,
                    engine: str | None = None, head: Model | None = None, draft_tp: int | None = None,
                    lookup_time: float = 0.0, lookahead: tuple[int, int, int] | None = None,
                    weights: str | WeightFormat = "bf16", baseline_engine: str | None = None,
                    confidence: float = 0.9) -> Prediction:
    r"""Predict the speedup of one speculative configuration, with an interval and the round's parts.

    .. math:: S = \frac{\tau\, T_0}{T_\text{draft} + T_\text{verify} + T_\text{overhead}}

    Every pass is :func:`specdec.roofline.hardware.step_time` on the engine profile's hardware
    (:func:`round_plan` says what each draft kind runs); ``T0`` is one plain step on the same placement.

    Defined in chapter "Predicting a published setup".

    Parameters
    ----------
    target : specdec.roofline.hardware.Model or str
        The target model, or its key in :data:`specdec.roofline.catalogue.MODEL_SPECS`.
    draft : specdec.roofline.hardware.Model or str
        A separate draft model (or its catalogue key), or a draft kind of
        :data:`DRAFT_KINDS`.
    tau : float, optional
        Measured mean acceptance length: tokens per round, the target's token
        included, in ``[1, depth + 1]``.
    acceptance : array_like, optional
        Instead of ``tau``: per-position acceptance rates (each given the
        previous accepted), 1 to 64 entries in [0, 1]; ``tau`` is
        :func:`specdec.acceptance.expected_tokens_per_position` of them.
    k, tree, n_nodes, depth, width, lookahead
        The proposal, as in :func:`round_plan` (exactly one of ``k``,
        ``tree``, ``n_nodes``; ``lookahead`` for kind ``"lookahead"``).
    gpu : str or specdec.roofline.hardware.Hardware, optional
        One GPU: a key of :data:`specdec.roofline.catalogue.GPU_SPECS` (default
        ``"h100-sxm"``) or a single-device Hardware.
    n_gpus : int, optional
        GPUs holding the target, 1 to 64. Default 1.
    parallelism : str, optional
        ``"tp"`` (tensor parallel, default) or ``"layers"`` (a layer split, as
        ``device_map="auto"``: no all-reduce, one hop per boundary).
    batch : int, optional
        Sequences per step, 1 to 4096. Default 1.
    context : int, optional
        Tokens already in each sequence's cache, 0 to 1,048,576. Default 0.
    engine : str, optional
        Engine profile, a key of :data:`specdec.calibration.profiles.PROFILES`
        (``"hf-eager"``, ``"research"``, ``"sglang"``, ``"vllm"``,
        ``"trtllm"``, ``"gpt-fast"``); default ``None``, the GPU preset's own
        calibration. An eager profile's launch cost is paid per layer of every pass.
    baseline_engine : str, optional
        The engine of the plain decoding ``T0`` divides by, when the source's
        baseline ran elsewhere (e.g. Hugging Face ``generate``); default
        ``engine``.
    weights : str or specdec.roofline.catalogue.WeightFormat, optional
        A key of :data:`specdec.roofline.catalogue.WEIGHT_FORMATS` (default
        ``"bf16"``): the weights of catalogue models given by key, and the
        GPU's arithmetic rate (its ``compute`` format); a WeightFormat of your
        own sets the rate only (give the models as Models).
    head : specdec.roofline.hardware.Model, optional
        For ``"eagle"``, ``"eagle2"``, ``"eagle3"`` and ``"mtp"``: the head as
        a model (its decoder layer(s) plus the LM head it reads per pass);
        for ``"medusa"``: all heads together (their parameters). Required for
        these kinds when the target is a Model; for a catalogue target the
        default is :func:`head_model`.
    draft_tp : int, optional
        GPUs of the draft's (or head's) tensor-parallel group, 1 to ``n_gpus``;
        default ``n_gpus`` (the target's group). A layer split runs the draft
        on one GPU.
    lookup_time : float, optional
        Seconds per round of an n-gram or prompt lookup, >= 0. Default 0.
    confidence : float, optional
        Level of the interval, in (0, 1). Default 0.9. The interval is the
        central range of the speedups priced on 64 replicates of
        :func:`specdec.calibration.fit_uncertainty.bootstrap` (seed 0): the terms of the
        GPU's family, the engine's fixed cost and the eager cost per layer;
        a Hardware given without an engine has no replicates, and its
        interval is the point itself.

    Returns
    -------
    Prediction

    See Also
    --------
    specdec.predict.heldout.track_record : how far the engine profile's predictions were from published
        measurements (the interval covers the calibration only).

    Examples
    --------
    Llama 3.1 70B with an 8B draft on 8 calibrated H100s, k = 5 and a
    measured tau of 3.5:

    >>> import specdec as sd
    >>> h = sd.hardware
    >>> p = sd.predict_speedup(h.LLAMA_70B, h.LLAMA_8B, k=5, tau=3.5, n_gpus=8)
    >>> round(p.speedup, 2), round(p.parts()["t0"], 2)
    (1.53, 11.72)
    """
    weights = _weight_format(weights)
    if isinstance(target, str) and weights.key not in catalogue.WEIGHT_FORMATS:
        raise ValueError(f"weights must be a key of specdec.roofline.catalogue.WEIGHT_FORMATS for a target given by key; got "
                         f"a WeightFormat {weights.key!r} (pass the target as a Model with its bytes per parameter)")
    target, target_key = _resolve_model(target, "target", weights.key)
    if isinstance(draft, str) and draft in DRAFT_KINDS:
        kind = draft
    elif isinstance(draft, str) and draft in catalogue.MODEL_SPECS:
        draft, kind = _catalogue_model(draft, weights.key if weights.key in catalogue.WEIGHT_FORMATS else "bf16"), "model"
    elif isinstance(draft, Model):
        kind = "model"
    elif isinstance(draft, str):
        raise ValueError(f"draft must be a draft kind ({', '.join(DRAFT_KINDS)}) or a catalogue model key; "
                         f"got {draft!r}")
    else:
        raise TypeError(f"draft must be a specdec.roofline.hardware.Model, a catalogue model key or one of "
                        f"{', '.join(DRAFT_KINDS)}; got {describe(draft)}")
    tau_value, positions = _check_tau(tau, acceptance, None)
    if positions is not None and k is None and tree is None and n_nodes is None and kind != "lookahead":
        k = positions
    plan = _round_plan(kind, k, tree, n_nodes, depth, width, tau_value, lookahead)
    if positions is not None and positions > plan.depth:
        raise ValueError(f"acceptance has {positions} positions; the proposal is only {plan.depth} deep")
    if tau_value > plan.depth + 1:
        raise ValueError(f"tau must be in [1, depth + 1 = {plan.depth + 1}] for this proposal; got {tau_value!r}")
    n_gpus = check_count(n_gpus, "n_gpus", 1, 64)
    parallelism = check_choice(parallelism, "parallelism", PARALLELISMS)
    batch = check_count(batch, "batch", 1, 4096)
    context = check_count(context, "context", 0, 1_048_576)
    draft_tp = n_gpus if draft_tp is None else check_count(draft_tp, "draft_tp", 1, n_gpus)
    lookup_time = float(check_scalar(lookup_time, "lookup_time", check_nonnegative, "(seconds)"))
    confidence = float(check_scalar(confidence, "confidence", check_positive))
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1); got {confidence!r}")
    if kind in _HEAD_KINDS + ("medusa",):
        if head is None and target_key is None:
            raise ValueError(f"draft {kind!r} needs head (a specdec.roofline.hardware.Model of the head) when the target "
                             f"is not a catalogue key")
        if head is None:
            assert target_key is not None  # refused just above otherwise
            head = _catalogue_head(target_key, kind)
        else:
            head = check_instance(head, Model, "head")
    elif head is not None:
        raise ValueError(f"head applies to the kinds {', '.join(_HEAD_KINDS + ('medusa',))}; got draft {kind!r}")
    if kind not in _LOOKUP_KINDS and lookup_time:
        raise ValueError(f"lookup_time applies to the kinds 'ngram' and 'pld'; got draft {kind!r}")
    fmt = weights.compute
    if baseline_engine is not None:
        check_choice(baseline_engine, "baseline_engine", tuple(profiles.PROFILES))
        if engine is None:
            raise ValueError("baseline_engine needs engine (the profile of the speculative run)")
    if engine is not None and not isinstance(engine, str):   # the cached builders below need hashable keys
        raise TypeError(f"engine must be None or one of {', '.join(repr(e) for e in profiles.PROFILES)}; got "
                        f"{describe(engine)}")
    if not isinstance(gpu, (str, Hardware)):
        raise TypeError(f"gpu must be a specdec.roofline.hardware.Hardware or one of "
                        f"{', '.join(repr(g) for g in catalogue.GPU_SPECS)}; got {describe(gpu)}")
    eng = _engine(gpu, engine, fmt)
    base = eng if baseline_engine is None or baseline_engine == engine else _engine(gpu, baseline_engine, fmt)
    if eng.one.tp != 1:
        raise ValueError(f"gpu must be one device (tp = 1; give n_gpus for a group); got tp = {eng.one.tp}")
    shape = (target, draft, head, plan, n_gpus, parallelism, batch, context, draft_tp, lookup_time)
    t0, t_draft, t_verify, overhead = _priced(eng, base, *shape)
    speedup = tau_value * t0 / (t_draft + t_verify + overhead)
    values = [speedup]
    ideal_gpu = _ideal_preset(gpu, fmt) if isinstance(gpu, str) else gpu.ideal()
    if engine is not None or isinstance(gpu, str):
        family = "sglang" if _base_calibration(ideal_gpu) is H100_CALIBRATION else "gpt-fast"
        spec_engine, base_engine = engine or family, baseline_engine or engine or family
        values = []
        spec_engines = _replicate_engines(spec_engine, ideal_gpu, eng.name)
        base_engines = spec_engines if base_engine == spec_engine else _replicate_engines(base_engine, ideal_gpu,
                                                                                          base.name)
        for e_r, b_r in zip(spec_engines, base_engines, strict=True):
            parts = _priced(e_r, b_r, *shape)
            values.append(tau_value * parts[0] / (parts[1] + parts[2] + parts[3]))
    interval = tuple(float(v) for v in np.quantile(values, [(1 - confidence) / 2, (1 + confidence) / 2]))
    interval = (min(interval[0], speedup), max(interval[1], speedup))
    one, profile = eng.one, eng.name
    where = f"{n_gpus}x {one.base_name}" + (" (layer split)" if parallelism == "layers" and n_gpus > 1 else "")
    draft_name = draft.name if isinstance(draft, Model) else kind
    return Prediction(float(speedup), interval, tau_value, t0, t_draft, t_verify, overhead, plan, target.name,
                      draft_name, where, profile, batch, context, confidence)
