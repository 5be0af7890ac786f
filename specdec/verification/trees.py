"""Token trees: expected tokens, the best tree for a node budget, and multi-draft exactness.

Node ``i`` of a draft tree holds one draft token; ``parents[i]`` is the node it continues (``-1``
for a child of the root) and ``accept[i]`` the probability that its token is accepted given that
its parent was (siblings are alternatives: their ``accept`` sum to at most 1). Then

.. math:: E[L] = 1 + \\sum_i \\prod_{j \\in \\text{path}(i)} a_j .

:func:`tree_verify_cost` prices the pass over ``n_nodes + 1`` tokens; :func:`best_tree` and
:func:`best_tree_for_speedup` find the best tree under the rank acceptance model. Scalar calls
return Python numbers.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

# All imports from other specdec modules are in this one block, so that they
# can be repointed when the package is restructured.
from specdec._validate import (
    check_integer,
    check_nonnegative,
    check_positive,
    check_probability,
    check_rng,
    is_scalar_input,
    to_output,
)
from specdec.roofline.hardware import verify_cost

if TYPE_CHECKING:
    from specdec.roofline.presets import Hardware, Model

__all__ = [
    "DraftTree",
    "TreeSpeedup",
    "best_tree",
    "best_tree_for_speedup",
    "chain_parents",
    "random_trees",
    "rank_accept_from_topk",
    "tree_depths",
    "tree_expected_tokens",
    "tree_new_tokens",
    "tree_path_probabilities",
    "tree_tokens_pmf",
    "tree_verify_cost",
]

#: Slack allowed when checking that sibling probabilities sum to at most 1
#: (sums of floats that should be exactly 1 can exceed it by a few ulp).
SIBLING_SUM_SLACK = 1e-12

_CHAPTER = "Token trees"


def _count(value: Any, name: str, minimum: int = 1, maximum: int | None = None) -> int:
    if np.ndim(value) != 0:
        raise TypeError(f"{name} must be a single whole number, got an array of shape {np.shape(value)}")
    return int(check_integer(value, name, minimum=minimum, maximum=maximum))


def _check_parents(parents: Any) -> np.ndarray:
    """Integer parents with ``-1 <= parents[..., i] < i`` (topological order)."""
    if isinstance(parents, (list, tuple)) and len(parents) == 0:
        raise ValueError("parents must list at least one node; got an empty sequence")
    par = check_integer(parents, "parents", minimum=-1)
    if par.ndim == 0:
        raise ValueError("parents must be an array with one entry per node (last axis); got a single number")
    n = par.shape[-1]
    if n == 0:
        raise ValueError("parents must list at least one node; got an empty array")
    bad = par >= np.arange(n)
    if bad.any():
        where = np.argwhere(bad)[0]
        i = int(where[-1])
        tree = f" (tree {tuple(int(x) for x in where[:-1])})" if par.ndim > 1 else ""
        raise ValueError(
            f"parents[{i}] must be -1 (a child of the root) or the index of an earlier node (< {i}), so that "
            f"every node is listed after its parent; got {int(par[tuple(where)])}{tree}")
    return par


def _check_sibling_sums(par: np.ndarray, acc: np.ndarray) -> None:
    """Raise when the accept of some node's children sum to more than 1.

    ``par`` is (n,) shared by every row of ``acc`` (M, n), or (M, n).
    """
    m, n = acc.shape
    if par.ndim == 1:
        onehot = np.zeros((n, n + 1))
        onehot[np.arange(n), par + 1] = 1.0
        sums = acc @ onehot
    else:
        flat = (np.arange(m)[:, None] * (n + 1) + par + 1).ravel()
        sums = np.bincount(flat, weights=acc.ravel(), minlength=m * (n + 1)).reshape(m, n + 1)
    over = sums > 1.0 + SIBLING_SUM_SLACK
    if over.any():
        row, col = (int(x) for x in np.argwhere(over)[0])
        parent = col - 1
        p_row = par if par.ndim == 1 else par[row]
        kids = [int(x) for x in np.flatnonzero(p_row == parent)]
        who = "the root (parent -1)" if parent < 0 else f"node {parent}"
        tree = f" in tree {row}" if m > 1 else ""
        raise ValueError(
            f"the children of {who} (nodes {kids}){tree} have accept summing to {float(sums[row, col]):.6g}; "
            f"siblings are alternatives for the same position, so their accept must sum to at most 1")


def _prepare(parents: Any,
             accept: Any) -> tuple[np.ndarray, np.ndarray, tuple[int, ...]]:
    """Validated ``(par, acc, lead_shape)``: par (n,) or (M, n); acc (M, n)."""
    return _prepare_accept(_check_parents(parents), accept)


def _prepare_accept(par: np.ndarray,
                    accept: Any) -> tuple[np.ndarray, np.ndarray, tuple[int, ...]]:
    """:func:`_prepare` for parents already validated by :func:`_check_parents`."""
    acc = check_probability(accept, "accept")
    n = par.shape[-1]
    if acc.ndim == 0 or acc.shape[-1] != n:
        raise ValueError(f"accept must have one entry per node on its last axis: parents has {n} nodes, "
                         f"accept has shape {acc.shape}")
    if par.ndim == 1:
        lead = acc.shape[:-1]
        acc2 = acc.reshape(-1, n)
    else:
        try:
            shape = np.broadcast_shapes(par.shape, acc.shape)
        except ValueError as exc:
            raise ValueError(f"parents of shape {par.shape} and accept of shape {acc.shape} do not broadcast "
                             f"(one row of parents per tree)") from exc
        lead = shape[:-1]
        par = np.broadcast_to(par, shape).reshape(-1, n)
        acc2 = np.broadcast_to(acc, shape).reshape(-1, n)
    _check_sibling_sums(par, acc2)
    return par, acc2, lead


#: Trees processed together by the path-product loop (keeps the working set in cache).
_CHUNK = 512


def _path_products(par: np.ndarray, acc: np.ndarray, total: bool = False) -> np.ndarray:
    """P(node accepted) per node, shape (M, n); or, with ``total``, 1 + their sum per tree, shape (M,).

    Chunks of :data:`_CHUNK` trees, node-major inside a chunk (row ``i + 1`` holds node ``i`` of every
    tree), so each step of the loop over nodes is one vectorized multiply; sums run in node order.
    """
    m, n = acc.shape
    out = np.empty(m) if total else np.empty((m, n))
    for s in range(0, m, _CHUNK):
        a = acc[s:s + _CHUNK]
        mm = a.shape[0]
        prob = np.ones((n + 1, mm))
        acc_t = np.ascontiguousarray(a.T)
        if par.ndim == 1:
            for i in range(n):  # loop over nodes; every tree of the chunk at once
                np.multiply(acc_t[i], prob[par[i] + 1], out=prob[i + 1])
        else:
            flat = prob.reshape(-1)
            gather = (par[s:s + _CHUNK].T + 1) * mm + np.arange(mm)  # flat index of each node's parent
            for i in range(n):
                np.multiply(acc_t[i], flat[gather[i]], out=prob[i + 1])
        if total:
            out[s:s + mm] = prob.sum(axis=0)  # row 0 is the root's 1
        else:
            out[s:s + mm] = prob[1:].T
    return out


# --------------------------------------------------------------------------
# expected tokens of a tree
# --------------------------------------------------------------------------


def chain_parents(k: int) -> np.ndarray:
    """Parents of a chain of ``k`` drafts: ``[-1, 0, 1, ..., k - 2]``.

    Defined in chapter "Token trees".

    Parameters
    ----------
    k : int
        Draft tokens in the chain, >= 1.

    Returns
    -------
    numpy.ndarray of int64, shape (k,)

    Examples
    --------
    >>> import specdec as sd
    >>> sd.trees.chain_parents(4).tolist()
    [-1, 0, 1, 2]
    """
    kk = _count(k, "k")
    return np.arange(-1, kk - 1, dtype=np.int64)


def tree_depths(parents: ArrayLike) -> np.ndarray:
    """Depth of every node: 1 for a child of the root, parent's depth + 1 otherwise.

    Defined in chapter "Token trees".

    Parameters
    ----------
    parents : array_like of int, shape (n,) or (..., n)
        Parent index of each node (-1 for the root's children), each parent
        listed before its children.

    Returns
    -------
    numpy.ndarray of int64
        Same shape as ``parents``.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.trees.tree_depths([-1, -1, 0, 0, 2]).tolist()
    [1, 1, 2, 2, 3]
    """
    return _depths(_check_parents(parents))


def _depths(par: np.ndarray) -> np.ndarray:
    """:func:`tree_depths` of parents validated by :func:`_check_parents`; checks nothing."""
    n = par.shape[-1]
    p2 = par.reshape(-1, n)
    depth = np.zeros((p2.shape[0], n + 1), dtype=np.int64)
    rows = np.arange(p2.shape[0])
    for i in range(n):
        depth[:, i + 1] = depth[rows, p2[:, i] + 1] + 1
    return depth[:, 1:].reshape(par.shape)


def tree_path_probabilities(parents: ArrayLike, accept: ArrayLike) -> np.ndarray:
    r"""Probability that each node is accepted: the product of ``accept`` along its path.

    .. math:: P(i) = a_i \, P(\text{parent}(i)), \qquad P(\text{root}) = 1

    Defined in chapter "Token trees".

    Parameters
    ----------
    parents : array_like of int, shape (n,) or (n_trees, n)
        Parent of each node (-1 for a child of the root); every parent index
        is smaller than its child's. A 2-D array gives one row per tree.
    accept : array_like, shape (..., n)
        Probability that node ``i``'s token is accepted given its parent was,
        in [0, 1]. The children of one node must have ``accept`` summing to
        at most 1. Leading axes evaluate many trees of the same shape (1-D
        ``parents``) or broadcast against the rows of a 2-D ``parents``.

    Returns
    -------
    numpy.ndarray
        Shape of the broadcast inputs; dimensionless probabilities.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.trees.tree_path_probabilities([-1, -1, 0], [0.5, 0.3, 0.8]).round(12).tolist()
    [0.5, 0.3, 0.4]
    """
    par, acc, lead = _prepare(parents, accept)
    return _path_products(par, acc).reshape(lead + (acc.shape[-1],))


def tree_expected_tokens(parents: ArrayLike, accept: ArrayLike, *, depth_decay: float = 1.0) -> float | np.ndarray:
    r"""Expected tokens emitted per round by a draft tree, :math:`E[L]`.

    .. math:: E[L] = 1 + \sum_{i=1}^{n} \prod_{j \in \text{path}(i)} a_j

    A chain with every ``accept`` equal to ``alpha`` gives
    :func:`specdec.acceptance.expected_tokens`.

    Defined in chapter "Token trees".

    Parameters
    ----------
    parents : array_like of int, shape (n,) or (n_trees, n)
        ``parents[i]`` is the index of node ``i``'s parent, -1 for a child of
        the root. Every parent is listed before its children
        (``-1 <= parents[i] < i``). A 2-D array holds many different trees of
        the same node count, one per row.
    accept : array_like, shape (..., n)
        ``accept[i]`` is the probability that node ``i``'s token is accepted
        given that its parent was, in [0, 1]. The ``accept`` of one node's
        children must sum to at most 1 (checked, with a slack of 1e-12).
        Leading axes evaluate many trees of one shape at once (1-D
        ``parents``), or broadcast against the rows of a 2-D ``parents``.
    depth_decay : float, optional
        Acceptance fading with depth: node ``i``'s ``accept`` is multiplied by
        ``depth_decay ** (depth(i) - 1)``. In [0, 1]; default 1 (no decay).

    Returns
    -------
    float or numpy.ndarray
        Tokens per round, between 1 and ``max depth + 1``; a Python ``float``
        for one tree (1-D ``parents`` and ``accept``).

    Notes
    -----
    The sum over nodes runs in node order, so the result does not depend on numpy's SIMD code
    paths; 10^5 trees of 64 nodes take about 0.1 s (``benchmarks/bench_trees.py``).

    Examples
    --------
    A chain of three drafts at alpha = 0.8:

    >>> import specdec as sd
    >>> round(sd.trees.tree_expected_tokens([-1, 0, 1], [0.8, 0.8, 0.8]), 3)
    2.952

    Two alternatives at the first position, the first one extended:

    >>> round(sd.trees.tree_expected_tokens([-1, -1, 0], [0.6, 0.3, 0.7]), 4)
    2.32
    >>> round(sd.trees.tree_expected_tokens([-1, -1, 0], [0.6, 0.3, 0.7], depth_decay=0.5), 4)  # 0.7 -> 0.35
    2.11
    """
    if np.ndim(depth_decay) != 0:
        raise TypeError(f"depth_decay must be a single number in [0, 1], got an array of shape {np.shape(depth_decay)}")
    decay = float(check_probability(depth_decay, "depth_decay"))
    par, acc, lead = _prepare(parents, accept)
    if decay != 1.0:
        acc = acc * decay ** (_depths(par) - 1)  # depth 1 for the root's children
    out = _path_products(par, acc, total=True)
    return to_output(out.reshape(lead), np.ndim(parents) == 1 and np.ndim(accept) == 1)


def tree_tokens_pmf(parents: ArrayLike, accept: ArrayLike) -> np.ndarray:
    r"""Distribution of the tokens emitted per round by a draft tree.

    The round ends at node ``i`` (its token accepted, none of its children)
    with probability :math:`P(i)\,(1 - \sum_{c \in \text{children}(i)} a_c)`,
    and then emits ``depth(i) + 1`` tokens; it ends at the root (one token)
    with probability :math:`1 - \sum_{c \in \text{children(root)}} a_c`.

    Defined in chapter "Token trees".

    Parameters
    ----------
    parents : array_like of int, shape (n,)
        One tree shape (see :func:`tree_expected_tokens`).
    accept : array_like, shape (..., n)
        Conditional acceptance probabilities; leading axes are many trees of
        this shape.

    Returns
    -------
    numpy.ndarray, shape (..., max_depth + 1)
        Entry ``j`` is ``P(L = j + 1)``; each row sums to 1.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.trees.tree_tokens_pmf([-1, -1, 0], [0.6, 0.3, 0.7]).round(12).tolist()
    [0.1, 0.48, 0.42]
    """
    par = _check_parents(parents)
    if par.ndim != 1:
        raise ValueError(f"parents must be 1-D here (one tree shape); got shape {par.shape}")
    par, acc, lead = _prepare_accept(par, accept)
    n = par.shape[0]
    prob = _path_products(par, acc)
    onehot = np.zeros((n, n + 1))
    onehot[np.arange(n), par + 1] = 1.0
    child_sums = acc @ onehot  # (M, n + 1): column 0 is the root
    end = np.concatenate([1.0 - child_sums[:, :1], prob * (1.0 - child_sums[:, 1:])], axis=1)
    end = np.maximum(end, 0.0)
    depth = np.concatenate([[0], _depths(par)])
    pmf = np.zeros((acc.shape[0], int(depth.max()) + 1))
    for d in range(pmf.shape[1]):  # loop over depths (at most n + 1)
        pmf[:, d] = end[:, depth == d].sum(axis=1)
    return pmf.reshape(lead + (pmf.shape[1],))


def random_trees(n_trees: int, n_nodes: int, rng: np.random.Generator | int, *,
                 scale: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Random trees for tests and benchmarks: random shapes and valid ``accept``.

    Node ``i``'s parent is uniform on ``-1 .. i - 1``; siblings' ``accept`` are ``U(0, 1)`` weights
    over their sum plus one more ``U(0, 1)``, times ``scale``.

    Defined in chapter "Token trees".

    Parameters
    ----------
    n_trees : int
        Number of trees, >= 1.
    n_nodes : int
        Nodes per tree, >= 1.
    rng : numpy.random.Generator or int
        Seeded generator or seed.
    scale : float, optional
        Factor on every ``accept``, in [0, 1]. Default 1.

    Returns
    -------
    parents : numpy.ndarray of int64, shape (n_trees, n_nodes)
    accept : numpy.ndarray, shape (n_trees, n_nodes)

    Examples
    --------
    >>> import specdec as sd
    >>> parents, accept = sd.trees.random_trees(3, 5, rng=0)
    >>> parents.shape, bool((parents < [0, 1, 2, 3, 4]).all())
    ((3, 5), True)
    """
    m = _count(n_trees, "n_trees")
    n = _count(n_nodes, "n_nodes")
    s = float(check_probability(scale, "scale"))
    g = check_rng(rng)
    parents = np.floor(g.random((m, n)) * (np.arange(n) + 1)).astype(np.int64) - 1
    weight = g.random((m, n))
    spare = g.random((m, n + 1))
    flat = (np.arange(m)[:, None] * (n + 1) + parents + 1)
    family = np.bincount(flat.ravel(), weights=weight.ravel(), minlength=m * (n + 1)).reshape(m, n + 1) + spare
    accept = s * weight / np.take_along_axis(family, parents + 1, axis=1)
    return parents, accept


# --------------------------------------------------------------------------
# the cost of verifying a tree
# --------------------------------------------------------------------------


def tree_new_tokens(n_nodes: ArrayLike) -> int | np.ndarray:
    """Tokens per sequence that the verification pass of an ``n_nodes`` tree processes.

    ``n_nodes + 1``: the last accepted token and every tree node, whatever the depth.

    Defined in chapter "Token trees".

    Parameters
    ----------
    n_nodes : int or array_like of int
        Draft tokens in the tree, >= 1.

    Returns
    -------
    int or numpy.ndarray of int64
        Tokens per sequence in the pass.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.trees.tree_new_tokens(63)
    64
    """
    n = check_integer(n_nodes, "n_nodes", minimum=1)
    return to_output(n + 1, is_scalar_input(n_nodes), kind=int)


def tree_verify_cost(model: Model, hardware: Hardware, n_nodes: int, batch: int = 1, context: int = 0, *,
                     kv_write: bool | None = None, parents: ArrayLike | None = None) -> float | np.ndarray:
    """``c_verify`` of a draft tree: :func:`specdec.roofline.hardware.verify_cost` with ``k = n_nodes``.

    The pass over ``n_nodes + 1`` tokens per sequence, as a fraction of one plain decode step
    (tiled matrix products on a calibrated hardware, :mod:`specdec.roofline.kernels`). With
    ``parents`` each token attends to the context, its ancestors and itself (the tree mask).

    Defined in chapter "Token trees".

    Parameters
    ----------
    model, hardware, batch, context, kv_write
        As in :func:`specdec.roofline.hardware.verify_cost`.
    n_nodes : int
        Draft tokens in the tree, >= 1.
    parents : array_like of int, optional
        The tree's shape (:func:`tree_depths`); its length must be ``n_nodes``.

    Returns
    -------
    float or numpy.ndarray
        The pass's time over one plain decode step; in ``[1, n_nodes + 1]`` on the ideal roofline.

    Examples
    --------
    >>> import specdec as sd
    >>> h = sd.hardware
    >>> sd.trees.tree_verify_cost(h.LLAMA_70B, h.H100_IDEAL.scaled(8), 63)   # the ideal roofline: a lower bound
    1.0
    >>> round(sd.trees.tree_verify_cost(h.LLAMA_70B, h.H100_IDEAL.scaled(8), 63, batch=32), 3)
    6.937
    >>> round(sd.trees.tree_verify_cost(h.LLAMA_8B, h.H100, 63), 3)    # 64 tokens: one GEMM tile
    1.001
    >>> chain = sd.trees.chain_parents(63)                              # a chain: the mask is causal
    >>> bool(sd.trees.tree_verify_cost(h.LLAMA_8B, h.H100, 63, batch=64, context=4096, parents=chain)
    ...      >= sd.trees.tree_verify_cost(h.LLAMA_8B, h.H100, 63, batch=64, context=4096,
    ...                                   parents=[-1] * 63))            # 63 siblings: each sees root, itself
    True
    """
    check_integer(n_nodes, "n_nodes", minimum=1)
    if parents is None:
        return verify_cost(model, hardware, n_nodes, batch, context, kv_write=kv_write)
    depths = tree_depths(parents)
    if len(depths) != int(n_nodes):
        raise ValueError(f"parents must describe n_nodes = {int(n_nodes)} nodes; got {len(depths)}")
    # the pass holds the root (the last accepted token, which sees itself) and the nodes, a node at depth d
    # seeing its d ancestors in the pass and itself
    ancestors = (1.0 + float(np.sum(np.asarray(depths, dtype=float) + 1.0))) / (int(n_nodes) + 1)
    return verify_cost(model, hardware, n_nodes, batch, context, kv_write=kv_write, ancestors=ancestors)


def _check_rank_accept(rank_accept: Any) -> np.ndarray:
    """(D, R) per-depth, per-rank acceptance; a 1-D input means the same at every depth."""
    a = check_probability(rank_accept, "rank_accept")
    if a.ndim not in (1, 2) or a.shape[-1] == 0:
        raise ValueError(f"rank_accept must be 1-D (one probability per candidate rank) or 2-D (one row per "
                         f"depth); got shape {a.shape}")
    rows = a.reshape(-1, a.shape[-1])
    sums = rows.sum(axis=1)
    if (sums > 1.0 + SIBLING_SUM_SLACK).any():
        d = int(np.argmax(sums > 1.0 + SIBLING_SUM_SLACK))
        where = "" if a.ndim == 1 else f" (row {d}, depth {d + 1})"
        raise ValueError(f"rank_accept{where} sums to {float(sums[d]):.6g}; the candidates at one position are "
                         f"alternatives, so their acceptance probabilities must sum to at most 1")
    return a


def rank_accept_from_topk(topk_accuracy: ArrayLike) -> np.ndarray:
    """Per-rank acceptance probabilities from cumulative top-k accuracies.

    ``a[d, r] = top[r] - top[r - 1]``: the ``r``-th candidate's acceptance under greedy
    verification.

    Defined in chapter "Token trees".

    Parameters
    ----------
    topk_accuracy : array_like, shape (R,) or (D, R)
        Top-1 .. top-R accuracy (one row per head / depth), each in [0, 1]
        and non-decreasing along the last axis.

    Returns
    -------
    numpy.ndarray
        Same shape: the probability of each rank.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.trees.rank_accept_from_topk([0.5, 0.7, 0.75]).round(12).tolist()
    [0.5, 0.2, 0.05]
    """
    t = check_probability(topk_accuracy, "topk_accuracy")
    if t.ndim not in (1, 2) or t.shape[-1] == 0:
        raise ValueError(f"topk_accuracy must be 1-D or 2-D with ranks on the last axis; got shape {t.shape}")
    step = np.diff(t, axis=-1)
    if (step < 0).any():
        raise ValueError("topk_accuracy must be non-decreasing along the ranks (top-2 accuracy >= top-1, ...)")
    return np.concatenate([t[..., :1], step], axis=-1)


@dataclass(frozen=True)
class DraftTree:
    """A draft tree chosen under the rank acceptance model.

    Defined in chapter "Token trees".

    Attributes
    ----------
    parents : numpy.ndarray of int64, shape (n,)
        Parent of each node (-1 for the root's children), parents first.
    accept : numpy.ndarray, shape (n,)
        Conditional acceptance probability of each node (its ``a[d, r]``).
    depth : numpy.ndarray of int64, shape (n,)
        1 for the root's children.
    rank : numpy.ndarray of int64, shape (n,)
        Which candidate (1 = the draft's best) the node is among its siblings,
        in the numbering of ``rank_accept``'s columns.
    path_probability : numpy.ndarray, shape (n,)
        Probability that the node is accepted (non-increasing along ``parents``).
    expected_tokens : float
        ``1 + path_probability.sum()``.
    """

    parents: np.ndarray
    accept: np.ndarray
    depth: np.ndarray
    rank: np.ndarray
    path_probability: np.ndarray
    expected_tokens: float

    @property
    def n_nodes(self) -> int:
        """Number of draft tokens in the tree."""
        return int(self.parents.shape[0])

    @property
    def max_depth(self) -> int:
        """Length of the longest path (0 for an empty tree)."""
        return int(self.depth.max()) if self.depth.size else 0


def _greedy_order(a: np.ndarray, n_max: int, depth_cap: int) -> tuple[list[int], list[int], list[int], list[float]]:
    """Best-first enumeration of the candidate tree, largest path probability first.

    A popped node pushes its first child and next sibling; returns (parent, depth, rank, value) lists.
    """
    n_rank = a.shape[1]
    out_value: list[float]
    out_parent, out_depth, out_rank, out_value = [], [], [], []
    heap = []
    counter = 0
    if a[0, 0] > 0:
        heap.append((-float(a[0, 0]), counter, -1, 1, 0, 1.0))
    while heap and len(out_value) < n_max:
        neg, _, parent, depth, r, parent_value = heapq.heappop(heap)
        index = len(out_value)
        out_parent.append(parent)
        out_depth.append(depth)
        out_rank.append(r)
        out_value.append(-neg)
        if r + 1 < n_rank:  # next sibling
            v = parent_value * float(a[depth - 1, r + 1])
            if v > 0:
                counter += 1
                heapq.heappush(heap, (-v, counter, parent, depth, r + 1, parent_value))
        if depth < depth_cap:  # first child
            v = -neg * float(a[depth, 0])
            if v > 0:
                counter += 1
                heapq.heappush(heap, (-v, counter, index, depth + 1, 0, -neg))
    return out_parent, out_depth, out_rank, out_value


def _prepare_search(rank_accept: ArrayLike, max_depth: int | None,
                    n_max: int) -> tuple[np.ndarray, np.ndarray, int]:
    a = _check_rank_accept(rank_accept)
    rows = a[None, :] if a.ndim == 1 else a
    depth_rows = rows.shape[0]
    if max_depth is None:
        cap = n_max if a.ndim == 1 else depth_rows
    else:
        cap = _count(max_depth, "max_depth")
        if a.ndim == 2 and cap > depth_rows:
            raise ValueError(f"max_depth must be at most the {depth_rows} depths rank_accept describes; got {cap}")
    cap = min(cap, n_max)
    order = np.argsort(-rows, axis=1, kind="stable")
    sorted_rows = np.take_along_axis(rows, order, axis=1)
    if a.ndim == 1:
        sorted_rows = np.repeat(sorted_rows, cap, axis=0)
        order = np.repeat(order, cap, axis=0)
    return sorted_rows, order, cap


def _build_tree(sorted_rows: np.ndarray, order: np.ndarray, parent: list[int], depth: list[int], r: list[int],
                value: list[float]) -> DraftTree:
    par = np.asarray(parent, dtype=np.int64)
    dep = np.asarray(depth, dtype=np.int64)
    srt = np.asarray(r, dtype=np.int64)
    acc = sorted_rows[dep - 1, srt] if par.size else np.zeros(0)
    rank = order[dep - 1, srt] + 1 if par.size else np.zeros(0, dtype=np.int64)
    val = np.asarray(value, dtype=float)
    return DraftTree(parents=par, accept=np.asarray(acc, dtype=float), depth=dep, rank=np.asarray(rank, np.int64),
                     path_probability=val, expected_tokens=float(1.0 + val.sum()))


def best_tree(n_nodes: int, rank_accept: ArrayLike, max_depth: int | None = None) -> DraftTree:
    r"""The draft tree of at most ``n_nodes`` nodes with the largest expected tokens per round.

    Under the rank model the ``r``-th best candidate at depth ``d`` is accepted with probability
    ``rank_accept[d - 1, r - 1]`` given its parent, independently of the rest of the tree; a best-first
    search. A 1-D ``rank_accept`` is the same at every depth.

    Defined in chapter "Token trees".

    Parameters
    ----------
    n_nodes : int
        Node budget, in [1, 100_000].
    rank_accept : array_like, shape (R,) or (D, R)
        Acceptance probability of each candidate rank (columns), optionally
        per depth (rows), each in [0, 1]; rows sum to at most 1.
    max_depth : int, optional
        Longest path allowed, >= 1 (at most ``D`` for a 2-D ``rank_accept``).
        Default: unlimited for 1-D, ``D`` for 2-D.

    Returns
    -------
    DraftTree
        Nodes in the order the search added them (parents first). Nodes of
        zero path probability are never added, so the tree can be smaller
        than the budget.

    Notes
    -----
    Exactly optimal under the rank model (the tests compare it with exhaustive search over every
    tree of up to 7 nodes); ``O(N log N)`` heap operations; ties broken by insertion order.

    Examples
    --------
    >>> import specdec as sd
    >>> t = sd.trees.best_tree(4, [0.6, 0.2, 0.1])
    >>> t.parents.tolist(), t.rank.tolist()
    ([-1, 0, 1, -1], [1, 1, 1, 2])
    >>> round(t.expected_tokens, 4)
    2.376
    """
    n = _count(n_nodes, "n_nodes", maximum=100_000)
    sorted_rows, order, cap = _prepare_search(rank_accept, max_depth, n)
    parent, depth, r, value = _greedy_order(sorted_rows, n, cap)
    return _build_tree(sorted_rows, order, parent, depth, r, value)


@dataclass(frozen=True)
class TreeSpeedup:
    """The tree that maximizes speedup when verification cost depends on the node count.

    Defined in chapter "Token trees".

    Attributes
    ----------
    tree : DraftTree
        The best tree.
    speedup : float
        ``E[L] / (depth * c_draft + c_verify(n_nodes))`` of that tree.
    cost : float
        Its round cost in target decode steps.
    expected_tokens : numpy.ndarray, shape (max_depth, max_nodes)
        Best expected tokens with at most ``n`` nodes (column ``n - 1``) and
        depth at most ``d`` (row ``d - 1``).
    speedups : numpy.ndarray, shape (max_depth, max_nodes)
        The speedup of each of those trees (with its actual depth).
    """

    tree: DraftTree
    speedup: float
    cost: float
    expected_tokens: np.ndarray
    speedups: np.ndarray

    @property
    def best_by_budget(self) -> np.ndarray:
        """Best speedup among trees of at most ``n`` nodes, entry ``n - 1`` (non-decreasing)."""
        return np.maximum.accumulate(self.speedups.max(axis=0))


def best_tree_for_speedup(rank_accept: ArrayLike, max_nodes: int, c_verify: ArrayLike, c_draft: float = 0.0,
                          max_depth: int | None = None) -> TreeSpeedup:
    r"""The draft tree that maximizes speedup when its cost grows with nodes and depth.

    Round cost in target decode steps: ``depth * c_draft`` (one draft pass per tree level) plus
    ``c_verify[n - 1]``; speedup ``E[L] / cost`` with ``E[L]`` from :func:`best_tree`.

    Defined in chapter "Token trees".

    Parameters
    ----------
    rank_accept : array_like, shape (R,) or (D, R)
        As in :func:`best_tree`.
    max_nodes : int
        Largest tree considered, in [1, 10_000].
    c_verify : float or array_like, shape (max_nodes,)
        Verification cost of an ``n``-node tree, entry ``n - 1``, in target
        decode steps (> 0); e.g. :func:`tree_verify_cost` over
        ``n = 1 .. max_nodes``. A single number is the same for every size.
    c_draft : float, optional
        One draft forward pass (one tree level) in target decode steps, >= 0.
    max_depth : int, optional
        As in :func:`best_tree`.

    Returns
    -------
    TreeSpeedup

    Notes
    -----
    The best speedup over every depth cap ``d`` and size ``n`` of :func:`best_tree`'s trees is the
    optimum over all trees (``c_draft >= 0``); ``max_depth`` searches of ``max_nodes`` nodes.

    Examples
    --------
    >>> import numpy as np, specdec as sd
    >>> cv = 1.0 + 0.02 * np.arange(1, 65)      # verification grows 2 % per node
    >>> r = sd.trees.best_tree_for_speedup([0.6, 0.2, 0.1], 64, cv, c_draft=0.05)
    >>> r.tree.n_nodes, r.tree.max_depth, round(r.speedup, 3)
    (12, 3, 2.196)
    """
    n = _count(max_nodes, "max_nodes", maximum=10_000)
    cv = check_positive(c_verify, "c_verify", "(target decode steps)")
    if cv.ndim == 0:
        cv = np.full(n, float(cv))
    elif cv.shape != (n,):
        raise ValueError(f"c_verify must be a single number or have one entry per tree size, shape ({n},); "
                         f"got shape {cv.shape}")
    if np.ndim(c_draft) != 0:
        raise TypeError(f"c_draft must be a single number, got an array of shape {np.shape(c_draft)}")
    cd = float(check_nonnegative(c_draft, "c_draft", "(target decode steps)"))
    sorted_rows, order, cap = _prepare_search(rank_accept, max_depth, n)
    et = np.ones((cap, n))
    sp = np.zeros((cap, n))
    best: tuple[float, tuple[int, int] | None] = (-1.0, None)
    for d in range(1, cap + 1):  # one best-first search per depth cap
        parent, depth, r, value = _greedy_order(sorted_rows, n, d)
        m = len(value)
        if m == 0:
            sp[d - 1] = 1.0 / cv
            continue
        cum = 1.0 + np.cumsum(value)
        deepest = np.maximum.accumulate(np.asarray(depth))
        et[d - 1, :m] = cum
        et[d - 1, m:] = cum[-1]
        sizes = np.minimum(np.arange(1, n + 1), m)
        s = et[d - 1] / (deepest[sizes - 1] * cd + cv[sizes - 1])
        sp[d - 1] = s
        j = int(np.argmax(s))
        if s[j] > best[0] + 1e-15:
            best = (float(s[j]), (d, int(sizes[j])))
    if best[1] is None:
        tree = _build_tree(sorted_rows, order, [], [], [], [])
        return TreeSpeedup(tree=tree, speedup=float(1.0 / cv[0]), cost=float(cv[0]), expected_tokens=et, speedups=sp)
    d, size = best[1]
    parent, depth, r, value = _greedy_order(sorted_rows, size, d)
    tree = _build_tree(sorted_rows, order, parent, depth, r, value)
    cost = tree.max_depth * cd + float(cv[size - 1])
    return TreeSpeedup(tree=tree, speedup=tree.expected_tokens / cost, cost=cost, expected_tokens=et, speedups=sp)
