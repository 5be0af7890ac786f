"""The package as a user installs it: a fresh virtual environment, ``pip install <repo>`` with no extras.

Checks that the core formulas, ``decide`` and the command line work with numpy alone, that the book's
dependencies (matplotlib, sympy, ipywidgets) are not installed, that the distribution is named
``specdec-costed`` (PyPI's ``specdec`` is an unrelated package), that the console script exists, and that
there is one version number (``specdec.__version__``, which ``pyproject.toml`` reads and the CHANGELOG's
latest release names). The course tooling is a second distribution, ``specdec-course`` (``course/``): the
runtime wheel holds none of it, the course wheel holds the framework and the chapters' exercises, and the two
installed together check an answer and number the exercises as the book does.

The repository's package files (``pyproject.toml``, ``README.md``, ``specdec/``) are copied to a temporary
directory and built there into a wheel (pip builds in the source tree, and building in the repository would
leave a ``build/`` directory in it), which the fresh venv installs: the two steps of ``pip install <folder>``.
Build isolation stays on (setuptools comes from the pip cache or PyPI), as a user's ``pip install`` does.
Takes about 18 s alone: one fresh venv, made without its own pip and filled by the test environment's
(``pip --python``); the course test installs into a copy of it.
"""

from __future__ import annotations

import ast
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def repo_version() -> str:
    """``specdec.__version__`` as written in ``specdec/__init__.py`` (read, not imported)."""
    tree = ast.parse((ROOT / "specdec" / "__init__.py").read_text())
    found = [node.value.value for node in tree.body if isinstance(node, ast.Assign)
             and [getattr(t, "id", None) for t in node.targets] == ["__version__"]]
    assert len(found) == 1, found
    return found[0]


def test_one_version_number():
    """pyproject.toml writes no version of its own: setuptools reads specdec.__version__; the CHANGELOG agrees."""
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in config["project"] and "version" in config["project"]["dynamic"]
    assert config["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "specdec.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", repo_version())
    releases = re.findall(r"^## \[(\d+\.\d+\.\d+)\]", (ROOT / "CHANGELOG.md").read_text(), flags=re.M)
    assert releases and releases[0] == repo_version(), releases


def test_one_version_number_for_the_course():
    """course/pyproject.toml reads specdec_course.__version__ and depends on the runtime distribution."""
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads((ROOT / "course" / "pyproject.toml").read_text())
    assert config["project"]["name"] == "specdec-course"
    assert "version" not in config["project"] and "version" in config["project"]["dynamic"]
    assert config["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "specdec_course.__version__"}
    assert any(re.match(r"specdec-costed\b", dep) for dep in config["project"]["dependencies"])
    root = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert config["project"]["license"] == root["project"]["license"]
    tree = ast.parse((ROOT / "course" / "specdec_course" / "__init__.py").read_text())
    found = [node.value.value for node in tree.body if isinstance(node, ast.Assign)
             and [getattr(t, "id", None) for t in node.targets] == ["__version__"]]
    assert len(found) == 1 and re.fullmatch(r"\d+\.\d+\.\d+", found[0]), found


def _clean_env() -> dict:
    return {key: v for key, v in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV", "PIP_REQUIRE_VIRTUALENV")}


@pytest.fixture(scope="module")
def wheels(tmp_path_factory):
    """The two wheels, built from copies of their package files: ``{"runtime": path, "course": path}``."""
    base = tmp_path_factory.mktemp("wheels")
    runtime, course = base / "runtime", base / "course"
    runtime.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, runtime / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "specdec", runtime / "specdec", ignore=ignore)
    shutil.copytree(ROOT / "course", course, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "build", "*.egg-info"))
    out = base / "dist"
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--disable-pip-version-check",
                           "-w", str(out), str(runtime), str(course)], capture_output=True, text=True,
                          env=_clean_env(), timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    found = {w.name.split("-")[0]: w for w in out.glob("*.whl")}
    return {"runtime": found["specdec_costed"], "course": found["specdec_course"], "dist": out, "base": base}


def test_runtime_wheel_holds_no_course_tooling(wheels):
    """The runtime wheel: specdec's modules, no exercise framework, no chapters' exercises."""
    import zipfile

    names = zipfile.ZipFile(wheels["runtime"]).namelist()
    assert "specdec/__init__.py" in names and "specdec/roofline/hardware.py" in names
    assert not [n for n in names if n.startswith(("specdec_course/", "specdec/exercises/"))]
    assert not [n for n in names if re.search(r"/(p\d|start)_[a-z_]+\.py$", n)]


def test_course_wheel_holds_the_framework_and_the_exercises(wheels):
    """The course wheel: the framework, the bank of exercises, its numbering data; it needs specdec-costed."""
    import zipfile

    wheel = zipfile.ZipFile(wheels["course"])
    names = wheel.namelist()
    for needed in ("specdec_course/_book.json", "specdec_course/__init__.py", "specdec_course/__main__.py", "specdec_course/_core.py",
                   "specdec_course/_grade.py", "specdec_course/_grade_worker.py", "specdec_course/instructors.py",
                   "specdec_course/bank/__init__.py", "specdec_course/bank/p1_expected_tokens.py"):
        assert needed in names, needed
    assert not [n for n in names if n.startswith("specdec/")]
    metadata = wheel.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert re.search(r"^Requires-Dist: specdec-costed\b", metadata, re.M), metadata


