"""Validation happens once, at the public edge: on the call paths below every argument is checked once.

A public function validates its arguments with the helpers of ``specdec._validate`` (or, for ``decide``, those
of ``specdec.decision._measurements``) and then computes with a kernel that checks nothing; a public function
that builds on another calls that function's kernel after its own checks, not the function itself. The test
replaces every validator, in every loaded ``specdec`` module, by one that counts its outermost calls by the
parameter name it reports (a validator calling another counts once), calls the public function and compares
the counts with the arguments it takes.
"""

from __future__ import annotations

import collections
import sys
import types

import pytest
from validation_counter import VALIDATORS, counting  # tests/validation_counter.py

import specdec as sd


@pytest.fixture
def validations(monkeypatch):
    """A Counter of validations by parameter name, filled while the test runs."""
    for name in sd._SUBMODULES:   # load every core module, so that every reference is replaced
        if name not in ("plots", "widgets", "exercises"):
            getattr(sd, name)
    counts: collections.Counter = collections.Counter()
    depth = [0]
    replaced = {check: counting(check, lambda: counts, depth) for check in VALIDATORS}
    for module_name, module in list(sys.modules.items()):
        if module_name.startswith("specdec") and isinstance(module, types.ModuleType):
            for attr, value in list(vars(module).items()):
                if callable(value) and value in replaced:
                    monkeypatch.setattr(module, attr, replaced[value])
    return counts


def _setups():
    h = sd.hardware
    group = h.H100.scaled(8)
    workload = sd.checklist.Workload(ttft=200.0, tpot=5.2, batch=1, alpha=0.8, k=5, t0=5.2, t_draft=2.5,
                                     t_verify=6.0, t_overhead=0.5, mean_output_tokens=300)
    times = dict(t0=5.2, t_verify=6.0, k=5, t_draft_step=0.5)
    decide_args = {"confidence", "k_max", "worth_it", "t0", "t_verify", "t_draft_step", "t_overhead", "k"}
    model_args = {"target", "draft", "hardware", "alpha", "k", "batch", "context", "t_overhead", "extra_bytes"}
    return {
        "speedup": (lambda: sd.speedup(0.8, 5, t0=5.2, t_draft=2.5, t_verify=6.0, t_overhead=0.5),
                    {"alpha", "k", "t0", "t_draft", "t_verify", "t_overhead"}),
        "speedup_from_costs": (lambda: sd.speedup_from_costs(0.8, 4, 0.05, 1.1),
                               {"alpha", "k", "c_draft", "c_verify"}),
        "quick_estimate": (lambda: sd.quick_estimate(0.8, 5, 5.2, 2.5, 6.0),
                           {"alpha", "k", "t0", "t_draft", "t_verify"}),
        "break_even_alpha": (lambda: sd.break_even_alpha(4, 0.05, 1.1), {"k", "c_draft", "c_verify"}),
        "required_alpha": (lambda: sd.economics.required_alpha(1.3, 5, 0.1, 1.25),
                           {"target_speedup", "k", "c_draft", "c_verify"}),
        "optimal_k": (lambda: sd.optimal_k(0.8, 0.05, 1.1), {"alpha", "c_draft", "c_verify", "k_max"}),
        "alpha_from_mean_acceptance_length": (
            lambda: sd.acceptance.alpha_from_mean_acceptance_length(3.3616, 4), {"length", "k", "include_bonus"}),
        "alpha_from_draft_acceptance_rate": (
            lambda: sd.acceptance.alpha_from_draft_acceptance_rate(0.5904, 4), {"rate", "k"}),
        "read_engine_counters": (lambda: sd.estimation.read_engine_counters(1000, 5000, 2600),
                                 {"num_drafts", "num_draft_tokens", "num_accepted_tokens", "confidence"}),
        "read_engine_counters from a dict, at a given k": (
            lambda: sd.estimation.read_engine_counters({"num_drafts": 1000, "num_draft_tokens": 5000,
                                                        "num_accepted_tokens": 2600}, k=5),
            {"num_drafts", "num_draft_tokens", "num_accepted_tokens", "confidence", "k"}),
        "decide with counters": (
            lambda: sd.decide(**times, counters={"num_drafts": 1000, "num_draft_tokens": 5000,
                                                 "num_accepted_tokens": 2600}),
            decide_args | {"num_drafts", "num_draft_tokens", "num_accepted_tokens"}),
        "separate_draft_speedup": (lambda: sd.drafts.separate_draft_speedup(0.05, 5),
                                   {"size_ratio", "alpha_ref", "ratio_ref", "k", "c_verify", "draft_overhead"}),
        "max_concurrent_sequences": (
            lambda: sd.memory.max_concurrent_sequences(h.LLAMA_70B, group, 8192, draft=h.LLAMA_8B, k=5),
            {"model", "hardware", "context", "k", "extra_bytes", "draft"}),
        "predict_speedup": (
            lambda: sd.predict_speedup("llama-3.1-8b", "eagle3", tau=3.0, k=3, engine="sglang"),
            {"tau", "k", "n_gpus", "parallelism", "batch", "context", "lookup_time", "confidence"}),
        "decide with a mean acceptance length": (
            lambda: sd.decide(**times, mean_acceptance_length=3.5), decide_args | {"mean_acceptance_length"}),
        "assess": (lambda: sd.checklist.assess(workload),
                   {"decode_ratio", "max_batch", "min_alpha", "draft_fraction", "min_output_tokens", "worth_it"}),
        "speculative_speedup": (lambda: sd.deployment.speculative_speedup(h.LLAMA_70B, h.LLAMA_8B, group, 0.8, 5),
                                model_args),
        "break_even_batch": (lambda: sd.deployment.break_even_batch(h.LLAMA_70B, h.LLAMA_8B, group, 0.8, 5),
                             model_args | {"batch_max"}),
        "break_even_summary": (lambda: sd.calibration.break_even_summary(0.8, 5, (0, 1024)),
                               {"alpha", "k", "contexts", "worth_it"}),
        "eagle_large_draft": (lambda: sd.calibration.eagle_large_draft([0.6, 0.8], layer_overhead=2e-4),
                              {"alpha", "layer_overhead", "context", "k_range"}),
        "round_cost_checks": (lambda: sd.calibration.round_cost_checks(h.A100, 512), {"hardware", "context"}),
    }


