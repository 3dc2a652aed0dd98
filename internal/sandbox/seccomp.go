package sandbox

import (
	"encoding/binary"
	"runtime"
)

// The seccomp filter bubblewrap installs in the sandbox (--seccomp FD): it
// refuses the ioctls that push input into a terminal (TIOCSTI: type keys
// into the person's shell once the CLI ends; TIOCLINUX: the same through
// the console's selection), with EPERM; every other call runs. `vibing-agent
// claude` keeps the person's terminal (no new session), so without it a
// script inside could type a command that runs outside.

// Classic BPF, as seccomp reads it.
const (
	bpfLdWAbs = 0x20 // BPF_LD | BPF_W | BPF_ABS
	bpfJeqK   = 0x15 // BPF_JMP | BPF_JEQ | BPF_K
	bpfJa     = 0x05 // BPF_JMP | BPF_JA
	bpfRetK   = 0x06 // BPF_RET | BPF_K

	seccompRetAllow = 0x7fff0000
	seccompRetErrno = 0x00050000
	errnoEPERM      = 1

	// offsets in struct seccomp_data
	offNr    = 0
	offArch  = 4
	offArg1L = 24 // the low half of args[1] (little-endian), the ioctl's request

	tiocsti   = 0x5412
	tioclinux = 0x541c
)

// ioctlNr are the ioctl system call numbers by the audit architecture a
// call is made with (a 64-bit kernel also runs 32-bit and x32 calls).
var ioctlNr = []struct {
	arch uint32
	nrs  []uint32
}{
	{0xc000003e, []uint32{16, 0x40000000 | 514}}, // x86_64, and x32's ioctl
	{0x40000003, []uint32{54}},                   // i386
	{0xc00000b7, []uint32{29}},                   // aarch64
	{0x40000028, []uint32{54}},                   // arm
	{0xc00000f3, []uint32{29}},                   // riscv64
}

// TIOCSTIFilterHere reports whether the filter applies on this machine's
// architecture (the little-endian ones whose TIOCSTI is 0x5412).
func TIOCSTIFilterHere() bool {
	switch runtime.GOARCH {
	case "amd64", "386", "arm64", "arm", "riscv64":
		return true
	}
	return false
}

type insn struct {
	code   uint16
	jt, jf uint8
	k      uint32
}

// tiocstiFilter is the program, as bytes of struct sock_filter.
func tiocstiFilter() []byte {
	// layout: for each architecture a block
	//   jeq arch ? next : skip-block ; ld nr ; jeq nr_i ? CHECK ... ; ja ALLOW
	// then ALLOW: ret allow ; CHECK: ld arg1 ; jeq TIOCSTI ? DENY ;
	// jeq TIOCLINUX ? DENY ; ret allow ; DENY: ret errno
	var prog []insn
	type fix struct {
		at     int
		target string // "allow" or "check"
		field  byte   // 't' jt, 'f' jf, 'k' ja
	}
	var fixes []fix
	prog = append(prog, insn{code: bpfLdWAbs, k: offArch})
	for _, a := range ioctlNr {
		size := 1 + len(a.nrs) + 1 // ld nr, the jeqs, ja: skipped for another architecture
		prog = append(prog, insn{code: bpfJeqK, jt: 0, jf: uint8(size), k: a.arch})
		prog = append(prog, insn{code: bpfLdWAbs, k: offNr})
		for _, nr := range a.nrs {
			fixes = append(fixes, fix{len(prog), "check", 't'})
			prog = append(prog, insn{code: bpfJeqK, k: nr})
		}
		fixes = append(fixes, fix{len(prog), "allow", 'k'})
		prog = append(prog, insn{code: bpfJa})
	}
	allow := len(prog)
	prog = append(prog, insn{code: bpfRetK, k: seccompRetAllow})
	check := len(prog)
	prog = append(prog,
		insn{code: bpfLdWAbs, k: offArg1L},
		insn{code: bpfJeqK, jt: 2, k: tiocsti},
		insn{code: bpfJeqK, jt: 1, k: tioclinux},
		insn{code: bpfRetK, k: seccompRetAllow},
		insn{code: bpfRetK, k: seccompRetErrno | errnoEPERM})
	for _, f := range fixes {
		target := allow
		if f.target == "check" {
			target = check
		}
		off := target - f.at - 1
		switch f.field {
		case 't':
			prog[f.at].jt = uint8(off)
		case 'k':
			prog[f.at].k = uint32(off)
		}
	}
	out := make([]byte, 0, 8*len(prog))
	for _, in := range prog {
		out = binary.LittleEndian.AppendUint16(out, in.code)
		out = append(out, in.jt, in.jf)
		out = binary.LittleEndian.AppendUint32(out, in.k)
	}
	return out
}
