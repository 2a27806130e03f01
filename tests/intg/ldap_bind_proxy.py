#!/usr/bin/env python3
"""A loopback LDAP proxy that answers one DN's binds with a result of its choosing.

Every connection accepted on --listen is relayed to --target (plain LDAP, no TLS). A
BindRequest whose DN is --dn is remembered by its message id, and the server's
BindResponse to it is replaced by --code (default 49, invalidCredentials) with --text
(default: Active Directory's diagnostic for a locked account, "... data 775, ..."),
whatever the password was: the directory's own answer never reaches the client. So a
test can make a server refuse a user's bind as AD does for a locked account, or answer
busy (51) or unwillingToPerform (53). Everything else passes unchanged.

  ldap_bind_proxy.py --listen 127.0.0.1:0 --target 127.0.0.1:3890 \
      --dn uid=x,ou=People,dc=test [--code N] [--text T] [--port-file F]

Prints "listening PORT" once ready; on SIGTERM "rewritten N".
"""
import argparse
import asyncio
import signal
import sys

AD_LOCKED = ("80090308: LdapErr: DSID-0C09044E, comment: AcceptSecurityContext error, "
             "data 775, v4563")


def ber_len(buf, pos):
    """(length, position after the length octets) or None when buf is too short."""
    if pos >= len(buf):
        return None
    first = buf[pos]
    if first < 0x80:
        return first, pos + 1
    n = first & 0x7F
    if n == 0 or n > 4:
        return -1, pos
    if pos + 1 + n > len(buf):
        return None
    return int.from_bytes(buf[pos + 1:pos + 1 + n], "big"), pos + 1 + n


def ber_encode_len(n):
    if n < 0x80:
        return bytes([n])
    raw = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(raw)]) + raw


def tlv(tag, value):
    return bytes([tag]) + ber_encode_len(len(value)) + value


def split_messages(buf):
    """Complete LDAPMessages at the start of buf, and the rest."""
    out = []
    while True:
        if len(buf) < 2:
            return out, buf
        if buf[0] != 0x30:
            raise ValueError("not an LDAPMessage")
        r = ber_len(buf, 1)
        if r is None:
            return out, buf
        n, pos = r
        if n < 0:
            raise ValueError("bad length")
        if len(buf) < pos + n:
            return out, buf
        out.append(buf[:pos + n])
        buf = buf[pos + n:]


def parse(msg):
    """(message id bytes as encoded TLV, op tag, op content) of one LDAPMessage."""
    _, pos = ber_len(msg, 1)
    if msg[pos] != 0x02:
        raise ValueError("no messageID")
    idlen, idpos = ber_len(msg, pos + 1)
    id_tlv = msg[pos:idpos + idlen]
    op_at = idpos + idlen
    oplen, oppos = ber_len(msg, op_at + 1)
    return id_tlv, msg[op_at], msg[oppos:oppos + oplen]


def bind_dn(content):
    """The DN of a BindRequest's content (version INTEGER, name OCTET STRING, ...)."""
    vlen, vpos = ber_len(content, 1)
    npos = vpos + vlen
    if content[npos] != 0x04:
        return None
    nlen, nstart = ber_len(content, npos + 1)
    return content[nstart:nstart + nlen].decode("utf-8", "replace")


class Proxy:
    def __init__(self, args):
        self.args = args
        self.rewritten = 0

    async def handle(self, creader, cwriter):
        host, port = self.args.target.rsplit(":", 1)
        try:
            sreader, swriter = await asyncio.open_connection(host, int(port))
        except OSError:
            cwriter.close()
            return
        locked_ids = set()
        await asyncio.gather(self.pump(creader, swriter, locked_ids, True),
                             self.pump(sreader, cwriter, locked_ids, False),
                             return_exceptions=True)
        for w in (cwriter, swriter):
            w.close()

    async def pump(self, reader, writer, locked_ids, upstream):
        buf = b""
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    break
                buf += data
                msgs, buf = split_messages(buf)
                for m in msgs:
                    writer.write(self.filter(m, locked_ids, upstream))
                await writer.drain()
        finally:
            writer.close()

    def filter(self, msg, locked_ids, upstream):
        try:
            id_tlv, tag, content = parse(msg)
        except (ValueError, IndexError, TypeError):
            return msg
        if upstream and tag == 0x60:
            dn = bind_dn(content)
            if dn is not None and dn.lower() == self.args.dn.lower():
                locked_ids.add(id_tlv)
            else:
                locked_ids.discard(id_tlv)
            return msg
        if not upstream and tag == 0x61 and id_tlv in locked_ids:
            locked_ids.discard(id_tlv)
            self.rewritten += 1
            resp = (tlv(0x0A, bytes([self.args.code])) + tlv(0x04, b"")
                    + tlv(0x04, self.args.text.encode()))
            return tlv(0x30, id_tlv + tlv(0x61, resp))
        return msg


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--listen", required=True)
    ap.add_argument("--target", required=True)
    ap.add_argument("--dn", required=True)
    ap.add_argument("--code", type=int, default=49)
    ap.add_argument("--text", default=AD_LOCKED)
    ap.add_argument("--port-file")
    args = ap.parse_args()
    proxy = Proxy(args)
    host, port = args.listen.rsplit(":", 1)
    server = await asyncio.start_server(proxy.handle, host, int(port))
    real = server.sockets[0].getsockname()[1]
    if args.port_file:
        with open(args.port_file, "w") as f:
            f.write("%d\n" % real)
    print("listening %d" % real, flush=True)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await stop.wait()
    server.close()
    print("rewritten %d" % proxy.rewritten, flush=True)


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)
