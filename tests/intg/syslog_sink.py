# A /dev/log for the PAM client tests: binds the datagram socket (in the test's mount
# namespace, where /dev/log is private) and appends every message pam_sss sends to syslog
# to FILE, one per line, so a test can check what the module logged.
# Usage: python3 syslog_sink.py FILE [READY]
# READY is created once /dev/log is bound and open to all: a message sent before that is
# lost (glibc's syslog drops it), so the tests wait for it.
import os
import socket
import sys

try:
    os.unlink('/dev/log')
except FileNotFoundError:
    pass
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind('/dev/log')
os.chmod('/dev/log', 0o666)
if len(sys.argv) > 2:
    open(sys.argv[2], 'w').close()
out = open(sys.argv[1], 'ab', buffering=0)
while True:
    out.write(s.recv(65536) + b'\n')
