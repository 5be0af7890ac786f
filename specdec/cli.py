"""The command line: ``python -m specdec decide ...`` (also the ``specdec`` console script).

Two subcommands: ``decide``, the command-line face of :func:`specdec.decision.decide`,
and ``predict``, that of :func:`specdec.predict.predict_speedup` (a published setup's
speedup with its interval and the round's parts).
Run ``python -m specdec decide --help`` or ``python -m specdec predict --help`` for the
flags and a worked example.
Invalid input exits with status 2 and a message naming the flag (or the field
of the ``--from`` file); contradicting measurements are warnings, printed in
the report (and, with ``--json``, also on standard error) and listed in the
JSON ``warnings``.

Defined in chapter "Decide for your service".
"""

from __future__ import annotations

import argparse
import pathlib
import re
import sys
import textwrap
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from specdec.decision import TIME_UNITS, decide, read_fields

__all__ = ["main", "build_parser", "to_argv", "format_command", "FIELDS"]

#: Every field ``decide`` reads: the flag, and whether the value is a time (a
#: string with a unit). ``--from FILE`` accepts the same names as keys (with
#: ``_`` or ``-``).
FIELDS = {
    "t0": ("--t0", True),
    "t_draft_step": ("--t-draft-step", True),
    "t_draft_round": ("--t-draft-round", True),
    "t_verify": ("--t-verify", True),
    "t_overhead": ("--t-overhead", True),
    "k": ("--k", False),
    "mean_acceptance_length": ("--mean-acceptance-length", False),
    "draft_acceptance_rate": ("--draft-acceptance-rate", False),
    "counters": ("--counters", False),
    "counters_before": ("--counters-before", False),
    "tpot_off": ("--tpot-off", True),
    "tpot_on": ("--tpot-on", True),
    "confidence": ("--confidence", False),
    "k_max": ("--k-max", False),
    "worth_it": ("--worth-it", False),
    "engine": ("--engine", False),
    "labels": ("--label", False),
}

EPILOG = """\
worked example (a 12 ms target step, 1.1 ms per draft step, a 14 ms
verification pass at k = 4, and an engine printing a mean acceptance length
of 3.1 and an acceptance rate of 0.62):

  python -m specdec decide --t0 12ms --t-draft-step 1.1ms --t-verify 14ms \\
      --k 4 --mean-acceptance-length 3.1 --draft-acceptance-rate 0.62

{example_result}

times      a number with its unit: s, ms, us (or \u00b5s), ns; e.g. 12ms, 1.1ms, 850us
draft      --t-draft-step is ONE draft step; --t-draft-round is all k steps of a
           round; give either (both: they are cross-checked, the round is used)
several k  repeat --t-verify with K:TIME, e.g. --t-verify 4:14ms --t-verify 6:15.5ms;
           verification is then fitted as a + b k by least squares. A bare
           --t-verify TIME is the time at --k. --k is the draft length at which
           acceptance was measured.
engines    --engine vllm|vllm-v0|sglang|sglang-legacy|trtllm names who printed the
           numbers (a printed "acceptance rate" means three different things);
           --counters detects it from the form. --counters FILE (or - for
           standard input; gzip and a UTF-8 BOM are fine) reads: vLLM V1 and V0
           /metrics pages, "SpecDecoding metrics:" and "Speculative metrics:"
           log lines, SGLang "Decode batch ... accept len:" lines and its
           sglang:spec_accept_length gauge, vllm bench serve --save-result JSON
           (mean_tpot_ms is the TPOT with speculation on), a Prometheus
           /api/v1/query answer, LLM.get_metrics() as JSON, per-request counts.
           --label KEY=VALUE (repeatable) picks one model or engine of a page.
acceptance --counters FILE (JSON, TOML, or a saved vLLM /metrics page; with
           --counters-before FILE, the window between two snapshots), or
           --mean-acceptance-length (vLLM "Mean acceptance length", SGLang
           "accept len": both count the bonus token), or --draft-acceptance-rate
           (vLLM "Draft acceptance rate", accepted/drafted, 0.62 or 62%; SGLang
           0.5.23's "accept rate" is the same, older SGLang printed accept len /
           (k + 1) instead: check the version). Given together, they are
           cross-checked; alpha comes from the counters, else the length, else
           the rate.
--from     the same fields from a TOML or JSON file (times as strings with
           units; flags given on the command line override the file), e.g.
             t0 = "12ms"
             t_draft_step = "1.1ms"
             t_verify = {4 = "14ms", 6 = "15.5ms"}
             k = 4
             mean_acceptance_length = 3.1
output     text (default), --markdown, --json (times always in ms, with a
           schema_version), or --csv (one flat row with a header, times in ms).
exit status 0 with a verdict (warnings included); 2 on invalid input; a
           closed pipe (| head) ends quietly with status 141.
"""


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose help computes the worked example's result when it is shown."""

    def format_help(self) -> str:
        text = super().format_help()
        if "{example_result}" in text:
            text = text.replace("{example_result}", _example_result())
        return text


