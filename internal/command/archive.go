package command

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"vibing/internal/patch"
)

// Reading the archives and patches a line unpacks or applies, so that the
// files they write are known by name (see extract.go). Everything here
// fails closed: a file that is missing, too large, not a regular file, in
// an unknown or compressed-beyond-reach format, or that does not parse
// cleanly to its end yields ok=false, and the caller keeps "some file
// inside the folder".

const (
	MaxArchiveBytes  = 4 << 20        // the most of an archive or patch file read
	maxUnpackedBytes = 32 << 20       // the most a compressed tar is unpacked to find its member names
	MaxMembers       = patch.MaxNames // the most member names read (as many as a patch's file names)
)

var errTooBig = errors.New("more than is read")

// member is one name an archive writes.
type member struct {
	name   string
	link   bool   // a symlink or hard link: a later member may write through it
	target string // what a link points at
}

// readBounded reads a regular file of at most maxArchiveBytes whose path
// is not a device or process file (/dev/stdin would be the engine's own
// input), and reports whether the file has a single name (a hard link
// elsewhere could be rewritten under another name).
func readBounded(p Path) ([]byte, bool) {
	for _, s := range []string{p.Abs, p.Real} {
		if within(s, "/dev") || within(s, "/proc") || within(s, "/sys") {
			return nil, false
		}
	}
	f, err := os.OpenFile(p.Abs, os.O_RDONLY|syscall.O_NONBLOCK, 0) // a FIFO must not block the engine
	if err != nil {
		return nil, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > MaxArchiveBytes {
		return nil, false
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || uint64(st.Nlink) != 1 {
		return nil, false
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxArchiveBytes+1))
	if err != nil || len(data) > MaxArchiveBytes {
		return nil, false
	}
	return data, true
}

// capReader fails once more than n bytes were read.
type capReader struct {
	r io.Reader
	n int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.n <= 0 {
		return 0, errTooBig
	}
	if int64(len(p)) > c.n {
		p = p[:c.n]
	}
	n, err := c.r.Read(p)
	c.n -= int64(n)
	return n, err
}

// otherFormats are the starts of archive formats bsdtar (and 7z) would
// unpack instead of reading the file as a tar: a file that starts so is
// not read as one.
var otherFormats = []string{
	"PK\x03\x04", "PK\x05\x06", "PK\x07\x08", "7z\xbc\xaf", "Rar!", "MZ", "#mtree", "070707", "070701", "070702",
	"\xc7\x71", "\x71\xc7", "!<arch>", "xar!", "MSCF", "ISc(", "\xed\xab\xee\xdb", "-lh", "\x60\xea",
}

// tarMembers lists the members of a tar archive, plain or compressed
// with gzip or bzip2 (the other compressions are not read).
func TarMembers(data []byte) ([]member, bool) {
	var r io.Reader
	switch {
	case bytes.HasPrefix(data, []byte{0x1f, 0x8b}):
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, false
		}
		r = &capReader{r: zr, n: maxUnpackedBytes}
	case bytes.HasPrefix(data, []byte("BZh")):
		r = &capReader{r: bzip2.NewReader(bytes.NewReader(data)), n: maxUnpackedBytes}
	default:
		r = bytes.NewReader(data) // xz, zstd, lzip, compress: the tar header check below fails
	}
	head := make([]byte, 512)
	if _, err := io.ReadFull(r, head); err != nil {
		return nil, false
	}
	if m := string(head[257:263]); m != "ustar\x00" && m != "ustar " {
		return nil, false // not a POSIX or GNU tar (a v7 tar, or another format)
	}
	for _, sig := range otherFormats {
		if strings.HasPrefix(string(head), sig) {
			return nil, false
		}
	}
	tr := tar.NewReader(io.MultiReader(bytes.NewReader(head), r))
	var out []member
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil && !errors.Is(err, tar.ErrInsecurePath) {
			return nil, false
		}
		if len(out) >= MaxMembers {
			return nil, false
		}
		names := []string{hdr.Name}
		for _, k := range []string{"path", "GNU.sparse.name"} {
			if v := hdr.PAXRecords[k]; v != "" && v != hdr.Name {
				names = append(names, v)
			}
		}
		switch hdr.Typeflag {
		case tar.TypeReg, '\x00', tar.TypeDir, tar.TypeChar, tar.TypeBlock, tar.TypeFifo, tar.TypeCont,
			tar.TypeGNUSparse, 'D', 'M':
		case tar.TypeSymlink, tar.TypeLink:
			targets := []string{hdr.Linkname}
			if v := hdr.PAXRecords["linkpath"]; v != "" && v != hdr.Linkname {
				targets = append(targets, v)
			}
			for _, n := range names {
				for _, t := range targets {
					out = append(out, member{name: n, link: true, target: t})
				}
			}
			continue
		case tar.TypeXGlobalHeader:
			for k := range hdr.PAXRecords {
				if k != "comment" {
					return nil, false // a global header that may rename what follows
				}
			}
			continue
		case 'V':
			continue // a volume label writes no file
		default:
			return nil, false // a type tar may treat as renames or deletions (GNU 'N', incremental dumps ...)
		}
		for _, n := range names {
			out = append(out, member{name: n})
		}
	}
	// the rest of the stream must be what tar leaves: padding zeros
	rest, err := io.ReadAll(r)
	if err != nil {
		return nil, false
	}
	for _, b := range rest {
		if b != 0 {
			return nil, false // more after the end marker (tar -i would read it)
		}
	}
	return out, true
}

