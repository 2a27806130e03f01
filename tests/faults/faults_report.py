#!/usr/bin/env python3
"""Turns the fault suite's output (tests/faults/run_faults.sh) into docs/RELIABILITY.md.

Reads the RESULT and STATE lines the scenario scripts print:
  RESULT <scenario>/<case> pass|fail|skipped key=value ... (free text)
  STATE <scenario>/<case> +MS ms <a line of the back-end's log>
and writes, per scenario, what it checks and a table: pass/fail, the measured time to
recover, wrong answers (must be 0), crashes (must be 0) and the other figures of the line.

  faults_report.py RESULTS_FILE MODE > RELIABILITY.md      (MODE: full or short)
"""
import os
import platform
import re
import subprocess
import sys
import time

SCENARIOS = [
    ("failover", "1. Failover across two real slapd servers",
     "Two slapds started by the test from the same LDIF (tests/lib/slapd.sh), each behind "
     "tests/faults/fault_proxy.py; the domain has `ldap_uri` = A, `ldap_backup_uri` = B, "
     "`ldap_network_timeout = 2`, `ldap_search_timeout = ldap_opt_timeout = 3`. From a "
     "fresh start served by A, A is made to fail; cold lookups (users never asked) run one "
     "after the other through glibc (getent in the NSS mount namespace) until one is "
     "answered: *time to recover* is from the fault to that answer. Then A is healed and "
     "lookups go on until A serves again (*fail back*, within `failover_primary_timeout`). "
     "Faults: **dies** (slapd A kill -9; its proxy accepts, then resets), **sigstop** (slapd "
     "A stopped: connections stay open, nothing answers), **refuses** (A's port closed), "
     "**drops** (every connection to A reset after 100 bytes of its answer, mid-search). "
     "Must hold: the right answer (the user's line as in the directory) every time, "
     "recovery within ldap_network_timeout + ldap_search_timeout + 3 s, fail back, no crash, and once B serves `sssctl domain-status DOMAIN --servers` shows B active and A not working (sssctl_a, sssctl_b)."),
    ("slow_link", "2. A slow, lossy link",
     "One slapd behind fault_proxy.py holding every chunk 300 ms and resetting 30 % of the "
     "connections (seeded) after 200 bytes of the answer; connections expire after 3 s "
     "(`ldap_connection_expire_timeout`), so the run opens many and meets resets all "
     "along. Must hold: at least 90 % of cold lookups answered right on the first try, "
     "none wrong; the domain not stuck offline (*time to recover*: from the end of the run "
     "to the next cold answer); lookups of users already answered stay fast through the "
     "responder (memory cache off; slowest of 50 under 1 s); no crash."),
    ("kill9", "3. kill -9 of the suite's processes",
     "One slapd; three streams of lookups through glibc run all along: cached users through "
     "sssd_nss (memory cache off), the same through the memory cache, and cold users (each "
     "needs sssd_be). sssd_be, sssd_nss and the monitor are killed with SIGKILL in turn; "
     "the monitor restarts its services at once; a killed monitor's services leave with the "
     "bus and the test starts the suite again (as systemd's Restart= would). *Time to "
     "recover*: from the kill to the first right answer of a lookup started after it that "
     "needs the killed part. Must hold: no wrong answer, no lookup longer than 10 s "
     "(libnss_sss's own timeout is 300 s), back within 15 s, none of a killed monitor's "
     "services left behind, no crash (a service dying of a signal the test did not send); "
     "and afterwards, with the directory stopped, every user answered in the run is "
     "answered right from the cache, through the responder and the memory cache. "
     "**logins_*** (tests/faults/scenario_kill_pam.sh, in a mount namespace with a private "
     "/etc/pam.d): two streams of pamtester logins (auth + account) through our pam_sss.so, "
     "one with the right password and one with a wrong one, while sssd_pam, sssd_be and the "
     "monitor are killed in turn; *time to recover*: from the kill to the first successful "
     "login started after it. Must hold: no login with the wrong password ever succeeds "
     "(`wrong_password_ok`), no login longer than 15 s, back within 15 s, no crash. "
     "**sudo_*** (tests/faults/scenario_kill_sudo.sh, in a mount namespace whose "
     "nsswitch.conf says `sudoers: sss` and whose library directory adds our "
     "libsss_sudo.so): two streams of Debian's real sudo run as alice, one running the "
     "command her LDAP rule allows, one a command no rule gives her, while sssd_sudo, "
     "sssd_be and the monitor are killed in turn; *time to recover*: from the kill to the "
     "first allowed run started after it. Must hold: the forbidden command never runs "
     "(`wrong_grant`), no sudo longer than 15 s, back within 15 s, no crash."),
    ("disk", "4. The disk under the caches",
     "One slapd. **truncated** / **scribbled**: with the suite stopped, the domain's cache "
     "file is cut to half its size, or every page after the first two is overwritten with "
     "random bytes; the suite is started again. Must hold: it starts, the file is set "
     "aside as `.corrupt` with a log line (the monitor has each cache read whole by a "
     "child process before any service opens it: src/db/sysdb_check.c), every lookup is "
     "right, no crash; *time to recover*: from the start to the first right answer. "
     "**full**: the suite runs in a mount namespace of its own with the cache directory on "
     "a 4 MB tmpfs, filled to the last byte after 40 users are cached. Must hold: cached "
     "users answered right, no wrong answer for new ones (a refusal is allowed while "
     "full), services up, no crash; *time to recover*: from freeing the space to the next "
     "right cold answer. **mc_scribbled**: random bytes written at random places of the "
     "passwd memory-cache file (about 1,300 writes a second) while four processes read it "
     "through libnss_sss as fast as they can (tests/faults/mc_reader.py, every answer "
     "checked). Must hold: no reader crashes, no wrong answer, sssd_nss does not crash "
     "(it checks every slot number and length it reads from the file against its own "
     "tables and recreates a damaged file)."),
    ("hostile", "5. Hostile local clients",
     "One slapd; sssd_nss with `fd_limit = 8192`. At once, each from its own unprivileged "
     "uid (setpriv): 3,000 idle connections held open, 200 connections trickling a request "
     "a byte every 0.7 s and never finishing it, malformed requests in a loop (a 1 GiB "
     "length claim, random bytes, short headers, unknown commands), and four uids flooding "
     "well-formed lookups back to back (tests/intg/resp_hostile.py). Meanwhile a bystander "
     "uid looks up cached users through the responder every 10 ms, a new connection each "
     "time as libnss_sss does. Must hold: the bystander's p99 under 100 ms with no failed "
     "lookup, sssd_nss's resident memory under 200 MB, no crash. The bystander's p99 "
     "before the attack is the baseline."),
    ("data", "6. Hostile directory data at scale",
     "One slapd loaded from tests/faults/make_hostile_ldif.py (rfc2307bis): N users (full "
     "run 100,000; short 3,000) among users sharing a sane user's uidNumber or name, ids "
     "that are 0, -1, 4294967295, too large or not numbers (as uidNumber and as "
     "gidNumber), 1 MB gecos and home values, a group loop (loopa <-> loopb), a group "
     "naming itself, and a group `big` declaring 500,000 members (short: 30,000) of which "
     "only the N users exist. Must hold: a random sample of 200 sane users answered "
     "right; `big` answered with exactly its N existing members; the loops answered with "
     "their users (and `id` of a member), not followed for ever; every hostile entry asked "
     "answered or not found within 120 s, the bad ids never answered, the 1 MB values "
     "dropped with a log line; sssd_be's peak RSS under 1 GB; no crash. Names that are "
     "not UTF-8 are not in it: slapd refuses to store them; tests/fuzz/fuzz_sdap_entry.c "
     "sends such bytes to the parser instead."),
    ("soak", "7. Soak",
     "One slapd with 20,000 users; mixed load through glibc for 30 minutes (short form: "
     "40 s): cold lookups, warm ones through the responder and through the memory cache, "
     "negative ones, a group of 2,000 members, `id` of a user in 22 groups, `sss_cache -E` "
     "every 10 s, and slapd restarted every 5 minutes (short: 15 s); `offline_timeout = 2` "
     "so the domain comes back soon after each restart. The cold lookups cycle through "
     "2,000 users and the negative ones through 500 names, so the caches reach their "
     "working size early. Must hold: no wrong answer, no failed lookup outside 8 s after a "
     "restart, no crash, and the resident memory and open descriptors of the monitor, "
     "sssd_be, sssd_nss, sssd_pam and sssd_sudo flat: at the end at most 20 % + 8 MB and 8 "
     "descriptors over their level a third into the run (figures: start -> a third in -> "
     "end). Logins and sudo are in the mix (in a mount namespace of the scenario's own): "
     "pamtester logins of 20 users through our pam_sss.so with the right password and with "
     "a wrong one, and Debian's real sudo run by 50 users through our libsss_sudo.so, of the "
     "command their group's rule allows and of one no rule gives them; a wrong password let "
     "in or a forbidden command run counts as a wrong answer."),
]


