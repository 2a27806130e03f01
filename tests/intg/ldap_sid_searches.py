#!/usr/bin/env python3
"""Counts the searches by objectSid a client sent, and those of them carrying the paged
results control, the requests carrying AD's extended DN control, and the searches by
distinguishedName with those of them paged, in what
fault_proxy.py --dump-up PREFIX recorded (PREFIX.N, one file per connection). The
requests must be readable: plain LDAP or a SASL layer with integrity only
(ldap_sasl_maxssf = 1), whose wrap tokens hold the request as it is.

  ldap_sid_searches.py mark PREFIX MARK     record how far each file is now
  ldap_sid_searches.py count PREFIX MARK    "SID_SEARCHES PAGED EXTENDED_DN DN_SEARCHES
                                             DN_PAGED" since then

A request is one plain LDAP message (a SEQUENCE, 0x30, before the SASL layer is up) or
one SASL buffer (a 4-byte length, then the token). A search by SID holds an equality
match on objectSid (any case) with a domain SID (S-1-5-21-...: 28 bytes); a search by DN
one on distinguishedName (AD's attribute holding the entry's DN).
"""
import glob
import re
import sys

# The attribute's name in any case (AD's map says objectSID).
SID_TERM = re.compile(rb"\x04\x09objectsid\x04\x1c\x01\x05", re.IGNORECASE)
DN_TERM = re.compile(rb"\xa3.{1,4}\x04\x11distinguishedName\x04", re.IGNORECASE | re.DOTALL)
PAGED_OID = b"1.2.840.113556.1.4.319"
EXTENDED_DN_OID = b"1.2.840.113556.1.4.529"


def ber_length(data, pos):
    """(length, position after it) of the BER length at pos."""
    first = data[pos]
    if first < 0x80:
        return first, pos + 1
    n = first & 0x7F
    return int.from_bytes(data[pos + 1:pos + 1 + n], "big"), pos + 1 + n


def requests(data):
    pos = 0
    while pos < len(data):
        if data[pos] == 0x30:
            length, start = ber_length(data, pos + 1)
        else:
            length, start = int.from_bytes(data[pos:pos + 4], "big"), pos + 4
        yield data[start:start + length]
        pos = start + length


def main():
    what, prefix, mark = sys.argv[1:4]
    files = sorted(glob.glob(glob.escape(prefix) + ".*"))
    if what == "mark":
        with open(mark, "w") as f:
            for path in files:
                with open(path, "rb") as d:
                    f.write("%d %s\n" % (len(d.read()), path))
        return
    seen = {}
    with open(mark) as f:
        for line in f:
            size, path = line.rstrip("\n").split(" ", 1)
            seen[path] = int(size)
    sid = paged = xdn = dns = dn_paged = 0
    for path in files:
        with open(path, "rb") as d:
            d.seek(seen.get(path, 0))
            data = d.read()
        for req in requests(data):
            if SID_TERM.search(req):
                sid += 1
                paged += PAGED_OID in req
            elif DN_TERM.search(req):
                dns += 1
                dn_paged += PAGED_OID in req
            xdn += EXTENDED_DN_OID in req
    print(sid, paged, xdn, dns, dn_paged)


if __name__ == "__main__":
    main()
