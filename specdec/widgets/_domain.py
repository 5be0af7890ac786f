"""Where the cost model stops: the inputs an explorer refuses, and the warning it shows instead.

An explorer's controls can reach settings the model forbids: a verification
pass faster than a plain step, a plain step longer than the token time it is
measured from. specdec's functions compute numbers there without complaint
(they are formulas), but a speedup or a verdict at such a setting is
meaningless. Each function below returns ``None`` inside the model, else a
``(parameter, warning)`` pair: the explorer shows the warning, in plain words
and with the numbers that broke the rule, instead of its read-out. The live
explorers (``scripts/static/specdec-live.js``) apply the same rules with the
same words; ``tests/test_live_explorers.py`` compares them.
"""

from __future__ import annotations

__all__ = ["verify_below_step", "verify_cost_below_one", "step_above_tpot", "verify_floor_note", "number"]


def number(x) -> str:
    """A number as the warnings write it: at most four significant digits, no exponent below 10,000."""
    return format(float(x), ".4g")


def verify_below_step(t_verify, t0, k, unit="ms", verify="T_verify", step="T0"):
    """T_verify < T0: one target pass over k + 1 positions cannot be faster than a pass over one."""
    if t_verify >= t0:
        return None
    return ("t_verify", f"{verify} ({number(t_verify)} {unit}) is below {step} ({number(t0)} {unit}): "
                        f"verification is one target pass over k + 1 = {k + 1} positions, and no pass is "
                        f"faster than a plain step over one. Set {verify} to at least {step}.")


def verify_cost_below_one(c_verify):
    """c_verify < 1: the verification pass is a target pass, so it costs at least one plain step."""
    if c_verify >= 1.0:
        return None
    return ("c_verify", f"c_verify = {format(float(c_verify), '.3f')} is below 1: the verification pass is a "
                        f"target forward pass (over k + 1 positions), so it costs at least one plain step. "
                        f"Set c_verify to 1 or more.")


def step_above_tpot(t0, tpot, tolerance, unit="ms", step="T0", tpot_name="TPOT"):
    """T0 above TPOT by more than ``tolerance``: a decode step cannot take longer than the token it makes."""
    if t0 <= tpot * (1.0 + tolerance):
        return None
    return ("t0", f"{step} ({number(t0)} {unit}) is longer than {tpot_name} ({number(tpot)} {unit}) by more "
                  f"than {tolerance:.0%}: a plain decode step cannot take longer than the token it produces "
                  f"({tpot_name}, measured without speculation, is where {step} comes from). "
                  f"Set {step} no higher than {tpot_name}.")


def verify_floor_note(t_verify, t0, k, slope):
    """The draft lengths at which ``t_verify + slope (j - k)`` falls below ``t0``, as a note (or None)."""
    if slope <= 0 or t_verify < t0:
        return None
    below = [j for j in range(1, k) if t_verify + slope * (j - k) < t0]
    if not below:
        return None
    where = "k = 1" if below[-1] == 1 else f"k = 1 to {below[-1]}"
    return (f"at {where} this slope would make verification cheaper than a plain step; "
            f"the curve and the best k hold T_verify at T0 there")
