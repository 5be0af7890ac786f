"""The published numbers of :mod:`specdec.literature`: every quoted input, with its citation.

Private module: the inputs are public names of :mod:`specdec.literature`
(import them from there); this file only keeps the data apart from the
functions that recompute it. Each value is a :class:`specdec.sources.Cited`
naming its source, the table or section, the copy it was read in and its
status.
"""

from __future__ import annotations

from specdec.sources import Cited

# --------------------------------------------------------------------------
# sources and quoted inputs
# --------------------------------------------------------------------------


#: Where Leviathan et al.'s numbers were read (every Leviathan value below was checked in both copies).
_LEVIATHAN_COPIES = (
    "the arXiv 2211.17192v2 PDF (page 1: 'arXiv:2211.17192v2 [cs.LG] 18 May 2023'; sha256 8967e2daab74178b"
    "8a73a6f0b0780c5cbb40f9f6dcbd5c456b24a89c128c52ed) and crops of its typeset tables (table-01.png .. "
    "table-04.png), GitHub para1lel/asabook at commit 327ef6f5c4300c18563664db1180c61d269f8322; and a "
    "transcription built from the paper's TeX source (search-tool index file id 61971968668; para1lel/asabook "
    "at 4391ce9e22b8712da368322d1a1879deea221946, docs/en/papers/speculative-decoding.md)")

# Leviathan et al., Table 1 (Section 3.5, "Choosing gamma"): operations and
# speed against plain decoding for six (alpha, gamma) cases at c = c_hat = 0,
# printed as "1.53X" etc. Caption: "The total number of arithmetic operations
# and the inference speed vs the baseline, for various values of gamma and
# alpha, assuming c = c_hat = 0."
LEVIATHAN_TABLE1 = {
    "alpha": Cited((0.6, 0.7, 0.8, 0.8, 0.9, 0.9), "leviathan2023", "Table 1 (Section 3.5), column alpha",
                    "verified", _LEVIATHAN_COPIES, note="the six (alpha, gamma) cases of Table 1, with c = c_hat = 0"),
    "gamma": Cited((2, 3, 2, 5, 2, 10), "leviathan2023", "Table 1 (Section 3.5), column gamma", "verified",
                    _LEVIATHAN_COPIES),
    "operations_printed": Cited((1.53, 1.58, 1.23, 1.63, 1.11, 1.60), "leviathan2023",
                                 "Table 1 (Section 3.5), column Operations", "verified", _LEVIATHAN_COPIES,
                                 note="printed 1.53X, 1.58X, 1.23X, 1.63X, 1.11X, 1.60X (Theorem 3.11 at c_hat = 0)"),
    "speed_printed": Cited((1.96, 2.53, 2.44, 3.69, 2.71, 6.86), "leviathan2023",
                            "Table 1 (Section 3.5), column Speed", "verified", _LEVIATHAN_COPIES,
                            note="printed 1.96X, 2.53X, 2.44X, 3.69X, 2.71X, 6.86X (Theorem 3.8 at c = 0)"),
}

#: Leviathan et al.'s bound on the cost coefficient c, which their own Table 4 exceeds (c = 0.11 for T5-large).
LEVIATHAN_C_BOUND = Cited(
    0.05, "leviathan2023", "Section 3.3 (Walltime Improvement), the paragraph after Definition 3.7", "verified",
    _LEVIATHAN_COPIES,
    note="'In our experiments where M_q is typically a couple of orders of magnitude smaller than M_p, c was always "
         "less than 0.05 and often negligibly close to 0.' Table 4 (Appendix A.3), whose c values were 'estimated "
         "... based on profiler traces', lists 0.11 for T5-large (800M parameters, about 14 times smaller than the "
         "11B target, not two orders of magnitude).")


