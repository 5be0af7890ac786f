"""The package as a user installs it: a fresh virtual environment, ``pip install <repo>`` with no extras.

Checks that the core formulas, ``decide`` and the command line work with numpy alone, that the book's
dependencies (matplotlib, sympy, ipywidgets) are not installed, that the distribution is named
``specdec-costed`` (PyPI's ``specdec`` is an unrelated package), that the console script exists, and that
there is one version number (``specdec.__version__``, which ``pyproject.toml`` reads and the CHANGELOG's
latest release names).

The repository's package files (``pyproject.toml``, ``README.md``, ``specdec/``) are copied to a temporary
directory and installed from there: pip builds in the source tree, and building in the repository would leave
a ``build/`` directory in it. Build isolation stays on (setuptools comes from the pip cache or PyPI), as a
user's ``pip install`` does. Takes about a minute.
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


@pytest.fixture(scope="module")
def fresh_venv(tmp_path_factory):
    """A new venv with the repository installed from a copy of its package files, no extras."""
    base = tmp_path_factory.mktemp("packaging")
    source = base / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    shutil.copytree(ROOT / "specdec", source / "specdec",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    env_dir = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(env_dir)], check=True, timeout=300)
    python = env_dir / "bin" / "python"
    env = {key: v for key, v in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV", "PIP_REQUIRE_VIRTUALENV")}
    done = subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(source)],
                          capture_output=True, text=True, env=env, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    return env_dir, python, env, base


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
    """matplotlib, sympy and ipywidgets are not importable; numpy is; specdec comes from site-packages."""
    code = ("import importlib.util, json, specdec; "
            "print(json.dumps({m: importlib.util.find_spec(m) is not None for m in "
            "('matplotlib', 'sympy', 'ipywidgets', 'numpy')} | {'file': specdec.__file__}))")
    done = run_in(fresh_venv, "-c", code)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["numpy"] is True
    assert found["matplotlib"] is False and found["sympy"] is False and found["ipywidgets"] is False
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
