module github.com/agentexec/agentexec

go 1.26.0

require (
	github.com/creack/pty v1.1.24 // indirect
	github.com/landlock-lsm/go-landlock v0.11.2 // indirect
	github.com/modelcontextprotocol/go-sdk v1.8.0 // indirect
	github.com/rogpeppe/go-internal v1.16.0 // indirect
	golang.org/x/net v0.62.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
	mvdan.cc/sh/v3 v3.14.1 // indirect
)