def parse(path):
    results, states = [], {}
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("RUN "):
                # run_faults.sh's "RUN date=... load=..." line: when and how loaded the run
                # was, kept for a report written later (FAULT_RESULTS).
                for kv in re.findall(r'(\w+)="([^"]*)"', line):
                    RUN_META[kv[0]] = kv[1]
            elif line.startswith("RESULT "):
                parts = line.split(" ", 3)
                name, status = parts[1], parts[2] if len(parts) > 2 else "?"
                rest = parts[3] if len(parts) > 3 else ""
                kv = dict(re.findall(r"(\w+)=(\S+)", rest))
                free = re.sub(r"\w+=\S+\s*", "", rest).strip()
                results.append((name, status, kv, free, rest))
            elif line.startswith("STATE "):
                _, name, text = line.split(" ", 2)
                states.setdefault(name, []).append(text)
    return results, states


RUN_META = {}


def machine():
    if "load" in RUN_META:
        return "%s CPUs (nproc), kernel %s; load average %s (at the end of the run)" % (
            RUN_META.get("cpus", "?"), platform.release(), RUN_META["load"])
    try:
        cpus = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
    except OSError:
        cpus = "?"
    try:
        load = open("/proc/loadavg").read().split()[:3]
    except OSError:
        load = ["?"] * 3
    return "%s CPUs (nproc), kernel %s; load average %s" % (cpus, platform.release(),
                                                            ", ".join(load))