# Leviathan et al., Table 2 (T5-XXL 11B target, TPU-v4, batch 1): draft,
# temperature, gamma, alpha, measured speed; Table 4 (Appendix A.3): cost
# ratio c per draft and the "expected" (EXP) column. Row order:
# EnDe T=0 (small, base, large), EnDe T=1, CNNDM T=0, CNNDM T=1.
_T5_ROWS = (
    # task, draft, temp, gamma, alpha, c, expected (Table 4), measured (Table 2)
    ("EnDe", "T5-small", 0, 7, 0.75, 0.02, 3.2, 3.4),
    ("EnDe", "T5-base", 0, 7, 0.80, 0.04, 3.3, 2.8),
    ("EnDe", "T5-large", 0, 7, 0.82, 0.11, 2.5, 1.7),
    ("EnDe", "T5-small", 1, 7, 0.62, 0.02, 2.3, 2.6),
    ("EnDe", "T5-base", 1, 5, 0.68, 0.04, 2.4, 2.4),
    ("EnDe", "T5-large", 1, 3, 0.71, 0.11, 2.0, 1.4),
    ("CNNDM", "T5-small", 0, 5, 0.65, 0.02, 2.4, 3.1),
    ("CNNDM", "T5-base", 0, 5, 0.73, 0.04, 2.6, 3.0),
    ("CNNDM", "T5-large", 0, 3, 0.74, 0.11, 2.0, 2.2),
    ("CNNDM", "T5-small", 1, 5, 0.53, 0.02, 1.9, 2.3),
    ("CNNDM", "T5-base", 1, 3, 0.55, 0.04, 1.8, 2.2),
    ("CNNDM", "T5-large", 1, 3, 0.56, 0.11, 1.6, 1.7),
)
LEVIATHAN_T5 = {
    "task": Cited(tuple(r[0] for r in _T5_ROWS), "leviathan2023", "Tables 2 (Section 4.1) and 4 (Appendix A.3)",
                   "verified", _LEVIATHAN_COPIES, note="the text writes 'CCN/DM', the tables 'CNNDM'"),
    "draft": Cited(tuple(r[1] for r in _T5_ROWS), "leviathan2023", "Tables 2 and 4, column M_q", "verified",
                    _LEVIATHAN_COPIES),
    "temperature": Cited(tuple(r[2] for r in _T5_ROWS), "leviathan2023", "Tables 2 and 4, column Temp", "verified",
                          _LEVIATHAN_COPIES),
    "gamma": Cited(tuple(r[3] for r in _T5_ROWS), "leviathan2023", "Tables 2 and 4, column gamma", "verified",
                    _LEVIATHAN_COPIES),
    "alpha": Cited(tuple(r[4] for r in _T5_ROWS), "leviathan2023", "Tables 2, 3 and 4, column alpha", "verified",
                    _LEVIATHAN_COPIES, note="T5-base EnDe at T = 0 is printed '0.8' in Tables 2 and 4, '0.80' in Table 3"),
    "c": Cited(tuple(r[5] for r in _T5_ROWS), "leviathan2023", "Table 4 (Appendix A.3), column c", "verified",
                _LEVIATHAN_COPIES, note="0.02 (T5-small), 0.04 (T5-base), 0.11 (T5-large), 'estimated ... based on "
                                        "profiler traces' (Appendix A.3)"),
    "expected": Cited(tuple(r[6] for r in _T5_ROWS), "leviathan2023", "Table 4 (Appendix A.3), column EXP",
                       "verified", _LEVIATHAN_COPIES),
    "measured": Cited(tuple(r[7] for r in _T5_ROWS), "leviathan2023", "Table 2 (column Speed) = Table 4 (column EMP)",
                       "verified", _LEVIATHAN_COPIES),
}

