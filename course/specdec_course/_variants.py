"""Per-student variants: the inputs a seed (practice) or a course key (graded) chooses for an exercise.

**Practice variants.** A seed is a non-negative integer or a string (a
string of digits is that integer). The inputs are drawn by the exercise's
``vary(rng)`` with a numpy generator seeded by the label and the seed, so a
seed gives the same variant on every machine, and anyone can compute it:
practice variants are for self-check only.

**Graded (keyed) variants.** For marked work the instructor keeps a course
key, a secret file (:class:`CourseKey`). Each exercise's keyed variants form
a *pool*: inputs drawn with a generator seeded by an HMAC of the key and the
label, keeping only draws whose answer no earlier member of the pool accepts
(so two members never share an answer at the stated precision). The student
in row ``i`` of the roster gets pool member ``i``, so every student of a
class as large as the pool has their own answer (and the pool is the same
for a row whatever rows come after it). The hidden test cases of a function
exercise are drawn from an HMAC of the key, the label and the student id.
Without the key none of this can be recomputed.
"""

from __future__ import annotations

import builtins
import functools
import hashlib
import hmac
import json
import os
import pathlib
import pickle
import re
import threading
import zlib
from typing import Any

import numpy as np

from ._forms import type_name
from ._registry import REGISTRY, Exercise, Params

__all__ = ["NoVariants", "seed_key", "inputs_for", "seed_literal", "CourseKey", "keyed_inputs", "keyed_cases",
           "pool_size", "graded_kind", "student_id"]


class NoVariants(LookupError):
    """The exercise has no variants (every reader answers the book's version)."""


def seed_key(seed: Any) -> tuple[int, ...]:
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer, str)):
        raise TypeError(f"seed must be a non-negative integer or a string (a student id, say), got {type_name(seed)}")
    if isinstance(seed, str):
        if not seed.strip():
            raise ValueError("seed must not be an empty string")
        if seed.strip().isdigit():  # "17" and 17 are the same seed (a roster file holds text)
            return (0, int(seed.strip()))
        digest = hashlib.sha256(seed.strip().encode("utf-8")).digest()
        return (1,) + tuple(int.from_bytes(digest[i:i + 4], "big") for i in range(0, 16, 4))
    if int(seed) < 0:
        raise ValueError(f"seed must be a non-negative integer or a string, got {int(seed)}")
    return (0, int(seed))


def _finite(value: Any) -> bool:
    try:
        if isinstance(value, str):
            return True
        if isinstance(value, (tuple, builtins.list)):
            return all(_finite(v) for v in value)
        return bool(np.all(np.isfinite(np.asarray(value, dtype=float))))
    except Exception:
        return False


@functools.lru_cache(maxsize=4096)
def _draw(label: str, key: tuple[int, ...]) -> Params:
    exercise = REGISTRY[label]
    rng = np.random.default_rng([zlib.crc32(label.encode("utf-8")), *key])
    book = exercise.inputs()
    for _attempt in range(200):
        params = book.replace(**exercise.vary(rng))
        if dict(params) == dict(book):
            continue
        try:
            value = exercise.reference(params)
        except Exception:
            continue
        if _finite(value):
            return params
    raise RuntimeError(f"{label}: could not draw valid inputs for this seed (a bug in the exercise's vary())")


def inputs_for(exercise: Exercise, seed: Any) -> Params:
    """The inputs of the book's version (``seed=None``) or of a variant."""
    if seed is None:
        return exercise.inputs()
    if not exercise.has_variants:
        raise NoVariants(exercise.label)
    key = seed_key(seed)
    return _draw(exercise.label, key)




def seed_literal(seed: Any) -> str:
    return json.dumps(seed.strip()) if isinstance(seed, str) else str(int(seed))


# --------------------------------------------------------------------------
# Graded variants: the course key
# --------------------------------------------------------------------------
_KEY_LINE = re.compile(r"^[0-9a-fA-F]{32,128}$")