def test_the_two_wheels_installed_check_an_answer(fresh_venv, wheels):
    """Installed from the two wheels (no repository beside them), the course package checks an answer and
    numbers the exercises as the book does.

    The venv is a copy of the runtime's fresh venv, with the course wheel installed into it: ``pip install`` of the
    runtime wheel, then of the course wheel (pip finds its requirements installed). The copy leaves the runtime's
    venv without the course for the other tests, and saves a second venv and its numpy."""
    env_dir = wheels["base"] / "venv"
    shutil.copytree(fresh_venv[0], env_dir, symlinks=True)   # bin/python finds its pyvenv.cfg beside it
    python = env_dir / "bin" / "python"
    done = _pip_install(python, wheels["course"])
    assert done.returncode == 0, done.stdout + done.stderr
    code = ("import json, specdec_course as course; r = course.check('expected-tokens-1', 3.29); "
            "info = course.get('verification-pass-2'); "
            "print(json.dumps({'passed': r.passed, 'file': course.__file__, 'labels': len(course.labels()), "
            "'number': info.number, 'chapter': info.chapter}))")
    done = subprocess.run([str(python), "-c", code], capture_output=True, text=True, env=_clean_env(),
                          cwd=wheels["base"], timeout=300)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["passed"] is True and found["labels"] > 50, found
    assert found["file"].startswith(str(env_dir)) and "site-packages" in found["file"], found  # the copy's own
    assert found["number"] == "6.2" and found["chapter"].startswith("Chapter 6. "), found  # the shipped numbering


def _pip_install(python: pathlib.Path, wheel: pathlib.Path) -> subprocess.CompletedProcess:
    """``pip install <wheel>`` into the venv of ``python``, by the test environment's pip (``pip --python``): the
    venv is made without its own pip (``ensurepip`` took 6 s of the 10 s a venv took), which nothing here uses."""
    return subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q",
                           "--disable-pip-version-check", str(wheel)], capture_output=True, text=True,
                          env=_clean_env(), timeout=900)


@pytest.fixture(scope="module")
def fresh_venv(wheels):
    """A new venv with the runtime distribution installed, no extras: the wheel ``pip wheel`` built from a copy of
    the package files (the build ``pip install <folder>`` runs before it installs)."""
    base = wheels["base"] / "packaging"
    base.mkdir()
    env_dir = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True, timeout=300)
    python = env_dir / "bin" / "python"
    done = _pip_install(python, wheels["runtime"])
    assert done.returncode == 0, done.stdout + done.stderr
    return env_dir, python, _clean_env(), base


def run_in(fresh_venv, *args, executable=None):
    env_dir, python, env, base = fresh_venv
    command = [str(executable or python), *args]
    # cwd outside the repository, so that `import specdec` can only find the installed copy
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=base, timeout=300)


def test_fresh_install_runs_decide_from_the_command_line(fresh_venv):
    """``python -m specdec decide`` from the fresh venv: exit 0 and the worked example's figures."""
    done = run_in(fresh_venv, "-m", "specdec", "decide", "--t0", "12ms", "--t-draft-step", "1.1ms", "--t-verify",
                  "14ms", "--k", "4", "--mean-acceptance-length", "3.1", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert round(data["alpha"], 3) == 0.758
    assert abs(data["speedup"] - 12 * 3.1 / (4 * 1.1 + 14)) <= 1e-11 * data["speedup"]
    assert data["verdict"] == "speculate"


def test_fresh_install_has_no_book_dependencies(fresh_venv):
    """matplotlib, sympy and ipywidgets are not importable, nor the course tooling; numpy is; specdec comes from
    site-packages."""
    code = ("import importlib.util, json, specdec; "
            "print(json.dumps({m: importlib.util.find_spec(m) is not None for m in "
            "('matplotlib', 'sympy', 'ipywidgets', 'numpy', 'specdec_course')} | {'file': specdec.__file__}))")
    done = run_in(fresh_venv, "-c", code)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["numpy"] is True
    assert found["matplotlib"] is False and found["sympy"] is False and found["ipywidgets"] is False
    assert found["specdec_course"] is False
    assert "site-packages" in found["file"]


def test_fresh_install_core_formulas_and_decide_api(fresh_venv):
    """The core formulas and sd.decide's module work with numpy alone."""
    code = ("import specdec as sd; from specdec.decision import decide; "
            "d = decide(t0='20ms', t_draft_step='0.8ms', t_verify='23ms', k=3, mean_acceptance_length=2.6); "
            "print(sd.expected_tokens(0.5, 2), sd.speedup(0.8, 5, 5.2, 2.5, 6.0, 0.5), d.speedup)")
    done = run_in(fresh_venv, "-c", code)
    assert done.returncode == 0, done.stderr
    e_l, s, s_decide = map(float, done.stdout.split())
    assert e_l == 1.75
    assert abs(s - 5.2 * (1 + 0.8 + 0.64 + 0.512 + 0.4096 + 0.32768) / 9.0) <= 1e-14 * s
    assert abs(s_decide - 20 * 2.6 / 25.4) <= 1e-14 * s_decide


def test_distribution_name_and_console_script(fresh_venv):
    """The distribution is specdec-costed; the specdec console script answers --version and decide."""
    env_dir = fresh_venv[0]
    done = run_in(fresh_venv, "-c", "import importlib.metadata as m, specdec; "
                                    "print(m.version('specdec-costed'), specdec.__version__)")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [repo_version(), repo_version()]
    for name in ("specdec", "specdec-costed"):
        script = env_dir / "bin" / name
        assert script.exists()
        done = run_in(fresh_venv, "decide", "--t0", "10ms", "--t-draft-round", "2ms", "--t-verify", "11ms",
                      "--k", "4", "--draft-acceptance-rate", "40%", executable=script)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("Verdict: ")
        done = run_in(fresh_venv, "--version", executable=script)
        assert done.returncode == 0 and done.stdout.split() == ["specdec", repo_version()], done.stdout + done.stderr