# Leviathan et al., Table 3 (Section 4.2, "Empirical alpha Values"): alpha of
# every target/draft pair with argmax (T=0) and standard sampling (T=1),
# "evaluated ... on 10K tokens generated by Mp". Caption footnote: LaMDA's
# outputs always go through a top-40 filter, which affects standard sampling
# only. Rows in the table's order: (target, draft, alpha at T=0, alpha at T=1).
_LEVIATHAN_TABLE3_CHECKED = (
    "arXiv 2211.17192v2 (PDF whose first page reads 'arXiv:2211.17192v2 [cs.LG] 18 May 2023') and a crop of its "
    "typeset Table 3, both in the public repository para1lel/asabook at commit "
    "327ef6f5c4300c18563664db1180c61d269f8322 (docs/.vuepress/public/paper/speculative-decoding.pdf, "
    "docs/papers/speculative-decoding/table-03.png); the same 32 cells in that repository's transcription from "
    "the TeX source (docs/en/papers/speculative-decoding.md at commit 4391ce9e22b8712da368322d1a1879deea221946)")
_LEVIATHAN_TABLE3_ROWS = (
    ("GPT-like (97M)", "Unigram", 0.03, 0.03),
    ("GPT-like (97M)", "Bigram", 0.05, 0.05),
    ("GPT-like (97M)", "GPT-like (6M)", 0.88, 0.89),
    ("T5-XXL (EnDe)", "Unigram", 0.08, 0.07),
    ("T5-XXL (EnDe)", "Bigram", 0.20, 0.19),
    ("T5-XXL (EnDe)", "T5-small", 0.75, 0.62),
    ("T5-XXL (EnDe)", "T5-base", 0.80, 0.68),
    ("T5-XXL (EnDe)", "T5-large", 0.82, 0.71),
    ("T5-XXL (CNNDM)", "Unigram", 0.13, 0.08),
    ("T5-XXL (CNNDM)", "Bigram", 0.23, 0.16),
    ("T5-XXL (CNNDM)", "T5-small", 0.65, 0.53),
    ("T5-XXL (CNNDM)", "T5-base", 0.73, 0.55),
    ("T5-XXL (CNNDM)", "T5-large", 0.74, 0.56),
    ("LaMDA (137B)", "LaMDA (100M)", 0.61, 0.57),
    ("LaMDA (137B)", "LaMDA (2B)", 0.71, 0.71),
    ("LaMDA (137B)", "LaMDA (8B)", 0.75, 0.74),
)
LEVIATHAN_TABLE3 = {
    "target": Cited(tuple(r[0] for r in _LEVIATHAN_TABLE3_ROWS), "leviathan2023", "Table 3 (column Mp)",
                     "verified", _LEVIATHAN_TABLE3_CHECKED),
    "draft": Cited(tuple(r[1] for r in _LEVIATHAN_TABLE3_ROWS), "leviathan2023", "Table 3 (column Mq)",
                    "verified", _LEVIATHAN_TABLE3_CHECKED),
    "alpha_t0": Cited(tuple(r[2] for r in _LEVIATHAN_TABLE3_ROWS), "leviathan2023",
                       "Table 3 (column alpha, rows Smpl t=0: argmax sampling)", "verified", _LEVIATHAN_TABLE3_CHECKED),
    "alpha_t1": Cited(tuple(r[3] for r in _LEVIATHAN_TABLE3_ROWS), "leviathan2023",
                       "Table 3 (column alpha, rows Smpl t=1: standard sampling)", "verified",
                       _LEVIATHAN_TABLE3_CHECKED,
                       note="the caption's footnote: LaMDA's outputs always go through a top-40 filter, which has "
                            "no effect on argmax but some effect on standard sampling"),
}


# Chen et al. (2023), Table 1: Chinchilla 70B target, 4B draft, K = 4, batch 1.
_CHEN_TABLE1_COPIES = (
    "no copy of the paper itself was found; three third-party transcriptions that agree: a literal transcription "
    "of Table 1 extracted from the PDF (search-tool index file id 58850665321), reading notes of "
    "arXiv:2302.01318v1 (file id 60007856507) and research notes (file id 62503443262)")
_CHEN_DRAFT_COPIES = (
    "no copy of the paper itself; notes quoting Section 6 (file ids 62503443262, 60007856507, 59497550818) and a "
    "section index of an HTML copy that places the sentence in Section 6, Results (file id 62246815934)")