class CourseKey:
    """The instructor's secret: 32 random bytes kept in a file (hex), never handed to students.

    ``CourseKey.create(path)`` writes a new one (mode 0600, never over an
    existing file); ``CourseKey.read(path)`` loads it. Its ``repr`` shows a
    fingerprint only.
    """

    __slots__ = ("_secret", "path")

    def __init__(self, secret: bytes, path: str = ""):
        if not isinstance(secret, (bytes, bytearray)) or len(secret) < 16:
            raise ValueError("a course key must be at least 16 bytes")
        object.__setattr__(self, "_secret", bytes(secret))
        object.__setattr__(self, "path", str(path))

    def __setattr__(self, name, value):
        raise AttributeError("a course key is read-only")

    @classmethod
    def read(cls, path: str | os.PathLike) -> CourseKey:
        """Load a key file written by :meth:`create` (hex digits; ``#`` comments allowed)."""
        try:
            text = pathlib.Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise ValueError(f"course_key: cannot read the key file {str(path)!r} ({exc.strerror or exc})") from None
        lines = [line.split("#", 1)[0].strip() for line in text.splitlines()]
        lines = [line for line in lines if line]
        if len(lines) != 1 or not _KEY_LINE.match(lines[0]):
            raise ValueError(f"course_key: {str(path)!r} is not a course key file (one line of 32 to 128 hex "
                             "digits; make one with `python -m specdec_course new-key FILE`)")
        return cls(bytes.fromhex(lines[0]), str(pathlib.Path(path).resolve()))

    @classmethod
    def create(cls, path: str | os.PathLike) -> CourseKey:
        """Write a new random key to ``path`` (which must not exist) and return it."""
        target = pathlib.Path(path)
        secret = os.urandom(32)
        try:
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            raise ValueError(f"path: {str(path)!r} exists; a course key is never overwritten") from None
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write("# specdec course key: keep it secret, keep it safe (it decides every graded variant)\n")
            handle.write(secret.hex() + "\n")
        return cls(secret, str(target.resolve()))

    def mac(self, *parts: str) -> bytes:
        """HMAC-SHA256 of the parts (joined by a separator no part contains)."""
        message = "\x1f".join(str(part).replace("\x1f", " ") for part in parts).encode("utf-8")
        return hmac.new(self._secret, message, hashlib.sha256).digest()

    def rng(self, *parts: str) -> np.random.Generator:
        """A numpy generator seeded by :meth:`mac` of the parts."""
        digest = self.mac(*parts)
        return np.random.default_rng([int.from_bytes(digest[i:i + 4], "big") for i in range(0, 32, 4)])

    def appears_in(self, text: str) -> bool:
        """Whether ``text`` holds this key's hex digits (a copy of the key file, say)."""
        return self._secret.hex() in str(text).lower()

    @property
    def fingerprint(self) -> str:
        """Eight hex digits that name the key (in reports and progress files) without revealing it."""
        return self.mac("fingerprint").hex()[:8]

    def __repr__(self) -> str:
        return f"CourseKey(fingerprint={self.fingerprint})"

    __str__ = __repr__

    def __reduce__(self):
        raise TypeError("a course key is not pickled")