def _example_result() -> str:
    """The worked example's figures, computed when the help is shown (never typed in)."""
    d = decide(t0="12ms", t_draft_step="1.1ms", t_verify="14ms", k=4, mean_acceptance_length=3.1,
               draft_acceptance_rate=0.62)
    text = (f"It reports alpha = {d.alpha:.3f} (E[L] = {d.expected_tokens:.2f} at k = {d.k}), a round of "
            f"{d.t_round:.3g} ms, a speedup of {d.speedup:.2f}x, best k = {d.best_k} ({d.best_speedup:.2f}x with "
            f"verification constant in k), a break-even alpha of {d.break_even_alpha:.3f}, the verdict "
            f"\"{d.verdict}\", and this warning: {d.warnings[0]}")
    return textwrap.fill(text, width=78)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m specdec`` (subcommand ``decide``).

    Defined in chapter "Decide for your service".

    Returns
    -------
    argparse.ArgumentParser
    """
    parser = _Parser(prog="specdec", description="Speculative decoding, costed: the package's command line.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    p = sub.add_parser(
        "decide", help="does speculative decoding pay for my service? (from engine metrics and measured times)",
        description="From an engine's acceptance metrics and a few measured times to a verdict: alpha, E[L], the "
                    "speedup at the measured k, the best k, the break-even alpha and the margin to it.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--from", dest="from_file", metavar="FILE", help="read the fields below from a TOML or JSON file")
    g = p.add_argument_group("times (each with a unit: s, ms, us)")
    g.add_argument("--t0", metavar="TIME", help="one plain target decode step at the operating batch")
    g.add_argument("--t-draft-step", metavar="TIME", help="ONE draft step (one draft token)")
    g.add_argument("--t-draft-round", metavar="TIME", help="all k draft steps of a round together")
    g.add_argument("--t-verify", metavar="[K:]TIME", action="append",
                   help="the verification pass at --k, or at K (repeat for several k)")
    g.add_argument("--t-overhead", metavar="TIME", help="per-round overhead (sampling, rollback); default 0")
    g.add_argument("--tpot-off", metavar="TIME", help="measured time per output token, speculation off")
    g.add_argument("--tpot-on", metavar="TIME", help="measured time per output token, speculation on")
    a = p.add_argument_group("acceptance")
    a.add_argument("--k", type=_int_flag("--k"), metavar="K",
                   help="draft tokens per round when acceptance was measured (1 to 64)")
    a.add_argument("--engine", metavar="ENGINE", help="who printed the acceptance: vllm, vllm-v0, sglang, "
                   "sglang-legacy or trtllm (detected from --counters when left out)")
    a.add_argument("--label", dest="labels", metavar="KEY=VALUE", action="append",
                   help="read only the series with this label from --counters (repeat for several)")
    a.add_argument("--mean-acceptance-length", type=_float_flag("--mean-acceptance-length"), metavar="L",
                   help="tokens per round, bonus token counted, in [1, k + 1]")
    a.add_argument("--draft-acceptance-rate", metavar="R",
                   help="a printed acceptance rate, 0.62 or 62%%: what it means depends on --engine "
                        "(vLLM V1 and SGLang 0.5: accepted / drafted)")
    a.add_argument("--counters", metavar="FILE|-",
                   help="what the engine printed, detected by its form (- for standard input; gzip "
                        "and a UTF-8 BOM are read): a vLLM or SGLang /metrics page, their log lines, a vllm "
                        "bench serve result, a Prometheus answer, LLM.get_metrics(), per-request counts, or "
                        "JSON/TOML counters (num_drafts, num_draft_tokens, num_accepted_tokens, "
                        "accepted_per_position, or vLLM's metric names); see 'engines' below")
    a.add_argument("--counters-before", metavar="FILE",
                   help="an earlier snapshot of the same counters: the window is --counters minus this")
    o = p.add_argument_group("options")
    o.add_argument("--confidence", type=_float_flag("--confidence"), metavar="C",
                   help="level of the alpha interval (default 0.95)")
    o.add_argument("--k-max", type=_int_flag("--k-max"), metavar="K",
                   help="largest k searched for the best k (1 to 64, default 16)")
    o.add_argument("--worth-it", type=_float_flag("--worth-it"), metavar="S",
                   help="speedup below which it is not worth it (default 1.3)")
    fmt = o.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print the report as JSON")
    fmt.add_argument("--markdown", action="store_true", help="print the report as Markdown")
    fmt.add_argument("--csv", action="store_true", help="print the key figures as one CSV row with a header")
    o.add_argument("--digits", type=_int_flag("--digits"), metavar="D", default=12,
                   help="significant digits of the numbers in --json (1 to 17, default 12)")
    p.set_defaults(subparser=p)
    _add_predict(sub)
    return parser


def _version() -> str:
    from specdec import __version__

    return __version__


class _InputError(Exception):
    """Invalid input, already worded for the user (exit status 2)."""


def _int_flag(flag: str) -> Callable[..., Any]:
    def convert(text: str) -> int:
        try:
            return int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{flag} must be a whole number; got {text!r}") from None
    convert.__name__ = "whole number"
    return convert


def _float_flag(flag: str) -> Callable[..., Any]:
    def convert(text: str) -> float:
        try:
            return float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{flag} must be a number; got {text!r}") from None
    convert.__name__ = "number"
    return convert


#: Flags whose value may start with "-" (a negative number, refused later for its sign, not as a missing value).
_VALUE_FLAGS = ("--t0", "--t-draft-step", "--t-draft-round", "--t-verify", "--t-overhead", "--tpot-off", "--tpot-on",
                "--k", "--mean-acceptance-length", "--draft-acceptance-rate", "--confidence", "--k-max", "--worth-it",
                "--digits", "--tree", "--tau", "--acceptance", "--gpus", "--batch", "--context", "--nodes", "--depth",
                "--width", "--draft-tp", "--lookup-time", "--lookahead")


def _join_negative_values(argv: Sequence[str]) -> list:
    """``--t0 -12ms`` as ``--t0=-12ms``, so that argparse reads the value instead of taking it for a flag."""
    out: list = []
    items = list(argv)
    i = 0
    while i < len(items):
        item = items[i]
        if item in _VALUE_FLAGS and i + 1 < len(items) and re.match(r"^-[\d.]", str(items[i + 1])):
            out.append(f"{item}={items[i + 1]}")
            i += 2
            continue
        out.append(item)
        i += 1
    return out


def _labels(items: Sequence[str], where: str) -> dict:
    out: dict = {}
    for item in items:
        key, sep, value = str(item).partition("=")
        key, value = key.strip(), value.strip().strip('"')
        if not sep or not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", key):
            raise _InputError(f"{where} must be KEY=VALUE with a Prometheus label name, e.g. model_name=my-model; "
                              f"got {item!r}")
        if key in out and out[key] != value:
            raise _InputError(f"{where} gives {key} twice ({out[key]!r} and {value!r})")
        out[key] = value
    return out


def _rate(text: Any, where: str) -> float:
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return float(text)
    value = str(text).strip()
    percent = value.endswith("%")
    try:
        number = float(value[:-1] if percent else value)
    except ValueError:
        raise _InputError(f"{where} must be a number such as 0.62 or 62%; got {text!r}") from None
    if percent and not 0.0 <= number <= 100.0:
        raise _InputError(f"{where} must be a percentage in [0%, 100%] (or a fraction in [0, 1]); got {text!r}")
    return number / 100.0 if percent else number


def _verify_values(items: Sequence[Any], where: str) -> tuple[dict[int, Any], Any]:
    """``K:TIME`` items to {K: TIME}, plus at most one bare TIME (the time at --k)."""
    keyed: dict[int, Any] = {}
    bare = None
    for item in items:
        text = str(item)
        match = re.match(r"^\s*(\d+)\s*[:=]\s*(.+)$", text)
        if match:
            kk = int(match.group(1))
            if kk < 1:
                raise _InputError(f"{where}: K in K:TIME must be >= 1; got {text!r}")
            if kk in keyed:
                raise _InputError(f"{where} gives k = {kk} twice")
            keyed[kk] = match.group(2).strip()
        elif re.match(r"^\s*[^:=]*[:=]", text):
            raise _InputError(f"{where} must be TIME or K:TIME with a whole K >= 1, e.g. 4:14ms; got {text!r}")
        else:
            if bare is not None:
                raise _InputError(f"{where} is given twice without K: write K:TIME for each k measured, "
                                  f"e.g. 4:14ms and 6:15.5ms")
            bare = text
    return keyed, bare


def _load_from(path_text: str) -> tuple[dict, pathlib.Path]:
    path = pathlib.Path(path_text)
    try:
        data = read_fields(path)
    except ValueError as exc:
        raise _InputError(f"--from: {exc}") from None
    if not isinstance(data, Mapping):
        raise _InputError(f"--from: {path_text!r} must hold a table (TOML) or an object (JSON) of fields")
    out = {}
    for raw_key, value in data.items():
        key = str(raw_key).replace("-", "_")
        if key not in FIELDS:
            raise _InputError(f"--from: {path_text!r} has an unknown field {raw_key!r}; known fields: "
                              f"{', '.join(FIELDS)}")
        if key in out:
            raise _InputError(f"--from: {path_text!r} gives {key} twice")
        out[key] = value
    return out, path


_NAME_RE = re.compile(r"(?<![\w:-])(" + "|".join(sorted((n for n in FIELDS if n not in ("k", "engine", "labels")),
                                                          key=len, reverse=True))
                      + r")(?![\w])")


def _reword(message: str, where: Mapping[str, str]) -> str:
    """Replace decide's parameter names in an error message by the flag or file field they came from."""
    text = _NAME_RE.sub(lambda m: where.get(m.group(1), FIELDS[m.group(1)][0]), message)
    if text.startswith("k ") or text.startswith("k:"):
        text = where.get("k", "--k") + text[1:]
    for name in ("engine", "labels"):
        if text.startswith(name + " "):
            text = where.get(name, FIELDS[name][0]) + text[len(name):]
    if text.startswith("engine='"):
        text = where.get("engine", "--engine") + " " + text[len("engine='"):].replace("'", "", 1)
    if re.match(r"^(num_drafts|num_draft_tokens|num_accepted_tokens|accepted_per_position)\b", text):
        text = f"{where.get('counters', '--counters')}: {text}"
    if "between the snapshots" in text:
        text = f"{where.get('counters_before', '--counters-before')}: {text}"
    return text


