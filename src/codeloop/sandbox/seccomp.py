"""The seccomp filter every sandboxed program runs under (both bwrap recipes).

Built with libseccomp (through pyseccomp's ctypes binding) and handed to bwrap's --seccomp FD
as BPF. Everything is allowed except kernel interfaces a test run never needs and that are
the usual ways out of a container or into the kernel's less-audited code:

* namespaces: unshare, setns, clone with any CLONE_NEW* flag (EPERM); clone3 reports ENOSYS
  (its flags sit behind a pointer the filter cannot read; libc then falls back to clone).
  As root, bwrap runs without a user namespace, so this takes the place of --disable-userns.
* io_uring, the kernel keyring, bpf, perf_event_open, userfaultfd, ptrace and cross-process
  memory access, module loading, kexec, mount and the new mount API, swap.

Foreign ABIs (x32, i386 via int 0x80) are killed: nothing legitimate uses one here.
"""

from __future__ import annotations

import errno
import functools
import tempfile

from codeloop.sandbox.types import SandboxUnavailable

DENIED = (
    "unshare", "setns",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    "keyctl", "add_key", "request_key",
    "bpf", "perf_event_open", "userfaultfd",
    "ptrace", "process_vm_readv", "process_vm_writev",
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
    "mount", "umount2", "pivot_root", "swapon", "swapoff",
    "fsopen", "fsconfig", "fsmount", "fspick", "move_mount", "open_tree", "mount_setattr",
)
_CLONE_NEW_FLAGS = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000,
                    0x40000000, 0x00000080)  # NS UTS IPC USER PID NET CGROUP TIME
_INSTALL_HINT = ("libseccomp is needed to build the sandbox's syscall filter: install it "
                 "(`apt-get install libseccomp2`, `dnf install libseccomp`) or opt out with "
                 "--unsafe-no-sandbox")


def _library():
    try:
        import pyseccomp
    except (ImportError, RuntimeError, OSError) as exc:  # RuntimeError: no libseccomp.so
        raise SandboxUnavailable(f"{_INSTALL_HINT} ({exc})") from exc
    return pyseccomp


@functools.lru_cache(maxsize=1)
def program() -> bytes:
    """The BPF program (struct sock_filter bytes) for bwrap's --seccomp FD; built once."""
    sc = _library()
    try:
        filt = sc.SyscallFilter(sc.ALLOW)
        filt.set_attr(sc.Attr.ACT_BADARCH, sc.KILL_PROCESS)
        eperm = sc.ERRNO(errno.EPERM)
        for name in DENIED:
            _deny(sc, filt, eperm, name)
        for flag in _CLONE_NEW_FLAGS:
            filt.add_rule(eperm, "clone", sc.Arg(0, sc.MASKED_EQ, flag, flag))
        _deny(sc, filt, sc.ERRNO(errno.ENOSYS), "clone3")
        with tempfile.TemporaryFile() as fh:
            filt.export_bpf(fh)
            fh.seek(0)
            return fh.read()
    except OSError as exc:
        raise SandboxUnavailable(f"could not build the seccomp filter: {exc}") from exc


def _deny(sc, filt, action: int, name: str) -> None:
    try:
        number = sc.resolve_syscall(sc.Arch.NATIVE, name)
    except OSError:
        return
    if number >= 0:  # negative: the call does not exist on this architecture
        filt.add_rule(action, name)
