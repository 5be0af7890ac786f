"""One catalogue of the hardware and the models a published setup needs, each number with where it was read.

:data:`GPU_SPECS` (each a :class:`GpuSpec` with a :class:`~specdec.sources.Cited` record),
:data:`MODEL_SPECS` (each a :class:`ModelSpec`, the Hugging Face ``config.json`` shape; the
parameter count is computed from it; aliases in :data:`MODEL_ALIASES`), draft heads
(:func:`eagle_head`, :func:`medusa_heads`) and :data:`WEIGHT_FORMATS`. The presets of
:mod:`specdec.roofline.hardware` are built from these records; no number has a second copy.

Defined in chapter "A calibrated roofline".
"""

from __future__ import annotations

from dataclasses import dataclass, field

from specdec._validate import check_choice, check_count, check_instance, describe
from specdec.sources import Cited

__all__ = [
    "GpuSpec", "ModelSpec", "WeightFormat", "GPU_SPECS", "MODEL_SPECS",
    "WEIGHT_FORMATS", "MODEL_ALIASES", "EAGLE_PARAMS", "gpu_spec", "model_spec", "weight_format", "eagle_head", "medusa_heads",
    "distinct_experts",
]

# --------------------------------------------------------------------------
# GPUs
# --------------------------------------------------------------------------

_INTERCONNECTS = ("nvswitch", "nvlink-bridge", "pcie")


@dataclass(frozen=True)
class GpuSpec:
    """One accelerator's datasheet: what the ideal roofline needs.

    Defined in chapter "A calibrated roofline".

    Attributes
    ----------
    key, name : str
        Catalogue key and display name.
    memory : float
        Bytes of device memory (decimal GB as printed, times 1e9).
    bandwidth : float
        Peak memory bandwidth, bytes/s.
    flops : dict
        Dense peak tensor-core arithmetic per number format (``"bf16"``,
        ``"fp16"``, ``"fp8"``, ``"int8"``), FLOP/s (or OP/s); a format the
        card lacks is absent. Sparsity figures are never used.
    interconnect : str
        ``"nvswitch"`` (every GPU of a node one hop apart), ``"nvlink-bridge"``
        (pairs) or ``"pcie"``.
    link_bandwidth : float
        Bytes/s per GPU and direction over that interconnect.
    cited : Cited
        Where the numbers were read.

    Examples
    --------
    >>> from specdec import catalogue
    >>> g = catalogue.GPU_SPECS["a100-40gb"]
    >>> g.bandwidth / 1e12, g.flops["bf16"] / 1e12, g.interconnect
    (1.555, 312.0, 'nvswitch')
    """

    key: str
    name: str
    memory: float
    bandwidth: float
    flops: dict
    interconnect: str
    link_bandwidth: float
    cited: Cited

    def __post_init__(self) -> None:
        check_choice(self.interconnect, "interconnect", _INTERCONNECTS)
        check_instance(self.cited, Cited, "cited")

    def peak(self, number_format: str = "bf16") -> float:
        """Dense peak FLOP/s for ``number_format`` (a key of ``flops``); ValueError if the card lacks it."""
        if number_format not in self.flops:
            raise ValueError(f"number_format must be one of {sorted(self.flops)} on {self.name}; "
                             f"got {describe(number_format)}")
        return float(self.flops[number_format])


def _gpu(key: str, name: str, memory_gb: int, bandwidth_gbs: int, flops_t: dict[str, int] | dict[str, float],
         interconnect: str, link_gbs: int, source: str, where: str, status: str, checked: str,
         note: str = "") -> GpuSpec:
    flops = {fmt: v * 1e12 for fmt, v in flops_t.items()}
    value = {"memory_GB": memory_gb, "bandwidth_GB/s": bandwidth_gbs, "dense_TFLOPS": dict(flops_t),
             "interconnect": interconnect, "link_GB/s_per_direction": link_gbs}
    return GpuSpec(key, name, memory_gb * 1e9, bandwidth_gbs * 1e9, flops, interconnect, link_gbs * 1e9,
                   Cited(value, source, where, status, checked, note))


