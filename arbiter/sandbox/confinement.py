"""Confining an isolated bot's process: its own PID and user namespaces, no inherited descriptors, no survivors.

`confine` runs in the process the arbiter forked for a bot, before any bot code, and leaves
four processes (Linux, where the kernel lets us create namespaces)::

    arbiter ── supervisor ── init (PID 1 of a new PID namespace) ── parent (PID 2) ── bot (PID 3)
                             (the init, the parent and the bot in their own user namespace)

* **The bot cannot signal the arbiter, its opponent or anything else outside.** A process
  in a PID namespace can name only the processes inside it: ``kill(-1)``, ``kill(0)`` and
  every PID reach only the bot's own processes. The init ignores signals sent from inside
  (the kernel protects a namespace's init), so the bot's parent is an ordinary process
  between the two: killing it (``os.kill(os.getppid(), SIGKILL)``) ends the namespace, and
  the supervisor exits with `PARENT_KILLED_EXIT` plus the signal, which the arbiter names.
* **It cannot trace or write into the arbiter or the supervisor.** The init moves into a new
  user namespace before it forks the bot; the bot holds capabilities there and none outside,
  so ``/proc/<pid>/mem`` of a process outside (which needs no PID from its namespace),
  ``ptrace`` and privileged system calls outside are refused, even when the arbiter runs as
  root. The supervisor stays outside that namespace (unprivileged, it needs one of its own
  to create the PID namespace; the bot's is then nested in it).
* **Every process the bot starts ends with its game.** When the init dies the kernel kills
  every process left in the namespace, double-forked daemons included. The supervisor
  kills the init when the arbiter asks (SIGTERM) or dies (``PR_SET_PDEATHSIG``); the init dies
  with the supervisor, and both with the arbiter. Asked, it first counts the processes the
  init adopted (a daemon that left the bot's tree) and exits with `STRAYS_EXIT` plus that
  count, so that the arbiter records the bot's fault.
* **It holds nothing of the arbiter's.** Every descriptor but its pipe and stdin/out/err is
  closed (the opponent's pipe, a results database the arbiter has open).

What it does not do: the bot keeps the arbiter's uid for files (the user namespace maps it
to itself where the kernel allows, and the ids outside decide access either way), so it can
read and write whatever that uid may, root's files under a root arbiter included; it shares
the file system, the network and the machine's CPUs.

Where namespaces are refused (not Linux, ``unshare`` blocked by a container's seccomp profile,
unprivileged user namespaces switched off), a root arbiter still gets a PID namespace alone
(the bot, still root with every capability, could then reach the arbiter through ``/proc``);
otherwise the bot runs in its own session, killed with its process group at the end of the
game: it can then signal the arbiter, and a process it starts in a session of its own
survives it. `confine` returns which of these it got, and docs/isolation.md lists what each
guarantees.

The bot is not switched to an unprivileged user such as ``nobody``: that user must be able to
read the interpreter and every module the bot imports late, which fails where Python lives
under a private home (``/root``, mode 0700, on our machines); the user namespace gives the
same protection of the arbiter without that.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import select
import signal
import sys
from collections.abc import Collection
from typing import Any, NoReturn

NAMESPACES = "pid+user namespaces"
"""The bot has its own PID and user namespaces (the full confinement above)."""
PID_NAMESPACE = "pid namespace"
"""The bot has its own PID namespace only (a root arbiter where user namespaces are refused)."""
SESSION = "session"
"""The bot only has its own session and process group (no namespace could be created)."""

PARENT_KILLED_EXIT = 192
"""The supervisor's exit code, plus the signal's number, when the bot's parent process was killed (by the bot)."""
STRAYS_EXIT = 64
"""The supervisor's exit code when the arbiter stops it, plus how many processes the bot left running (`_strays`, at most 63)."""

_CLONE_NEWUSER = 0x10000000
_CLONE_NEWPID = 0x20000000
_PR_SET_PDEATHSIG = 1
"""prctl(2)'s option: the signal a process gets when its parent dies (Linux)."""


def _libc() -> Any:
    return ctypes.CDLL(None, use_errno=True)


def die_with_parent(parent_pid: int) -> None:
    """Linux: have the kernel SIGKILL this process when its parent (`parent_pid`) dies.

    Why: a process busy computing never reads its pipe, so it would outlive a parent killed
    with SIGKILL, holding the terminal's pipes open. Exits at once if the parent is already
    gone (it died before the request was made). Elsewhere it does nothing.
    """
    if not sys.platform.startswith("linux"):
        return
    try:
        _libc().prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent_pid:
        os._exit(1)


def confine(parent_pid: int, keep: Collection[int]) -> str:
    """Confine this process's bot (see the module docstring); returns only in the process that will run it.

    Args:
        parent_pid: the arbiter's pid (this process dies with it).
        keep: descriptors the bot keeps besides 0, 1 and 2 (its pipe to the arbiter).

    Returns:
        `NAMESPACES`, `PID_NAMESPACE` or `SESSION`: what holds the bot.
    """
    die_with_parent(parent_pid)
    pid_namespace = sys.platform.startswith("linux") and _unshare_pid()
    status_r, status_w = os.pipe()  # init -> supervisor: the bot's wait status
    lifeline_r, _held = os.pipe()  # the supervisor holds the write end: the read end sees EOF once it is gone
    child = os.fork()
    if child:  # the supervisor keeps its descriptors (the pipe sentinel multiprocessing waits on): no bot can reach it
        os.close(status_w)
        os.close(lifeline_r)
        _supervise(child, status_r, pid_namespace)
    _close_all_except({0, 1, 2, status_w, lifeline_r, *keep})
    _die_with_supervisor(lifeline_r)
    level = SESSION
    if pid_namespace:  # this process is the namespace's init: it forks the bot's parent and reaps
        level = NAMESPACES if _unshare_user() else PID_NAMESPACE
        bots_parent = os.fork()
        if bots_parent:
            _close_all_except({2, status_w})
            _reap(bots_parent, status_w)
        # this process is the bot's parent: an ordinary one, so that killing it ends the game (the init would ignore it)
        parent = os.getpid()
        bot = os.fork()
        if bot:
            _close_all_except({2, status_w})
            _report(bot, status_w)
        die_with_parent(parent)  # at once, not when the init has ended the namespace: the bot answers no more
    os.setsid()  # its own session and process group: a Ctrl-C or kill(0) from it reaches only its own
    _close_all_except({0, 1, 2, *keep})
    return level


