"""The TCP ports a process tree listens on, from /proc (no psutil): for checking where a
started service binds."""

from __future__ import annotations

import os
import socket
import struct

_LISTEN = "0A"


def _children() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                data = fh.read()
        except OSError:
            continue
        ppid = int(data[data.rfind(b")") + 2:].split()[1])
        children.setdefault(ppid, []).append(int(name))
    return children


def process_tree(root: int) -> set[int]:
    children, found, todo = _children(), set(), [root]
    while todo:
        pid = todo.pop()
        found.add(pid)
        todo.extend(children.get(pid, []))
    return found


def _socket_inodes(pid: int) -> set[str]:
    inodes = set()
    try:
        names = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return inodes
    for fd in names:
        try:
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if link.startswith("socket:["):
            inodes.add(link[len("socket:["):-1])
    return inodes


def _address(field: str, v6: bool) -> tuple[str, int]:
    ip, port = field.split(":")
    raw = bytes.fromhex(ip)
    if v6:  # four little-endian 32-bit words
        raw = b"".join(struct.pack("<I", struct.unpack(">I", raw[i:i + 4])[0])
                       for i in range(0, 16, 4))
        return socket.inet_ntop(socket.AF_INET6, raw), int(port, 16)
    return socket.inet_ntoa(struct.pack("<I", int(ip, 16))), int(port, 16)


def listening(root: int) -> list[tuple[str, int]]:
    """(address, port) of every TCP socket the process `root` or a descendant listens on."""
    inodes: set[str] = set()
    for pid in process_tree(root):
        inodes |= _socket_inodes(pid)
    found = []
    for table, v6 in (("/proc/net/tcp", False), ("/proc/net/tcp6", True)):
        try:
            with open(table, encoding="ascii") as fh:
                rows = fh.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if fields[3] == _LISTEN and fields[9] in inodes:
                found.append(_address(fields[1], v6))
    return found


def is_loopback(address: str) -> bool:
    return address.startswith(("127.", "::ffff:127.")) or address in ("::1", "localhost")
