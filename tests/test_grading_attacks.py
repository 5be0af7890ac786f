"""The attacks of issue 26 that need no kernel, each with the honest path beside it.

A student has the package, the student edition and a copy of the repository, their id and their handout, but not
the course key. Nothing they can run may give their graded answers, and in a graded assignment ``check`` must not
be an oracle. (The attacks that run notebooks, the forged record, the detached saboteur and the parent killer, are
in ``tests/test_grading.py``.)
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pytest

import specdec_course as course
from specdec_course import REGISTRY, _core, instructors
from specdec_course._course import Roster, parse_labels
from specdec_course._forms import _decimals_given
from specdec_course._handout import sheet
from specdec_course._variants import CourseKey, graded_kind, keyed_cases, keyed_inputs

ROSTER = Roster.of(["s26001", "s26002", "s26003", "alice@example.org"])
#: The graded numeric exercises. Two unrelated computations (a guessed key, a public seed) agree with a student's
#: answer on one of them with a chance of a few per cent (a pool holds some tens of answers), so an attack
#: "succeeds by chance" on about one of them; a leak would give most of them.
WIDE = sorted(label for label, e in REGISTRY.items() if graded_kind(e) == "variant")
#: The most chance agreements allowed among WIDE. Measured over 25 pairs of random keys: 0 to 3 agreements, mean
#: about 1.5 (a Poisson count with that mean exceeds 12 with a probability near 1e-8); a leak gives about all 73.
CHANCE = max(3, len(WIDE) // 6)


@pytest.fixture(scope="module")
def course_key():
    return CourseKey(os.urandom(32))


def _graded_answer(label, key, sid):
    exercise = REGISTRY[label]
    return exercise, exercise.reference(keyed_inputs(exercise, key, ROSTER.slot(sid)))


def _same(exercise, a, b):
    form = exercise.form()
    return form.accepts(a, b) or form.accepts(b, a)


def test_the_package_does_not_hand_out_a_students_answer(course_key):
    """Attack: ``instructors.reference(label, seed=my_id)`` gave the student's own variant answer."""
    for label in WIDE:
        with pytest.raises(ValueError, match="course key"):
            instructors.reference(label, seed="s26001")
        with pytest.raises(ValueError, match="course key"):
            instructors.answer_key(label, seed="s26001")
        exercise, mine = _graded_answer(label, course_key, "s26001")
        assert not _same(exercise, instructors.reference(label), mine)   # the book's answer is not it either
        # the instructor, with the key, gets it
        np.testing.assert_equal(instructors.reference(label, "s26001", course_key=course_key, roster=ROSTER), mine)


