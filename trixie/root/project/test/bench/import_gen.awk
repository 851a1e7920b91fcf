# Writes N lines of synthetic `sacct -a -P -o JobID,JobIDRaw,User,Account,
# Partition,QOS,AllocCPUS,ReqMem,ReqTRES,AllocTRES,Submit,Eligible,Start,End,
# Elapsed,ElapsedRaw,State,ExitCode,NNodes,Cluster` output, shaped like a real
# export: every job has its line plus .batch and .extern steps, half have an
# srun step .0 (3.5 lines per job); 1 job in 10 is an array task, 1 in 20 is
# pending, 1 in 20 running.  300 users in 40 accounts, 3 partitions.
# usage: awk -v n=1000000 -f import_gen.awk > export.psv
function two(x) { return sprintf("%02d", x) }
function ts(t,   d, h, m, s) {
    d = int(t / 86400); t -= d * 86400
    h = int(t / 3600); m = int((t - h * 3600) / 60); s = t - h * 3600 - m * 60
    return sprintf("2026-%s-%sT%s:%s:%s", two(1 + int(d / 28)), two(1 + d % 28), two(h), two(m), two(s))
}
function hms(t) { return sprintf("%02d:%02d:%02d", int(t / 3600), int(t / 60) % 60, t % 60) }
BEGIN {
    srand(42)
    OFS = "|"
    print "JobID", "JobIDRaw", "User", "Account", "Partition", "QOS", "AllocCPUS", "ReqMem", "ReqTRES", "AllocTRES", "Submit", "Eligible", "Start", "End", "Elapsed", "ElapsedRaw", "State", "ExitCode", "NNodes", "Cluster"
    split("std big low", parts, " ")
    lines = 1; job = 1000; t = 0
    while (lines < n) {
        job++
        u = int(rand() * 300); a = u % 40
        cpus = 2 ^ int(rand() * 6); mem = cpus * 2; p = parts[1 + int(rand() * 3)]
        t += int(rand() * 20); submit = ts(t); st = t + int(rand() * 600); el = 60 + int(rand() * 7200)
        tres = "billing=" cpus ",cpu=" cpus ",mem=" mem "G,node=1"
        id = job; raw = job
        if (rand() < 0.1) { id = job "_" int(rand() * 100); raw = job }
        r = rand()
        if (r < 0.05) {          # pending: requested TRES only, no steps
            print id, raw, "user" u, "acct" a, p, "normal", cpus, mem "G", tres, "", submit, submit, "Unknown", "Unknown", "00:00:00", 0, "PENDING", "0:0", 1, "oracle"
            lines++; continue
        }
        if (r < 0.10) { state = "RUNNING"; en = "Unknown" } else { state = "COMPLETED"; en = ts(st + el) }
        print id, raw, "user" u, "acct" a, p, "normal", cpus, mem "G", tres, tres, submit, submit, ts(st), en, hms(el), el, state, "0:0", 1, "oracle"
        print id ".batch", raw ".batch", "", "acct" a, "", "", cpus, "", "", "cpu=" cpus ",mem=" mem "G,node=1", ts(st), ts(st), ts(st), en, hms(el), el, state, "0:0", 1, "oracle"
        print id ".extern", raw ".extern", "", "acct" a, "", "", cpus, "", "", tres, ts(st), ts(st), ts(st), en, hms(el), el, state, "0:0", 1, "oracle"
        lines += 3
        if (rand() < 0.5 && lines < n) {
            print id ".0", raw ".0", "", "acct" a, "", "", cpus, "", "", "cpu=" cpus ",mem=" mem "G,node=1", ts(st + 1), ts(st + 1), ts(st + 1), en, hms(el - 1), el - 1, state, "0:0", 1, "oracle"
            lines++
        }
    }
}
