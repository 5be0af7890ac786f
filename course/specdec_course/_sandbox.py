"""Run a reader's function on test cases with a time limit.

A function that never returns must not hang ``course.check``. Where
the operating system can fork cheaply and safely (Linux and other POSIX
systems except macOS), the reader's function runs in a **forked child
process**: the parent waits at most the time limit, then kills the child, so
the check returns on time whatever the function does (an infinite loop, a
long C call, ``os._exit``, a crash), and the function cannot change anything
in the reader's session. Elsewhere (Windows, macOS, where forking a process
that has loaded system frameworks is unsafe) it runs in a **daemon thread**:
the check still returns after the time limit, but the function keeps running
in the background until the interpreter exits (the message says so).

``MODE`` says which of the two is used; tests may set it.
"""

from __future__ import annotations

import copy
import io
import os
import pickle
import re
import select
import signal
import struct
import sys
import threading
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Outcome", "run_calls", "MODE"]

#: "fork" where a forked child process is used, "thread" elsewhere.
MODE = "fork" if hasattr(os, "fork") and sys.platform not in ("darwin", "win32", "cygwin", "emscripten", "wasi") else "thread"

_MAX_RESULT_BYTES = 32 * 2**20
_MAX_PRINTED = 4000


@dataclass(frozen=True)
class Outcome:
    """What one call of the reader's function did.

    ``status`` is ``"ok"`` (``value`` holds the result), ``"raised"``
    (``error`` describes the exception), ``"timeout"`` (stopped at the time
    limit), ``"crashed"`` (the process running it died) or ``"unusable"``
    (a result that cannot be compared, e.g. too large).
    """

    status: str
    value: Any = None
    error: str = ""


def exception_text(exc: BaseException) -> str:
    """ "TypeError: message" on one line, without memory addresses."""
    message = " ".join(str(exc).split())
    message = re.sub(r" at 0x[0-9a-fA-F]+", "", message)
    if len(message) > 160:
        message = message[:157] + "..."
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def _call_one(function: Callable, args: tuple) -> Outcome:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with np.errstate(all="ignore"):
                return Outcome("ok", function(*args))
    except Exception as exc:  # the reader's code may raise anything
        return Outcome("raised", error=exception_text(exc))
    except SystemExit as exc:
        return Outcome("raised", error=f"SystemExit: {exc.code}")


class _CappedText(io.StringIO):
    def write(self, text):
        if self.tell() < _MAX_PRINTED:
            super().write(str(text)[: _MAX_PRINTED - self.tell()])
        return len(text)


def _send(fd: int, payload: Any) -> None:
    data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
    frame = struct.pack("!Q", len(data)) + data
    view = memoryview(frame)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _child(function: Callable, cases: list[tuple], fd: int) -> None:
    printed = _CappedText()
    sys.stdout = sys.stderr = printed
    for case in cases:
        outcome = _call_one(function, case)
        if outcome.status == "ok":
            try:
                data = pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)
                if len(data) > _MAX_RESULT_BYTES:
                    outcome = Outcome("unusable", error="the result is too large to compare")
            except Exception:
                outcome = Outcome("unusable", error=f"the result ({type(outcome.value).__name__}) cannot be compared")
        _send(fd, outcome)
    _send(fd, ("printed", printed.getvalue()))


def _run_forked(function: Callable, cases: list[tuple], time_limit: float) -> tuple[list[Outcome], str]:
    read_fd, write_fd = os.pipe()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # "process is multi-threaded" (a Jupyter kernel)
        pid = os.fork()
    if pid == 0:  # the child: run, report, and leave without any cleanup of the parent's state
        code = 0
        try:
            os.close(read_fd)
            _child(function, cases, write_fd)
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    os.close(write_fd)
    outcomes: list[Outcome] = []
    printed = ""
    buffer = bytearray()
    deadline = time.monotonic() + time_limit
    finished = timed_out = False
    try:
        while not finished:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = True
                break
            ready, _, _ = select.select([read_fd], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(read_fd, 1 << 16)
            if not chunk:
                break  # the child exited (normally or not)
            buffer += chunk
            while len(buffer) >= 8:
                (size,) = struct.unpack("!Q", buffer[:8])
                if len(buffer) < 8 + size:
                    break
                item = pickle.loads(bytes(buffer[8: 8 + size]))
                del buffer[: 8 + size]
                if isinstance(item, tuple) and item and item[0] == "printed":
                    printed, finished = item[1], True
                else:
                    outcomes.append(item)
    finally:
        if not finished:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            _, status = os.waitpid(pid, 0)
        except ChildProcessError:
            status = 0
        os.close(read_fd)
    if timed_out:
        outcomes.append(Outcome("timeout"))
    elif not finished and len(outcomes) < len(cases):
        how = f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else f"exit code {os.WEXITSTATUS(status)}"
        outcomes.append(Outcome("crashed", error=f"the process running your function stopped ({how})"))
    return outcomes, printed


def _run_threaded(function: Callable, cases: list[tuple], time_limit: float) -> tuple[list[Outcome], str]:
    outcomes: list[Outcome] = []

    def work():
        for case in cases:
            try:
                case = copy.deepcopy(case)
            except Exception:
                pass
            outcomes.append(_call_one(function, case))

    worker = threading.Thread(target=work, name="specdec-exercise-check", daemon=True)
    worker.start()
    worker.join(time_limit)
    done = list(outcomes)
    if worker.is_alive():
        done = done[: len(cases)] + [Outcome("timeout", error="still running in the background")]
    return done, ""


def run_calls(function: Callable, cases: list[tuple], time_limit: float, mode: str | None = None
              ) -> tuple[list[Outcome], str]:
    """Call ``function(*case)`` for each case, all within ``time_limit`` seconds.

    Returns the outcomes of the calls made (the last one is ``"timeout"`` or
    ``"crashed"`` when the run stopped early) and what the function printed
    (forked mode only; at most a few thousand characters).
    """
    mode = mode or MODE
    if mode == "fork":
        return _run_forked(function, cases, time_limit)
    return _run_threaded(function, cases, time_limit)
