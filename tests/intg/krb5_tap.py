#!/usr/bin/env python3
"""A loopback TCP relay to a KDC that writes down what each request asked for, so a test
can see the options a client really sent (the MIT KDC does not log them): one line per
AS-REQ or TGS-REQ to --log, "AS-REQ canonicalize=1 cname=alice", read from the DER of
RFC 4120 (KDC-REQ-BODY's kdc-options, bit 15 is canonicalize, and cname). Relays every
byte unchanged both ways; a request it cannot read is logged as "unreadable".
Usage: krb5_tap.py --listen 127.0.0.1:0 --target HOST:PORT --port-file F --log F"""
import argparse
import asyncio


def tlv(b, i):
    """(tag, start of value, length) of the DER element at i."""
    tag, ln = b[i], b[i + 1]
    i += 2
    if ln & 0x80:
        n = ln & 0x7F
        ln = int.from_bytes(b[i:i + n], "big")
        i += n
    return tag, i, ln


def children(b, start, length):
    i = start
    while i < start + length:
        tag, v, ln = tlv(b, i)
        yield tag, v, ln
        i = v + ln


def describe(msg):
    tag, v, ln = tlv(msg, 0)
    kind = {0x6A: "AS-REQ", 0x6C: "TGS-REQ"}.get(tag)
    if kind is None:
        return "other"
    _, sv, sl = tlv(msg, v)                         # the KDC-REQ SEQUENCE
    body = [(t, cv, cl) for t, cv, cl in children(msg, sv, sl) if t == 0xA4][0]
    _, bv, bl = tlv(msg, body[1])                   # KDC-REQ-BODY SEQUENCE
    canon, cname = "?", "-"
    for t, cv, cl in children(msg, bv, bl):
        if t == 0xA0:                               # kdc-options: BIT STRING
            _, fv, _ = tlv(msg, cv)
            canon = str(msg[fv + 2] & 0x01)         # skip the unused-bits octet
        elif t == 0xA1:                             # cname: PrincipalName
            _, pv, pl = tlv(msg, cv)
            for pt, qv, _ in children(msg, pv, pl):
                if pt == 0xA1:
                    _, nv, nl = tlv(msg, qv)
                    cname = "/".join(msg[s:s + n].decode(errors="replace")
                                     for _, s, n in children(msg, nv, nl))
    return f"{kind} canonicalize={canon} cname={cname}"


async def relay(reader, writer, log=None):
    buf = b""
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            if log is not None:
                buf += data
                while len(buf) >= 4 and len(buf) >= 4 + int.from_bytes(buf[:4], "big"):
                    n = int.from_bytes(buf[:4], "big")
                    try:
                        line = describe(buf[4:4 + n])
                    except (IndexError, ValueError):
                        line = "unreadable"
                    with open(log, "a") as f:
                        f.write(line + "\n")
                    buf = buf[4 + n:]
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        writer.close()


async def main():
    p = argparse.ArgumentParser()
    p.add_argument("--listen", required=True)
    p.add_argument("--target", required=True)
    p.add_argument("--port-file", required=True)
    p.add_argument("--log", required=True)
    a = p.parse_args()
    th, tp = a.target.rsplit(":", 1)

    async def handle(cr, cw):
        try:
            sr, sw = await asyncio.open_connection(th, int(tp))
        except OSError:
            cw.close()
            return
        await asyncio.gather(relay(cr, sw, a.log), relay(sr, cw))

    lh, lp = a.listen.rsplit(":", 1)
    server = await asyncio.start_server(handle, lh, int(lp))
    with open(a.port_file, "w") as f:
        f.write(str(server.sockets[0].getsockname()[1]))
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