def main():
    path, mode = sys.argv[1], sys.argv[2]
    results, states = parse(path)
    out = []
    w = out.append
    w("# Reliability under faults\n")
    w("Written by `make faultcheck` (tests/faults/run_faults.sh, tests/faults/faults_report.py); "
      "do not edit by hand, run it again.\n")
    w("- date: %s" % RUN_META.get("date", time.strftime("%Y-%m-%d %H:%M:%S %z")))
    w("- machine: %s" % machine())
    w("- mode: %s" % ("full (`make faultcheck`)" if mode == "full" else
                      "short (`make faultcheck FAULT_SHORT=1`, what CI runs: "
                      "failover_primary_timeout = 3 s, fewer lookups)"))
    npass = sum(1 for r in results if r[1] == "pass")
    nfail = sum(1 for r in results if r[1] == "fail")
    wrong = sum(int(r[2].get("wrong", "0")) for r in results if r[2].get("wrong", "0").isdigit())
    crashes = sum(int(r[2].get("crashes", "0")) for r in results
                  if r[2].get("crashes", "0").isdigit())
    wrong_pw = [int(r[2]["wrong_password_ok"]) for r in results
                if r[2].get("wrong_password_ok", "").isdigit()]
    wrong_grant = [int(r[2]["wrong_grant"]) for r in results
                   if r[2].get("wrong_grant", "").isdigit()]
    w("- summary: %d passed, %d failed; wrong answers %d (must be 0); crashes %d (must be 0); "
      "wrong-password successes %s (must be 0); sudo commands run without a rule %s "
      "(must be 0)\n" % (
          npass, nfail, wrong, crashes,
          max(wrong_pw) if wrong_pw else "not measured (no PAM scenario ran)",
          max(wrong_grant) if wrong_grant else "not measured (no sudo scenario ran)"))
    w("Reproduce: as root in a build directory, `make faultcheck` (about 45 minutes with the 30-minute soak; "
      "`FAULT_SHORT=1` for the CI form, about 3.5 minutes). One scenario: "
      "`tests/faults/scenario_failover.sh PREFIX` (also `FAULTS=sigstop`), "
      "`tests/faults/scenario_slow_link.sh PREFIX`, `tests/faults/scenario_kill.sh PREFIX` "
      "(also `KILL_PARTS=monitor`), `tests/faults/scenario_kill_pam.sh PREFIX`, `tests/faults/scenario_kill_sudo.sh PREFIX`, `tests/faults/scenario_disk.sh PREFIX`, `tests/faults/scenario_hostile.sh PREFIX`, `tests/faults/scenario_data.sh PREFIX`, `tests/faults/scenario_soak.sh PREFIX` after "
      "`make install`.\n")
    w("The servers' state is quoted from the back-end's log (debug level 0x87f0: the "
      "failover lines) per fault below; `sssctl domain-status DOMAIN --servers` shows the "
      "same state live.\n")
    for key, title, text in SCENARIOS:
        rows = [r for r in results if r[0].split("/")[0] == key]
        w("## %s\n" % title)
        w(text + "\n")
        if not rows:
            w("Not run.\n")
            continue
        w("| case | result | time to recover | wrong answers | crashes | other figures |")
        w("|---|---|---|---|---|---|")
        for name, status, kv, free, rest in rows:
            rec = kv.get("recover_ms", "-")
            rec = "%s ms" % rec if rec not in ("-", "none") else rec
            other = " ".join("%s=%s" % (k, v) for k, v in kv.items()
                             if k not in ("recover_ms", "wrong", "crashes"))
            if free:
                other = (other + " " + free).strip()
            w("| %s | %s | %s | %s | %s | %s |" % (
                name.split("/", 1)[-1], "**%s**" % status if status != "pass" else status,
                rec, kv.get("wrong", "-"), kv.get("crashes", "-"),
                other.replace("|", "/")))
        w("")
        for name, status, kv, free, rest in rows:
            if name in states:
                w("Server state after the fault, %s (from the back-end's log):\n" %
                  name.split("/", 1)[-1])
                w("```")
                out.extend(states[name])
                w("```\n")
    fuzz_section(w)
    sys.stdout.write("\n".join(out).rstrip("\n") + "\n")


