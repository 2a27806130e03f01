#!/usr/bin/env python3
"""A loopback LDAP server that ranges multi-valued attributes as a Windows DC does
(MS-ADTS 3.1.1.3.1.3.3), unasked, or as a broken or hostile one, for test_sdap_range_server.

It holds one entry, cn=big,dc=t, whose member holds N values uid=u0,dc=t ... It answers
binds with success, any search whose base is not cn=big,dc=t with no entry, and a search
of cn=big,dc=t with the entry: member under "member;range=LO-HI" at most WINDOW values at
a time, LO being the start of the range the request asked for ("member;range=LO-*" or
"-HI"), 0 for a plain "member". Modes change the answer:
  windows   as above
  repeat    always the first range, whatever was asked (a server that never moves on)
  endless   one value a range, never a last one ("LO-LO" for every LO asked)
  short     the first range names WINDOW values and holds WINDOW - 1
  gone      the follow-ups find no entry (deleted between the requests)

  range_server.py --mode M --values N --window W --port-file F
Prints the port to F once listening; serves until killed.
"""
import argparse
import re
import socket
import threading

BASE = "cn=big,dc=t"


def tlv(tag, body):
    n = len(body)
    if n < 0x80:
        head = bytes([n])
    else:
        b = n.to_bytes((n.bit_length() + 7) // 8, "big")
        head = bytes([0x80 | len(b)]) + b
    return bytes([tag]) + head + body


def octets(s):
    return tlv(0x04, s.encode())


def integer(v):
    return tlv(0x02, v.to_bytes(max(1, (v.bit_length() + 8) // 8), "big", signed=True))


def read_tlv(buf, pos):
    """(tag, body, next position) or None when buf holds less than one element."""
    if pos + 2 > len(buf):
        return None
    tag, first = buf[pos], buf[pos + 1]
    pos += 2
    if first < 0x80:
        n = first
    else:
        k = first & 0x7F
        if pos + k > len(buf):
            return None
        n = int.from_bytes(buf[pos:pos + k], "big")
        pos += k
    if pos + n > len(buf):
        return None
    return tag, buf[pos:pos + n], pos + n


def elements(body):
    pos, out = 0, []
    while pos < len(body):
        tag, val, pos = read_tlv(body, pos)
        out.append((tag, val))
    return out


def result(msgid, op):
    return tlv(0x30, integer(msgid) + tlv(op, tlv(0x0A, b"\x00") + octets("") + octets("")))


def entry(msgid, desc, values):
    attr = tlv(0x30, octets(desc) + tlv(0x31, b"".join(octets(v) for v in values)))
    pal = tlv(0x30, tlv(0x30, octets("cn") + tlv(0x31, octets("big"))) + attr)
    return tlv(0x30, integer(msgid) + tlv(0x64, octets(BASE) + pal))


def answer(args, msgid, attrs):
    lo = 0
    asked = False
    for a in attrs:
        m = re.match(r"member;range=(\d+)-", a, re.I)
        if m:
            lo, asked = int(m.group(1)), True
    if args.mode == "gone" and asked:
        return result(msgid, 0x65)
    if args.mode == "repeat":
        lo = 0
    if args.mode == "endless":
        desc, vals = "member;range=%d-%d" % (lo, lo), ["uid=u%d,dc=t" % lo]
    else:
        hi = min(lo + args.window, args.values) - 1
        vals = ["uid=u%d,dc=t" % i for i in range(lo, hi + 1)]
        last = hi == args.values - 1
        desc = "member;range=%d-%s" % (lo, "*" if last else str(hi))
        if args.mode == "short" and lo == 0 and not last:
            vals = vals[:-1]
    return entry(msgid, desc, vals) + result(msgid, 0x65)


def serve(args, conn):
    buf = b""
    with conn:
        while True:
            got = read_tlv(buf, 0)
            if got is None:
                data = conn.recv(65536)
                if not data:
                    return
                buf += data
                continue
            _, msg, used = got
            buf = buf[used:]
            parts = elements(msg)
            msgid = int.from_bytes(parts[0][1], "big", signed=True)
            op, body = parts[1]
            if op == 0x60:          # bind
                conn.sendall(tlv(0x30, integer(msgid) + tlv(0x61, tlv(0x0A, b"\x00")
                                                            + octets("") + octets(""))))
            elif op == 0x63:        # search
                fields = elements(body)
                base = fields[0][1].decode()
                attrs = [v.decode() for _, v in elements(fields[7][1])]
                if base.lower() == BASE:
                    conn.sendall(answer(args, msgid, attrs))
                else:
                    conn.sendall(result(msgid, 0x65))
            elif op == 0x42:        # unbind
                return


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--mode", default="windows")
    p.add_argument("--values", type=int, default=3500)
    p.add_argument("--window", type=int, default=1500)
    p.add_argument("--port-file", required=True)
    args = p.parse_args()
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    with open(args.port_file, "w") as f:
        f.write("%d\n" % srv.getsockname()[1])
    while True:
        conn, _ = srv.accept()
        threading.Thread(target=serve, args=(args, conn), daemon=True).start()


if __name__ == "__main__":
    main()
