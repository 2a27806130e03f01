#!/usr/bin/python3
# A minimal client of sssd_nss's wire protocol (PROTOCOL.md "Client packet"), for what
# libnss_sss cannot ask: the _EX requests with their flags, and GET*ENT with a chosen
# count. Prints one line per request: "status=S results=N bytes=B".
#   resp_nss_client.py SOCKET ex CMD KEY FLAGS [REPEAT]
#       CMD: pwnam, pwuid, grnam, grgid, initgr (the _EX commands); KEY a name or an id
#   resp_nss_client.py SOCKET getent pw|gr COUNT [ROUNDS]
#       SETxxENT, then ROUNDS GETxxENT(COUNT) (default: until an empty reply)
#   resp_nss_client.py SOCKET orig NAME [byusername]
#       GETORIGBYNAME (GETORIGBYUSERNAME): "status=S results=N type=T", then one
#       "KEY=VALUE" line per pair, as libsss_nss_idmap reads them
import socket
import struct
import sys

EX = {"pwnam": 0x19, "pwuid": 0x1A, "grnam": 0x29, "grgid": 0x2A, "initgr": 0x2E}
ENT = {"pw": (0x13, 0x14, 0x15), "gr": (0x23, 0x24, 0x25)}


def request(s, cmd, body=b""):
    s.sendall(struct.pack("=4I", 16 + len(body), cmd, 0, 0) + body)
    hdr = b""
    while len(hdr) < 16:
        chunk = s.recv(16 - len(hdr))
        if not chunk:
            raise ConnectionError("closed by the server")
        hdr += chunk
    length, rcmd, status, _ = struct.unpack("=4I", hdr)
    body = b""
    while len(body) < length - 16:
        chunk = s.recv(min(1 << 20, length - 16 - len(body)))
        if not chunk:
            raise ConnectionError("closed by the server")
        body += chunk
    return status, body


def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(30)
    s.connect(path)
    status, body = request(s, 0x0001, struct.pack("=I", 1))
    if status != 0:
        raise RuntimeError("GET_VERSION status %d" % status)
    return s


def main():
    path, mode = sys.argv[1], sys.argv[2]
    s = connect(path)
    if mode == "ex":
        cmd, key, flags = EX[sys.argv[3]], sys.argv[4], int(sys.argv[5], 0)
        repeat = int(sys.argv[6]) if len(sys.argv) > 6 else 1
        if sys.argv[3] in ("pwuid", "grgid"):
            body = struct.pack("=II", int(key), flags)
        else:
            body = key.encode() + b"\0" + struct.pack("=I", flags)
        for _ in range(repeat):
            status, rbody = request(s, cmd, body)
            n = struct.unpack("=I", rbody[:4])[0] if len(rbody) >= 4 else 0
            print("status=%d results=%d bytes=%d" % (status, n, len(rbody)))
    elif mode == "getent":
        setc, getc, endc = ENT[sys.argv[3]]
        count = int(sys.argv[4])
        rounds = int(sys.argv[5]) if len(sys.argv) > 5 else -1
        request(s, setc)
        while rounds != 0:
            status, rbody = request(s, getc, struct.pack("=I", count))
            n = struct.unpack("=I", rbody[:4])[0] if len(rbody) >= 4 else 0
            print("status=%d results=%d bytes=%d" % (status, n, len(rbody)))
            rounds -= 1
            if n == 0:
                break
        request(s, endc)
    elif mode == "orig":
        cmd = 0x011A if len(sys.argv) > 4 and sys.argv[4] == "byusername" else 0x0115
        status, rbody = request(s, cmd, sys.argv[3].encode() + b"\0")
        n = struct.unpack("=I", rbody[:4])[0] if len(rbody) >= 4 else 0
        if n == 0 or len(rbody) < 12:
            print("status=%d results=%d" % (status, n))
            return
        print("status=%d results=%d type=%d" % (status, n, struct.unpack("=I", rbody[8:12])[0]))
        strs = rbody[12:].split(b"\0")
        if strs[-1] != b"" or len(strs) % 2 != 1:
            sys.exit("malformed key, value list")
        for k, v in zip(strs[0:-1:2], strs[1:-1:2]):
            print("%s=%s" % (k.decode(), v.decode()))
    else:
        sys.exit("unknown mode %s" % mode)


if __name__ == "__main__":
    main()