// zipMembers lists the members of a zip archive: the names the central
// directory gives, and (as unzip and other readers may pick another
// directory or the local headers) every name any local or central header
// in the file holds, with the Unicode path extra field's name.
func ZipMembers(data []byte) ([]member, bool) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return nil, false
	}
	var out []member
	targets := map[string]string{}
	for _, f := range zr.File {
		m := member{name: f.Name, link: f.Mode()&fs.ModeSymlink != 0}
		if m.link {
			m.target = zipLinkTarget(f) // "" when it cannot be read
			targets[f.Name] = m.target
		}
		out = append(out, m)
	}
	for _, sig := range []string{"PK\x01\x02", "PK\x03\x04"} {
		central := sig == "PK\x01\x02"
		fixed, lenAt := 30, 26
		if central {
			fixed, lenAt = 46, 28
		}
		for i := 0; ; {
			j := bytes.Index(data[i:], []byte(sig))
			if j < 0 {
				break
			}
			at := i + j
			i = at + 4
			if at+fixed > len(data) {
				continue
			}
			nameLen := int(binary.LittleEndian.Uint16(data[at+lenAt:]))
			extraLen := int(binary.LittleEndian.Uint16(data[at+lenAt+2:]))
			start := at + fixed
			if start+nameLen > len(data) {
				continue
			}
			m := member{name: string(data[start : start+nameLen])}
			if central && (binary.LittleEndian.Uint32(data[at+38:])>>16)&0xf000 == 0xa000 {
				m.link = true // a Unix mode of a symlink, whatever system made the entry
			}
			extra := data[start+nameLen : min(start+nameLen+extraLen, len(data))]
			for len(extra) >= 4 {
				id, size := binary.LittleEndian.Uint16(extra), int(binary.LittleEndian.Uint16(extra[2:]))
				body := extra[4:min(4+size, len(extra))]
				switch id {
				case 0x7075: // Info-ZIP Unicode path: unzip writes this name instead
					if len(body) > 5 {
						out = append(out, member{name: string(body[5:]), link: m.link, target: targets[m.name]})
					}
				case 0x756e: // ASi Unix: holds a mode that may make the entry a symlink
					m.link = true
				}
				extra = extra[min(4+size, len(extra)):]
			}
			if m.link {
				m.target = targets[m.name]
			}
			out = append(out, m)
			if len(out) > 2*MaxMembers {
				return nil, false
			}
		}
	}
	return out, true
}

// zipLinkTarget reads what a symlink entry of a zip points at (its
// contents), or "" when that cannot be read.
func zipLinkTarget(f *zip.File) string {
	rc, err := f.Open()
	if err != nil {
		return ""
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, 4097))
	if err != nil || len(b) > 4096 || len(b) == 0 {
		return ""
	}
	return string(b)
}
