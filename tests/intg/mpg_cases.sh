# The checks of auto_private_groups (test_auto_private_groups.sh), for any implementation:
# the caller defines start_mode MODE (a fresh start with empty caches) and
# expect MODE WHAT EXPECTED COMMAND... (the command's output compared with EXPECTED).
# Directory: see test_auto_private_groups.sh.

mpg_cases() {
    # ---- false ----
    start_mode false
    expect false "getent group bob: no private group" "" getent group bob
    expect false "id alice: the directory's gid" \
        "uid=10001(alice) gid=20001(devs) groups=20001(devs),20003(ops)" id alice
    expect false "id bob: gid 10002 names no group" \
        "uid=10002(bob) gid=10002 groups=10002,20003(ops)" id bob
    expect false "getent group 10002: none" "" getent group 10002

    # ---- true, group lookups first (nothing cached) ----
    start_mode true
    expect true "getent group alice (before any user lookup)" "alice:*:10001:" getent group alice
    expect true "getent group 10002 (before any user lookup)" "bob:*:10002:" getent group 10002
    expect true "getent passwd alice: gid = uid" \
        "alice:*:10001:10001:Alice:/home/alice:/bin/bash" getent passwd alice
    expect true "id alice: private group first, gidNumber 20001 kept as a group" \
        "uid=10001(alice) gid=10001(alice) groups=10001(alice),20003(ops),20001(devs)" id alice
    expect true "id bob" "uid=10002(bob) gid=10002(bob) groups=10002(bob),20003(ops)" id bob
    expect true "getent group 10001" "alice:*:10001:" getent group 10001
    expect true "a real group still resolves: getent group devs" "devs:*:20001:" getent group devs
    expect true "getent group nosuch" "" getent group nosuch
    # ---- true, user lookups first ----
    start_mode true
    expect true "id alice (user first)" \
        "uid=10001(alice) gid=10001(alice) groups=10001(alice),20003(ops),20001(devs)" id alice
    expect true "getent group alice (after the user)" "alice:*:10001:" getent group alice

    # ---- hybrid ----
    start_mode hybrid
    expect hybrid "getent group bob (uid = gid, no real group)" "bob:*:10002:" getent group bob
    expect hybrid "getent group alice (uid != gid): none" "" getent group alice
    expect hybrid "getent group carol (its gid is carolgrp's): none" "" getent group carol
    expect hybrid "id alice: unchanged" \
        "uid=10001(alice) gid=20001(devs) groups=20001(devs),20003(ops)" id alice
    expect hybrid "id bob: its private group" \
        "uid=10002(bob) gid=10002(bob) groups=10002(bob),20003(ops)" id bob
    expect hybrid "id carol: the real group of its gid" \
        "uid=10003(carol) gid=10003(carolgrp) groups=10003(carolgrp),20003(ops)" id carol
    expect hybrid "getent group 10003: the real group" "carolgrp:*:10003:" getent group 10003
    start_mode hybrid
    expect hybrid "getent group 10002 (by gid first)" "bob:*:10002:" getent group 10002
    expect hybrid "getent group 10001: none" "" getent group 10001
}
