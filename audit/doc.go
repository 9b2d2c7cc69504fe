// Package audit is agentexec's tamper-evident decision log: one JSON line per
// gate decision and per finished run, each carrying the hash of the record
// before it.
//
// # Records and the chain
//
// A record's hash is hex SHA-256 (Alg "sha256") or, with a key, hex
// HMAC-SHA-256 (Alg "hmac-sha256") over its canonical form: the output of
// encoding/json.Marshal for the Record with Hash set to "" — the struct's
// field order, Go's escaping. Prev is the previous record's hash ("" for the
// first record of a chain, the previous file's last hash after rotation),
// and Seq rises by exactly one. The line on disk is the canonical form with
// the hash filled in; Verify re-marshals every parsed line and compares
// bytes, so a reformatted line, an added field or a changed escape is a
// break even when the JSON means the same.
//
// # Guarantees
//
//   - Edits, removals, insertions and reorderings anywhere in the chain are
//     detected and named by line (Verify).
//   - Cutting records off the end is detected through the anchors file,
//     which holds the head every AnchorEvery records and at Close.
//   - With a key, nobody without the key can forge a consistent chain, and
//     a keyed chain cannot be replaced by a recomputed unkeyed one: Verify
//     with a key refuses any unkeyed record, and a chain never changes
//     algorithm.
//   - Secrets the redaction rules recognize (see Redact) never reach the
//     disk; the hash covers the redacted text.
//   - Several goroutines and processes can append to one log: each Append
//     holds an exclusive flock, reads the head from the file, writes one
//     line with a single write(2) on an O_APPEND descriptor, and fsyncs
//     (unless NoSync). A crash leaves at most a torn last line; the next
//     writer moves it to PATH.torn and truncates the partial line away —
//     the only truncation ever done; nothing whole is rewritten.
//
// # Sharp edges
//
//   - An unkeyed chain proves integrity only against accidents and careless
//     edits: anyone who can write the log can recompute every hash. Use a
//     key for authenticity.
//   - Anchors sit beside the log. Whoever can truncate both can hide a
//     truncation; ship PATH.anchors (or Verify's summary) elsewhere to
//     defend against that.
//   - Deleting the whole log, or all files of a chain, is not detected by
//     the log itself.
//   - Redaction is pattern matching: a secret in a shape it does not know is
//     written as is, and replay sees redacted text.
//   - flock(2) may not be honored on network filesystems.
//   - Verify without the key cannot check hmac-sha256 hashes; it reports
//     ErrKeyRequired rather than success.
package audit
