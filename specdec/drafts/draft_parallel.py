"""A separate draft model's own tensor-parallel size, priced on the roofline.

:func:`draft_tp_cost` is ``c_d`` of a draft split over ``tp_d`` of the target's devices
(:func:`specdec.roofline.hardware.draft_cost` with ``draft_hardware = hardware.scaled(tp_d)``);
:func:`draft_tp_choice` compares the sizes an engine allows (vLLM: 1 or the target's,
``specdec.drafts.drafters.VLLM_DRAFT_TP``). Splitting divides the bytes each device reads, not
the fixed cost per pass, and adds two all-reduces per layer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from specdec._validate import check_integer
from specdec.roofline.hardware import Hardware, Model, _step_time

__all__ = ["DraftTpChoice", "draft_tp_cost", "draft_tp_choice"]

_CHAPTER = "Drafts in today's engines"


def _single_int(value: int, name: str, minimum: int = 1, maximum: int | None = None) -> int:
    if np.ndim(value) != 0:
        raise TypeError(f"{name} must be a single whole number")
    return int(check_integer(value, name, minimum=minimum, maximum=maximum))


def _allowed_sizes(sizes: tuple, tt: int) -> list[int]:
    """The draft sizes of ``allowed``, each a single whole number in [1, ``tt``], checked together."""
    if any(np.ndim(s) != 0 for s in sizes):
        raise TypeError("allowed must be a single whole number")
    entries = np.empty(len(sizes), dtype=object)
    entries[:] = sizes  # an object array keeps booleans and strings for the check to refuse
    return [int(s) for s in check_integer(entries, "allowed", minimum=1, maximum=tt)]


def _check(draft: Model, target: Model, hardware: Hardware) -> None:
    for value, name, kind in ((draft, "draft", Model), (target, "target", Model), (hardware, "hardware", Hardware)):
        if not isinstance(value, kind):
            raise TypeError(f"{name} must be a specdec.roofline.hardware.{kind.__name__}; got {type(value).__name__}")
    if hardware.tp != 1:
        raise ValueError(f"hardware must be one device (tp = 1), the unit the group is built from; got tp = "
                         f"{hardware.tp}")


def draft_tp_cost(draft: Model, target: Model, hardware: Hardware, target_tp: int, draft_tp: int, batch: int = 1,
                  context: int = 0) -> float:
    """``c_d`` of a separate draft run tensor-parallel over ``draft_tp`` of the target's ``target_tp`` devices.

    ``T_draft`` is :func:`specdec.roofline.hardware.step_time` of the draft on
    ``hardware.scaled(draft_tp)``, over ``T0`` of the target on
    ``hardware.scaled(target_tp)``, both at the same batch and context; the draft's weights must fit.

    Defined in chapter "Drafts in today's engines".

    Parameters
    ----------
    draft, target : specdec.roofline.hardware.Model
    hardware : specdec.roofline.hardware.Hardware
        One device (``tp = 1``), e.g. :data:`specdec.roofline.hardware.H100`.
    target_tp : int
        Devices the target is split over, in [1, 64].
    draft_tp : int
        Devices the draft is split over, in [1, ``target_tp``].
    batch, context : int, optional
        As in :func:`specdec.roofline.hardware.step_time`. Defaults 1 and 0.

    Returns
    -------
    float
        ``c_d``, a fraction of one target step.

    Examples
    --------
    Llama 3.2 1B drafting for Llama 3.1 70B on eight ideal H100s (free communication):

    >>> import specdec as sd
    >>> h = sd.hardware
    >>> one = sd.draft_parallel.draft_tp_cost(h.LLAMA_1B, h.LLAMA_70B, h.H100_IDEAL, 8, 1)
    >>> eight = sd.draft_parallel.draft_tp_cost(h.LLAMA_1B, h.LLAMA_70B, h.H100_IDEAL, 8, 8)
    >>> round(one / eight, 6)
    8.0
    """
    _check(draft, target, hardware)
    tt = _single_int(target_tp, "target_tp", maximum=64)
    td = _single_int(draft_tp, "draft_tp", maximum=tt)
    group = hardware.scaled(td)
    if draft.weight_bytes > group.memory:
        raise ValueError(f"draft_tp = {td}: the draft's {draft.weight_bytes / 1e9:.1f} GB of weights do not fit in "
                         f"{group.memory / 1e9:.0f} GB")
    b = _single_int(batch, "batch")
    c = _single_int(context, "context", minimum=0)
    return _tp_cost(draft, target, hardware, tt, td, b, c)


def _as_shape(b: int, c: int) -> tuple[np.ndarray, np.ndarray]:
    """Checked ``batch`` and ``context`` as the roofline's checks return them (0-d float arrays)."""
    return np.asarray(b, dtype=np.int64).astype(float), np.asarray(c, dtype=np.int64).astype(float)


