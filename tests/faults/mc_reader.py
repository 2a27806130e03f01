#!/usr/bin/python3
# A reader of the memory cache for the fault suite: calls libnss_sss's getpwnam directly
# (ctypes; SSS_NSS_USE_MEMCACHE as the caller set it) for random users of a list, as fast
# as it can for SECONDS, and checks every answer against the list. Prints
# "ok=N miss=N wrong=N" (miss: not found or unavailable; wrong: an answer that differs from
# the list, each also printed as "WRONG ..."). A crash of the client library ends the
# process by its signal, which the caller sees in the exit status.
#   mc_reader.py LIBNSS_SSS SECONDS EXPECTED_FILE   (lines "name uid gid home")
import ctypes
import random
import sys
import time


class Passwd(ctypes.Structure):
    _fields_ = [("pw_name", ctypes.c_char_p), ("pw_passwd", ctypes.c_char_p),
                ("pw_uid", ctypes.c_uint32), ("pw_gid", ctypes.c_uint32),
                ("pw_gecos", ctypes.c_char_p), ("pw_dir", ctypes.c_char_p),
                ("pw_shell", ctypes.c_char_p)]


def main():
    lib = ctypes.CDLL(sys.argv[1])
    seconds = float(sys.argv[2])
    users = []
    with open(sys.argv[3]) as f:
        for line in f:
            name, uid, gid, home = line.split()
            users.append((name.encode(), int(uid), int(gid), home.encode()))
    getpwnam = lib._nss_sss_getpwnam_r
    getpwnam.argtypes = [ctypes.c_char_p, ctypes.POINTER(Passwd), ctypes.c_char_p,
                         ctypes.c_size_t, ctypes.POINTER(ctypes.c_int)]
    getpwnam.restype = ctypes.c_int
    buf = ctypes.create_string_buffer(4096)
    pw = Passwd()
    err = ctypes.c_int(0)
    ok = miss = wrong = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        name, uid, gid, home = random.choice(users)
        status = getpwnam(name, ctypes.byref(pw), buf, len(buf), ctypes.byref(err))
        if status != 1:
            miss += 1
        elif (pw.pw_name, pw.pw_uid, pw.pw_gid, pw.pw_dir) == (name, uid, gid, home):
            ok += 1
        else:
            wrong += 1
            print("WRONG asked %s got %r %d %d %r" % (name.decode(), pw.pw_name, pw.pw_uid,
                                                       pw.pw_gid, pw.pw_dir))
    print("ok=%d miss=%d wrong=%d" % (ok, miss, wrong))


main()