def test_the_key_command_needs_the_course_key(course_key, tmp_path):
    """Attack: ``python -m specdec_course key --seed my_id`` printed the student's answers."""
    done = subprocess.run([sys.executable, "-m", "specdec_course", "key", "--seed", "s26001", "--labels", "1.1"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "--course-key" in done.stderr and not done.stdout
    wrong_key = tmp_path / "guess.key"
    wrong_key.write_text("00" * 32 + "\n")
    roster = tmp_path / "roster.csv"
    roster.write_text("id\n" + "\n".join(ROSTER.ids) + "\n")
    guess = subprocess.run([sys.executable, "-m", "specdec_course", "key", "--student", "s26001", "--labels",
                            ",".join(WIDE), "--course-key", str(wrong_key), "--roster", str(roster)],
                           capture_output=True, text=True, timeout=120)
    assert guess.returncode == 0
    printed = {line.split()[1]: line.split(None, 2)[2] for line in guess.stdout.splitlines()}
    assert sorted(printed) == sorted(WIDE)
    # a guessed key gives other answers: two keys can agree on an exercise by chance (a pool has some tens of
    # answers), but not systematically
    hits = []
    for label in WIDE:
        exercise = REGISTRY[label]
        params = keyed_inputs(exercise, course_key, ROSTER.slot("s26001"))
        if printed[label] == exercise.form(params).format(exercise.reference(params)):
            hits.append(label)
    assert len(hits) <= CHANCE, hits


def test_the_registry_and_the_public_cases_do_not_give_graded_answers(course_key):
    """Attack: ``REGISTRY[label].reference(variant(label, my_id).params)`` and ``_core.exercise_cases`` (hidden cases
    the same for everyone)."""
    hits = []
    for label in WIDE:
        exercise, mine = _graded_answer(label, course_key, "s26001")
        public = exercise.reference(course.variant(label, "s26001").params)
        if _same(exercise, public, mine):
            hits.append(label)
    assert len(hits) <= CHANCE, hits   # chance agreements only (see the guessed key above)
    five = REGISTRY["expected-tokens-5"]
    public = _core.exercise_cases(five)
    mine = keyed_cases(five, course_key, "s26001", public)
    theirs = keyed_cases(five, course_key, "s26002", public)
    n_visible = five.n_visible
    assert mine[:n_visible] == public[:n_visible]                 # the examples are the book's
    hidden = set(mine[n_visible:])
    assert len(hidden - set(public)) >= 8 and hidden != set(theirs[n_visible:])
    # a function that only knows the public cases' answers fails the student's hidden cases
    table = {case: five.reference(*case) for case in public}
    outcomes = [_core._sandbox.Outcome("ok", table.get(case, 0.0)) for case in mine]
    assert not _core._function_verdict(five, mine, outcomes, 10.0).passed
    honest = [_core._sandbox.Outcome("ok", five.reference(*case)) for case in mine]
    assert _core._function_verdict(five, mine, honest, 10.0).passed


def test_graded_check_is_no_oracle(course_key):
    """Attack: bisection on "too high / too low" found any numeric answer (4 of 4). In a graded assignment the
    checker's messages do not depend on the value, so bisection learns nothing; practice mode is unchanged."""
    spec = parse_labels("1.1,1.4,2.1,6.1")
    code = re.search(r'assignment\("([^"]+)"\)', sheet(spec, course_key, ROSTER, "s26002")).group(1)
    try:
        course.assignment(code)
        for label in spec.labels:
            exercise, mine = _graded_answer(label, course_key, "s26002")
            if exercise.kind != "numeric" or not isinstance(mine, (float, int)):
                continue
            low, high, messages = -1e6, 1e6, set()
            for _ in range(60):
                middle = (low + high) / 2
                result = course.check(label, middle)
                messages.add(re.sub(r"[-0-9.e]+", "#", result.message))
                assert result.reason in ("recorded", "recorded-few-decimals") and not result.passed
                if "too high" in result.message.lower():
                    high = middle
                else:
                    low = middle
            assert not any("too high" in m.lower() or "too low" in m.lower() for m in messages), messages
            assert not exercise.form().accepts(low, mine)   # the "bisection" ended nowhere near the answer
            right = course.check(label, mine)          # the right answer gets the same message
            form = exercise.form()
            few = form.decimals is not None and (_decimals_given(mine) or 0) < form.decimals   # e.g. exactly 1.5
            assert right.reason == ("recorded-few-decimals" if few else "recorded") and not right.passed
        assert "Recorded" in str(course.check("expected-tokens-1", 3.0))
        assert course.check("expected-tokens-1", "3").reason == "wrong-type"   # the form is still checked
        assert course.check("expected-tokens-1", [3.0, 1.0]).reason == "wrong-shape"
    finally:
        from specdec_course import _assignment
        _assignment.ACTIVE[0] = None
    # practice mode (no assignment) keeps today's feedback
    book = REGISTRY["expected-tokens-1"].reference(REGISTRY["expected-tokens-1"].inputs())
    assert "too high" in course.check("expected-tokens-1", book + 1).message
    assert course.check("expected-tokens-1", book).passed


def test_exercises_without_graded_variants_are_practice_and_say_so(course_key):
    spec = parse_labels("1.1,4.1,5.1")
    text = sheet(spec, course_key, ROSTER, "s26001")
    assert graded_kind(REGISTRY["no-help-1"]) == "practice" and graded_kind(REGISTRY["checklist-1"]) == "practice"
    assert text.count("self-check practice, not graded") == 2
    assert "- **A**:" in text and "- **D**:" in text     # the options of the choice question
    assert spec.kind("expected-tokens-1") == "variant"
    # and the kernel gives them full feedback even inside the assignment
    code = re.search(r'assignment\("([^"]+)"\)', text).group(1)
    try:
        active = course.assignment(code)
        assert "Self-check practice" in str(active) and not active.graded("no-help-1")
        assert course.check("no-help-1", REGISTRY["no-help-1"].reference(REGISTRY["no-help-1"].inputs())).passed
    finally:
        from specdec_course import _assignment
        _assignment.ACTIVE[0] = None


def test_course_key_file_round_trip_and_secrecy(tmp_path):
    key = CourseKey.create(tmp_path / "k")
    assert oct((tmp_path / "k").stat().st_mode & 0o777) == "0o600"
    assert CourseKey.read(tmp_path / "k").mac("x") == key.mac("x")
    assert key._secret.hex() not in repr(key) and key.fingerprint in repr(key)
    with pytest.raises(ValueError, match="never overwritten"):
        CourseKey.create(tmp_path / "k")
    (tmp_path / "bad").write_text("not a key\n")
    with pytest.raises(ValueError, match="course_key"):
        CourseKey.read(tmp_path / "bad")
    with pytest.raises(TypeError):
        import pickle
        pickle.dumps(key)
    with pytest.raises(ValueError, match="roster"):
        Roster.of(["a", "a"])


def test_student_facing_package_text_does_not_point_to_the_full_edition():
    """The reader-facing docstrings (``course``) say nothing of the full edition, solutions or the answer key."""
    texts = [course.__doc__, course.check.__doc__, course.assignment.__doc__,
             course.variant.__doc__, course.get.__doc__]
    from specdec_course import _assignment
    texts.append(_assignment.__doc__)
    for text in texts:
        for phrase in ("full edition", "solution", "answer key", "instructors", "build-book", "git clone"):
            assert phrase not in (text or "").lower(), phrase


def test_keyed_pools_are_stable_per_row_and_differ_by_key():
    """A student's variant depends on the key and their roster row only (not on how many rows follow)."""
    a, b = CourseKey(b"a" * 32), CourseKey(b"b" * 32)
    exercise = REGISTRY["expected-tokens-1"]
    first = [keyed_inputs(exercise, a, i) for i in range(5)]
    assert [keyed_inputs(exercise, a, i) for i in range(5)] == first
    others = [keyed_inputs(exercise, b, i) for i in range(5)]
    assert first != others
    assert all(dict(p) != dict(exercise.params) for p in first)
    assert np.all([exercise.reference(p) > 0 for p in first])


def test_copies_of_the_key_beside_it_are_hidden_from_notebooks(tmp_path):
    """The key scanner (``tests/test_grading_hostile.py``) found an editor's backup ``course.key~`` beside the key.
    The grader hides the key's whole folder; when a notebook needs that folder (the key kept in the repository's
    top folder, say), it hides every small file in it that holds the key's digits, and nothing else."""
    from specdec_course._grade_worker import hideable, key_copies

    key = CourseKey.create(tmp_path / "course.key")
    (tmp_path / "course.key~").write_text((tmp_path / "course.key").read_text())
    (tmp_path / "notes.txt").write_text("homework 1 is due on Friday\n")
    (tmp_path / "backup.txt").write_text("the key, in case: " + bytes(key._secret).hex().upper() + "\n")
    assert key_copies(key) == [str(tmp_path.resolve())]
    needed = tmp_path / "venv"                      # pretend the kernel needs something inside the folder
    assert hideable([tmp_path], keep=[needed]) == []
    assert sorted(key_copies(key, keep=[needed])) == sorted(str((tmp_path / n).resolve()) for n in
                                                            ("course.key", "course.key~", "backup.txt"))
    assert key_copies(CourseKey(os.urandom(32))) == []   # a key read from no file