def _tp_cost(draft: Model, target: Model, hardware: Hardware, tt: int, td: int, b: int, c: int) -> float:
    """:func:`draft_tp_cost` of checked arguments whose draft fits ``td`` devices (no checks): the roofline's
    ``draft_cost`` of the target on ``hardware.scaled(tt)`` and the draft on ``hardware.scaled(td)``."""
    bb, cc = _as_shape(b, c)
    # the draft's KV flag is the target hardware's default, which scaled() keeps
    return float(_step_time(draft, hardware.scaled(td), bb, cc, 1.0, None)
                 / _step_time(target, hardware.scaled(tt), bb, cc, 1.0, None))


@dataclass(frozen=True)
class DraftTpChoice:
    """``c_d`` at each allowed draft size and the cheapest one.

    Defined in chapter "Drafts in today's engines".

    Attributes
    ----------
    c_draft : dict
        ``{draft_tp: c_d}``.
    best : int
        The ``draft_tp`` with the smallest ``c_d``.
    draft_ms : dict
        ``{draft_tp: T_draft}`` in milliseconds.
    """

    c_draft: dict
    best: int
    draft_ms: dict


def draft_tp_choice(draft: Model, target: Model, hardware: Hardware, target_tp: int, batch: int = 1, context: int = 0,
                    allowed: Sequence[int] | None = None) -> DraftTpChoice:
    """Which tensor-parallel size makes a separate draft's step cheapest.

    Defined in chapter "Drafts in today's engines".

    Parameters
    ----------
    draft, target, hardware, target_tp, batch, context
        As in :func:`draft_tp_cost`.
    allowed : sequence of int, optional
        Draft sizes to compare, each in [1, ``target_tp``]. Default
        ``(1, target_tp)``, what vLLM allows
        (``specdec.drafts.drafters.VLLM_DRAFT_TP``). Sizes whose weights do
        not fit are left out.

    Returns
    -------
    DraftTpChoice

    Examples
    --------
    >>> import specdec as sd
    >>> h = sd.hardware
    >>> sd.draft_parallel.draft_tp_choice(h.LLAMA_1B, h.LLAMA_70B, h.H100_IDEAL, 8).best
    8
    """
    _check(draft, target, hardware)
    tt = _single_int(target_tp, "target_tp", maximum=64)
    sizes = (1, tt) if allowed is None else tuple(allowed)
    if not sizes:
        raise ValueError("allowed must list at least one draft size")
    costs, times = {}, {}
    shape: tuple[int, int] | None = None
    for td in dict.fromkeys(_allowed_sizes(sizes, tt)):
        if draft.weight_bytes > hardware.scaled(td).memory:
            continue
        if shape is None:  # checked at the first size that fits, as draft_tp_cost checks them
            shape = _single_int(batch, "batch"), _single_int(context, "context", minimum=0)
        costs[td] = _tp_cost(draft, target, hardware, tt, td, *shape)
        times[td] = float(_step_time(draft, hardware.scaled(td), *_as_shape(*shape), 1.0, None)) * 1e3
    if not costs:
        raise ValueError("the draft fits in none of the allowed sizes")
    return DraftTpChoice(c_draft=costs, best=min(costs, key=lambda td: costs[td]), draft_ms=times)
