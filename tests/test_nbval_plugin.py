"""tests/nbval_inline.py's kernel start: a kernel that dies while it starts is started once more, and only then."""

from __future__ import annotations

import nbval.kernel
import nbval_inline
import pytest


def _starter(deaths, message=nbval_inline.DIED_AT_START):
    """A stand-in for nbval's start_new_kernel that fails ``deaths`` times with ``message``, then starts."""
    calls = []

    def start(*args, **kwargs):
        calls.append((args, kwargs))
        if len(calls) <= deaths:
            raise RuntimeError(message)
        return "manager", "client"

    return start, calls


def test_a_kernel_that_dies_while_it_starts_is_started_once_more(capsys):
    start, calls = _starter(1)
    assert nbval_inline._start_with_one_retry(start)(kernel_name="python3", cwd="/tmp") == ("manager", "client")
    assert calls == [((), {"kernel_name": "python3", "cwd": "/tmp"})] * 2     # the same arguments again
    assert "starting the kernel once more" in capsys.readouterr().err


def test_a_second_death_or_another_error_fails_as_before():
    start, calls = _starter(2)
    with pytest.raises(RuntimeError, match="died before replying"):
        nbval_inline._start_with_one_retry(start)()
    assert len(calls) == 2
    start, calls = _starter(1, message="No such kernel named python9")
    with pytest.raises(RuntimeError, match="python9"):
        nbval_inline._start_with_one_retry(start)()
    assert len(calls) == 1


def test_the_plugin_puts_the_retry_where_nbval_starts_its_kernels():
    nbval_inline.install()                          # idempotent: pytest_configure already ran it
    assert nbval.kernel.start_new_kernel.__module__ == "nbval_inline"
    assert nbval.kernel.start_new_kernel.__qualname__.startswith("_start_with_one_retry")
