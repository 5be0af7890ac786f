"""Cited works and quoted inputs: the records behind :mod:`specdec.literature`.

:class:`Source` is a cited work (with the arXiv version or the repository
commit read), :class:`Quoted` one number or definition quoted from it, and
:data:`SOURCES` every source :mod:`specdec.literature` cites. Import them from
:mod:`specdec.literature`, which re-exports them; this private module only
keeps that one under the package's length limit.

Defined in chapter "Published results, recomputed".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._validate import describe

__all__ = ["Source", "Quoted", "SOURCES"]


@dataclass(frozen=True)
class Source:
    """A cited work (the references page lists the same fields).

    ``arxiv`` is the arXiv identifier and ``version`` the version read
    (``"v2"``); for code and leaderboards, ``repository`` is the GitHub
    ``owner/name`` and ``commit`` the commit (or release) read.

    Defined in chapter "Published results, recomputed".
    """

    key: str
    authors: str
    title: str
    venue: str
    arxiv: str = ""
    version: str = ""
    repository: str = ""
    commit: str = ""

    def citation(self, short: bool = False) -> str:
        """Where to find the cited version: ``arXiv:2211.17192v2``, or ``owner/name @ commit``.

        With ``short=True`` a 40-character commit is cut to its first 8 characters.
        """
        if self.arxiv:
            return f"arXiv:{self.arxiv}{self.version}"
        if self.repository:
            at = self.commit or self.version
            if short and len(at) == 40:
                at = at[:8]
            return f"{self.repository} @ {at}" if at else self.repository
        return self.venue


@dataclass(frozen=True)
class Quoted:
    """One number (or row of numbers) quoted from a source, with where and how it was checked.

    ``value`` is the number as printed (a float, or a tuple for a row; for
    an engine's definition, the formula as the code computes it);
    ``where`` names the table, figure, section or file; ``status`` is
    ``"verified"``, ``"secondary"`` or ``"unverified"`` (see the module
    docstring); ``checked_in`` says what copy it was read in.

    Defined in chapter "Published results, recomputed".
    """

    value: Any
    source: str
    where: str
    status: str
    checked_in: str = ""
    note: str = ""

    def __post_init__(self):
        if self.status not in ("verified", "secondary", "unverified"):
            raise ValueError(f"status must be 'verified', 'secondary' or 'unverified'; got {describe(self.status)}")
        if self.source not in SOURCES:
            raise ValueError(f"source must be a key of SOURCES; got {describe(self.source)}")


SOURCES: dict[str, Source] = {
    "leviathan2023": Source(
        "leviathan2023", "Yaniv Leviathan, Matan Kalman, Yossi Matias",
        "Fast Inference from Transformers via Speculative Decoding", "ICML 2023 (PMLR 202)", "2211.17192", "v2"),
    "chen2023": Source(
        "chen2023", "Charlie Chen, Sebastian Borgeaud, Geoffrey Irving, Jean-Baptiste Lespiau, Laurent Sifre, John Jumper",
        "Accelerating Large Language Model Decoding with Speculative Sampling", "arXiv preprint 2023", "2302.01318",
        "v1"),
    "cai2024medusa": Source(
        "cai2024medusa", "Tianle Cai, Yuhong Li, Zhengyang Geng, Hongwu Peng, Jason D. Lee, Deming Chen, Tri Dao",
        "Medusa: Simple LLM Inference Acceleration Framework with Multiple Decoding Heads", "ICML 2024 (PMLR 235)",
        "2401.10774", "v3"),
    "li2024eagle": Source(
        "li2024eagle", "Yuhui Li, Fangyun Wei, Chao Zhang, Hongyang Zhang",
        "EAGLE: Speculative Sampling Requires Rethinking Feature Uncertainty", "ICML 2024", "2401.15077", "v3"),
    "chen2024magicdec": Source(
        "chen2024magicdec", "Jian Chen, Vashisth Tiwari, Ranajoy Sadhukhan, Zhuoming Chen, and others",
        "MagicDec: Breaking the Latency-Throughput Tradeoff for Long Context Generation with Speculative Decoding",
        "arXiv preprint (ICLR 2025 according to a secondary note, not checked)", "2408.11049", "v4"),
    "magicdec-blog": Source(
        "magicdec-blog", "the MagicDec authors (Infini-AI-Lab)", "MagicDec project page (blog post), Table 2",
        "project page in the authors' repository, pages/index.html", repository="Infini-AI-Lab/MagicDec",
        commit="09cd671c01bc87f7570d3243c46200a96f0fc0b4"),
    "specbench-repo": Source(
        "specbench-repo", "Heming Xia and others (the Spec-Bench authors)", "Spec-Bench leaderboard (Leaderboard.md)",
        "the authors' repository; the benchmark is described in arXiv 2401.07851 (Findings of ACL 2024)",
        repository="hemingkx/Spec-Bench", commit="b8baa2a0eef58dc536cda59628c6d651c286379e"),
    "vllm-metrics": Source(
        "vllm-metrics", "vLLM project",
        "V1 engine speculative decoding metrics: vllm/v1/spec_decode/metrics.py (SpecDecodingStats, "
        "SpecDecodingLogging, SpecDecodingProm)", "source code", repository="vllm-project/vllm",
        commit="016a8587edb04ae53c913a1da9355a07dc0ca4ae"),
    "vllm-0.33": Source(
        "vllm-0.33", "vLLM project", "vLLM 0.33.0, the released wheel's source code",
        "PyPI release (wheel sha256 4b6bdec4ab269990bf70d45a3c1e94c3760a27064513760193b26d6f0da883aa; "
        "vllm/_version.py gives commit id g4ba787ec9)", repository="vllm-project/vllm", version="0.33.0"),
    "vllm-0.7.3": Source(
        "vllm-0.7.3", "vLLM project", "vLLM 0.7.3 (the V0 engine, vllm/spec_decode/), the released wheel's source code",
        "PyPI release (wheel sha256 b8a593711ee0d798c3b95068988440cf4aa3d5d30dfc2ee9c2276acb6ecf8277)",
        repository="vllm-project/vllm", version="0.7.3"),
    "sglang-0.5.23": Source(
        "sglang-0.5.23", "SGLang project", "SGLang 0.5.23, the released wheel's source code",
        "PyPI release (wheel sha256 00b3cd5b265ac76c64185fbb6b95424f324ddd9f428d0306b77bc9db9d859937; the wheel "
        "records no commit)", repository="sgl-project/sglang", version="0.5.23"),
    "sglang-78ac30c2": Source(
        "sglang-78ac30c2", "SGLang project", "SGLang source at an earlier commit: "
        "python/sglang/srt/managers/scheduler_metrics_mixin.py", "source code", repository="sgl-project/sglang",
        commit="78ac30c2056f2c25089c1d3203c3d5c13dc3d946"),
}
