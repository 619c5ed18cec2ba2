# scaler-gdb.py - lets gdb's backtraces walk past scaler's return trampoline.
#
# While a timed call is in flight, its return address on the stack is the
# runtime's sc_return_point, inside sc_return_trampoline, whose unwind info
# says "outermost frame", so gdb's `bt` stopped there. This unwinder
# recognises a frame whose pc is that return point, finds the real return address in the thread's shadow
# stack (sc_tls_thread->frames, the entry whose slot is where the return
# address was) and hands gdb the caller's frame: the backtrace goes on to
# main with one extra frame, `sc_return_trampoline`, where the runtime is.
#
# Use:  (gdb) source /path/to/scaler/scripts/scaler-gdb.py
# or    gdb -x scripts/scaler-gdb.py ...
# or auto-load it: copy it as libscaler.so-gdb.py next to libscaler.so and
# allow that directory (`add-auto-load-safe-path DIR`).
# Needs libscaler.so with its symbols and debug info (the default build).
import gdb
from gdb.unwinder import Unwinder, register_unwinder

_REGS = ("rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "r8", "r9", "r10",
         "r11", "r12", "r13", "r14", "r15")


class _FrameId(object):
    def __init__(self, sp, pc):
        self.sp = sp
        self.pc = pc


def _trampoline():
    try:
        return int(gdb.parse_and_eval("(unsigned long)&sc_return_point"))
    except gdb.error:
        return None


def _real_return(slot):
    """The caller's return address saved for the timed call whose return
    address was at slot, or None."""
    try:
        th = gdb.parse_and_eval("sc_tls_thread")
        if int(th) == 0:
            return None
        base, top = th["sp_base"], th["sp"]
        for i in range(int(top - base) - 1, -1, -1):
            if int(base[i]["slot"]) == slot:
                return int(base[i]["ret"])
        grave = th["grave"]     # frames parked by swapcontext
        n = int(grave.type.sizeof // grave[0].type.sizeof)
        for i in range(n):
            if int(grave[i]["slot"]) == slot:
                return int(grave[i]["ret"])
    except gdb.error:
        pass
    return None


class ScalerUnwinder(Unwinder):
    def __init__(self):
        super(ScalerUnwinder, self).__init__("scaler")

    def __call__(self, pending_frame):
        tramp = _trampoline()
        if tramp is None:
            return None
        pc = pending_frame.read_register("rip")
        if int(pc) != tramp:
            return None
        sp = pending_frame.read_register("rsp")
        ret = _real_return(int(sp) - 8)
        if ret is None:
            return None
        info = pending_frame.create_unwind_info(_FrameId(sp, pc))
        # the trampoline has not run yet: every register is the caller's
        for r in _REGS:
            info.add_saved_register(r, pending_frame.read_register(r))
        info.add_saved_register("rsp", sp)
        info.add_saved_register("rip", gdb.Value(ret).cast(pc.type))
        return info


register_unwinder(None, ScalerUnwinder(), replace=True)