_KLOCKWOOD = "glennklockwood.com/garden/processors ({}) (search-tool page copy), which transcribes NVIDIA's datasheet"

#: Every GPU of the catalogue, by key. Dense tensor-core peaks only (the datasheets' sparsity figures halved).
GPU_SPECS: dict[str, GpuSpec] = {g.key: g for g in (
    _gpu("a100-40gb", "A100 40GB SXM", 40, 1555, {"bf16": 312, "fp16": 312, "int8": 624}, "nvswitch", 300,
         "nvidia-a100", "datasheet table: 40 GB HBM2, 1,555 GB/s, BF16/FP16 Tensor Core 312 TFLOPS (624 sparse), "
         "INT8 624 TOPS (1,248 sparse), NVLink 600 GB/s", "secondary",
         "two copies of the datasheet's table: upb-pc2 wiki 'NVIDIA A100 40GB with NVLINK' and " +
         _KLOCKWOOD.format("A100"), note="NVLink 600 GB/s counts both directions: 300 GB/s per direction"),
    _gpu("a100-80gb", "A100 80GB SXM", 80, 2039, {"bf16": 312, "fp16": 312, "int8": 624}, "nvswitch", 300,
         "nvidia-a100", "datasheet table: 80 GB HBM2e, 2,039 GB/s, BF16/FP16 312 TFLOPS dense, INT8 624 TOPS "
         "dense, NVLink 600 GB/s", "secondary", _KLOCKWOOD.format("A100") + "; thundercompute A100 specs table"),
    _gpu("rtx-3090", "GeForce RTX 3090", 24, 936, {"bf16": 71, "fp16": 71, "fp16_acc16": 142}, "pcie", 32,
         "nvidia-ga102", "appendix A, GeForce RTX 3090: 24 GB GDDR6X, 936 GB/s, FP16 Tensor TFLOPS 142 with FP16 "
         "accumulate and half that (71) with FP32 accumulate; PCIe Gen 4 x16", "secondary",
         "holynerdvana.blogspot.com 'Nvidia GeForce RTX 3090 Specifications' (936 GB/s, 24 GB, FP16 142 (285 "
         "sparse)); the FP32-accumulate rate from ctc.archdevil.net's precision table (71.2)",
         note="bf16 and fp16 with FP32 accumulation (what PyTorch's matmuls use) run at half the FP16-accumulate "
              "rate on GeForce cards; PCIe Gen 4 x16 is 32 GB/s per direction"),
    _gpu("l40s", "L40S", 48, 864, {"bf16": 362.05, "fp16": 362.05, "fp8": 733, "int8": 733}, "pcie", 32,
         "nvidia-l40s", "datasheet table: 48 GB GDDR6, 864 GB/s, BF16/FP16 Tensor 362.05 TFLOPS (733 sparse), FP8 "
         "733 (1,466 sparse), PCIe Gen4 x16 64 GB/s bidirectional, no NVLink", "secondary",
         "a reseller's copy of the L40/L40S datasheet table (mullet.se product 355414) and itcreations.com",
         note="INT8 dense taken equal to FP8 dense (the datasheet's L40S INT8 column is blank in that copy)"),
    _gpu("h100-sxm", "H100 SXM", 80, 3350, {"bf16": 989, "fp16": 989, "fp8": 1979, "int8": 1979}, "nvswitch", 450,
         "nvidia-h100", "datasheet, H100 SXM column: 80 GB, 3.35 TB/s, BF16 1,979 TFLOPS with sparsity (989 dense), "
         "FP8 3,958 with sparsity (1,979 dense), NVLink 900 GB/s", "secondary", _KLOCKWOOD.format("h100"),
         note="NVLink 900 GB/s counts both directions"),
    _gpu("h200-sxm", "H200 SXM", 141, 4800, {"bf16": 989, "fp16": 989, "fp8": 1979, "int8": 1979}, "nvswitch", 450,
         "nvidia-h200", "product page, H200 SXM: 141 GB HBM3e, 4.8 TB/s, Hopper compute as H100 SXM (BF16 1,979 "
         "with sparsity), NVLink 900 GB/s", "secondary",
         "ai-hpc.github.io '8x H200' page and saulelectric.com H200 specifications"),
    _gpu("b200", "B200 (HGX)", 180, 8000, {"bf16": 2250, "fp16": 2250, "fp8": 4500, "int8": 4500}, "nvswitch", 900,
         "nvidia-b200", "HGX B200 at 1,000 W: BF16/FP16 2,250 dense (4,500 sparse), FP8 4,500 dense, 8 TB/s HBM3e, "
         "NVLink 5 1.8 TB/s", "secondary", _KLOCKWOOD.format("B200") + "; memory 179-180 GB per GPU as the "
         "Vultr HGX B200 page reports (nvidia-smi)", note="sold with 180 GB (HGX) or 192 GB; 180 GB taken"),
)}