def _collect(args: argparse.Namespace) -> tuple[dict, dict]:
    """The keyword arguments for decide, and where each came from (flag or file field)."""
    values: dict[str, Any] = {}
    where: dict[str, str] = {}
    base = None
    if args.from_file is not None:
        file_values, path = _load_from(args.from_file)
        base = path.parent
        for key, value in file_values.items():
            values[key] = value
            where[key] = f"{key!r} in {args.from_file}"
    cli = {
        "t0": args.t0, "t_draft_step": args.t_draft_step, "t_draft_round": args.t_draft_round,
        "t_overhead": args.t_overhead, "tpot_off": args.tpot_off, "tpot_on": args.tpot_on, "k": args.k,
        "mean_acceptance_length": args.mean_acceptance_length, "draft_acceptance_rate": args.draft_acceptance_rate,
        "counters": args.counters, "counters_before": args.counters_before, "confidence": args.confidence,
        "k_max": args.k_max, "worth_it": args.worth_it, "engine": args.engine, "labels": args.labels,
    }
    for key, value in cli.items():
        if value is not None:
            values[key] = value
            where[key] = FIELDS[key][0]
    if args.t_verify:
        values["t_verify"] = list(args.t_verify)
        where["t_verify"] = "--t-verify"
    if "labels" in values:
        items = values["labels"]
        if isinstance(items, Mapping):
            items = [f"{a}={b}" for a, b in items.items()]
        elif isinstance(items, str):
            items = [items]
        values["labels"] = _labels(items, where["labels"])
    # counters: files (a path inside a --from file is relative to that file); "-" is standard input
    for key in ("counters", "counters_before"):
        if values.get(key) == "-":
            if key == "counters_before" and args.counters == "-":
                raise _InputError("--counters and --counters-before cannot both be - (standard input)")
            values[key] = sys.stdin.buffer.read()
            where[key] = f"{FIELDS[key][0]} - (standard input)"
            continue
        if isinstance(values.get(key), str):
            inside_file = where.get(key) != FIELDS[key][0] and base is not None
            values[key] = base / values[key] if inside_file else pathlib.Path(values[key])
    # times: strings with units (a bare number in a file is ambiguous)
    for key, (_flag, is_time) in FIELDS.items():
        if not is_time or key not in values or key == "t_verify":
            continue
        if not isinstance(values[key], str):
            raise _InputError(f"{where[key]} must be a time with its unit, e.g. \"12ms\"; got {values[key]!r}")
    if "t_verify" in values:
        tv = values["t_verify"]
        if isinstance(tv, Mapping):
            for kk, t in tv.items():
                if not isinstance(t, str):
                    raise _InputError(f"{where['t_verify']} at k = {kk} must be a time with its unit, e.g. "
                                      f"\"14ms\"; got {t!r}")
        else:
            items = tv if isinstance(tv, list) else [tv]
            if not all(isinstance(t, str) for t in items):
                raise _InputError(f"{where['t_verify']} must be TIME or K:TIME strings, e.g. \"14ms\" or \"4:14ms\"; "
                                  f"got {tv!r}")
            keyed, bare = _verify_values(items, where["t_verify"])
            if bare is not None and keyed:
                if "k" not in values:
                    raise _InputError(f"{where['t_verify']} {bare!r} has no K and --k is not given: write K:TIME")
                if int(values["k"]) in keyed:
                    raise _InputError(f"{where['t_verify']} gives k = {values['k']} twice (bare and as K:TIME)")
                keyed[int(values["k"])] = bare
                values["t_verify"] = keyed
            else:
                values["t_verify"] = keyed if keyed else bare
    if "draft_acceptance_rate" in values:
        values["draft_acceptance_rate"] = _rate(values["draft_acceptance_rate"], where["draft_acceptance_rate"])
    for key in ("t0", "t_verify"):
        if key not in values:
            raise _InputError(f"{FIELDS[key][0]} is required (or {key} in the --from file)")
    if "t_draft_step" not in values and "t_draft_round" not in values:
        raise _InputError("--t-draft-step or --t-draft-round is required (one draft step, or all k steps of a round)")
    if not any(key in values for key in ("counters", "mean_acceptance_length", "draft_acceptance_rate")):
        raise _InputError("the acceptance is required: --counters, --mean-acceptance-length or "
                          "--draft-acceptance-rate")
    return values, where