CHEN_CHINCHILLA = {
    "rows": Cited(("XSum, nucleus", "XSum, greedy", "HumanEval, nucleus"), "chen2023", "Table 1 (Section 6.1)",
                   "secondary", _CHEN_TABLE1_COPIES),
    "baseline_ms": Cited(14.1, "chen2023", "Table 1 (Section 6.1), mean token time of the ArS rows", "secondary",
                          _CHEN_TABLE1_COPIES),
    "speculative_ms": Cited((7.52, 7.00, 5.73), "chen2023", "Table 1 (Section 6.1), mean token time of the SpS rows",
                             "secondary", _CHEN_TABLE1_COPIES),
    "speedup_printed": Cited((1.92, 2.01, 2.46), "chen2023", "Table 1 (Section 6.1), column speed up", "secondary",
                              _CHEN_TABLE1_COPIES,
                              note="14.1 / 7.52 does not round to the printed 1.92 (the other two rows agree with "
                                   "their times); all three copies print both numbers, so the copies cannot tell "
                                   "which is wrong, or whether 1.92 is a mean of per-sample ratios"),
    "k": Cited(4, "chen2023", "Table 1 (Section 6.1): batch size 1 and K = 4", "secondary", _CHEN_TABLE1_COPIES),
    "draft_ms": Cited(1.8, "chen2023", "Section 6 (Results): a 4B-parameter, 8-layer draft sampling at 1.8 ms per "
                       "token on the same 16 TPU v4 as the target", "secondary", _CHEN_DRAFT_COPIES,
                       note="one blog copy attributes 1.8 ms to a 7B draft; the notes agree it is the 4B draft (a 7B "
                            "candidate is discussed in Section 5, Choice of draft models)"),
    "abstract_speedup": Cited((2.0, 2.5), "chen2023", "Abstract", "verified",
                               "the arXiv abstract as shown on huggingface.co/papers/2302.01318 (documentation index)",
                               note="'achieving a 2-2.5x decoding speedup in a distributed setup'; the abstract also says "
                                    "the latency of parallel scoring of short continuations 'is comparable to that of "
                                    "sampling a single token from the larger target model'"),
}

_MEDUSA_TABLE1_COPIES = ("two independent transcriptions of Table 1 that agree (search-tool index file ids 59153731412 "
                         "and 65722840415); the paper's own transcription (file id 69112891374) renders the table as "
                         "an image")

#: Medusa-2 speedups per model: Table 1's S_Medusa column (not Figure 3(b), which is per MT-bench category).
MEDUSA_SPEEDUPS = Cited({"Vicuna-7B": 2.83, "Zephyr-7B": 2.66, "Vicuna-13B": 2.83, "Vicuna-33B": 2.35},
                         "cai2024medusa", "Table 1 ('Comparison of various Medusa-2 models'), column S_Medusa",
                         "secondary", _MEDUSA_TABLE1_COPIES,
                         note="the Vicuna-7B and Vicuna-13B values (2.83x) are also in Section 3.1's text, read in "
                              "a transcription of v3 from its TeX source (MEDUSA_SECTION_3_1)")

#: Medusa-1 (frozen backbone) and Medusa-2 (backbone fine-tuned with the heads) in Section 3.1's text.
MEDUSA_SECTION_3_1 = Cited({"Vicuna-7B": {"Medusa-1": 2.18, "Medusa-2": 2.83},
                             "Vicuna-13B": {"Medusa-1": 2.33, "Medusa-2": 2.83}},
                            "cai2024medusa", "Section 3.1 (speedups over the default Hugging Face implementation, "
                            "Vicuna v1.5, batch size 1)", "verified",
                            "a transcription of arXiv 2401.10774v3 from its TeX source (search-tool index file id "
                            "69112891374)",
                            note="Medusa-2 fine-tunes the backbone, so its speedup is against a changed model (Table 1 "
                                 "reports the quality change); its sampling mode, typical acceptance, is not exact")

