"""A small seccomp filter that stops sandboxed code from creating namespaces.

When codeloop runs as root, bubblewrap runs without a user namespace (so the program can be
moved to an unprivileged uid), and bwrap's own --disable-userns is not available. This filter
fills that gap: unshare/setns fail with EPERM, clone with CLONE_NEW* flags fails with EPERM,
clone3 reports ENOSYS (its flags sit behind a pointer; libc then falls back to clone), and the
x32 ABI is refused outright. Everything else is allowed.
"""

from __future__ import annotations

import errno
import platform
import struct

_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE_K = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_JSET_K = 0x45  # BPF_JMP | BPF_JSET | BPF_K
_RET_K = 0x06  # BPF_RET | BPF_K

_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000
_KILL_PROCESS = 0x80000000

# struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6]
_OFF_NR, _OFF_ARCH, _OFF_ARG0_LOW = 0, 4, 16

_CLONE_NEW_FLAGS = (0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000
                    | 0x20000000 | 0x40000000 | 0x00000080)  # NS UTS IPC USER PID NET CGROUP TIME

# arch token, audit arch, syscall numbers
_ARCHES = {
    "x86_64": (0xC000003E, {"clone": 56, "unshare": 272, "setns": 308, "clone3": 435}),
    "aarch64": (0xC00000B7, {"clone": 220, "unshare": 97, "setns": 268, "clone3": 435}),
}


def _ins(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("<HBBI", code, jt, jf, k)


def supported() -> bool:
    return platform.machine() in _ARCHES


def no_namespaces_filter() -> bytes:
    """The BPF program (bytes of struct sock_filter) for bwrap's --seccomp FD."""
    audit_arch, nr = _ARCHES[platform.machine()]
    eperm, enosys = _ERRNO | errno.EPERM, _ERRNO | errno.ENOSYS
    prog = [
        _ins(_LD_W_ABS, _OFF_ARCH),
        _ins(_JEQ_K, audit_arch, jt=1),
        _ins(_RET_K, _KILL_PROCESS),  # a foreign ABI: nothing legitimate uses one here
        _ins(_LD_W_ABS, _OFF_NR),
        _ins(_JGE_K, 0x40000000, jt=0, jf=1),  # x32 syscalls on x86_64
        _ins(_RET_K, eperm),
        _ins(_JEQ_K, nr["unshare"], jt=0, jf=1),
        _ins(_RET_K, eperm),
        _ins(_JEQ_K, nr["setns"], jt=0, jf=1),
        _ins(_RET_K, eperm),
        _ins(_JEQ_K, nr["clone3"], jt=0, jf=1),
        _ins(_RET_K, enosys),
        _ins(_JEQ_K, nr["clone"], jt=0, jf=3),
        _ins(_LD_W_ABS, _OFF_ARG0_LOW),
        _ins(_JSET_K, _CLONE_NEW_FLAGS, jt=0, jf=1),
        _ins(_RET_K, eperm),
        _ins(_RET_K, _ALLOW),
    ]
    return b"".join(prog)
