package gitconfig

import (
	"encoding/binary"
	"errors"
	"os"
	"sync"
)

// maxIndexBytes bounds the index file read to find submodules; a larger
// one makes recursing commands risky instead of slow.
const maxIndexBytes = 64 << 20

// errIndexFormat is returned for an index this reader does not model.
var errIndexFormat = errors.New("not an index format the rules read")

// gitlinkMode is the mode of a gitlink (submodule) entry.
const gitlinkMode = 0o160000

// indexCache maps an index path to its gitlinks, by file identity.
var indexCache struct {
	sync.Mutex
	m map[string]indexCached
}

type indexCached struct {
	stamp   fileStamp
	hashLen int
	links   []string
}

// readGitlinks returns the paths of the gitlink entries of the index at
// path (none when there is no index). It reads index versions 2, 3 and 4
// (git's read-cache.c layout) and refuses a split index (its "link"
// extension keeps entries in another file) and anything else it does not
// model, so a gitlink is never missed silently.
func readGitlinks(path string, hashLen int) ([]string, error) {
	fi, err := os.Stat(path)
	switch {
	case os.IsNotExist(err):
		return nil, nil
	case err != nil:
		return nil, err
	case fi.Size() > maxIndexBytes:
		return nil, errors.New("it is larger than the rules read")
	}
	st := stampOf(fi)
	indexCache.Lock()
	c, ok := indexCache.m[path]
	indexCache.Unlock()
	if ok && c.stamp == st && c.hashLen == hashLen {
		return c.links, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	links, err := parseGitlinks(data, hashLen)
	if err == nil && !isRacy(st) {
		indexCache.Lock()
		if indexCache.m == nil || len(indexCache.m) >= gitConfigCacheMax {
			indexCache.m = make(map[string]indexCached)
		}
		indexCache.m[path] = indexCached{stamp: st, hashLen: hashLen, links: links}
		indexCache.Unlock()
	}
	return links, err
}

// parseGitlinks walks the entries of an index file.
func parseGitlinks(data []byte, hashLen int) ([]string, error) {
	if len(data) < 12+hashLen || string(data[:4]) != "DIRC" {
		return nil, errIndexFormat
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return nil, errIndexFormat
	}
	n := binary.BigEndian.Uint32(data[8:12])
	p := &indexParser{data: data[:len(data)-hashLen], off: 12, version: version, hashLen: hashLen}
	var links []string
	for i := uint32(0); i < n; i++ {
		mode, name, err := p.entry()
		if err != nil {
			return nil, err
		}
		if mode&0o170000 == gitlinkMode {
			links = append(links, name)
		}
	}
	return links, p.extensions()
}

type indexParser struct {
	data    []byte
	off     int
	version uint32
	hashLen int
	prev    []byte // the previous path, for version 4's prefix compression
}

// entryFixed is the size of an entry's stat data: ten 32-bit fields.
const entryFixed = 40

// entry reads one cache entry and returns its mode and path.
func (p *indexParser) entry() (uint32, string, error) {
	start := p.off
	head := entryFixed + p.hashLen + 2
	if p.off+head > len(p.data) {
		return 0, "", errIndexFormat
	}
	mode := binary.BigEndian.Uint32(p.data[p.off+24 : p.off+28])
	flags := binary.BigEndian.Uint16(p.data[p.off+head-2 : p.off+head])
	p.off += head
	if flags&0x4000 != 0 { // extended flags (version 3 and up)
		if p.version < 3 {
			return 0, "", errIndexFormat
		}
		p.off += 2
	}
	name, err := p.name()
	if err != nil {
		return 0, "", err
	}
	if p.version < 4 {
		// Entries are NUL-padded to a multiple of eight bytes.
		size := (p.off - start + 8) &^ 7
		p.off = start + size
		if p.off > len(p.data) {
			return 0, "", errIndexFormat
		}
	}
	return mode, name, nil
}

// name reads a NUL-terminated path; version 4 prefixes it with a varint
// count of bytes to drop from the end of the previous path.
func (p *indexParser) name() (string, error) {
	var prefix []byte
	if p.version == 4 {
		strip, ok := p.varint()
		if !ok || strip > len(p.prev) {
			return "", errIndexFormat
		}
		prefix = p.prev[:len(p.prev)-strip]
	}
	end := p.off
	for end < len(p.data) && p.data[end] != 0 {
		end++
	}
	if end >= len(p.data) {
		return "", errIndexFormat
	}
	name := append(append([]byte{}, prefix...), p.data[p.off:end]...)
	p.off = end
	if p.version == 4 {
		p.off++ // the NUL; there is no padding
	}
	p.prev = name
	return string(name), nil
}

// varint is git's offset varint (varint.c decode_varint).
func (p *indexParser) varint() (int, bool) {
	if p.off >= len(p.data) {
		return 0, false
	}
	c := p.data[p.off]
	p.off++
	val := int(c & 127)
	for c&128 != 0 {
		if p.off >= len(p.data) || val > 1<<48 {
			return 0, false
		}
		c = p.data[p.off]
		p.off++
		val = ((val + 1) << 7) | int(c&127)
	}
	return val, true
}

// extensions checks the extension blocks after the entries: a split index
// keeps entries elsewhere, which would hide gitlinks.
func (p *indexParser) extensions() error {
	for p.off+8 <= len(p.data) {
		sig := string(p.data[p.off : p.off+4])
		size := int(binary.BigEndian.Uint32(p.data[p.off+4 : p.off+8]))
		if sig == "link" {
			return errors.New("it is a split index, whose entries are in another file")
		}
		p.off += 8
		if size > len(p.data)-p.off {
			return errIndexFormat
		}
		p.off += size
	}
	if p.off != len(p.data) {
		return errIndexFormat
	}
	return nil
}