SETUPS = _setups()


@pytest.mark.parametrize("label", list(SETUPS))
def test_every_argument_is_validated_once(label, validations):
    call, expected = SETUPS[label]
    call()   # once before counting: the first call may load modules whose tables validate their own entries
    validations.clear()
    call()
    twice = {name: n for name, n in validations.items() if n > 1}
    assert not twice, f"{label}: validated more than once: {twice}"
    assert set(validations) == expected, f"{label}: validated {sorted(validations)}, expected {sorted(expected)}"


def test_the_counter_sees_a_repeated_validation(validations):
    """The counter is not blind: a public function called twice from outside counts twice."""
    sd.expected_tokens(0.8, 5)
    sd.expected_tokens(0.7, 4)
    assert validations == {"alpha": 2, "k": 2}


@pytest.mark.parametrize("call, message", [
    (lambda: sd.speedup(1.5, 5, 5.2, 2.5, 6.0), "alpha must be in [0, 1]; got 1.5"),
    (lambda: sd.speedup(0.8, 0, 5.2, 2.5, 6.0), "k must be a whole number >= 1; got 0"),
    (lambda: sd.quick_estimate(0.8, 5, 5.2, -1.0, 6.0), "t_draft must be a finite number >= 0"),
    (lambda: sd.break_even_alpha(4, 0.05, 0.0), "c_verify must be a finite number > 0"),
    (lambda: sd.economics.required_alpha(-1.0, 5, 0.1, 1.25), "target_speedup must be a finite number > 0"),
    (lambda: sd.deployment.speculative_speedup(sd.hardware.LLAMA_70B, sd.hardware.LLAMA_8B, sd.hardware.H100,
                                               0.8, 5, kv_write="yes"), "kv_write must be True or False"),
])
def test_bad_public_input_still_names_the_parameter(call, message):
    with pytest.raises((ValueError, TypeError), match=message.replace("[", r"\[").replace("]", r"\]")):
        call()
