#!/bin/sh
# Builds init.c into ../init_amd64.go (go generate ./exec/sandbox runs it),
# or into the file named by $1.
# The flags make a static binary with no library, no build id and no
# sections it does not need, so the same compiler gives the same bytes.
set -eu
dest=${1:-}
cd "$(dirname "$0")"
[ -n "$dest" ] || dest=../init_amd64.go
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
${CC:-gcc} -Os -static -nostdlib -ffreestanding -fno-stack-protector -fno-builtin \
	-fno-asynchronous-unwind-tables -fno-unwind-tables -fno-pie -no-pie -fcf-protection=none \
	-Wall -Wextra -Werror -Wno-unused-parameter \
	-Wl,--build-id=none -Wl,-z,noexecstack -Wl,-z,norelro -Wl,-z,noseparate-code -Wl,-z,max-page-size=4096 -s \
	-o "$out/init" init.c
go run ./bytes.go "$out/init" > "$dest.tmp"
mv "$dest.tmp" "$dest"