MEDUSA_RATE_OVERHEAD = Cited({"Vicuna-7B": (3.47, 1.22), "Zephyr-7B": (3.14, 1.18), "Vicuna-13B": (3.51, 1.23),
                               "Vicuna-33B": (3.01, 1.27)},
                              "cai2024medusa", "Table 1, columns acceleration rate and overhead (Medusa-2)",
                              "secondary", _MEDUSA_TABLE1_COPIES,
                              note="overhead: time of one Medusa step (heads and a tree of candidates) over one plain "
                                   "decoding step")

EAGLE_CLAIMS = Cited({"speedup_llama2_chat_70b": (2.7, 3.5)}, "li2024eagle", "Abstract", "verified",
                      "a transcription of the arXiv 2401.15077v3 HTML (search-tool index file id 58869229422)",
                      note="'For LLaMA2-Chat 70B, EAGLE achieved a latency speedup ratio of 2.7x-3.5x, doubled "
                           "throughput, while maintaining the distribution of the generated text.'")

MAGICDEC_CLAIM = Cited({"speedup": 2.51, "model": "Llama3.1-8B", "batch": (32, 256)}, "chen2024magicdec",
                        "Abstract of v4", "verified",
                        "arxiv.org/abs/2408.11049v4 (a copy saved 2025-03-27, search-tool index file id 4724328028)",
                        note="'For moderate to long sequences, we demonstrate up to 2.51x speedup for Llama3.1-8B when "
                             "serving batch sizes ranging from 32 to 256 on various types of hardware and tasks.'")

#: MagicDec's earlier figures (1.84x on 8 A100): the authors' blog, not the v4 abstract.
MAGICDEC_BLOG = Cited({"speedup": 1.84, "model": "LLaMA-3.1-8B", "draft": "self-speculation (StreamingLLM KV)",
                        "hardware": "8 x A100", "batch": 32, "prefill": 100_000, "llama2_7b_32k_speedup": 2.0},
                       "magicdec-blog", "Table 2 ('End-to-end Speculative Decoding Speedups for Various Target-Draft "
                       "pairs on 8xA100s') and the sentence introducing it", "verified",
                       "GitHub Infini-AI-Lab/MagicDec at commit 09cd671c01bc87f7570d3243c46200a96f0fc0b4, "
                       "pages/index.html",
                       note="'speedups of up to 2x for LLaMA-2-7B-32K and 1.84x for LLaMA-3.1-8B on 8 A100 GPUs'; the "
                            "same numbers are in an earlier arXiv abstract whose version (v2 or v3) could not be "
                            "confirmed; v1's abstract has no numbers")

#: Spec-Bench's A100 leaderboard for Vicuna-7B-v1.3 before its 2025 update: (#mean accepted tokens, overall speedup).
SPEC_BENCH_A100_EARLIER = Cited(
    {"EAGLE": (3.61, 2.29), "Hydra": (3.24, 2.09), "Medusa": (2.32, 1.78), "PLD": (1.73, 1.59), "SpS": (2.28, 1.49),
     "REST": (1.82, 1.48), "Lookahead": (1.66, 1.27)},
    "specbench-repo", "Leaderboard.md, 'Leaderboard on A100', Vicuna-7B-v1.3 (single A100 80GB with 64 CPU cores, "
    "PyTorch 2.0.1, CUDA 11.4, greedy decoding, FP16, batch size 1): #Mean Accepted Tokens and Overall", "verified",
    "GitHub hemingkx/Spec-Bench, Leaderboard.md at commit b8baa2a0eef58dc536cda59628c6d651c286379e (2024-04-22), "
    "unchanged up to d5c4c58f41af3c91f93152654425e26b40664e3d (2025-03-20)",
    note="replaced at fd2c1cd7d2201ef71db4c5f4e455008f017967bf (2025-04-22, PyTorch 2.5.1) by the table in "
         "specdec.drafts.drafters.SPEC_BENCH_A100; the tokens per step include the target's own token; the speedup is "
         "a mean of per-sample throughput ratios against Hugging Face decoding, prefill included")
