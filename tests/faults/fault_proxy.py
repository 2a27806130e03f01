#!/usr/bin/env python3
"""A loopback TCP proxy that makes a link slow, lossy or dead, for the fault suite.

The kernel here has no netem, so faults between the suite and its LDAP servers are made in
user space: every connection accepted on --listen is relayed to --target, and each chunk
that crosses the proxy (either way) can be delayed, trickled, or the connection reset.

  fault_proxy.py --listen 127.0.0.1:0 --target 127.0.0.1:3890 [options]

Options:
  --port-file F        write the port actually listened on to F (with --listen ...:0)
  --chunk-delay-ms N   hold every chunk N ms before passing it on (order is kept)
  --byte-delay-ms N    pass server->client data one byte every N ms (a trickle)
  --trickle-after-ms N ... only N ms after the connection was accepted (before, at full
                       speed): a connection set up (TLS handshake, bind) that then crawls
  --reset-share P      reset (RST) this share of connections mid-stream, 0..1
  --reset-after N      ... after this many server->client bytes (default 64)
  --reset-first N      reset the first N connections (after --reset-after bytes), whatever
                       --reset-share says: a test knows which of its connections break
  --seed N             for the reset choice (default 1): runs are repeatable
  --dump-up PREFIX     append what each client sends to PREFIX.N (N: the connection's
                       number, from 1): a test reads its requests (unencrypted ones)
Signals change the mode while it runs:
  SIGUSR1  hang: accept and keep connections, pass nothing on (a hung server)
  SIGUSR2  back to normal relaying (also ends refuse)
  SIGHUP   refuse: close the listening socket, so connects get ECONNREFUSED
It prints "listening PORT" on stdout once ready, and counts on SIGTERM:
"connections N resets N bytes_up N bytes_down N".
"""
import argparse
import asyncio
import random
import signal
import socket
import struct
import sys


class Proxy:
    def __init__(self, args):
        self.args = args
        self.target_host, self.target_port = args.target.rsplit(":", 1)
        self.listen_host, self.listen_port = args.listen.rsplit(":", 1)
        self.rng = random.Random(args.seed)
        self.mode = "relay"
        self.server = None
        self.resume = asyncio.Event()
        self.resume.set()
        self.stats = {"connections": 0, "resets": 0, "bytes_up": 0, "bytes_down": 0}
        self.writers = set()

    async def start(self):
        self.server = await asyncio.start_server(self.handle, self.listen_host,
                                                 int(self.listen_port))
        self.listen_port = str(self.server.sockets[0].getsockname()[1])

    def announce(self):
        """Tells the test it may go on: only once the signals below are handled, or a test
        that signals at once would kill the proxy before it counted anything."""
        port = int(self.listen_port)
        if self.args.port_file:
            with open(self.args.port_file, "w") as f:
                f.write("%d\n" % port)
        print("listening %d" % port, flush=True)

    def hang(self):
        self.mode = "hang"
        self.resume.clear()

    async def normal(self):
        self.mode = "relay"
        self.resume.set()
        if self.server is None:
            await self.start_same_port()

    async def start_same_port(self):
        self.server = await asyncio.start_server(self.handle, self.listen_host,
                                                 int(self.listen_port), reuse_address=True)

    def refuse(self):
        self.mode = "refuse"
        if self.server is not None:
            self.server.close()
            self.server = None

    @staticmethod
    def reset(writer):
        # SO_LINGER 0 turns close() into an RST.
        sock = writer.get_extra_info("socket")
        if sock is not None:
            try:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            except OSError:
                pass
        writer.close()

    async def pipe(self, reader, writer, down, conn):
        a = self.args
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    break
                await self.resume.wait()
                if a.chunk_delay_ms:
                    await asyncio.sleep(a.chunk_delay_ms / 1000.0)
                if down and a.byte_delay_ms and self.trickling(conn):
                    for i in range(len(data)):
                        await self.resume.wait()
                        writer.write(data[i:i + 1])
                        await writer.drain()
                        self.stats["bytes_down"] += 1
                        conn["down"] += 1
                        if conn["reset"] and conn["down"] >= a.reset_after:
                            raise ConnectionResetError
                        await asyncio.sleep(a.byte_delay_ms / 1000.0)
                    continue
                if down and conn["reset"] and conn["down"] + len(data) >= a.reset_after:
                    cut = max(0, a.reset_after - conn["down"])
                    writer.write(data[:cut])
                    await writer.drain()
                    self.stats["bytes_down"] += cut
                    raise ConnectionResetError
                if not down and conn["dump"] is not None:
                    conn["dump"].write(data)
                writer.write(data)
                await writer.drain()
                self.stats["bytes_down" if down else "bytes_up"] += len(data)
                if down:
                    conn["down"] += len(data)
        except ConnectionResetError:
            conn["do_reset"] = True
        except (OSError, asyncio.CancelledError):
            pass

    def trickling(self, conn):
        elapsed = asyncio.get_running_loop().time() - conn["start"]
        return elapsed * 1000.0 >= self.args.trickle_after_ms

    async def handle(self, creader, cwriter):
        self.stats["connections"] += 1
        reset = self.rng.random() < self.args.reset_share
        if self.stats["connections"] <= self.args.reset_first:
            reset = True
        conn = {"down": 0, "reset": reset, "do_reset": False,
                "start": asyncio.get_running_loop().time(), "dump": None}
        if self.args.dump_up:
            conn["dump"] = open("%s.%d" % (self.args.dump_up, self.stats["connections"]),
                                "ab", buffering=0)
        try:
            sreader, swriter = await asyncio.open_connection(self.target_host,
                                                             int(self.target_port))
        except OSError:
            self.reset(cwriter)
            return
        up = asyncio.ensure_future(self.pipe(creader, swriter, False, conn))
        down = asyncio.ensure_future(self.pipe(sreader, cwriter, True, conn))
        await asyncio.wait([up, down], return_when=asyncio.FIRST_COMPLETED)
        for t in (up, down):
            t.cancel()
        if conn["do_reset"]:
            self.stats["resets"] += 1
            self.reset(cwriter)
            self.reset(swriter)
        else:
            cwriter.close()
            swriter.close()
        if conn["dump"] is not None:
            conn["dump"].close()


async def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--listen", required=True)
    p.add_argument("--target", required=True)
    p.add_argument("--port-file")
    p.add_argument("--chunk-delay-ms", type=int, default=0)
    p.add_argument("--byte-delay-ms", type=int, default=0)
    p.add_argument("--trickle-after-ms", type=int, default=0)
    p.add_argument("--reset-share", type=float, default=0.0)
    p.add_argument("--reset-after", type=int, default=64)
    p.add_argument("--reset-first", type=int, default=0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--dump-up")
    args = p.parse_args()
    proxy = Proxy(args)
    await proxy.start()
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    loop.add_signal_handler(signal.SIGUSR1, proxy.hang)
    loop.add_signal_handler(signal.SIGUSR2, lambda: asyncio.ensure_future(proxy.normal()))
    loop.add_signal_handler(signal.SIGHUP, proxy.refuse)
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    loop.add_signal_handler(signal.SIGINT, stop.set)
    proxy.announce()
    await stop.wait()
    print("connections %(connections)d resets %(resets)d bytes_up %(bytes_up)d "
          "bytes_down %(bytes_down)d" % proxy.stats, flush=True)


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
