module github.com/agentexec/agentexec

go 1.26.0
