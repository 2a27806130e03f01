#!/usr/bin/env python3
"""Turns the JSON that perf_suite.sh collects into tables.

  perf_report.py table OUTDIR [--system SYS]   one table per system on stdout
  perf_report.py json OUTDIR FILE              the aggregated figures as one JSON file
  perf_report.py markdown OUTDIR FILE          docs/PERFORMANCE.md
  perf_report.py ad ADDIR                      bench_ad.sh's table (markdown) on stdout
  perf_report.py krb5 KRB5DIR                  bench_krb5.sh's table (markdown) on stdout

OUTDIR holds SYS/*.json (one sss_load result per figure, workers count and run), meta.json
(date, machine, knobs, skipped systems), and optionally bus.json (bench_bus.sh),
startup.txt (bench_startup.sh), overhead/*.json (perf_overhead.sh) and ad/SYS/*.json with
ad/skipped.txt (bench_ad.sh, whose own table is `perf_report.py ad OUTDIR/ad`), and the
same for krb5/ (bench_krb5.sh).
Each figure is the median over its runs; the spread is the min-max of the runs. Nothing
here averages percentiles: each run's percentiles come from all its operations.
"""
import glob
import json
import os
import statistics
import sys

OURS = "ours"
SYSTEM_NAMES = {"ours": "ours", "stock_sssd": "stock SSSD", "nslcd": "nslcd"}


def load_results(outdir):
    """{system: {(label, workers): [result, ...]}} from OUTDIR/SYS/*.json"""
    res = {}
    for path in sorted(glob.glob(os.path.join(outdir, "*", "*.json"))):
        sysname = os.path.basename(os.path.dirname(path))
        if sysname in ("overhead", "ad", "krb5"):
            continue
        with open(path) as f:
            r = json.load(f)
        res.setdefault(sysname, {}).setdefault((r["label"], r.get("workers", 1)), []).append(r)
    return res


def agg(values):
    """median, min, max, n of a list of numbers"""
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "n": len(values)}


def aggregate(runs):
    """The figure of one (label, workers) over its runs."""
    if "value" in runs[0]:
        return {"value": agg([r["value"] for r in runs]), "unit": runs[0].get("unit", "")}
    out = {k: agg([r["latency_us"][k] for r in runs])
           for k in ("p50", "p90", "p99", "p999", "max", "mean")}
    out["throughput"] = agg([r["throughput"] for r in runs])
    out["ops"] = sum(r["ops"] for r in runs)
    out["failures"] = sum(r["failures"] for r in runs)
    out["first_error"] = next((r["first_error"] for r in runs if r.get("first_error")), "")
    out["workload"] = runs[0].get("workload", "")
    return out


def all_figures(outdir):
    return {s: {k: aggregate(v) for k, v in figs.items()}
            for s, figs in load_results(outdir).items()}


def fmt_us(v):
    """a latency in microseconds, in the unit that reads best"""
    if v >= 10000:
        return "%.0f ms" % (v / 1000)
    if v >= 1000:
        return "%.2f ms" % (v / 1000)
    if v >= 100:
        return "%.0f us" % v
    if v >= 10:
        return "%.1f us" % v
    return "%.2f us" % v


def fmt_rate(v):
    return "%.0f/s" % v if v < 1e6 else "%.2fM/s" % (v / 1e6)


def spread(a, fmt):
    """median [min-max]; just the value for a single run"""
    if a["n"] == 1:
        return fmt(a["median"])
    return "%s [%s-%s]" % (fmt(a["median"]), fmt(a["min"]), fmt(a["max"]))


def order_key(item):
    (label, workers), _ = item
    return (label, workers)


