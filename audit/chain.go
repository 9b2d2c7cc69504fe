package audit

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"
)

// The chain algorithms, as written in Record.Alg.
const (
	AlgSHA256     = "sha256"      // unkeyed: anyone can recompute the chain
	AlgHMACSHA256 = "hmac-sha256" // keyed: forging needs the key
)

// hashSuffix is how every canonical line ends: Hash is the struct's last
// field and has no omitempty.
const hashSuffix = `"hash":""}`

// canonical returns the canonical bytes of rec: encoding/json.Marshal of the
// record with Hash set to "". This is the definition of the hashed bytes; a
// reimplementation must reproduce Go's output exactly (field order, HTML
// escaping of <, > and &, \u2028). The line on disk is the same bytes with
// the hash filled in, plus "\n", and verify checks that too, so a line
// that was reformatted or had a field added is a break even when its JSON
// means the same.
func canonical(rec *Record) ([]byte, error) {
	h := rec.Hash
	rec.Hash = ""
	b, err := json.Marshal(rec)
	rec.Hash = h
	if err != nil {
		return nil, err
	}
	if !bytes.HasSuffix(b, []byte(hashSuffix)) {
		return nil, fmt.Errorf("audit: canonical form does not end with %s", hashSuffix)
	}
	return b, nil
}

// sum is the record hash of canonical bytes: hex SHA-256, or hex
// HMAC-SHA-256 when key is set.
func sum(canon, key []byte) string {
	if key == nil {
		s := sha256.Sum256(canon)
		return hex.EncodeToString(s[:])
	}
	m := hmac.New(sha256.New, key)
	m.Write(canon)
	return hex.EncodeToString(m.Sum(nil))
}

// seal fills rec.Hash and returns its line, "\n" included.
func seal(rec *Record, key []byte) ([]byte, error) {
	canon, err := canonical(rec)
	if err != nil {
		return nil, err
	}
	rec.Hash = sum(canon, key)
	line := make([]byte, 0, len(canon)+len(rec.Hash)+1)
	line = append(line, canon[:len(canon)-2]...) // drop the closing `"}`
	line = append(line, rec.Hash...)
	return append(line, '"', '}', '\n'), nil
}

// parseLine parses one line (without its "\n") and checks what can be
// checked without the chain: valid JSON, canonical form, a known alg and a
// well-formed hash. It returns the reason a line is broken, or "".
func parseLine(line []byte) (Record, string) {
	var rec Record
	if len(line) == 0 {
		return rec, "empty line"
	}
	if err := json.Unmarshal(line, &rec); err != nil {
		return rec, "invalid JSON (" + err.Error() + ")"
	}
	if !isHexHash(rec.Hash) {
		return rec, "hash is not 64 lower-case hex digits (record edited)"
	}
	if rec.Alg != AlgSHA256 && rec.Alg != AlgHMACSHA256 {
		return rec, fmt.Sprintf("unknown alg %q (record edited)", rec.Alg)
	}
	want, err := json.Marshal(&rec)
	if err != nil || !bytes.Equal(want, line) {
		return rec, "not in canonical form (record edited or reformatted)"
	}
	return rec, ""
}

// lineSum recomputes the hash of a canonical line.
func lineSum(line []byte, hash string, key []byte) string {
	canon := make([]byte, 0, len(line)-len(hash))
	canon = append(canon, line[:len(line)-len(hash)-2]...)
	canon = append(canon, '"', '}')
	return sum(canon, key)
}

func isHexHash(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// redactRecord redacts the fields that carry command text.
func redactRecord(rec *Record) {
	rec.Command = Redact(rec.Command)
	rec.Argv = RedactArgv(rec.Argv)
	rec.Reason = Redact(rec.Reason)
	rec.Output = Redact(rec.Output)
	rec.Caller = Redact(rec.Caller)
	if rec.Execs != nil {
		execs := make([]string, len(rec.Execs))
		for i, e := range rec.Execs {
			execs[i] = Redact(e)
		}
		rec.Execs = execs
	}
}

// sanitize replaces invalid UTF-8 in every string of rec with U+FFFD.
// encoding/json would do the same when marshaling, but then the line would
// not survive a parse and re-marshal unchanged, and verify would call it
// edited.
func sanitize(rec *Record) {
	v := reflect.ValueOf(rec).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		switch {
		case f.Kind() == reflect.String:
			f.SetString(validUTF8(f.String()))
		case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.String:
			for j := 0; j < f.Len(); j++ {
				f.Index(j).SetString(validUTF8(f.Index(j).String()))
			}
		}
	}
}

func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}
