# step.py - gdb script of the "sigstep" check (checks/sigstep.py): from
# stepped_calls() to stepped_end() in sc_sigstep, single-steps every
# instruction and queues SIGUSR1 before the first step from each address
# (once per address: a loop that starts over when a handler interfered
# must still end), so that the handler's call runs at every point of the
# interceptor's and trampoline's path. The handler itself runs at full
# speed: a breakpoint where it interrupted, for this stack only. Prints
# "sigstep: N signals, M steps".
import gdb


def reg(expr):
    return int(gdb.parse_and_eval("(unsigned long)(%s)" % expr))


gdb.execute("handle SIGUSR1 nostop noprint pass")
gdb.execute("break stepped_calls")
gdb.execute("run")
gdb.execute("delete")
end = reg("&stepped_end")
handler = reg("&on_usr1")
seen = set()
steps = 0
try:
    while steps < 20000:
        pc, sp = reg("$pc"), reg("$sp")
        if pc == end:
            break
        if pc not in seen:
            seen.add(pc)
            gdb.execute("queue-signal SIGUSR1")
        gdb.execute("stepi", to_string=True)
        steps += 1
        if reg("$pc") == handler:
            gdb.execute("tbreak *%#x if $sp == %#x" % (pc, sp), to_string=True)
            gdb.execute("continue", to_string=True)
except gdb.error as e:
    print("sigstep: stopped at step %d: %s" % (steps, e))
    gdb.execute("kill")
else:
    print("sigstep: %d signals, %d steps" % (len(seen), steps))
    gdb.execute("continue")