def student_id(seed: Any) -> str:
    """The canonical text of a student id ("s26001", "17")."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer, str)):
        raise TypeError(f"student id must be a string or a non-negative integer, got {type_name(seed)}")
    text = str(int(seed)) if not isinstance(seed, str) else seed.strip()
    if not text:
        raise ValueError("student id must not be empty")
    return text


#: Exercises whose answers are too few for a class (a tuple of a few yes/no values, a short published list):
#: even their keyed variants would give many students the same answer, so in a graded assignment they are
#: self-check practice, like exercises without variants. ``tests/test_grading_variants.py`` measures that
#: their variants cannot reach 40 different answers.
FEW_ANSWERS = {
    "checklist-1": "five yes/no verdicts: at most 32 different answers",
    "draft-arrangements-2": "the published list has five head accuracies: at most 4 different answers",
    "calibrated-roofline-3": "a few published model sizes and tensor-parallel degrees",
    "speedup-formula-4": "the best draft length between 1 and 16: at most 16 different answers",
    "engine-drafts-2": "the acceptance lengths published for a few model and method pairs",
}


def graded_kind(exercise: Exercise) -> str:
    """ "variant" (numeric, keyed inputs), "function" (keyed hidden cases) or "practice" (same for everyone)."""
    if exercise.kind == "function":
        return "function"
    if exercise.has_variants and exercise.label not in FEW_ANSWERS:
        return "variant"
    return "practice"


class _Pool:
    __slots__ = ("rng", "members", "answers", "forms", "attempts", "lock", "tried", "book")

    def __init__(self, rng):
        self.rng, self.members, self.answers, self.forms, self.attempts = rng, [], [], [], 0
        self.lock = threading.Lock()
        self.tried = set()   # the inputs drawn so far (pickled): a repeated draw is refused again, unevaluated
        self.book = None     # the book's inputs and answer, computed once


def _pickled(params: Params) -> bytes | None:
    try:
        return pickle.dumps(sorted(dict(params).items()), protocol=4)
    except Exception:
        return None


_POOLS: dict[tuple[str, str], _Pool] = {}
_POOLS_LOCK = threading.Lock()
#: Draws tried per pool member wanted (beyond a fixed allowance) before a pool is declared exhausted.
_DRAWS_PER_MEMBER = 25


def _distinct(exercise: Exercise, pool: _Pool, params: Params, value: Any) -> bool:
    form = exercise.form(params)
    shown = form.format(value)
    for _member, other_form, other_value in zip(pool.members, pool.forms, pool.answers, strict=False):
        if form.accepts(other_value, value) or other_form.accepts(value, other_value) \
                or other_form.format(other_value) == shown:
            return False
    return True


def _grow(exercise: Exercise, key: CourseKey, need: int) -> _Pool:
    with _POOLS_LOCK:
        pool = _POOLS.get((key.fingerprint, exercise.label))
        if pool is None:
            pool = _POOLS[(key.fingerprint, exercise.label)] = _Pool(key.rng("pool", exercise.label))
    with pool.lock:
        budget = 200 + _DRAWS_PER_MEMBER * need
        if len(pool.members) >= need or pool.attempts >= budget:
            return pool   # grown far enough already (most calls: one per student and exercise graded)
        if pool.book is None:
            pool.book = (exercise.inputs(), exercise.reference(exercise.inputs()))
        book, book_answer = pool.book
        while len(pool.members) < need and pool.attempts < budget:
            pool.attempts += 1
            params = book.replace(**exercise.vary(pool.rng))
            if dict(params) == dict(book):
                continue
            drawn = _pickled(params)   # drawn before: it was refused (or is a member), so it is refused now
            if drawn is not None and drawn in pool.tried:
                continue
            pool.tried.add(drawn)
            try:
                value = exercise.reference(params)
            except Exception:
                continue
            if not _finite(value) or not _distinct(exercise, pool, params, value):
                continue
            form = exercise.form(params)   # the book's own answer (printed in the full edition) never passes
            if form.accepts(book_answer, value) or form.format(book_answer) == form.format(value):
                continue
            pool.members.append(params)
            pool.answers.append(value)
            pool.forms.append(exercise.form(params))
    return pool


def pool_size(exercise: Exercise, key: CourseKey, need: int = 40) -> int:
    """How many keyed variants with mutually different answers the exercise has (up to ``need``)."""
    if not exercise.has_variants:
        raise NoVariants(exercise.label)
    return len(_grow(exercise, key, need).members)


def keyed_inputs(exercise: Exercise, key: CourseKey, slot: int) -> Params:
    """The graded variant of the student in roster row ``slot`` (0 first).

    Rows beyond the pool's size (an exercise whose answers run out) wrap around.
    """
    if not isinstance(key, CourseKey):
        raise TypeError(f"key must be a CourseKey (CourseKey.read(path)), got {type_name(key)}")
    if not exercise.has_variants:
        raise NoVariants(exercise.label)
    if isinstance(slot, bool) or not isinstance(slot, (int, np.integer)) or slot < 0:
        raise ValueError(f"slot must be a non-negative integer (a roster row), got {slot!r}")
    pool = _grow(exercise, key, int(slot) + 1)
    if not pool.members:
        raise RuntimeError(f"{exercise.label}: could not draw any keyed variant (a bug in the exercise's vary())")
    return pool.members[int(slot) % len(pool.members)]


def keyed_cases(exercise: Exercise, key: CourseKey, student: Any, public: list[tuple]) -> list[tuple]:
    """A function exercise's cases for one student: the public examples, then hidden cases drawn with the key."""
    n_visible = max(0, min(int(exercise.n_visible), len(public)))
    drawn = builtins.list(exercise.cases(key.rng("cases", exercise.label, student_id(student))))
    drawn = [case if isinstance(case, tuple) else (case,) for case in drawn]
    hidden = drawn[n_visible:] or drawn
    return public[:n_visible] + hidden