def fuzz_section(w):
    """The fuzzers' last run in this build directory (tests/fuzz/run.sh's summary.tsv)."""
    path = os.environ.get("FUZZ_SUMMARY", "")
    w("## 8. Fuzzing\n")
    if not path or not os.path.exists(path):
        w("No fuzzing run in this build directory: `make fuzz` (30 s a harness) or "
          "`make fuzz-long` (600 s a harness) writes fuzz/summary.tsv, read here.\n")
        return
    w("From %s, written %s. CPU-minutes are the harness's own user + system time "
      "(tests/fuzz/run.sh measures them; `make fuzz-long` runs until each has 10). Reproduce: `make fuzz-long` (or `tests/fuzz/run.sh BUILD SECONDS`).\n"
      % (os.path.basename(path), time.strftime("%Y-%m-%d %H:%M", time.localtime(
          os.path.getmtime(path)))))
    w("| harness | CPU-minutes | inputs run | corpus | result |")
    w("|---|---|---|---|---|")
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 5:
                continue
            name, secs, runs, corpus, result = parts
            w("| %s | %.1f | %s | %s | %s |" % (name, int(secs) / 60.0, runs, corpus,
                                                "**%s**" % result if result != "ok" else result))
    w("")


if __name__ == "__main__":
    main()
