#!/bin/sh
# build.sh - builds the e2e test programs and their shared libraries in one
# linking variant: build.sh VARIANT OUTDIR  (OUTDIR/VARIANT/ gets the files).
# Variants: lazy now noplt nopie cet. Everything is built with -O2 and the
# libraries are found through the executable's RUNPATH ($ORIGIN).
# Rebuilds only when a source (or this script) is newer than the output.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
variant=$1
out=$2/$variant
CC=${CC:-gcc}
CXX=${CXX:-g++}
mkdir -p "$out"

cflags="-O2 -g -Wall"
ldflags=""
exeflags=""
case $variant in
lazy)  ldflags="-Wl,-z,lazy" ;;
now)   ldflags="-Wl,-z,now" ;;
noplt) cflags="$cflags -fno-plt" ;;
nopie) exeflags="-fno-pie -no-pie" ;;
cet)   cflags="$cflags -fcf-protection"; ldflags="-Wl,-z,ibtplt" ;;
*) echo "build.sh: unknown variant $variant" >&2; exit 2 ;;
esac
rpath="-Wl,-rpath,\$ORIGIN"

# stale OUT SRC... : true when OUT is missing or older than a SRC
# (sh has no locals: st_* names must not clash with lib/exe's variables)
stale() {
	st_out=$1; shift
	[ -e "$st_out" ] || return 0
	for st_src in "$@" "$here/build.sh"; do
		[ "$st_src" -nt "$st_out" ] && return 0
	done
	return 1
}
# lib CC OUT SRC [LIBS...]: a shared library
lib() {
	cc=$1 o=$out/$2 s=$here/$3; shift 3
	if stale "$o" "$s" "$(dirname "$s")"/*.h* 2>/dev/null; then
		$cc $cflags -fPIC -shared $ldflags -o "$o" "$s" -L"$out" "$@" "$rpath"
	fi
}
# exe CC OUT SRC [LIBS...]: a program
exe() {
	cc=$1 o=$out/$2 s=$here/$3; shift 3
	if stale "$o" "$s" "$(dirname "$s")"/*.h* "$out"/*.so 2>/dev/null; then
		$cc $cflags $exeflags $ldflags -o "$o" "$s" -L"$out" "$@" "$rpath"
	fi
}

lib $CC libsc_b.so basic/sc_b.c
lib $CC libsc_a.so basic/sc_a.c -lsc_b
exe $CC sc_basic basic/main.c -lsc_a -lsc_b

exe $CC sc_fork fork/main.c -lsc_b
exe $CC sc_forkchain forkchain/main.c -lsc_b
exe $CC sc_forkgrow forkgrow/main.c
exe $CC sc_forkexec forkexec/main.c -lsc_b
exe $CC sc_vfork vfork/main.c -lsc_b -pthread
exe $CC sc_endrace endrace/main.c -lsc_b -pthread
exe $CC sc_sigfork sigfork/main.c
exe $CC sc_amx amx/main.c
exe $CC sc_reentry reentry/main.c
exe $CC sc_sigwork sigwork/main.c

lib $CC libsc_rp.so repoint/sc_rp.c
exe $CC sc_repoint repoint/main.c -lsc_rp

lib $CC libsc_dl.so dl/sc_dl.c
exe $CC sc_dl dl/main.c -ldl
exe $CC sc_reload reload/main.c -ldl
lib $CC libsc_dlrh.so dlrace/sc_dlrh.c -ldl
for n in 1 2 3 4; do
	lib $CC libsc_dlr$n.so dlrace/sc_dlr.c -lsc_dlrh
done
exe $CC sc_dlrace dlrace/main.c -ldl -pthread -Wl,--no-as-needed -lsc_dlrh

lib $CC libsc_lj.so longjmp/sc_lj.c
exe $CC sc_longjmp longjmp/main.c -lsc_lj
exe $CC sc_sigstep sigstep/main.c -lsc_lj
exe $CXX sc_cppcb cppcb/main.cc -lsc_lj
exe $CC sc_coro coro/main.c -lsc_lj
exe $CC sc_imbalance imbalance/main.c -lsc_lj -pthread

lib $CC libsc_dp.so diffpair/sc_dp.c
exe $CC sc_diffpair diffpair/main.c -lsc_dp
exe $CC sc_hints hints/main.c -pthread
lib $CC libsc_wk.so walk/sc_wk.c
exe $CC sc_walk walk/main.c -lsc_wk
exe $CC sc_spawn spawn/main.c -fno-builtin
exe $CC sc_exec exec/main.c -lsc_b
exe $CC sc_sighand sighand/main.c -lsc_b
exe $CC sc_killtree killtree/main.c -lsc_b
exe $CC sc_live live/main.c -lsc_b -lpthread
lib $CC libsc_ctld.so ctl/sc_ctld.c
lib $CC sc_ctlx.cpython-311-x86_64-linux-gnu.so ctl/sc_ctlx.c
exe $CC sc_ctl ctl/main.c -lsc_b -lpthread -ldl
exe $CC sc_ctlexec ctl/exec.c -lsc_b
exe $CC sc_ctlstale ctl/stale.c -lpthread
exe $CC sc_ctlbusy ctl/busy.c -lpthread
exe $CC sc_kvfork kvfork/main.c
exe $CC sc_kstale kstale/main.c
exe $CC sc_rawfork rawfork/main.c
exe $CC sc_attach attach/main.c -lsc_b -lpthread
exe $CC sc_attachfn attachfn/main.c -lpthread -ldl
exe $CC sc_daemon daemon/main.c -ldl
exe $CC sc_sigdef sigdef/main.c -fno-builtin
exe $CC sc_vdso vdso/main.c
exe $CC sc_names names/main.c -pthread
exe $CC sc_offcpu offcpu/main.c -pthread -fno-builtin
exe $CC sc_kcpu kcpu/main.c -pthread -fno-builtin
lib $CC libsc_spin.so lazyring/sc_spin.c
exe $CC sc_lazyring lazyring/main.c -pthread -fno-builtin -lsc_spin
exe $CC sc_seccomp seccomp/main.c -pthread -lm

lib $CC libsc_bt.so bt/sc_bt.c -fasynchronous-unwind-tables
exe $CC sc_bt bt/main.c -lsc_bt
exe $CC sc_gdbbt gdbbt/main.c -lsc_bt

lib $CC libsc_wrap.so interpose/sc_wrap.c -ldl
exe $CC sc_interpose interpose/main.c -fno-builtin -lsc_wrap

lib $CC libsc_t3.so tail/sc_t3.c
lib $CC libsc_t2.so tail/sc_t2.c -lsc_t3
lib $CC libsc_t1.so tail/sc_t1.c -lsc_t2
exe $CC sc_tail tail/main.c -lsc_t1 -lsc_t2 -lsc_t3 -ldl

lib $CC libsc_abi.so abi/sc_abi.c
exe $CC sc_abi abi/main.c -lsc_abi

lib $CC libsc_ac.so args/sc_ac.c
lib $CC libsc_bump.so args/sc_bump.c
lib $CC libsc_bumpu.so args/sc_bump.c -DUSABLE
exe $CC sc_args args/main.c -lsc_ac -pthread

lib $CC libsc_thr.so threads/sc_thr.c
exe $CC sc_threads threads/main.c -lsc_thr -pthread
exe $CC sc_thrlife thrlife/main.c -lsc_thr -pthread -fexceptions

lib $CC libsc_an2.so analysis/sc_an2.c
lib $CC libsc_an.so analysis/sc_an.c -lsc_an2
exe $CC sc_analysis analysis/main.c -lsc_an -pthread

lib $CXX libsc_cpp.so cpp/sc_cpp.cpp
exe $CXX sc_cpp cpp/main.cpp -lsc_cpp
exe $CXX sc_nest nest/main.cpp

lib $CC libsc_ev.so inflight/sc_ev.c
exe $CC sc_inflight inflight/main.c -lsc_ev -pthread

lib $CC libsc_smp.so sample/sc_smp.c
exe $CC sc_sample sample/main.c -lsc_smp

# --functions (checks/functions.py): the program, a stripped copy whose
# functions are known only from .eh_frame, and a stripped copy with
# Fedora's mini debuginfo (.gnu_debugdata: the symbols .dynsym lacks, xz)
lib $CC libsc_fnlib.so functions/sc_fnlib.c
lib $CC libsc_fndl.so functions/sc_fndl.c
exe $CXX sc_functions functions/main.cc -pthread -ldl -lsc_fnlib
# calls from a function's own object, timed keeping every register (checks/fnown.py)
exe $CC sc_fnown fnown/main.c -pthread
# an own-object function's one long call and its adaptive period (checks/fnlong.py)
exe $CC sc_fnlong fnlong/main.c
if stale "$out/sc_functions_stripped" "$out/sc_functions"; then
	strip -o "$out/sc_functions_stripped" "$out/sc_functions"
fi
if stale "$out/sc_functions_minidata" "$out/sc_functions"; then
	mini=$(mktemp -d)
	nm -D "$out/sc_functions" --format=posix --defined-only | awk '{print $1}' | sort > "$mini/dyn"
	nm "$out/sc_functions" --format=posix --defined-only |
		awk '$2 == "T" || $2 == "t" {print $1}' | sort > "$mini/funcs"
	comm -13 "$mini/dyn" "$mini/funcs" > "$mini/keep"
	objcopy --only-keep-debug "$out/sc_functions" "$mini/mini"
	objcopy -S --remove-section .gdb_index --remove-section .comment \
		--keep-symbols="$mini/keep" "$mini/mini"
	xz "$mini/mini"
	strip -o "$mini/exe" "$out/sc_functions"
	objcopy --add-section .gnu_debugdata="$mini/mini.xz" "$mini/exe" "$out/sc_functions_minidata"
	rm -rf "$mini"
fi

lib $CC libsc_est.so estim/sc_est.c
exe $CC sc_estim estim/main.c -lsc_est -pthread
lib $CC libsc_par.so par/sc_par.c
exe $CC sc_par par/main.c -lsc_par -pthread
exe $CC sc_paroncpu par/oncpu.c -lsc_par -pthread
lib $CC libsc_te_c.so twoedge/sc_te_c.c
lib $CC libsc_te_b.so twoedge/sc_te_b.c -lsc_te_c
exe $CC sc_twoedge twoedge/main.c -lsc_te_b -lsc_te_c
lib $CC libsc_tt_c.so tailedge/sc_tt_c.c
lib $CC libsc_tt_b.so tailedge/sc_tt_b.c -lsc_tt_c
exe $CC sc_tailedge tailedge/main.c -lsc_tt_b -lsc_tt_c
