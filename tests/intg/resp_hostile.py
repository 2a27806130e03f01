#!/usr/bin/python3
# Hostile local clients of a responder socket, for tests/intg/test_resp_dos.sh (run as an
# unprivileged user with setpriv). Each mode prints one line of "key=value" results.
#   resp_hostile.py SOCKET trickle N SECONDS   N connections, each sending a request's
#       bytes one at a time every 0.7 s without ever finishing it; reports how many the
#       server closed and when the last one was closed (s from the start)
#   resp_hostile.py SOCKET hold N SECONDS READYFILE   opens N idle connections (writes
#       READYFILE once done), holds them, reports how many it opened and how many the
#       server closed meanwhile
#   resp_hostile.py SOCKET garbage SECONDS   malformed requests in a loop, a new connection
#       each time the server closes one; reports requests sent, connections closed by the
#       server right after a malformed request, and replies received (must be 0)
#   resp_hostile.py SOCKET flood SECONDS NAME...   well-formed GETPWNAM requests for the
#       names, back to back on one connection (a new one when closed); reports requests
#       answered and connections lost
#   resp_hostile.py SOCKET victim SECONDS NAME...   what a bystander sees: one GETPWNAM for
#       a random name every 10 ms on a fresh connection each time (as libnss_sss does for a
#       process), timed from connect to the reply; reports n, failed, p50_ms, p99_ms, max_ms
import errno
import os
import random
import socket
import struct
import sys
import time

GETPWNAM = 0x11


def connect(path, timeout=2.0, blocking=True):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(path)
    if not blocking:
        s.setblocking(False)
    return s


def connect_retry(path, timeout=1.0, blocking=True):
    """A full backlog refuses a connect at once (EAGAIN): try again a little later."""
    for _ in range(100):
        try:
            return connect(path, timeout, blocking)
        except OSError:
            time.sleep(0.01)
    return connect(path, timeout, blocking)


def closed_by_server(s):
    """For a non-blocking socket: did the server close it?"""
    try:
        return s.recv(64) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def trickle(path, n, seconds):
    req = struct.pack("=4I", 16 + 6, GETPWNAM, 0, 0) + b"alice\0"
    socks = [connect_retry(path, blocking=False) for _ in range(n)]
    t0 = time.monotonic()
    closed = {}
    i = 0
    # Never the last byte: the request stays unfinished for as long as the trickle runs.
    while time.monotonic() - t0 < seconds and i < len(req) - 1:
        for k, s in enumerate(socks):
            if k in closed:
                continue
            if closed_by_server(s):
                closed[k] = time.monotonic() - t0
                continue
            try:
                s.send(req[i:i + 1])
            except OSError:
                closed[k] = time.monotonic() - t0
        i += 1
        time.sleep(0.7)
    for k, s in enumerate(socks):
        if k not in closed and closed_by_server(s):
            closed[k] = time.monotonic() - t0
    last = max(closed.values()) if closed else -1
    print("closed=%d of=%d last=%.1f" % (len(closed), n, last))


def hold(path, n, seconds, ready):
    socks = []
    failed = 0
    for _ in range(n):
        # A full backlog refuses a connect at once (EAGAIN): try again a little later.
        for _ in range(100):
            try:
                socks.append(connect(path, 1.0, blocking=False))
                break
            except OSError:
                time.sleep(0.01)
        else:
            failed += 1
    with open(ready, "w") as f:
        f.write("%d\n" % len(socks))
    time.sleep(seconds)
    gone = sum(1 for s in socks if closed_by_server(s))
    print("opened=%d failed=%d closed=%d" % (len(socks), failed, gone))