def _unshare_pid() -> bool:
    """Put this process's future children in a new PID namespace (a user namespace first, when not root).

    Unprivileged, the new user namespace is what allows the PID namespace; this process then
    lives in it, which is why the bot gets a user namespace of its own below (see `_unshare_user`).
    """
    if os.geteuid() == 0:
        return bool(_libc().unshare(_CLONE_NEWPID) == 0)
    return _unshare_user(_CLONE_NEWPID)


def _unshare_user(more: int = 0) -> bool:
    """Move this process (and its future children) into a new user namespace (and the namespaces `more` names).

    The bot then holds no capability over any process outside it: not the arbiter, not the
    supervisor (which stays in the user namespace it was in), so it can neither trace them nor
    open their ``/proc/<pid>/mem``, which needs no PID from its namespace.
    """
    uid, gid = os.geteuid(), os.getegid()
    if _libc().unshare(_CLONE_NEWUSER | more) != 0:
        return False
    # Map our own ids to themselves: files then show their owners inside, and a user namespace
    # can be nested in this one (that needs the creator's ids mapped). Where the kernel refuses
    # (mapping root needs CAP_SETFCAP outside), the ids read as the overflow id (65534) inside,
    # and file access, decided by the ids outside, is unchanged.
    with contextlib.suppress(OSError):
        for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
            with open(f"/proc/self/{name}", "w") as file:
                file.write(text)
    return True


def _close_all_except(keep: Collection[int]) -> None:
    """Close every descriptor of this process but `keep`."""
    low = 0
    for fd in sorted(keep):
        if fd > low:  # closerange(n, n) would close everything from n up (CPython asks close_range for n..-1)
            os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, os.sysconf("SC_OPEN_MAX") if hasattr(os, "sysconf") else 65536)


def _die_with_supervisor(lifeline: int) -> None:
    """In the supervisor's child: die with it; exit now if it is gone already (its end of `lifeline` closed).

    ``os.getppid()`` cannot tell: a namespace's init sees its parent as 0.
    """
    with contextlib.suppress(OSError, AttributeError):
        _libc().prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if select.select([lifeline], [], [], 0)[0]:
        os._exit(1)


def _supervise(child: int, status_r: int, namespaced: bool) -> NoReturn:
    """The supervisor: wait for `child` (the init, or the bot itself) and exit as the bot did.

    SIGTERM (the arbiter's `close`) kills the child: with a namespace, the kernel then kills
    everything in it before the child can be reaped; without, the bot's process group is killed.
    """

    def stop(signum: int, frame: Any) -> None:
        strays = _strays(child) if namespaced else 0
        for kill in (os.kill, os.killpg):
            with contextlib.suppress(OSError):
                kill(child, signal.SIGKILL)
        os.waitpid(child, 0)
        os._exit(STRAYS_EXIT + min(strays, 63) if strays else 128 + signal.SIGTERM)

    signal.signal(signal.SIGTERM, stop)
    _, status = os.waitpid(child, 0)
    reported = os.read(status_r, 32) if namespaced else b""
    if reported[:1] == b"p" and reported[1:].isdigit():
        os._exit(PARENT_KILLED_EXIT + min(int(reported[1:]), 63))
    if reported.isdigit():
        status = int(reported)
    if not namespaced:
        with contextlib.suppress(OSError):
            os.killpg(child, signal.SIGKILL)  # what the bot started in its group ends with it
    _exit_as(status)


def _strays(init: int) -> int:
    """How many processes the namespace's `init` has adopted: what the bot left running outside its own tree.

    Its children are the bot's parent and every orphan (a double-forked daemon); the bot's own
    children (a chess engine, a worker pool) are the bot's and are not counted. 0 where the
    kernel does not list children (``/proc/<pid>/task/<tid>/children``).
    """
    try:
        with open(f"/proc/{init}/task/{init}/children") as file:
            return max(len(file.read().split()) - 1, 0)
    except OSError:
        return 0


def _reap(parent: int, status_w: int) -> NoReturn:
    """The namespace's init: reap every orphan until the bot's parent ends, and end (killing the rest).

    The parent reports the bot's status itself (`_report`); killed before it could, the init
    reports ``p<signal>`` instead, which the supervisor turns into `PARENT_KILLED_EXIT`.
    """
    while True:
        pid, status = os.wait()
        if pid == parent:
            if os.WIFSIGNALED(status):
                os.write(status_w, f"p{os.WTERMSIG(status)}".encode())
            os._exit(0)


def _report(bot: int, status_w: int) -> NoReturn:
    """The bot's parent: wait for the bot and report its wait status to the supervisor."""
    _, status = os.waitpid(bot, 0)
    os.write(status_w, str(status).encode())
    os._exit(0)


def _exit_as(status: int) -> NoReturn:
    """Exit with the wait `status` of another process: its exit code, or killed by its signal (no core file)."""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if number not in (signal.SIGKILL, signal.SIGSTOP):
            signal.signal(number, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, [number])
        os.kill(os.getpid(), number)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)