def table_text(sysname, figs):
    lines = ["", "%s: median of the runs [min-max]" % SYSTEM_NAMES.get(sysname, sysname),
             "%-22s %4s %5s %-28s %-28s %-30s %s" % ("figure", "wrk", "runs", "p50", "p99",
                                                     "throughput", "failures")]
    for (label, workers), f in sorted(figs.items(), key=order_key):
        if "value" in f:
            lines.append("%-22s %4s %5d %s %s" % (label, "", f["value"]["n"],
                                                  f["value"]["median"], f["unit"]))
            continue
        lines.append("%-22s %4d %5d %-28s %-28s %-30s %d%s" % (
            label, workers, f["p50"]["n"], spread(f["p50"], fmt_us), spread(f["p99"], fmt_us),
            spread(f["throughput"], fmt_rate), f["failures"],
            ("  (" + f["first_error"] + ")") if f["failures"] else ""))
    return "\n".join(lines)


# The table, figure by figure: (title, label, workers, metric, target)
FIGURES = [
    ("cold getpwnam (never seen), p50", "getpwnam.cold", 1, "p50", "<= 1 ms"),
    ("refresh of an expired entry, p50", "getpwnam.expired", 1, "p50", "<= 1 ms"),
    ("cold initgroups, user in ~10 groups, p50", "initgroups.cold", 1, "p50", "<= 2 ms"),
    ("first initgroups of an already cached user, p50", "initgroups.first", 1, "p50",
     "<= 2 ms"),
    ("warm getpwnam through the responder (memory cache off), p50", "getpwnam.warm", 1, "p50",
     "<= 20 us"),
    ("warm initgroups through the responder (memory cache off), p50", "initgroups.warm", 1,
     "p50", "<= 30 us"),
    ("memory-cache hit getpwnam, p50", "getpwnam.mc", 1, "p50", "<= 0.5 us"),
    ("memory-cache hit initgroups, p50", "initgroups.mc", 1, "p50", "<= 0.5 us"),
    ("group5k (5,000 members), cold", "group5k.cold", 1, "p50", "<= 25 ms"),
    ("group5k, expired", "group5k.expired", 1, "p50", "<= 25 ms"),
    ("group5k, warm via responder, p50", "group5k.warm", 1, "p50", "<= 3 ms"),
    ("biggroup (%(big)s members), cold", "biggroup.cold", 1, "p50", "<= 250 ms at 50,000"),
    ("biggroup, expired", "biggroup.expired", 1, "p50", ""),
    ("biggroup, warm via responder, p50", "biggroup.warm", 1, "p50", ""),
    ("`id` of a user in %(many)s groups, cold (whole command)", "id_manygroups.cold", 1,
     "p50", "<= 1 s"),
    ("`id` of a user in %(many)s groups, warm, memory cache off", "id_manygroups.warm", 1,
     "p50", ""),
    ("`id` with the memory cache off, warm (whole command), p50", "id.warm", 1, "p50",
     "<= 5 ms"),
    ("`id` with the memory cache, warm (whole command), p50", "id.mc", 1, "p50", ""),
    ("`getent passwd`, warm (whole command), p50", "getent_passwd.warm", 1, "p50", ""),
    ("throughput, memory cache off, 8 client processes", "getpwnam.warm", 8, "throughput",
     ">= 60,000/s"),
    ("all users once, empty cache, one client: mean per lookup", "getpwnam.all_once", 1,
     "mean", "<= 1 ms"),
    ("RSS of all processes after that", "rss_after_all_once", 1, "value", "<= 60 MB at 10,000"),
    ("PSS of all processes after that (shared pages counted once)", "pss_after_all_once", 1,
     "value", ""),
    ("PAM login (authenticate + acct_mgmt), online LDAP bind, in-process, p50", "pam.online",
     1, "p50", "<= 3 ms"),
    ("PAM login, offline from cached credentials, p50", "pam.offline", 1, "p50", "<= 5 ms"),
    ("first PAM login after start", "pam.first", 1, "p50", "<= 20 ms"),
    ("8 parallel PAM logins (processes), logins/s online", "pam.online", 8, "throughput",
     ">= 5x stock SSSD"),
]

# Scenarios shown at every concurrency
CONC_LABELS = [("cold getpwnam", "getpwnam.cold"), ("warm getpwnam, memory cache off",
               "getpwnam.warm"), ("memory-cache getpwnam", "getpwnam.mc"),
               ("cold initgroups", "initgroups.cold"), ("warm initgroups, memory cache off",
               "initgroups.warm"), ("`id`, memory cache off", "id.warm"),
               ("`getent passwd`", "getent_passwd.warm")]

