"""Run one submitted notebook for the grader (``python -m specdec_course._grade_worker``).

The grader (``_grade.py``) starts this module once per notebook, normally as
the first process (pid 1) of a fresh PID namespace (``unshare --pid``), in
the notebook's own temporary folder, and writes its settings to this
process's standard input (never on the command line or in a file, where the
notebook could read them). It then

* inside a PID namespace, makes every mount read-only except the
  notebook's own folder (and a private ``/dev/shm``), then drops every
  capability (the bounding set too, with ``no_new_privs``), so a notebook
  run by root can change no file outside its folder, cannot undo the
  mounts and cannot see or signal a process outside its namespace; and
  makes itself non-dumpable (the kernel cannot read its memory or its file
  descriptors);
* (``key_copies`` and ``hideable`` compute, in the grader, what it hides:
  the course key's folder, or the files in it that hold the key, and never
  what the kernel needs);
* executes the notebook top to bottom in a fresh ``python3`` kernel
  (nbclient), with a time limit for the whole notebook (each cell gets what
  is left of it, at most the per-cell limit), errors allowed, outputs
  counted and dropped, and optionally a limit on the kernel's address space;
* passes the write end of the grader's pipe to the kernel, so that every
  ``course.check`` call is sent to the grader (``_channel``);
* after the last cell (or after stopping an endless one), runs the grader's
  own cell, which runs checked functions on their hidden cases; a stopped
  kernel that answers nothing on its control channel and stays idle
  (:func:`deaf`: the notebook wrote over its connections) is not given it;
* stops itself ``GRACE`` seconds past the notebook's limit, or past the
  grader's cell's, wherever it waits (a kernel whose sockets the notebook
  wrote over never answers): the kernel is killed and the status says so;
* reports its status over a second pipe of its own, which the kernel does
  not inherit (so a notebook cannot forge it), and, outside a PID namespace, kills
  every process the notebook left behind (it is their "subreaper", so a
  detached process cannot escape it).
"""

from __future__ import annotations

import ctypes
import json
import os
import pathlib
import signal
import sys
import threading
import time

_PR_SET_DUMPABLE = 4
_PR_CAPBSET_DROP = 24
PR_SET_CHILD_SUBREAPER = 36
_PR_SET_NO_NEW_PRIVS = 38
_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
#: Cell errors kept in the status (the count of cells that raised is kept in full).
_MAX_ERRORS = 20
#: Seconds past a limit (the notebook's, then the grader's cell's) after which the worker stops itself, wherever
#: it waits (a kernel whose connections the notebook broke never answers, and a send to it blocks).
GRACE = 5.0
_MS_RDONLY, _MS_REMOUNT, _MS_BIND, _MS_REC, _MS_PRIVATE = 1, 32, 4096, 16384, 1 << 18


def prctl(option: int, value: int) -> bool:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _libc():
    return ctypes.CDLL(None, use_errno=True)


def _mount(source, target, fstype, flags) -> str | None:
    enc = (lambda t: t.encode() if t else None)
    if _libc().mount(enc(source), enc(target), enc(fstype), flags, None) != 0:
        return os.strerror(ctypes.get_errno())
    return None


def _loopback_up() -> bool:
    """Bring up ``lo`` in a fresh network namespace (the kernel talks to its client over 127.0.0.1)."""
    import fcntl
    import socket
    import struct
    siocgifflags, siocsifflags, iff_up = 0x8913, 0x8914, 0x1
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            request = struct.pack("16sH22x", b"lo", 0)
            flags = struct.unpack("16sH22x", fcntl.ioctl(sock, siocgifflags, request))[1]
            fcntl.ioctl(sock, siocsifflags, struct.pack("16sH22x", b"lo", flags | iff_up))
        return True
    except OSError:
        return False


