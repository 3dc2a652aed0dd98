package matcher

import (
	"archive/tar"
	"testing"

	"vibing/internal/command"
	"vibing/internal/patch"
)

// FuzzExtractReaders feeds the archive and patch readers arbitrary bytes:
// they must not panic, and what they accept stays within their bounds.
func FuzzExtractReaders(f *testing.F) {
	f.Add(mkTar(f, true, ent{name: "src/b.go"}, ent{name: "l", typ: tar.TypeSymlink, link: "/etc"}))
	f.Add(mkTar(f, false, ent{name: "../x"}, ent{name: "/abs"}))
	f.Add(mkZip(f, ent{name: `..\x`}, ent{name: "l", typ: tar.TypeSymlink, link: "/etc"}))
	f.Add([]byte(unifiedPatch("src/a.go", ".vibing/x") + createPatch("new")))
	f.Add([]byte("diff --git \"a/x\\303\" b/y\nrename from \"a\\tb\"\nrename to c\n*** x\n--- y\n***************\n5a6\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if ms, ok := command.TarMembers(data); ok && len(ms) > 2*command.MaxMembers {
			t.Fatalf("tarMembers returned %d members", len(ms))
		}
		if ms, ok := command.ZipMembers(data); ok && len(ms) > 2*command.MaxMembers+4 {
			t.Fatalf("zipMembers returned %d members", len(ms))
		}
		pt, ok := patch.Parse(string(data))
		if !ok {
			return
		}
		for _, given := range []bool{false, true} {
			pt.PatchTargets(1, given)
			pt.MayAsk(1, given, func(string) bool { return false })
		}
		for _, ex := range []command.Extraction{{Kind: command.ExtractTar, Dir: "out", Strip: 1}, {Kind: command.ExtractZip, Dir: ".", Junk: true, Lower: true}} {
			command.MemberNames(&ex, string(data))
		}
	})
}