HOWTO = {
    "getpwnam.cold": "after `$LOAD_CTL flush` (caches wiped, system restarted), getpwnam of "
                     "users never looked up, each once (a slice of its own per concurrency)",
    "getpwnam.expired": "`$LOAD_CTL expire` (sss_cache -E), then getpwnam of cached users, "
                        "SSS_NSS_USE_MEMCACHE=NO",
    "initgroups.cold": "initgroups_dyn of users never looked up",
    "initgroups.first": "initgroups_dyn of users whose passwd entry a cold getpwnam cached",
    "getpwnam.warm": "getpwnam of 1 slice of warm users, random order, SSS_NSS_USE_MEMCACHE=NO, "
                     "for PERF_DURATION seconds after 100 warm-up lookups per worker",
    "getpwnam.mc": "the same with the memory cache on",
}


def pam_na(outdir):
    """{system: why} for the systems whose PAM figures are n/a (pam_na.txt)"""
    out = {}
    for path in glob.glob(os.path.join(outdir, "*", "pam_na.txt")):
        with open(path) as f:
            out[os.path.basename(os.path.dirname(path))] = f.read().strip()
    return out


def value_of(f, metric):
    if f is None:
        return None
    if metric == "value":
        return f["value"]
    return f[metric]


def show(a, metric):
    if a is None:
        return "-"
    if metric == "throughput":
        return spread(a, fmt_rate)
    if metric == "value":
        return spread(a, lambda v: "%.1f MB" % (v / 1024))
    return spread(a, fmt_us)


def ratio(ours, other, metric):
    """how many times better ours is: other/ours for times, ours/other for rates"""
    if ours is None or other is None or ours["median"] <= 0 or other["median"] <= 0:
        return "-"
    r = ours["median"] / other["median"] if metric == "throughput" \
        else other["median"] / ours["median"]
    return "x%.2f" % r if r < 10 else "x%.0f" % r


