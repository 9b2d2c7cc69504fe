package audit_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentexec/agentexec/audit"
)

func Example() {
	dir, _ := os.MkdirTemp("", "audit")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "audit.jsonl")

	log, err := audit.Open(audit.Options{Path: path})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, rec := range []*audit.Record{
		{Kind: "decision", RunID: "r1", Command: "mysql -uroot -phunter2 -e 'select 1'", Decision: "allow"},
		{Kind: "run", RunID: "r1", Command: "mysql -uroot -phunter2 -e 'select 1'", Status: "exited"},
	} {
		if err := log.Append(rec); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(rec.Seq, rec.Command)
	}
	log.Close()

	rep, err := audit.Verify(path, audit.VerifyOptions{})
	fmt.Println(rep, err)
	// Output:
	// 1 mysql -uroot -p*** -e 'select 1'
	// 2 mysql -uroot -p*** -e 'select 1'
	// 2 records (seq 1-2) in 1 file(s), chain intact, 2 anchors ok (last at seq 2), sha256 (unkeyed) <nil>
}
