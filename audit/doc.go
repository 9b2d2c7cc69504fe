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
//     which holds the head for seq 1, every AnchorEvery records and at
//     Close. A log with records and no anchors file, or one without an
//     anchor, is a break, and so is an anchors file that does not start at
//     seq 1 or whose seqs fall: deleting or restarting the anchors does not
//     hide a cut. A writer refuses to extend such a log, and an anchor
//     fails when the anchors file was removed under an open Log.
//   - With a key, nobody without the key can forge a consistent chain or an
//     anchor (each carries an HMAC), and a keyed chain cannot be replaced
//     by a recomputed unkeyed one: Verify with a key refuses any unkeyed
//     record or unsealed anchor, and a chain never changes algorithm.
//   - VerifyOptions.ExpectSeq (agentexec audit verify --expect-seq N)
//     detects every cut, given a seq kept where the attacker cannot write.
//   - Secrets the redaction rules recognize (see Redact) never reach the
//     disk; the hash covers the redacted text.
//   - Several goroutines and processes can append to one log: each Append
//     holds an exclusive flock, reads the head from the file, writes one
//     line with a single write(2) on an O_APPEND descriptor, and fsyncs
//     (unless NoSync). A crash leaves at most a torn last line; the next
//     writer moves it to PATH.torn and truncates the partial line away —
//     the only truncation ever done; nothing whole is rewritten.
//   - Verify, Scan and Tail stream: their memory is bounded whatever the
//     log's length, by one line of at most MaxRecordBytes (Append refuses
//     a longer record; Verify calls a longer line a break).
//
// # What each kind of log detects
//
// Against an attacker who can write the log's directory but has no key
// (TestTamper is this table):
//
//	tampering                                         unkeyed   keyed
//	a record edited, removed, inserted, reordered     yes (1)   yes
//	the whole chain recomputed after an edit          no        yes
//	records cut off the end, anchors left             yes       yes
//	anchors deleted or emptied (with or without cut)  yes       yes
//	anchors restarted (first anchor not seq 1)        yes       yes
//	a cut, then an anchor forged for the new end      no        yes
//	a cut with the anchors cut in step                no (2)    no (2)
//	log and anchors restored from earlier copies      no (2)    no (2)
//	a cut, then records appended by a writer          yes       yes
//	the log, its rotated files and anchors all gone   no        no
//
// (1) only against careless edits: anyone can recompute an unkeyed chain.
// (2) detected with ExpectSeq, or by comparing with a copy of PATH.anchors
// kept elsewhere; nothing inside the directory can show it.
//
// # Sharp edges
//
//   - An unkeyed chain proves integrity only against accidents and careless
//     edits: anyone who can write the log can recompute every hash and
//     anchor. Use a key for authenticity.
//   - Anchors sit beside the log. Whoever can truncate both in step, or put
//     back earlier copies of both, can hide a cut: ship Verify's summary
//     (the last seq) elsewhere and verify with ExpectSeq.
//   - Records after the last anchor (a writer still running, or killed)
//     can be cut without a trace; the summary names the last anchored seq.
//   - Redaction is pattern matching over the shell's words: a secret in a
//     shape it does not know is written as is, and replay sees redacted
//     text.
//   - flock(2) may not be honored on network filesystems.
//   - Verify without the key cannot check hmac-sha256 hashes or anchors;
//     it reports ErrKeyRequired rather than success.
package audit