def markdown(outdir, path):
    figs = all_figures(outdir)
    meta = {}
    if os.path.exists(os.path.join(outdir, "meta.json")):
        with open(os.path.join(outdir, "meta.json")) as f:
            meta = json.load(f)
    knobs = meta.get("knobs", {})
    users = int(knobs.get("PERF_USERS", 100000))
    subst = {"big": "{:,}".format(min(int(knobs.get("PERF_BIG", 50000)), users)),
             "many": "{:,}".format(int(knobs.get("PERF_MANY", 5000)))}
    systems = [s for s in ("ours", "stock_sssd", "nslcd") if s in figs] + \
              sorted(s for s in figs if s not in ("ours", "stock_sssd", "nslcd"))
    others = [s for s in systems if s != OURS]
    w = []
    w.append("# Performance")
    w.append("")
    w.append("Written by `make perf` (tests/perf/perf_suite.sh, tests/perf/perf_report.py); "
             "do not edit by hand, run it again.")
    w.append("")
    w.append("- date: %s" % meta.get("date", "?"))
    w.append("- machine: %s CPUs (nproc), %s, kernel %s" % (meta.get("nproc", "?"),
             meta.get("cpu", "?"), meta.get("kernel", "?")))
    if "loadavg" in meta:
        w.append("- load average (1, 5, 15 min) when the run started: %s; other work on the "
                 "machine shows in the spreads" % ", ".join("%.2f" % x for x in meta["loadavg"]))
    w.append("- directory: %s users, %s groups (each user in ~10), group5k (5,000 members), "
             "biggroup (%s members), manygroups in %s groups; schema %s; slapd (mdb) on "
             "loopback" % ("{:,}".format(users),
                           "{:,}".format(int(knobs.get("PERF_GROUPS", 20000))),
                           subst["big"], subst["many"], knobs.get("PERF_SCHEMA", "rfc2307")))
    w.append("- systems: %s" % ", ".join(SYSTEM_NAMES.get(s, s) for s in systems))
    for s, why in sorted(meta.get("skipped", {}).items()):
        w.append("- not measured: %s (%s)" % (SYSTEM_NAMES.get(s, s), why.strip()
                                               .replace("\n", " ")))
    w.append("- every figure: the median of %s runs, [min-max] over the runs; within a run "
             "the percentiles are over all operations of all workers (merged samples)"
             % knobs.get("PERF_RUNS", 3))
    w.append("")
    w.append("Reproduce: as root in a build directory, `make perf` (the full directory; "
             "`make perf PERF_USERS=10000` for a quicker run; other knobs in "
             "tests/perf/perf_suite.sh). One system against a running slapd: "
             "`tests/perf/perf_suite.sh system SYS BUILDDIR WORKDIR URI BASEDN SCHEMA OUTDIR`. "
             "One figure by hand, e.g. warm getpwnam through the responder at 8 workers: "
             "`SSS_NSS_USE_MEMCACHE=NO ./sss_load -w 8 -d 3 --warmup 100 --pattern user%06d "
             "--range 0:1000 --order random nss PREFIX/lib/libnss_sss.so.2 getpwnam`.")
    w.append("")
    w.append("In-process figures call the system's NSS module directly (dlopen, "
             "`_nss_<name>_getpwnam_r` & co), so no other source answers; whole-command "
             "figures run `id`/`getent` through glibc in the system's mount namespace. "
             "Ratio: how many times better ours is (their time / our time; our rate / their "
             "rate).")
    w.append("")
    w.append("## The identity figures")
    w.append("")
    head = "| figure | target | " + " | ".join(SYSTEM_NAMES.get(s, s) for s in systems)
    head += "".join(" | ratio vs %s" % SYSTEM_NAMES.get(s, s) for s in others) + " |"
    w.append(head)
    w.append("|" + "---|" * (2 + len(systems) + len(others)))
    na = pam_na(outdir)
    for title, label, workers, metric, target in FIGURES:
        fs = {s: figs[s].get((label, workers)) for s in systems}
        vals = {s: value_of(fs[s], metric) for s in systems}
        if all(v is None for v in vals.values()):
            continue
        # A figure whose operations failed (a wrong answer counts) has no time to compare.
        bad = {s for s in systems if fs[s] is not None and fs[s].get("failures")}
        row = "| %s | %s | " % (title % subst, target)
        row += " | ".join("fails (%d of %d ops)" % (fs[s]["failures"], fs[s]["ops"])
                          if s in bad else "n/a" if fs[s] is None and label.startswith("pam.")
                          and s in na else show(vals[s], metric) for s in systems)
        row += "".join(" | " + ("-" if s in bad or OURS in bad
                               else ratio(vals.get(OURS), vals[s], metric)) for s in others)
        w.append(row + " |")
    for s in systems:
        if s in na:
            w.append("")
            w.append("PAM figures of %s: n/a (%s)." % (SYSTEM_NAMES.get(s, s), na[s]))
    w.append("")
    w.append("## By concurrency")
    w.append("")
    w.append("p50 and p99 latency, throughput (all workers together); workers are processes.")
    for title, label in CONC_LABELS:
        rows = []
        for s in systems:
            for (lab, workers), f in sorted(figs[s].items(), key=order_key):
                if lab != label:
                    continue
                rows.append("| %s | %d | %s | %s | %s | %s |" % (
                    SYSTEM_NAMES.get(s, s), workers, show(f["p50"], "p50"),
                    show(f["p99"], "p99"), show(f["throughput"], "throughput"),
                    f["failures"]))
        if rows:
            w.append("")
            w.append("### %s" % title)
            if label in HOWTO:
                w.append("")
                w.append(HOWTO[label] + ".")
            w.append("")
            w.append("| system | workers | p50 | p99 | throughput | failed ops |")
            w.append("|---|---|---|---|---|---|")
            w.extend(rows)
    w.extend(overhead_section(outdir))
    w.extend(ad_section(os.path.join(outdir, "ad")))
    w.extend(krb5_section(os.path.join(outdir, "krb5")))
    w.extend(bus_section(outdir))
    w.extend(startup_section(outdir))
    failures = [(s, k, f) for s in systems for k, f in figs[s].items()
                if f.get("failures")]
    if failures:
        w.append("")
        w.append("## Failed operations")
        w.append("")
        for s, (label, workers), f in failures:
            w.append("- %s %s (%d workers): %d failed; first: `%s`" % (
                SYSTEM_NAMES.get(s, s), label, workers, f["failures"], f["first_error"]))
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as out:
        out.write("\n".join(w) + "\n")


