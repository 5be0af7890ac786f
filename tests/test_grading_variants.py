"""Enough different answers for a class (issue 26, item 5): at least 40 per exercise over 40 students.

Random draws would not do it (40 students drawing from N answers share one unless N >> 800), so graded
variants come from a keyed pool whose members never accept each other's answers, one member per roster row.
This test uses a fresh random key and 40 random ids; nothing is tuned to a fixed list of either.
"""

from __future__ import annotations

import os
import secrets

import pytest

from specdec_course import REGISTRY
from specdec_course._course import Roster
from specdec_course._variants import FEW_ANSWERS, CourseKey, graded_kind, keyed_inputs, pool_size

GRADED = sorted(label for label, e in REGISTRY.items() if graded_kind(e) == "variant")
CLASS = 40


@pytest.fixture(scope="module")
def class_of_40():
    key = CourseKey(os.urandom(32))
    roster = Roster.of([f"{secrets.token_hex(3)}_{i}" for i in range(CLASS)])
    return key, roster


@pytest.mark.parametrize("label", GRADED)
def test_forty_students_get_forty_different_answers(class_of_40, label):
    key, roster = class_of_40
    exercise = REGISTRY[label]
    params = [keyed_inputs(exercise, key, roster.slot(sid)) for sid in roster.ids]
    answers = [exercise.reference(p) for p in params]
    shown = {exercise.form(p).format(a) for p, a in zip(params, answers, strict=True)}
    assert len(shown) == CLASS, f"{label}: {len(shown)} different answers among {CLASS} students"
    for i, (p, a) in enumerate(zip(params, answers, strict=True)):   # and nobody's answer passes anybody else's variant
        for j, b in enumerate(answers):
            if i != j:
                assert not exercise.form(p).accepts(b, a), (label, i, j)


def test_most_exercises_with_variants_are_graded():
    with_variants = [label for label, e in REGISTRY.items() if e.has_variants]
    assert len(GRADED) >= len(with_variants) - len(FEW_ANSWERS) and len(FEW_ANSWERS) <= 8


@pytest.mark.parametrize("label", sorted(FEW_ANSWERS))
def test_exercises_with_few_answers_really_have_few(label):
    """The exercises treated as practice in graded assignments cannot give 40 students their own answers."""
    exercise = REGISTRY[label]
    assert exercise.has_variants and graded_kind(exercise) == "practice"
    assert pool_size(exercise, CourseKey(os.urandom(32)), CLASS) < CLASS
