package sandbox

import (
	"encoding/binary"
	"testing"
)

// run interprets the filter (the few classic BPF instructions it uses) for
// one system call.
func runFilter(t *testing.T, prog []byte, arch, nr uint32, arg1 uint64) uint32 {
	t.Helper()
	var data [64]byte
	binary.LittleEndian.PutUint32(data[offNr:], nr)
	binary.LittleEndian.PutUint32(data[offArch:], arch)
	binary.LittleEndian.PutUint64(data[16+8:], arg1)
	var a uint32
	for pc := 0; pc < len(prog)/8; {
		in := prog[pc*8:]
		code, jt, jf, k := binary.LittleEndian.Uint16(in), in[2], in[3], binary.LittleEndian.Uint32(in[4:])
		switch code {
		case bpfLdWAbs:
			a = binary.LittleEndian.Uint32(data[k:])
			pc++
		case bpfJeqK:
			if a == k {
				pc += 1 + int(jt)
			} else {
				pc += 1 + int(jf)
			}
		case bpfJa:
			pc += 1 + int(k)
		case bpfRetK:
			return k
		default:
			t.Fatalf("instruction %#x at %d", code, pc)
		}
	}
	t.Fatal("the filter ran off its end")
	return 0
}

// Every architecture's ioctl with TIOCSTI or TIOCLINUX is refused (also
// with bits above the 32 the kernel reads); other ioctls, other calls and
// other architectures run.
func TestTIOCSTIFilterProgram(t *testing.T) {
	prog := tiocstiFilter()
	deny := uint32(seccompRetErrno | errnoEPERM)
	for _, a := range ioctlNr {
		for _, nr := range a.nrs {
			for _, req := range []uint64{tiocsti, tioclinux, 1<<32 | tiocsti} {
				if got := runFilter(t, prog, a.arch, nr, req); got != deny {
					t.Errorf("arch %#x ioctl %d request %#x: %#x, want refused", a.arch, nr, req, got)
				}
			}
			if got := runFilter(t, prog, a.arch, nr, 0x5413); got != seccompRetAllow { // TIOCGWINSZ
				t.Errorf("arch %#x: TIOCGWINSZ refused", a.arch)
			}
			if got := runFilter(t, prog, a.arch, nr+1, tiocsti); got != seccompRetAllow {
				t.Errorf("arch %#x: call %d refused", a.arch, nr+1)
			}
		}
	}
	if got := runFilter(t, prog, 0xdeadbeef, 16, tiocsti); got != seccompRetAllow {
		t.Errorf("an unknown architecture's call refused")
	}
	// on x86_64, i386's ioctl number is another call (and the reverse)
	if got := runFilter(t, prog, 0xc000003e, 54, tiocsti); got != seccompRetAllow {
		t.Errorf("x86_64 call 54 refused")
	}
}