def _display_unit(t0: Any) -> str:
    match = re.match(r"^\s*[-+0-9.eE]+\s*(\S+)\s*$", str(t0))
    unit = match.group(1) if match else "ms"
    if unit in ("\u00b5s", "\u03bcs"):
        return "us"
    return unit if unit in TIME_UNITS else "ms"


def to_argv(**values: Any) -> list:
    """The ``decide`` flags for keyword arguments of :func:`specdec.decision.decide` (the command line of a call).

    Times must be strings with their unit (a bare number on the command line
    would be refused); ``t_verify`` may be one time or a mapping ``{k: time}``
    (one ``--t-verify K:TIME`` each); ``counters`` and ``counters_before`` are
    file paths.

    Defined in chapter "Decide for your service".

    Parameters
    ----------
    **values
        Any of the fields in :data:`FIELDS`.

    Returns
    -------
    list of str
        The arguments after ``decide``.

    Examples
    --------
    >>> from specdec.cli import to_argv
    >>> to_argv(t0="12ms", t_draft_step="1.1ms", t_verify={4: "14ms", 6: "15.5ms"}, k=4, mean_acceptance_length=3.1)
    ['--t0', '12ms', '--t-draft-step', '1.1ms', '--t-verify', '4:14ms', '--t-verify', '6:15.5ms', '--k', '4', '--mean-acceptance-length', '3.1']
    """
    out: list[str] = []
    for key, value in values.items():
        if key not in FIELDS:
            raise TypeError(f"to_argv got an unknown field {key!r}; known fields: {', '.join(FIELDS)}")
        flag, is_time = FIELDS[key]
        if value is None:
            continue
        if key == "t_verify" and isinstance(value, Mapping):
            for kk, t in value.items():
                out += [flag, f"{kk}:{t}"]
            continue
        if key == "labels":
            for name, label in dict(value).items():
                out += [flag, f"{name}={label}"]
            continue
        if is_time and not isinstance(value, str):
            raise TypeError(f"{key} must be a time with its unit for the command line, e.g. '12ms'; got {value!r}")
        out += [flag, str(value)]
    return out