def garbage(path, seconds):
    rnd = random.Random(7)
    bad = [
        struct.pack("=4I", 16 + 5, GETPWNAM, 0, 0) + b"alice",            # no NUL
        struct.pack("=4I", 16 + 8, GETPWNAM, 0, 0) + b"ab\0cd\0\0\0",     # stray bytes
        struct.pack("=4I", 16 + 2, 0x12, 0, 0) + b"\1\2",                 # short uid
        struct.pack("=4I", 16, 0x7777, 0, 0),                             # no such command
        struct.pack("=4I", 1 << 30, GETPWNAM, 0, 0),                      # 1 GiB claimed
        struct.pack("=4I", 8, GETPWNAM, 0, 0),                            # shorter than a header
    ]
    sent = closed = replies = errors = 0
    t0 = time.monotonic()
    s = None
    while time.monotonic() - t0 < seconds:
        if s is None:
            try:
                s = connect(path)
            except OSError:
                errors += 1
                time.sleep(0.01)
                continue
        pkt = bad[sent % len(bad)] if sent % 7 else bytes(rnd.getrandbits(8) for _ in range(40))
        try:
            s.sendall(pkt)
            sent += 1
            s.settimeout(2.0)
            data = s.recv(64)
        except (ConnectionResetError, BrokenPipeError):
            data = b""
        except OSError:
            errors += 1
            data = None
        if data == b"":
            closed += 1
        elif data:
            replies += 1
        s.close()
        s = None
    print("sent=%d closed=%d replies=%d errors=%d" % (sent, closed, replies, errors))


def pwnam(s, name):
    body = name.encode() + b"\0"
    s.sendall(struct.pack("=4I", 16 + len(body), GETPWNAM, 0, 0) + body)
    hdr = b""
    while len(hdr) < 16:
        chunk = s.recv(16 - len(hdr))
        if not chunk:
            raise ConnectionError("closed")
        hdr += chunk
    length = struct.unpack("=4I", hdr)[0]
    left = length - 16
    while left > 0:
        chunk = s.recv(min(left, 65536))
        if not chunk:
            raise ConnectionError("closed")
        left -= len(chunk)


def hello(s):
    s.sendall(struct.pack("=4I", 20, 0x0001, 0, 0) + struct.pack("=I", 1))
    got = b""
    while len(got) < 20:
        chunk = s.recv(20 - len(got))
        if not chunk:
            raise ConnectionError("closed")
        got += chunk


def flood(path, seconds, names):
    answered = lost = 0
    t0 = time.monotonic()
    s = None
    while time.monotonic() - t0 < seconds:
        try:
            if s is None:
                s = connect(path, 5.0)
                hello(s)
            pwnam(s, names[answered % len(names)])
            answered += 1
        except OSError:
            lost += 1
            if s is not None:
                s.close()
            s = None
            time.sleep(0.001)
    print("answered=%d lost=%d" % (answered, lost))


def victim(path, seconds, names):
    times = []
    failed = 0
    rnd = random.Random(11)
    t0 = time.monotonic()
    while time.monotonic() - t0 < seconds:
        a = time.monotonic()
        try:
            s = connect(path, 10.0)
            hello(s)
            pwnam(s, rnd.choice(names))
            s.close()
            times.append((time.monotonic() - a) * 1000.0)
        except OSError:
            failed += 1
        time.sleep(0.01)
    times.sort()
    n = len(times)
    pct = lambda q: times[min(n - 1, int(q * n))] if n else -1
    print("n=%d failed=%d p50_ms=%.2f p99_ms=%.2f max_ms=%.2f" % (
        n, failed, pct(0.50), pct(0.99), times[-1] if n else -1))


def main():
    path, mode = sys.argv[1], sys.argv[2]
    if mode == "trickle":
        trickle(path, int(sys.argv[3]), float(sys.argv[4]))
    elif mode == "hold":
        hold(path, int(sys.argv[3]), float(sys.argv[4]), sys.argv[5])
    elif mode == "garbage":
        garbage(path, float(sys.argv[3]))
    elif mode == "flood":
        flood(path, float(sys.argv[3]), sys.argv[4:])
    elif mode == "victim":
        victim(path, float(sys.argv[3]), sys.argv[4:])
    else:
        sys.exit("unknown mode %s" % mode)


if __name__ == "__main__":
    main()
