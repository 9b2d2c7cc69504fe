package shellcfg_test

import (
	"errors"
	"fmt"

	"github.com/agentexec/agentexec/shellcfg"
)

func ExampleValidate() {
	err := shellcfg.Validate("ls\x00rm -rf /")
	var te *shellcfg.TextError
	fmt.Println(err, errors.As(err, &te), te.Offset, errors.Is(err, shellcfg.ErrNUL))
	// Output: command text: NUL byte at byte 2 true 2 true
}

func ExampleScan() {
	text := "rm\u00a0-rf /tmp/x\u202e"
	for _, s := range shellcfg.Scan(text) {
		fmt.Printf("%s %U at byte %d\n", s.Name, s.Rune, s.Offset)
	}
	fmt.Printf("%q\n", shellcfg.Normalize(text))
	// Output:
	// no-break space U+00A0 at byte 2
	// bidi control U+202E at byte 14
	// "rm -rf /tmp/x "
}

func ExampleDetect() {
	env := shellcfg.DetectEnv{
		GOOS:   "windows",
		Getenv: func(k string) string { return map[string]string{"ComSpec": `C:\Windows\system32\cmd.exe`}[k] },
	}
	s, _ := shellcfg.Detect("", env)
	fmt.Println(s, shellcfg.Argv(s, "dir /b"))
	// Output: cmd [cmd.exe /d /s /c "dir /b"]
}