def format_command(argv: Sequence[str], program: str = "python -m specdec", width: int = 72) -> str:
    """A command line as a person types it: shell-quoted, one flag and its value kept together, lines of at
    most ``width`` characters joined by backslash continuations.

    Defined in chapter "Decide for your service".

    Parameters
    ----------
    argv : sequence of str
        The arguments after the program (e.g. ``["decide", *to_argv(...)]``).
    program : str, optional
        What runs them. Default ``"python -m specdec"``.
    width : int, optional
        Longest line before a continuation, >= 20. Default 72.

    Returns
    -------
    str

    Examples
    --------
    >>> from specdec.cli import format_command
    >>> print(format_command(["decide", "--t0", "12ms", "--k", "4", "--json"], width=30))
    python -m specdec decide \\
        --t0 12ms --k 4 --json
    """
    import shlex

    if isinstance(width, bool) or not isinstance(width, int) or width < 20:
        raise ValueError(f"width must be a whole number >= 20; got {width!r}")
    groups: list[str] = []
    for item in argv:
        text = shlex.quote(str(item))
        if groups and not str(item).startswith("-") and groups[-1].startswith("-") and " " not in groups[-1]:
            groups[-1] += " " + text
        else:
            groups.append(text)
    lines = [program]
    for group in groups:
        if len(lines[-1]) + 1 + len(group) + 2 > width and lines[-1].strip() != program:
            lines.append("    " + group)
        else:
            lines[-1] += " " + group
    return " \\\n".join(lines)