def gpu_spec(key: str) -> GpuSpec:
    """The catalogue entry of a GPU by key (``"h100-sxm"``, ``"a100-80gb"``, ...).

    Defined in chapter "A calibrated roofline".

    Parameters
    ----------
    key : str
        A key of :data:`GPU_SPECS`.

    Returns
    -------
    GpuSpec

    Examples
    --------
    >>> from specdec import catalogue
    >>> catalogue.gpu_spec("l40s").interconnect
    'pcie'
    """
    return GPU_SPECS[check_choice(key, "key", tuple(GPU_SPECS))]


# --------------------------------------------------------------------------
# models
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class ModelSpec:
    """A decoder-only transformer's shape as its Hugging Face ``config.json`` gives it.

    Dense models use the Llama layout (attention ``q, k, v, o``, a gated MLP
    of three matrices, two RMSNorms per layer). A mixture of experts replaces
    the MLP of its sparse layers by ``n_experts`` routed experts of
    ``expert_intermediate`` (``experts_per_token`` of them per token) plus
    ``shared_experts`` always-on ones; MLA attention (``kv_lora_rank`` > 0)
    caches one latent of ``kv_lora_rank + qk_rope_dim`` per layer and token.

    Defined in chapter "A calibrated roofline".

    Examples
    --------
    >>> from specdec import catalogue
    >>> catalogue.MODEL_SPECS["llama-2-7b"].n_params
    6738415616
    >>> m = catalogue.MODEL_SPECS["mixtral-8x7b"]
    >>> round(m.n_params / 1e9, 2), round(m.active_params / 1e9, 2)
    (46.7, 12.88)
    """

    key: str
    name: str
    n_layers: int
    hidden: int
    n_heads: int
    n_kv_heads: int
    intermediate: int
    vocab: int
    tied_embeddings: bool
    cited: Cited
    head_dim: int = 0
    n_experts: int = 0
    experts_per_token: int = 0
    shared_experts: int = 0
    expert_intermediate: int = 0
    dense_layers: int = 0
    kv_lora_rank: int = 0
    q_lora_rank: int = 0
    qk_rope_dim: int = 0
    qk_nope_dim: int = 0
    v_head_dim: int = 0
    extra: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.head_dim:
            object.__setattr__(self, "head_dim", self.hidden // self.n_heads)
        check_instance(self.cited, Cited, "cited")

    @property
    def is_moe(self) -> bool:
        """True for a mixture of experts."""
        return self.n_experts > 0

    def _attention_params(self) -> int:
        d = self.hidden
        if self.kv_lora_rank:  # MLA (DeepSeek-V2/V3)
            qk = self.qk_nope_dim + self.qk_rope_dim
            q = (d * self.q_lora_rank + self.q_lora_rank + self.q_lora_rank * self.n_heads * qk
                 if self.q_lora_rank else d * self.n_heads * qk)
            kv = (d * (self.kv_lora_rank + self.qk_rope_dim) + self.kv_lora_rank
                  + self.kv_lora_rank * self.n_heads * (self.qk_nope_dim + self.v_head_dim))
            return q + kv + self.n_heads * self.v_head_dim * d
        return d * self.n_heads * self.head_dim * 2 + d * self.n_kv_heads * self.head_dim * 2

    def _mlp(self, inner: int) -> int:
        return 3 * self.hidden * inner

    @property
    def routed_expert_params(self) -> int:
        """Parameters of all routed experts of all sparse layers (0 for a dense model)."""
        if not self.is_moe:
            return 0
        return (self.n_layers - self.dense_layers) * self.n_experts * self._mlp(self.expert_intermediate)

    @property
    def n_params(self) -> int:
        """All parameters, embeddings included (an untied LM head counted once more)."""
        d, sparse = self.hidden, self.n_layers - self.dense_layers
        per_layer_norms = 2 * d + (self.q_lora_rank + self.kv_lora_rank if self.kv_lora_rank else 0)
        total = self.n_layers * (self._attention_params() + per_layer_norms)
        if self.is_moe:
            total += self.dense_layers * self._mlp(self.intermediate)
            total += sparse * (self.shared_experts * self._mlp(self.expert_intermediate) + d * self.n_experts)
            total += self.routed_expert_params
        else:
            total += self.n_layers * self._mlp(self.intermediate)
        total += self.vocab * d * (1 if self.tied_embeddings else 2) + d
        return int(total)

    @property
    def active_params(self) -> float:
        """Parameters one token multiplies: the routed experts count ``experts_per_token / n_experts``."""
        if not self.is_moe:
            return float(self.n_params)
        return self.n_params - self.routed_expert_params * (1.0 - self.experts_per_token / self.n_experts)

    @property
    def kv_dim(self) -> int:
        """Cached elements per layer and token: ``2 * n_kv_heads * head_dim``, or MLA's latent plus its rope key."""
        if self.kv_lora_rank:
            return self.kv_lora_rank + self.qk_rope_dim
        return 2 * self.n_kv_heads * self.head_dim


def _hf(where: str, status: str = "verified",
        checked: str = "the configuration as printed in the model's Hugging Face repository "
        "(and restated in the package's earlier presets)", note: str = "") -> Cited:
    return Cited({"config.json": where}, "hf-configs", where, status, checked, note)


def _llama(key: str, name: str, layers: int, hidden: int, heads: int, kv: int, inter: int, vocab: int, tied: bool,
           repo: str, status: str = "verified", checked: str | None = None, note: str = "") -> ModelSpec:
    cfg = (f"{repo}/config.json: num_hidden_layers {layers}, hidden_size {hidden}, num_attention_heads {heads}, "
           f"num_key_value_heads {kv}, intermediate_size {inter}, vocab_size {vocab}, tie_word_embeddings {tied}")
    cited = _hf(cfg, status, checked, note) if checked else _hf(cfg, status, note=note)
    return ModelSpec(key, name, layers, hidden, heads, kv, inter, vocab, tied, cited)


_SEARCH_COPY = "copies of the config.json in the search tool's code index (id {})"

#: Every model of the catalogue, by key.
MODEL_SPECS: dict[str, ModelSpec] = {m.key: m for m in (
    _llama("llama-2-7b", "Llama 2 7B", 32, 4096, 32, 32, 11008, 32000, False, "meta-llama/Llama-2-7b-hf"),
    _llama("llama-2-13b", "Llama 2 13B", 40, 5120, 40, 40, 13824, 32000, False, "meta-llama/Llama-2-13b-hf"),
    _llama("llama-2-70b", "Llama 2 70B", 80, 8192, 64, 8, 28672, 32000, False, "meta-llama/Llama-2-70b-hf"),
    _llama("llama-3-8b", "Llama 3 8B", 32, 4096, 32, 8, 14336, 128256, False, "meta-llama/Meta-Llama-3-8B"),
    _llama("llama-3-70b", "Llama 3 70B", 80, 8192, 64, 8, 28672, 128256, False, "meta-llama/Meta-Llama-3-70B"),
    _llama("llama-3.1-8b", "Llama 3.1 8B", 32, 4096, 32, 8, 14336, 128256, False, "meta-llama/Llama-3.1-8B"),
    _llama("llama-3.1-70b", "Llama 3.1 70B", 80, 8192, 64, 8, 28672, 128256, False, "meta-llama/Llama-3.1-70B"),
    _llama("llama-3.2-1b", "Llama 3.2 1B", 16, 2048, 32, 8, 8192, 128256, True, "meta-llama/Llama-3.2-1B"),
    _llama("vicuna-68m", "Vicuna 68M", 2, 768, 12, 12, 3072, 32000, False, "double7/vicuna-68m",
           status="secondary", checked="the shape of JackFram/llama-68m, which double7/vicuna-68m fine-tunes "
           "(as the package's earlier preset states)", note="Spec-Bench's SpS draft for Vicuna 7B"),
    _llama("vicuna-7b", "Vicuna 7B v1.3", 32, 4096, 32, 32, 11008, 32000, False, "lmsys/vicuna-7b-v1.3",
           note="the shape of LLaMA 7B (Llama 2 7B's)"),
    _llama("vicuna-13b", "Vicuna 13B v1.3", 40, 5120, 40, 40, 13824, 32000, False, "lmsys/vicuna-13b-v1.3"),
    _llama("vicuna-33b", "Vicuna 33B v1.3", 60, 6656, 52, 52, 17920, 32000, False, "lmsys/vicuna-33b-v1.3",
           status="secondary", checked="the LLaMA 30B configuration (hidden 6656, 60 layers, 52 heads, intermediate "
           "17920, vocab 32000) in two copies in the search tool's code index (ids 7902833359, 369941306)",
           note="Vicuna 33B is fine-tuned from LLaMA 30B (named 33B) and keeps its shape"),
    _llama("llama-68m", "Llama 68M", 2, 768, 12, 12, 3072, 32000, False, "JackFram/llama-68m",
           status="secondary", checked="the shape the package's earlier preset gives JackFram/llama-68m (as for "
           "vicuna-68m, which fine-tunes it)", note="Sequoia's JF68M draft"),
    _llama("sheared-llama-1.3b", "Sheared-LLaMA 1.3B", 24, 2048, 16, 16, 5504, 32000, False,
           "princeton-nlp/Sheared-LLaMA-1.3B", status="secondary",
           checked="a restatement in the search tool's code index (jafioti/luminal examples/llama/config.rs: "
           "hidden 2048, intermediate 5504, 16 heads, 24 layers, vocabulary 32000, head dim 128)",
           note="Sequoia's SL1.3B draft; multi-head attention (no grouped KV heads)"),
    _llama("qwen2.5-7b", "Qwen2.5 7B", 28, 3584, 28, 4, 18944, 152064, False, "Qwen/Qwen2.5-7B",
           status="secondary", checked=_SEARCH_COPY.format("1877553054, 69031729292"),
           note="q, k and v projections carry biases (3.6k parameters per layer, left out)"),
    _llama("qwen2.5-32b", "Qwen2.5 32B", 64, 5120, 40, 8, 27648, 152064, False, "Qwen/Qwen2.5-32B",
           status="secondary", checked=_SEARCH_COPY.format("30362371676, 61993018516, 69031729292"),
           note="q, k and v projections carry biases (left out)"),
    ModelSpec("mixtral-8x7b", "Mixtral 8x7B", 32, 4096, 32, 8, 14336, 32000, False,
              _hf("mistralai/Mixtral-8x7B-v0.1/config.json: num_hidden_layers 32, hidden_size 4096, "
                  "num_attention_heads 32, num_key_value_heads 8, intermediate_size 14336, num_local_experts 8, "
                  "num_experts_per_tok 2, vocab_size 32000", "unverified",
                  "recalled from the published configuration; not re-read in this session",
                  note="46.7B parameters, 12.9B active per token, as Mistral's announcement states"),
              n_experts=8, experts_per_token=2, expert_intermediate=14336),
    ModelSpec("deepseek-v3", "DeepSeek-V3", 61, 7168, 128, 128, 18432, 129280, False,
              _hf("deepseek-ai/DeepSeek-V3/config.json: num_hidden_layers 61, hidden_size 7168, intermediate_size "
                  "18432, moe_intermediate_size 2048, n_routed_experts 256, n_shared_experts 1, num_experts_per_tok "
                  "8, first_k_dense_replace 3, num_attention_heads 128, q_lora_rank 1536, kv_lora_rank 512, "
                  "qk_nope_head_dim 128, qk_rope_head_dim 64, v_head_dim 128, vocab_size 129280", "verified",
                  _SEARCH_COPY.format("51774936285, 55595785890"),
                  note="671B total and 37B activated per token in the report; the count here leaves out the "
                       "multi-token-prediction module"),
              head_dim=192, n_experts=256, experts_per_token=8, shared_experts=1, expert_intermediate=2048,
              dense_layers=3, kv_lora_rank=512, q_lora_rank=1536, qk_rope_dim=64, qk_nope_dim=128, v_head_dim=128),
    ModelSpec("qwen3-8b", "Qwen3 8B", 36, 4096, 32, 8, 12288, 151936, False,
              Cited({"num_hidden_layers": 36, "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
                     "head_dim": 128, "intermediate_size": 12288, "vocab_size": 151936, "tie_word_embeddings": False},
                    "hf-configs", "Qwen/Qwen3-8B/config.json", "secondary",
                    "copies of the config.json in the search tool's code index (ids 62456584613, 1570491832, "
                    "56510789291)"),
              head_dim=128),
)}

#: Models published under another name with the shape of a catalogue model: name -> key of :data:`MODEL_SPECS`.
MODEL_ALIASES = {"deepseek-r1": "deepseek-v3"}


def model_spec(key: str) -> ModelSpec:
    """The catalogue entry of a model by key (``"llama-3.1-8b"``, ``"vicuna-13b"``, ``"deepseek-v3"``, ...).

    Defined in chapter "A calibrated roofline".

    Parameters
    ----------
    key : str
        A key of :data:`MODEL_SPECS`, or a name of :data:`MODEL_ALIASES`.

    Returns
    -------
    ModelSpec

    Examples
    --------
    >>> from specdec import catalogue
    >>> catalogue.model_spec("vicuna-33b").n_params
    32528943616
    """
    if isinstance(key, str) and key in MODEL_ALIASES:
        key = MODEL_ALIASES[key]
    return MODEL_SPECS[check_choice(key, "key", tuple(MODEL_SPECS))]


def distinct_experts(n_experts: int, experts_per_token: int, tokens: float) -> float:
    r"""Expected distinct experts that ``tokens`` tokens touch in one layer, under uniform routing.

    .. math:: E\left[1 - \left(1 - \frac{a}{E}\right)^{n}\right]

    Each token picks ``a`` of ``E`` experts independently and uniformly (real routers are skewed and
    touch fewer).

    Defined in chapter "A calibrated roofline".

    Parameters
    ----------
    n_experts, experts_per_token : int
        ``E >= 1`` and ``1 <= a <= E``.
    tokens : float
        Tokens routed in the pass (batch times new tokens), >= 1.

    Returns
    -------
    float
        Experts, in ``[a, E]``.

    Examples
    --------
    >>> from specdec import catalogue
    >>> catalogue.distinct_experts(8, 2, 1), round(catalogue.distinct_experts(8, 2, 6), 3)
    (2.0, 6.576)
    """
    e = check_count(n_experts, "n_experts")
    a = check_count(experts_per_token, "experts_per_token", maximum=e)
    if isinstance(tokens, bool) or not isinstance(tokens, (int, float)) or not tokens >= 1:
        raise ValueError(f"tokens must be a number >= 1; got {describe(tokens)}")
    return float(e * (1.0 - (1.0 - a / e) ** tokens))


# --------------------------------------------------------------------------
# weight formats
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class WeightFormat:
    """How weights are stored and which tensor-core rate multiplies them.

    ``bytes_per_param`` is the storage with its scales; ``compute`` the ``GpuSpec.flops`` key the
    matrix products run at (``"bf16"`` for a weight-only format, which dequantizes in the kernel).

    Defined in chapter "A calibrated roofline".

    Examples
    --------
    >>> from specdec import catalogue
    >>> f = catalogue.WEIGHT_FORMATS["int4-weight-only"]
    >>> f.bytes_per_param, f.compute
    (0.625, 'bf16')
    """

    key: str
    bytes_per_param: float
    compute: str
    note: str = ""


#: The weight formats, by key.
WEIGHT_FORMATS: dict[str, WeightFormat] = {f.key: f for f in (
    WeightFormat("bf16", 2.0, "bf16", "16-bit weights and activations"),
    WeightFormat("fp16", 2.0, "fp16", "16-bit weights and activations"),
    WeightFormat("fp8", 1.0, "fp8", "8-bit float weights and activations (Hopper, Ada, Blackwell)"),
    WeightFormat("int8", 1.0, "int8", "8-bit integer weights and activations (W8A8)"),
    WeightFormat("int8-weight-only", 1.0, "bf16", "int8 weights dequantized to bf16 in the kernel (W8A16)"),
    WeightFormat("int4-weight-only", 0.625, "bf16",
                 "int4 weights with a bf16 scale and zero per group of 32 (0.5 + 4/32 bytes), as gpt-fast's "
                 "'4-bit (G=32)'; dequantized to bf16 in the kernel (W4A16)"),
    WeightFormat("nvfp4", 0.5625, "fp8",
                 "NVIDIA's 4-bit float: E2M1 weights, one E4M3 scale per block of 16 (4.5 bits per weight; the "
                 "format as described on Modal's LLM almanac 'block-quants' page and zeroentropy.dev 'NVFP4'); the "
                 "catalogue lists no FP4 rate, so the products run at the fp8 rate (a decode step is memory-bound)"),
)}


def weight_format(key: str) -> WeightFormat:
    """The weight format by key (``"bf16"``, ``"fp8"``, ``"int8"``, ``"int8-weight-only"``, ``"int4-weight-only"``).

    Defined in chapter "A calibrated roofline".

    Parameters
    ----------
    key : str

    Returns
    -------
    WeightFormat

    Examples
    --------
    >>> from specdec import catalogue
    >>> catalogue.weight_format("fp8").bytes_per_param
    1.0
    """
    return WEIGHT_FORMATS[check_choice(key, "key", tuple(WEIGHT_FORMATS))]


# --------------------------------------------------------------------------
# draft heads per target
# --------------------------------------------------------------------------

#: EAGLE-1/2 head parameters per target, as the EAGLE README's weights table prints them (the LM head not included).
EAGLE_PARAMS = Cited(
    {"vicuna-7b": 0.24e9, "vicuna-13b": 0.37e9, "vicuna-33b": 0.56e9, "llama-2-7b": 0.24e9, "llama-2-13b": 0.37e9,
     "llama-2-70b": 0.99e9, "mixtral-8x7b": 0.28e9, "llama-3-8b": 0.25e9, "llama-3-70b": 0.99e9,
     "llama-3.1-8b": 0.25e9},
    "eagle-repo",
    "EAGLE repository README, 'EAGLE Weights' table, '# EAGLE Parameters' column (0.24B Vicuna-7B, 0.37B "
    "Vicuna-13B, 0.56B Vicuna-33B, 0.24B/0.37B/0.99B LLaMA2-Chat 7B/13B/70B, 0.28B Mixtral-8x7B, 0.25B LLaMA3-Instruct "
    "8B, 0.99B LLaMA3-Instruct 70B, 0.25B LLaMA3.1-Instruct 8B)", "verified",
    "GitHub SafeAILab/EAGLE README.md at commit cb7e0841fe0c206c6ed74a197ad5e2a1f13f5a2b")


def eagle_head(target: str, version: int = 2) -> dict:
    """What one EAGLE draft pass reads and multiplies for a target, by the head's architecture.

    EAGLE-1 and EAGLE-2 (same weights) run **one decoder layer** of the
    target's shape after a fusion layer ``fc: 2d -> d`` (token embedding and
    the target's top feature), then the **target's LM head**; EAGLE-3 fuses
    **three** target layers' features (``fc: 3d -> d``), feeds the layer a
    ``2d`` input (its ``q, k, v`` are ``2d`` wide) and has its own LM head over
    a draft vocabulary of ``draft_vocab`` tokens (32,000 in the official Llama
    3.1 8B head). The embedding table is gathered row by row, not read.

    Defined in chapter "A calibrated roofline".

    Parameters
    ----------
    target : str
        A key of :data:`MODEL_SPECS` (a dense model).
    version : int, optional
        1, 2 or 3. Default 2.

    Returns
    -------
    dict
        ``head_params`` (the head's own weights, by its architecture),
        ``cited_params`` (the README's count for EAGLE-1/2, else ``None``),
        ``lm_head_params`` (read by every draft pass), ``read_params``
        (``head_params + lm_head_params``: the weights one pass reads),
        ``n_layers`` (1), ``d_model``, ``n_heads``, ``n_kv_heads``,
        ``head_dim``.

    Examples
    --------
    >>> from specdec import catalogue
    >>> h = catalogue.eagle_head("vicuna-7b", 2)
    >>> round(h["head_params"] / 1e9, 3), h["cited_params"] / 1e9
    (0.236, 0.24)
    >>> round(catalogue.eagle_head("llama-3.1-8b", 3)["read_params"] / 1e9, 3)
    0.425
    """
    t = model_spec(target)
    if t.is_moe and t.kv_lora_rank:
        raise ValueError(f"target must be a dense or Mixtral-style model for an EAGLE head; got {target!r}")
    v = check_count(version, "version", minimum=1, maximum=3)
    d, hd = t.hidden, t.head_dim
    inner = t.expert_intermediate if t.is_moe else t.intermediate
    mlp = 3 * d * inner
    if v == 3:
        draft_vocab = 32000
        attn = 2 * d * (t.n_heads * hd + 2 * t.n_kv_heads * hd) + t.n_heads * hd * d
        head = attn + mlp + 3 * d * d + 3 * d
        lm = d * draft_vocab
    else:
        draft_vocab = t.vocab
        attn = d * (2 * t.n_heads * hd + 2 * t.n_kv_heads * hd)
        head = attn + mlp + 2 * d * d + d + 2 * d
        lm = d * t.vocab
    cited = EAGLE_PARAMS.value.get(target) if v < 3 else None
    return {"head_params": float(head), "cited_params": cited, "lm_head_params": float(lm),
            "read_params": float(head + lm), "draft_vocab": draft_vocab, "n_layers": 1, "d_model": d,
            "n_heads": t.n_heads, "n_kv_heads": t.n_kv_heads, "head_dim": hd}


def medusa_heads(target: str, n_heads: int = 4) -> dict:
    """Medusa-1's heads for a target: ``n_heads`` residual blocks, each with its own LM head.

    Each head is one ``d x d`` linear layer with bias and a SiLU residual,
    followed by its own ``d x vocab`` LM head (``medusa/model/medusa_model.py``,
    ``ResBlock`` and ``medusa_head``); all heads run in the target's
    verification pass, on the target's last hidden state.

    Defined in chapter "A calibrated roofline".

    Parameters
    ----------
    target : str
        A key of :data:`MODEL_SPECS`.
    n_heads : int, optional
        Heads, >= 1. Default 4 (Spec-Bench's setting).

    Returns
    -------
    dict
        ``params`` (all heads) and ``per_head``.

    Examples
    --------
    >>> from specdec import catalogue
    >>> catalogue.medusa_heads("vicuna-7b")["params"]
    591413248
    """
    return _medusa_heads(model_spec(target), check_count(n_heads, "n_heads"))


def _medusa_heads(t: ModelSpec, n: int) -> dict:
    """:func:`medusa_heads` of a target's spec and a validated head count ``n >= 1``; checks nothing."""
    per = t.hidden * t.hidden + t.hidden + t.hidden * t.vocab
    return {"params": int(n * per), "per_head": int(per), "n_heads": n,
            "cited": Cited("ResBlock(d x d + bias) + LM head (d x vocab) per head", "medusa-repo",
                               "medusa/model/medusa_model.py (ResBlock, medusa_head)", "verified",
                               "GitHub FasterDecoding/Medusa at commit e2a5d20c048a9b0a4092e6933c34313687422518")}
