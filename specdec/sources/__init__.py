"""Every cited work, and the one record type for a number quoted from it.

:class:`Source` is a cited work (with the arXiv version or the repository
commit read), :class:`Cited` one number, row or definition quoted from it,
and :data:`SOURCES` every work the package cites: papers, leaderboards,
engines' code, spec sheets and model configurations. Each cited record in
:mod:`specdec` (in :mod:`specdec.literature`, :mod:`specdec.drafts.drafters`,
:mod:`specdec.roofline.catalogue`, :mod:`specdec.calibration.timings`,
:mod:`specdec.predict.validation_rows` and the rest) is a :class:`Cited` whose
``source`` is a key of :data:`SOURCES`; the references page lists the same
works. This module holds data and imports nothing else from the package
but the argument checks.

Defined in chapter "Published results, recomputed".

Examples
--------
>>> from specdec.sources import SOURCES, Cited
>>> SOURCES["leviathan2023"].citation()
'arXiv:2211.17192v2'
>>> Cited(1.25, "leviathan2023", "Section 3.6", "verified").status
'verified'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from specdec._validate import describe

__all__ = ["Source", "Cited", "SOURCES"]


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
class Cited:
    """One number (or row of numbers) quoted from a source, with where and how it was checked.

    ``value`` is the number as printed (a float, or a tuple for a row; for
    an engine's definition, the formula as the code computes it);
    ``where`` names the table, figure, section or file; ``status`` is
    ``"verified"`` (read in the work itself, or the authors' repository at a
    recorded commit), ``"secondary"`` (read only in someone else's
    transcription or notes) or ``"unverified"`` (not found in any copy
    available: the chapters call such a number illustrative);
    ``checked_in`` says what copy it was read in.

    Defined in chapter "Published results, recomputed".
    """

    value: Any
    source: str
    where: str
    status: str
    checked_in: str = ""
    note: str = ""

    def __post_init__(self) -> None:
        if self.status not in ("verified", "secondary", "unverified"):
            raise ValueError(f"status must be 'verified', 'secondary' or 'unverified'; got {describe(self.status)}")
        if self.source not in SOURCES:
            raise ValueError(f"source must be a key of SOURCES; got {describe(self.source)}")


#: Every work the package cites, by key (the references page lists each).
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
    "chen2024sequoia": Source(
        "chen2024sequoia", "Zhuoming Chen, Avner May, Ruslan Svirschevski, Yuhsun Huang, Max Ryabinin, Zhihao Jia, "
        "Beidi Chen", "Sequoia: Scalable, Robust, and Hardware-aware Speculative Decoding",
        "arXiv preprint (NeurIPS 2024 according to a secondary note, not checked)", "2402.12374", "v3"),
    "wang2024opttree": Source(
        "wang2024opttree", "Jikai Wang, Yi Su, Juntao Li, Qingrong Xia, Zi Ye, Xinyu Duan, Zhefeng Wang, Min Zhang",
        "OPT-Tree: Speculative Decoding with Adaptive Draft Tree Structure", "arXiv preprint", "2406.17276", "v4"),
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
    "li2024eagle2": Source(
        "li2024eagle2", "Yuhui Li, Fangyun Wei, Chao Zhang, Hongyang Zhang",
        "EAGLE-2: Faster Inference of Language Models with Dynamic Draft Trees", "EMNLP 2024", "2406.16858", "v2"),
    "li2025eagle3": Source(
        "li2025eagle3", "Yuhui Li, Fangyun Wei, Chao Zhang, Hongyang Zhang",
        "EAGLE-3: Scaling up Inference Acceleration of Large Language Models via Training-Time Test",
        "arXiv preprint 2025", "2503.01840", "v3"),
    "eagle-repo": Source(
        "eagle-repo", "SafeAILab", "EAGLE repository (README)",
        "GitHub SafeAILab/EAGLE: the README at commit cb7e0841 (current) and at commit "
        "01aa1191ed81ac6855e119ef55d279cf4c925217 (v1.1); each record names the one it was read in",
        repository="SafeAILab/EAGLE",
        commit="cb7e0841fe0c206c6ed74a197ad5e2a1f13f5a2b"),
    "deepseek2024v3": Source(
        "deepseek2024v3", "DeepSeek-AI", "DeepSeek-V3 Technical Report", "arXiv preprint 2024", "2412.19437", "v2"),
    "xia2024specbench": Source(
        "xia2024specbench",
        "Heming Xia, Zhe Yang, Qingxiu Dong, Peiyi Wang, Yongqi Li, Tao Ge, Tianyu Liu, Wenjie Li, Zhifang Sui",
        "Unlocking Efficiency in Large Language Model Inference: A Comprehensive Survey of Speculative Decoding "
        "(Spec-Bench)", "Findings of ACL 2024 (arXiv 2401.07851, version not recorded); the numbers used are read in "
        "the leaderboard and code of the authors' repository", repository="hemingkx/Spec-Bench",
        commit="fd2c1cd7d2201ef71db4c5f4e455008f017967bf"),
    "medusa-repo": Source(
        "medusa-repo", "Tianle Cai and others (FasterDecoding)", "Medusa repository",
        "GitHub FasterDecoding/Medusa (medusa/model/medusa_model.py, assets/)", repository="FasterDecoding/Medusa",
        commit="e2a5d20c048a9b0a4092e6933c34313687422518"),
    "hf-transformers": Source(
        "hf-transformers", "Hugging Face", "transformers: assisted generation (candidate_generator.py, "
        "configuration_utils.py)", "GitHub huggingface/transformers, commits 02dba319 and "
        "008f5c8c29be84d4721dc6d1e0fcd72300580be4", repository="huggingface/transformers",
        commit="02dba3191ce987d960b0b4ccca7556ca81a8bad6"),
    "sglang-docs": Source(
        "sglang-docs", "SGLang project", "Speculative decoding (docs/backend/speculative_decoding.md)",
        "GitHub sgl-project/sglang", repository="sgl-project/sglang", commit="e26285a06d9fba5bde4609413dd2041c53e2623c"),
    "gpt-fast": Source(
        "gpt-fast", "PyTorch team", "gpt-fast: simple and efficient pytorch-native transformer text generation "
        "(README, Benchmarks)", "GitHub pytorch-labs/gpt-fast", repository="pytorch-labs/gpt-fast",
        commit="0f925b5d4ce457b89a7ca6c9ce50f42bf2576945"),
    "trtllm-perf": Source(
        "trtllm-perf", "NVIDIA", "Performance of TensorRT-LLM (docs/source/performance.md)",
        "GitHub NVIDIA/TensorRT-LLM", repository="NVIDIA/TensorRT-LLM", commit="138f96d45f90b9667426f7c47297d8c06bafac73"),
    "nim-perf": Source(
        "nim-perf", "NVIDIA", "NIM for LLMs benchmarking guide: Performance",
        "docs.nvidia.com/nim/benchmarking/llm/1.0.0/performance", version="1.0.0"),
    "vllm-ci": Source(
        "vllm-ci", "vLLM project", "Performance Benchmark (continuous integration), build 9515",
        "buildkite.com/vllm/performance-benchmark/builds/9515", version="build 9515"),
    "sun2024block": Source(
        "sun2024block", "Ziteng Sun, Uri Mendlovic, Yaniv Leviathan, Asaf Aharoni, Jae Hun Ro, Ahmad Beirami, "
        "Ananda Theertha Suresh", "Block Verification Accelerates Speculative Decoding", "ICLR 2025", "2403.10444",
        "v3"),
    "oliaro2024suffix": Source(
        "oliaro2024suffix", "Gabriele Oliaro, Zhihao Jia, Daniel Campos, Aurick Qiao",
        "SuffixDecoding: Extreme Speculative Decoding for Emerging AI Applications", "NeurIPS 2025", "2411.04975",
        "v3"),
    "arctic-inference": Source(
        "arctic-inference", "Snowflake", "ArcticInference: Suffix Decoding (docs/suffix-decoding.rst)",
        "GitHub snowflakedb/ArcticInference", repository="snowflakedb/ArcticInference",
        commit="4eb0d8ed473e13ef3dde2f94e45be3945910680a"),
    "vllm-repo": Source(
        "vllm-repo", "vLLM project", "vLLM: SpeculativeConfig (vllm/config/speculative.py) and the n-gram proposer "
        "(vllm/v1/spec_decode/ngram_proposer.py)", "GitHub vllm-project/vllm, commits "
        "002e77c1f0ef9b19cff8b9e21cfbd6feb3d6b443 (config) and 016e8ede870e3c087fdcdfb36ed3622112712f10 (proposer)",
        repository="vllm-project/vllm", commit="002e77c1f0ef9b19cff8b9e21cfbd6feb3d6b443"),
    "vllm-pr-41044": Source(
        "vllm-pr-41044", "jasl and others (vLLM contributors)", "[DeepSeek v4] Fixes MTP draft proposal sampling "
        "(pull request #41044, closed)", "GitHub vllm-project/vllm pull request thread, comment of 2026-04-28",
        repository="vllm-project/vllm", version="pull request 41044"),
    "vllm-pr-24852": Source(
        "vllm-pr-24852", "zixi-qi (vLLM contributor)", "[Experimental][Spec Decode] Port suffix decoding from "
        "ArcticInference to vLLM main (pull request #24852, closed)", "GitHub vllm-project/vllm pull request "
        "description, 2025-09-15", repository="vllm-project/vllm", version="pull request 24852"),
    "first-source": Source(
        "first-source", "(course material)", "Acceptance Rate & Speedup Bounds (the book's first source)",
        "section 2, 'Worked Example: 70B with 8B Draft'"),
    "nvidia-a100": Source("nvidia-a100", "NVIDIA", "NVIDIA A100 Tensor Core GPU datasheet",
                          "nvidia.com datasheet nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf"),
    "nvidia-h100": Source("nvidia-h100", "NVIDIA", "NVIDIA H100 Tensor Core GPU datasheet", "nvidia.com datasheet"),
    "nvidia-h200": Source("nvidia-h200", "NVIDIA", "NVIDIA H200 Tensor Core GPU product page", "nvidia.com"),
    "nvidia-l40s": Source("nvidia-l40s", "NVIDIA", "NVIDIA L40S datasheet", "nvidia.com datasheet"),
    "nvidia-b200": Source("nvidia-b200", "NVIDIA", "NVIDIA Blackwell (HGX B200) datasheet", "nvidia.com datasheet"),
    "nvidia-ga102": Source("nvidia-ga102", "NVIDIA", "NVIDIA Ampere GA102 GPU Architecture whitepaper, appendix A "
                           "(GeForce RTX 3090)", "nvidia.com whitepaper"),
    "hf-configs": Source("hf-configs", "model publishers on the Hugging Face Hub (meta-llama, lmsys, mistralai, "
                         "deepseek-ai)", "config.json of each model repository", "huggingface.co"),
    "specdecode-bench": Source(
        "specdecode-bench", "the SpecDecode-Bench authors (anonymous submission)",
        "Speculative Decoding: Performance or Illusion? (project page)",
        "project page in the authors' repository, index.md; the paper is arXiv 2601.11580",
        repository="SpecDecode-Bench/specdecode-bench.github.io", commit="fb0e24261927be497fe516526f569a3c89de786d"),
    "lmsys-mtp": Source(
        "lmsys-mtp", "Eigen AI Team with the SGLang team", "Accelerating SGLang with Multiple Token Prediction",
        "LMSYS blog, 17 July 2025 (blog/2025-07-17-mtp.md)", repository="lm-sys/lm-sys.github.io",
        commit="0947bdc01aea3a453e27f0e0e1c290404c0232ed"),
    "trtllm-blog-r1-b200": Source(
        "trtllm-blog-r1-b200", "NVIDIA TensorRT LLM team",
        "Pushing Latency Boundaries: Optimizing DeepSeek-R1 Performance on NVIDIA B200 GPUs",
        "TensorRT-LLM tech blog (docs/source/blogs/tech_blog/blog1_...B200_GPUs.md)", repository="NVIDIA/TensorRT-LLM",
        commit="01c4ece911eb569e72cf4177f83238a0520641c2"),
}