def confine(work: str, hide=()) -> list[str]:
    """The notebook's view of the machine, set up inside its own mount namespace before it starts:

    the paths in ``hide`` (the course key, the roster, the submissions, the grader's output) are covered
    (files by /dev/null, folders by an empty tmpfs), the folder holding every notebook's work folder is
    covered too and only ``work`` is put back, /dev/shm is private, every other mount is read-only, the
    loopback of the (fresh) network namespace is up, and the process then drops every capability.
    Returns what could not be done.
    """
    problems = []
    if _mount(None, "/", None, _MS_REC | _MS_PRIVATE):
        problems.append("mounts not private")
        return problems
    if not _loopback_up():
        problems.append("no loopback")
    keep = {work}
    own = os.open(work, os.O_PATH | os.O_DIRECTORY)
    for path in hide:
        if os.path.isdir(path):
            error = _mount("tmpfs", path, "tmpfs", _MS_RDONLY)
        elif os.path.exists(path):
            error = _mount("/dev/null", path, None, _MS_BIND)
        else:
            continue
        if error:
            problems.append(f"{path} not hidden ({error})")
    parent = os.path.dirname(work)
    if _mount("tmpfs", parent, "tmpfs", 0):
        problems.append("other work folders not hidden")
    else:
        os.makedirs(work, exist_ok=True)
        if _mount(f"/proc/self/fd/{own}", work, None, _MS_BIND):
            problems.append("work folder not bound")
    os.close(own)
    if os.path.isdir("/dev/shm") and not _mount("tmpfs", "/dev/shm", "tmpfs", 0):
        keep.add("/dev/shm")
    points = []
    with open("/proc/self/mountinfo", encoding="utf-8") as handle:
        for line in handle:
            point = line.split()[4].replace("\\040", " ")
            if point not in points:
                points.append(point)
    for point in points:
        if point in keep:
            continue
        error = _mount(None, point, None, _MS_REMOUNT | _MS_BIND | _MS_RDONLY)
        if error and point in ("/", parent):
            problems.append(f"{point} stays writable ({error})")
    drop_capabilities()
    return problems


def drop_capabilities() -> None:
    """Empty the bounding, ambient, effective, permitted and inheritable capability sets; set no_new_privs."""
    libc = _libc()
    for cap in range(64):
        libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0)
    libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)
    data = (ctypes.c_uint32 * 6)()
    libc.capset(ctypes.byref(header), ctypes.byref(data))
    libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)


def key_copies(course_key, keep=()) -> list[str]:
    """Where copies of the course key may lie next to its file: the whole folder when a notebook needs nothing
    in it (copies such as ``course.key~`` or ``course.key.bak`` sit there), else every small file in it that
    holds the key's digits."""
    if not course_key.path:
        return []
    folder = pathlib.Path(course_key.path).resolve().parent
    if hideable([folder], keep):
        return [str(folder)]
    found = []
    try:
        entries = list(folder.iterdir())
    except OSError:
        return found
    for entry in entries:
        try:
            if entry.is_file() and entry.stat().st_size <= 4096 and \
                    course_key.appears_in(entry.read_text(encoding="utf-8", errors="replace")):
                found.append(str(entry))
        except OSError:
            continue
    return found


def hideable(paths, keep=()) -> list[str]:
    """The paths a notebook must not see, except any that holds what its kernel needs (Python, specdec, its
    work folder and the shared matplotlib cache: ``keep``)."""
    needed = [pathlib.Path(__file__).resolve().parents[2], pathlib.Path(sys.prefix).resolve(),
              pathlib.Path(sys.base_prefix).resolve(), pathlib.Path(sys.executable).resolve().parent,
              *(pathlib.Path(k).resolve() for k in keep)]
    try:
        import site
        needed.append(pathlib.Path(site.getusersitepackages()).resolve())   # packages installed with --user
    except (AttributeError, OSError):
        pass
    out = []
    for path in paths:
        path = pathlib.Path(path).resolve()
        if any(path == n or path in n.parents for n in needed):
            continue
        out.append(str(path))
    return out


def _size(msg: dict) -> int:
    content = msg.get("content", {})
    size = len(content.get("text", "") or "")
    for value in (content.get("data") or {}).values():
        size += len(value) if isinstance(value, str) else len(json.dumps(value))
    return size


