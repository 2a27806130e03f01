#!/usr/bin/env python3
"""Counts the copies of a secret in a live process's memory (root): every readable
mapping of /proc/PID/maps read through /proc/PID/mem. Prints the count, then one line
per copy: its address, mapping and the bytes before it. The krb5 tests use it to show
that a password sssd_be keeps (krb5_store_password_if_offline) is not in its memory.

--skip-dbus leaves out copies that sit in a marshalled D-Bus message, i.e. right after
their D-Bus length prefix (a little-endian uint32 of the secret's length, then the
secret and its NUL): libdbus's own buffers of the message that brought the password in,
which the process does not own and cannot wipe. A bare copy is the process's own.
Usage: mem_scan.py [--skip-dbus] PID SECRET"""
import re
import struct
import sys


def main():
    args = sys.argv[1:]
    skip_dbus = args[0] == "--skip-dbus"
    if skip_dbus:
        args = args[1:]
    pid, secret = args[0], args[1].encode()
    prefix = struct.pack("<I", len(secret))
    found = []
    with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/mem", "rb", 0) as mem:
        for line in maps:
            m = re.match(r"([0-9a-f]+)-([0-9a-f]+) (\S+)", line)
            start, end, perms = int(m.group(1), 16), int(m.group(2), 16), m.group(3)
            if perms[0] != "r" or "[vvar" in line or "[vsyscall" in line:
                continue
            try:
                mem.seek(start)
                data = mem.read(end - start)
            except (OSError, ValueError, OverflowError):
                continue
            i = data.find(secret)
            while i >= 0:
                in_dbus = i >= 4 and data[i - 4:i] == prefix and data[i + len(secret):][:1] == b"\0"
                if not (skip_dbus and in_dbus):
                    found.append(f"{start + i:#x} in {line.split()[-1]}: ...{data[max(0, i - 24):i]!r}")
                i = data.find(secret, i + 1)
    print(len(found))
    for f in found:
        print(f)


if __name__ == "__main__":
    main()