# --------------------------------------------------------------------------
# predict: a published setup's speedup
# --------------------------------------------------------------------------

PREDICT_EPILOG = """\
worked example (Llama 3.1 70B with a Llama 3.1 8B draft on 8 H100s, k = 5, a
measured mean acceptance length of 3.5):

  python -m specdec predict --target llama-3.1-70b --draft llama-3.1-8b \\
      --gpu h100-sxm --gpus 8 --k 5 --tau 3.5

models     keys of the catalogue (specdec.roofline.catalogue.MODEL_SPECS): llama-3.1-8b,
           vicuna-13b, ...; the draft is a model key (a separate draft) or a
           kind: eagle, eagle2, eagle3, medusa, mtp, ngram, pld, lookahead (the
           heads of a kind come from the catalogue for the target)
proposal   --k K (a chain), --tree P0,P1,... (parents, -1 for the root's
           children), --nodes N --depth D [--width W] (a tree by size), or
           --lookahead W,N,G (lookahead decoding's window, n-gram, guesses)
acceptance --tau L (tokens per round, the target's token counted) or
           --acceptance A1,A2,... (per-position rates)
hardware   --gpu KEY, --gpus N, --parallelism tp|layers (layers: a layer split
           as device_map="auto" places a model)
engine     --engine hf-eager|research|sglang|vllm|trtllm|gpt-fast (the
           profiles of specdec.calibration.profiles); without it, the GPU preset's own
           calibration
output     text (default) or --json (times in ms); the interval spans the
           predictions over the fit's bootstrap replicates (--confidence)
record     the last line: measured / predicted on the held-out published
           speedups of the same engine profile (specdec.predict.heldout.
           track_record), and the band it gives this prediction
"""