def overhead_section(outdir):
    path = os.path.join(outdir, "overhead", "overhead.json")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        o = json.load(f)
    w = ["", "## Tracing overhead", "",
         "Two builds of the suite from the same tree, `--enable-systemtap` and without, no "
         "tracer attached; warm getpwnam through the responder (memory cache off), one "
         "worker, %s s per measurement, the builds taking turns for %s rounds "
         "(tests/perf/perf_overhead.sh, `make perf PERF_OVERHEAD=1`). Target: within 2%%."
         % (o["duration"], o["rounds"]), "",
         "| build | p50 | throughput |", "|---|---|---|"]
    for b in ("noprobes", "probes"):
        w.append("| %s | %s | %s |" % ("without probes" if b == "noprobes" else "probes compiled in",
                                         spread(o[b]["p50"], fmt_us),
                                         spread(o[b]["throughput"], fmt_rate)))
    w.append("")
    w.append("Probes vs none: p50 %+.1f%%, throughput %+.1f%% (medians)." % (
        o["p50_change_pct"], o["throughput_change_pct"]))
    return w


# bench_ad.sh's figures: (label, title, target vs stock SSSD)
AD_ROWS = [
    ("ad.getpwnam.cold", "cold getpwnam, p50", ">= x5"),
    ("ad.id50.cold", "cold `id`, user in 50 groups (whole command), p50", ">= x5"),
    ("ad.login", "AD login (auth + acct, online, Kerberos), p50", ">= x5"),
    ("ad.id5k.cold", "cold `id`, user in 5,000 groups (whole command)", "<= 1 s"),
]


KRB5_ROWS = [
    ("krb5.login", "Kerberos login (auth + acct, online), p50", "<= 5 ms"),
    ("krb5.login.w8", "Kerberos login, 8 at once, p50", ""),
]


def side_by_side_section(subdir, title, intro, rows):
    """A table of ours against stock SSSD from a side-by-side bench's SUBDIR (bench_ad.sh,
    bench_krb5.sh), or nothing when it did not run."""
    if not os.path.isdir(subdir):
        return []
    figs = {s: {k[0]: aggregate(v) for k, v in f.items()}
            for s, f in load_results(subdir).items()}
    systems = [s for s in ("ours", "stock_sssd") if s in figs]
    w = ["", "## " + title, "", intro + " Median of the runs, [min-max]. Failed operations "
         "show as failures, never as times.", ""]
    w.append("| figure | target | %s | ratio vs stock SSSD |" % " | ".join(
        SYSTEM_NAMES.get(s, s) for s in systems))
    w.append("|---|---|%s---|" % ("---|" * len(systems)))
    for label, name, target in rows:
        cells = []
        for s in systems:
            f = figs[s].get(label)
            if f is None:
                cells.append("-")
            elif f["failures"]:
                cells.append("fails (%d of %d ops)" % (f["failures"], f["ops"]))
            else:
                cells.append(show(f["p50"], "p50"))
        ours = figs.get("ours", {}).get(label)
        stock = figs.get("stock_sssd", {}).get(label)
        ok = ours is not None and stock is not None and not ours["failures"] \
            and not stock["failures"]
        w.append("| %s | %s | %s | %s |" % (name, target, " | ".join(cells),
                                             ratio(ours["p50"], stock["p50"], "p50") if ok else "-"))
    skipped = os.path.join(subdir, "skipped.txt")
    if os.path.exists(skipped):
        with open(skipped) as f:
            for line in f.read().split("\n"):
                if line.strip():
                    w.append("")
                    w.append("Not measured: %s" % line.strip())
    return w