def children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
            if int(fields[1]) == pid:
                out.append(int(entry))
        except (OSError, IndexError, ValueError):
            continue
    return out


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (its children, theirs, and so on)."""
    found, queue = [], [pid]
    while queue:
        for child in children(queue.pop()):
            found.append(child)
            queue.append(child)
    return found


def kill_descendants(pid: int, rounds: int = 20) -> int:
    """SIGKILL every descendant of ``pid`` (orphans come back to a subreaper, so repeat until none is left)."""
    killed = 0
    for _ in range(rounds):
        found = descendants(pid)
        if not found:
            break
        for child in found:
            try:
                os.kill(child, signal.SIGKILL)
                killed += 1
            except (ProcessLookupError, PermissionError):
                pass
        # reap the killed processes that are the caller's children, and only those (waitpid(-1) would also
        # take the exit status of children the caller started for other reasons); wait for the rest to go
        pending, deadline = set(found), time.monotonic() + 1.0
        while pending and time.monotonic() < deadline:
            for child in list(pending):
                try:
                    if os.waitpid(child, os.WNOHANG) != (0, 0):
                        pending.discard(child)
                except ChildProcessError:
                    if not _alive(child):
                        pending.discard(child)
            if pending:
                time.sleep(0.02)
    return killed


def _cpu_seconds(pid: int) -> float:
    """CPU time (user and system) used so far by the descendants of ``pid`` (the kernel and what it started)."""
    total = 0
    for child in descendants(pid):
        try:
            with open(f"/proc/{child}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])   # utime, stime (fields 14 and 15 of stat)
        except (OSError, IndexError, ValueError):
            continue
    return total / os.sysconf("SC_CLK_TCK")


def deaf(client, wait: float = GRACE) -> bool:
    """Whether a stopped kernel can no longer be reached: it answers no ``kernel_info_request`` on its control
    channel (served by a thread of its own, so a kernel busy in a cell answers it) within ``wait`` seconds,
    and its processes stay idle meanwhile.

    A kernel whose connections a notebook wrote over is idle and never answers; a kernel held in a long C
    call (one that keeps the interpreter's lock, so its control thread cannot answer) uses a core, and is
    given the grader's cell as before.
    """
    import queue

    import zmq
    from nbclient.util import run_sync

    before, start = _cpu_seconds(os.getpid()), time.monotonic()
    msg = client.kc.session.msg("kernel_info_request")
    try:
        client.kc.control_channel.socket.setsockopt(zmq.SNDTIMEO, int(1000 * wait))
        client.kc.control_channel.send(msg)
    except zmq.ZMQError:
        pass   # not even taken: judged by the CPU below
    else:
        get = run_sync(client.kc.control_channel.get_msg)
        while (left := wait - (time.monotonic() - start)) > 0:
            try:
                reply = get(timeout=left)
            except queue.Empty:
                break
            if reply.get("parent_header", {}).get("msg_id") == msg["header"]["msg_id"]:
                return False
    time.sleep(max(0.0, wait - (time.monotonic() - start)))
    return _cpu_seconds(os.getpid()) - before < 0.1 * wait


def _alive(pid: int) -> bool:
    """True while the process exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return False


def main() -> int:
    config = json.loads(sys.stdin.read() or "{}")
    fd = int(config["channel_fd"])
    # the worker's own pipe for its status: not passed to the kernel (which gets only ``fd``)
    status_fd = int(config.get("status_fd", fd))
    status: dict = {"type": "status", "status": "ok", "detail": "", "errors": [], "output_bytes": 0}

    reported = threading.Lock()

    def report(**changes):   # once: by the main thread, or by the watchdog when the limit is past
        if not reported.acquire(blocking=False):
            return
        status.update(changes, final=True)
        data = (json.dumps(status) + "\n").encode("utf-8")
        try:
            os.write(status_fd, data)
        except OSError:
            pass

    home = config["home"]
    if os.getpid() == 1:  # the first process of a fresh PID (and mount) namespace
        problems = confine(home, config.get("hide") or ())
        if problems:
            status["confinement"] = problems
    prctl(_PR_SET_DUMPABLE, 0)
    subreaper = os.getpid() != 1 and prctl(PR_SET_CHILD_SUBREAPER, 1)

    os.environ.update({"HOME": home, "IPYTHONDIR": os.path.join(home, ".ipython"),
                       "MPLCONFIGDIR": config.get("mplconfigdir") or os.path.join(home, ".mpl"), "XDG_CACHE_HOME": os.path.join(home, ".cache"),
                       "JUPYTER_RUNTIME_DIR": os.path.join(home, ".runtime"), "TMPDIR": home,
                       "SPECDEC_GRADE_CHANNEL": str(fd), "PYTHONHASHSEED": "0", "MPLBACKEND": "agg"})
    try:
        import nbformat
        import zmq
        from nbclient import NotebookClient
        from nbclient.exceptions import CellTimeoutError, DeadKernelError
    except ImportError as exc:  # pragma: no cover - the book's environment has them
        report(status="crashed", detail=f"grading needs nbclient and ipykernel ({exc})")
        return 0
    try:
        nb = nbformat.read(config["notebook"], as_version=4)
    except Exception as exc:
        report(status="unreadable", detail=f"not a readable notebook ({type(exc).__name__}: {exc})"[:300])
        return 0

    if int(config.get("memory_limit") or 0) > 0:
        try:
            import resource
            limit = int(config["memory_limit"]) * 2**20
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))  # inherited by the kernel process
        except (ImportError, ValueError, OSError) as exc:
            status["detail"] = f"memory limit not applied ({exc})"

    timeout, cell_timeout = float(config["timeout"]), float(config["cell_timeout"])
    deadline = time.monotonic() + timeout
    started = time.monotonic()

    class GradingClient(NotebookClient):
        """nbclient's executor that keeps no outputs (it counts their size)."""

        def output(self, outs, msg, display_id, cell_index):
            status["output_bytes"] += _size(msg)
            return None

    budget = {"final": False, "stop_at": deadline + GRACE}

    def watchdog():
        while time.monotonic() < budget["stop_at"]:
            time.sleep(min(0.5, max(0.0, budget["stop_at"] - time.monotonic())))
        what = "the grader's last cell got no answer from the kernel" if budget["final"] else \
            f"{timeout:g} s for the notebook"
        if status["status"] == "timeout":
            status["detail"] += f"; {what}"
        else:
            status.update(status="timeout", detail=f"stopped at the time limit ({what})")
        stop_now()

    def stop_now():   # kill the kernel, report, exit: a polite shutdown of a kernel that does not answer waits
        kill_descendants(os.getpid(), rounds=3)
        report(seconds=round(time.monotonic() - started, 3))
        os._exit(0)

    threading.Thread(target=watchdog, name="specdec-grade-watchdog", daemon=True).start()

    def remaining(cell) -> int:
        if budget["final"]:
            return max(1, int(config.get("final_timeout", 60)))
        return max(1, int(min(cell_timeout, deadline - time.monotonic())))

    def on_error(cell=None, cell_index=None, execute_reply=None, **_):
        content = (execute_reply or {}).get("content", {})
        status["n_errors"] = status.get("n_errors", 0) + 1
        if len(status["errors"]) >= _MAX_ERRORS:
            return
        status["errors"].append({"cell": cell_index, "error": f"{content.get('ename', 'Error')}: "
                                                               f"{content.get('evalue', '')}"[:200]})

    client = GradingClient(nb, kernel_name="python3", timeout_func=remaining, allow_errors=True,
                           interrupt_on_timeout=False, resources={"metadata": {"path": home}}, record_timing=False,
                           store_widget_state=False, on_cell_error=on_error,
                           shutdown_kernel="immediate")   # killed: a request to stop may never be taken
    final = nbformat.v4.new_code_cell(config.get("final_code") or "pass")
    try:
        with client.setup_kernel(pass_fds=(fd,), cwd=home):
            # a request the kernel does not take within seconds will not be taken (its sockets were written over)
            client.kc.shell_channel.socket.setsockopt(zmq.SNDTIMEO, int(1000 * GRACE))
            stopped = False
            for index, cell in enumerate(nb.cells):
                if cell.get("cell_type") != "code":
                    continue
                if time.monotonic() >= deadline:
                    status.update(status="timeout", detail=f"stopped at the time limit ({timeout:g} s for the notebook)")
                    stopped = True
                    break
                try:
                    client.execute_cell(cell, index)
                except CellTimeoutError:
                    left = deadline - time.monotonic()
                    what = f"{timeout:g} s for the notebook" if left <= 1 else f"{cell_timeout:g} s for cell {index}"
                    status.update(status="timeout", detail=f"stopped at the time limit ({what})")
                    stopped = True
                    break
            if stopped:  # stop the endless cell, then still run the grader's cell, if the kernel can be reached
                try:
                    from nbclient.util import run_sync
                    run_sync(client.km.interrupt_kernel)()
                    time.sleep(1.0)
                except Exception:
                    pass
                budget["stop_at"] = max(budget["stop_at"], time.monotonic() + 2 * GRACE)   # the probe's own time
                if deaf(client):
                    status["detail"] += "; the kernel no longer answered (its connections were written over), " \
                                        "so the grader's last cell was not run"
                    stop_now()
            budget["final"] = True
            budget["stop_at"] = time.monotonic() + max(1, int(config.get("final_timeout", 60))) + GRACE
            nb.cells.append(final)
            try:
                client.execute_cell(final, len(nb.cells) - 1)
            except (CellTimeoutError, zmq.Again) as exc:   # zmq.Again: the kernel no longer takes requests
                status["detail"] = (status["detail"] + "; " if status["detail"] else "") + \
                    ("the grader's last cell timed out" if isinstance(exc, CellTimeoutError) else
                     "the kernel took no request for the grader's last cell")
    except DeadKernelError:
        status.update(status="crashed", detail="the kernel died (out of memory, or the notebook killed it)")
    except Exception as exc:
        status.update(status="crashed", detail=f"{type(exc).__name__}: {exc}"[:300])
    else:
        if status["status"] == "ok" and status["errors"]:
            status.update(status="errors", detail=f"{status.get('n_errors', 0)} cell(s) raised an error")
    if subreaper:
        kill_descendants(os.getpid())
    report(seconds=round(time.monotonic() - started, 3), final=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