def _add_predict(sub: Any) -> None:
    p = sub.add_parser(
        "predict", help="predict a configuration's speedup, with an interval and the round's parts",
        description="The speedup of one speculative configuration on a calibrated roofline: tau x T0 / T_round, "
                    "with the interval from the calibration's uncertainty and the parts of the round.",
        epilog=PREDICT_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    m = p.add_argument_group("models")
    m.add_argument("--target", required=True, metavar="MODEL", help="target model key")
    m.add_argument("--draft", required=True, metavar="MODEL|KIND", help="draft model key, or a draft kind")
    m.add_argument("--medusa-heads", type=_int_flag("--medusa-heads"), metavar="N",
                   help="Medusa heads, 1 to 16 (default 4; the other heads come from the catalogue)")
    r = p.add_argument_group("proposal and acceptance")
    r.add_argument("--k", type=_int_flag("--k"), metavar="K", help="chain length, 1 to 64")
    r.add_argument("--tree", metavar="P0,P1,...", help="the tree's parents array")
    r.add_argument("--nodes", type=_int_flag("--nodes"), metavar="N", help="tree nodes, 1 to 1024")
    r.add_argument("--depth", type=_int_flag("--depth"), metavar="D", help="tree depth, 1 to --nodes")
    r.add_argument("--width", type=_int_flag("--width"), metavar="W", help="nodes expanded per level")
    r.add_argument("--lookahead", metavar="W,N,G", help="lookahead decoding's window, n-gram size, guesses")
    r.add_argument("--tau", type=_float_flag("--tau"), metavar="L", help="mean acceptance length, >= 1")
    r.add_argument("--acceptance", metavar="A1,A2,...", help="per-position acceptance rates")
    h = p.add_argument_group("hardware and engine")
    h.add_argument("--gpu", default="h100-sxm", metavar="KEY", help="GPU preset (default h100-sxm)")
    h.add_argument("--gpus", type=_int_flag("--gpus"), default=1, metavar="N", help="GPUs of the target")
    h.add_argument("--parallelism", default="tp", metavar="tp|layers", help="tensor parallel or a layer split")
    h.add_argument("--draft-tp", type=_int_flag("--draft-tp"), metavar="N", help="GPUs of the draft's group")
    h.add_argument("--engine", metavar="PROFILE", help="engine profile")
    h.add_argument("--batch", type=_int_flag("--batch"), default=1, metavar="B", help="sequences per step")
    h.add_argument("--context", type=_int_flag("--context"), default=0, metavar="C", help="tokens in the cache")
    h.add_argument("--lookup-time", metavar="TIME", help="n-gram lookup per round, with a unit (e.g. 50us)")
    o = p.add_argument_group("options")
    o.add_argument("--confidence", type=_float_flag("--confidence"), default=0.9, metavar="C",
                   help="level of the interval (default 0.9)")
    o.add_argument("--json", action="store_true", help="print the prediction as JSON (times in ms)")
    p.set_defaults(subparser=p)


def _numbers(text: str, flag: str, kind: type) -> list:
    try:
        return [kind(item) for item in str(text).split(",") if item.strip()]
    except ValueError:
        what = "whole numbers" if kind is int else "numbers"
        raise _InputError(f"{flag} must be comma-separated {what}; got {text!r}") from None


def _model(key: str, flag: str) -> Any:
    from specdec.predict import model_presets

    presets = model_presets()
    if key not in presets:
        raise _InputError(f"{flag} must be one of {', '.join(sorted(presets))}; got {key!r}")
    return key                     # predict_speedup takes the key (and finds the target's heads by it)


_PREDICT_FLAGS = {"k": "--k", "tree": "--tree", "n_nodes": "--nodes", "depth": "--depth", "width": "--width",
                  "lookahead": "--lookahead", "tau": "--tau", "acceptance": "--acceptance", "gpu": "--gpu",
                  "n_gpus": "--gpus", "parallelism": "--parallelism", "draft_tp": "--draft-tp",
                  "engine": "--engine", "batch": "--batch", "context": "--context",
                  "lookup_time": "--lookup-time", "confidence": "--confidence", "head": "--medusa-heads",
                  "target": "--target", "draft": "--draft"}


def _reword_predict(message: str) -> str:
    """Replace predict_speedup's parameter names at the start of a message by their flags."""
    pattern = re.compile(r"^(" + "|".join(sorted(_PREDICT_FLAGS, key=len, reverse=True)) + r")\b")
    return pattern.sub(lambda m: _PREDICT_FLAGS[m.group(1)], message)


def _run_predict(args: argparse.Namespace, sub: Any) -> str:
    from specdec.decision import parse_time
    from specdec.predict import DRAFT_KINDS, predict_speedup

    try:
        kwargs: dict[str, Any] = {"k": args.k, "n_nodes": args.nodes, "depth": args.depth, "width": args.width,
                                  "tau": args.tau, "gpu": args.gpu, "n_gpus": args.gpus,
                                  "parallelism": args.parallelism, "draft_tp": args.draft_tp, "engine": args.engine,
                                  "batch": args.batch, "context": args.context, "confidence": args.confidence}
        target = _model(args.target, "--target")
        draft = args.draft if args.draft in DRAFT_KINDS else _model(args.draft, "--draft")
        if args.medusa_heads is not None:
            if args.draft != "medusa":
                raise _InputError("--medusa-heads applies only to --draft medusa")
            from specdec.predict import head_model

            try:
                kwargs["head"] = head_model(args.target, "medusa", args.medusa_heads)
            except ValueError as exc:
                raise _InputError("--medusa-heads " + str(exc).split(" ", 1)[1]) from None
        if args.tree is not None:
            kwargs["tree"] = _numbers(args.tree, "--tree", int)
        if args.acceptance is not None:
            kwargs["acceptance"] = _numbers(args.acceptance, "--acceptance", float)
        if args.lookahead is not None:
            kwargs["lookahead"] = tuple(_numbers(args.lookahead, "--lookahead", int))
        if args.lookup_time is not None:
            try:
                kwargs["lookup_time"] = parse_time(args.lookup_time, "--lookup-time", unit="s")
            except ValueError as exc:
                raise _InputError(str(exc)) from None
    except _InputError as exc:
        sub.error(str(exc))
    try:
        prediction = predict_speedup(target, draft, **kwargs)
    except (ValueError, TypeError) as exc:
        sub.error(_reword_predict(str(exc)))
    from specdec.predict.heldout import track_record

    record = track_record(args.engine)
    if args.json:
        import json

        lo, hi = prediction.interval
        data = {"schema_version": 1, "speedup": prediction.speedup, "interval": [lo, hi],
                "confidence": prediction.confidence, "tau": prediction.tau, "engine": prediction.engine,
                "target": prediction.target, "draft": prediction.draft, "hardware": prediction.hardware,
                "batch": prediction.batch, "context": prediction.context,
                "parts_ms": prediction.parts(), "draft_passes": list(prediction.plan.draft_tokens),
                "verify_tokens": prediction.plan.verify_tokens,
                "track_record": {"profile": record.profile, "rows": record.rows, "too_high": record.too_high,
                                 "measured_over_predicted": {"low": record.low, "median": record.median,
                                                             "high": record.high},
                                 "coverage": record.coverage, "band": list(record.band(prediction.speedup))}}
        return json.dumps(data, indent=2)
    return prediction.report() + "\n" + record.sentence(prediction.speedup)


def _print_safely(make_text: Callable[..., Any]) -> int:
    """Print what ``make_text()`` returns; a closed pipe (| head) ends quietly with status 141."""
    try:
        print(make_text())
        sys.stdout.flush()
    except BrokenPipeError:
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0, or 2 for invalid input).

    Defined in chapter "Decide for your service".

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments after the program name (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 with a verdict (warnings included); invalid input exits with status 2
        through ``argparse``, naming the flag.
    """
    parser = build_parser()
    args = parser.parse_args(_join_negative_values(sys.argv[1:] if argv is None else argv))
    sub = args.subparser  # the subcommand's parser: its error() prints its usage
    if args.command == "predict":
        return _print_safely(lambda: _run_predict(args, sub))
    if not 1 <= args.digits <= 17:
        sub.error(f"--digits must be a whole number in [1, 17]; got {args.digits}")
    try:
        values, where = _collect(args)
    except _InputError as exc:
        sub.error(str(exc))
    unit = "ms" if (args.json or args.csv) else _display_unit(values["t0"])
    try:
        report = decide(time_unit=unit, **values)
    except (ValueError, TypeError) as exc:
        sub.error(_reword(str(exc), where))
    if args.json or args.csv:
        for w in report.warnings:
            print(f"warning: {w}", file=sys.stderr)

    def text() -> str:
        if args.json:
            return report.to_json(digits=args.digits)
        if args.csv:
            return report.to_csv(digits=args.digits).rstrip("\n")
        return report.to_markdown() if args.markdown else str(report)

    return _print_safely(text)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