def ad_section(addir):
    return side_by_side_section(
        addir, "Active Directory",
        "tests/perf/bench_ad.sh: a private Samba AD DC (samba-tool provision, adcli join), "
        "id_provider = ad with the same sssd.conf for every system (SID mapping, tokenGroups, "
        "logins through the DC's KDC).", AD_ROWS)


def krb5_section(krb5dir):
    return side_by_side_section(
        krb5dir, "Kerberos logins",
        "tests/perf/bench_krb5.sh: a private MIT KDC and slapd on loopback, auth_provider = "
        "krb5 with the same sssd.conf and krb5.conf for every system; each login is auth + "
        "acct through the system's pam_sss.so, gets a TGT and writes a fresh FILE: ccache.",
        KRB5_ROWS)


def bus_section(outdir):
    path = os.path.join(outdir, "bus.json")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        b = json.load(f)
    w = ["", "## Bus round trips", "",
         "tests/perf/bench_bus.sh: Echo round trips through our master bus (sbus), a direct "
         "connection (p2p), dbus-daemon and dbus-broker; median of %s rounds of %s s, "
         "[min-max]. %s" % (b.get("rounds"), b.get("seconds"), b.get("versions", "")), "",
         "| bus | callers | round trips/s | messages/s | p50 | p99 |", "|---|---|---|---|---|---|"]
    for r in b.get("results", []):
        w.append("| %s | %s | %s | %s | %s | %s |" % (
            r["bus"], r["callers"], spread(dict(r["calls_per_s"], n=2), fmt_rate),
            spread(dict(r["msgs_per_s"], n=2), fmt_rate), spread(dict(r["p50_us"], n=2), fmt_us),
            spread(dict(r["p99_us"], n=2), fmt_us)))
    t = b.get("targets", {})
    if "sbus_added_p50_us" in t:
        w.append("")
        line = "The master bus adds %.1f us p50 per round trip over point to point" % \
            t["sbus_added_p50_us"]
        if "relay_added_p50_us" in t:
            line += ", a bare relay %.1f us (target: no more than the relay)" % \
                t["relay_added_p50_us"]
        w.append(line + ".")
    if "msgs_ratio_vs_dbus_broker_16" in t:
        w.append("At 16 callers the master carries x%.2f dbus-broker's messages/s and "
                 "x%.2f point to point's (targets: >= x1 and >= x0.8)." % (
                     t["msgs_ratio_vs_dbus_broker_16"], t.get("msgs_ratio_vs_p2p_16", 0)))
    return w


def startup_section(outdir):
    path = os.path.join(outdir, "startup.txt")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        text = f.read().strip()
    return ["", "## Start-up", "", "tests/perf/bench_startup.sh (5 starts, 10 s idle):", "",
            "```", text, "```"]


def main(argv):
    if len(argv) < 3 or argv[1] not in ("table", "json", "markdown", "ad", "krb5"):
        sys.stderr.write(__doc__)
        return 2
    outdir = argv[2]
    if argv[1] == "ad":
        print("\n".join(ad_section(outdir)))
        return 0
    if argv[1] == "krb5":
        print("\n".join(krb5_section(outdir)))
        return 0
    if argv[1] == "table":
        figs = all_figures(outdir)
        only = argv[4] if len(argv) > 4 and argv[3] == "--system" else None
        for s in sorted(figs):
            if only is None or s == only:
                print(table_text(s, figs[s]))
        for s, why in sorted(pam_na(outdir).items()):
            if only is None or s == only:
                print("%s: PAM figures n/a (%s)" % (SYSTEM_NAMES.get(s, s), why))
        return 0
    if len(argv) < 4:
        sys.stderr.write(__doc__)
        return 2
    if argv[1] == "json":
        figs = all_figures(outdir)
        out = {s: [dict(label=l, workers=wk, **f) for (l, wk), f in sorted(v.items())]
               for s, v in figs.items()}
        with open(argv[3], "w") as f:
            json.dump(out, f, indent=1)
        return 0
    markdown(outdir, argv[3])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
