package gate

import "fmt"

// Mode is the approval mode that turns a safety class into a decision.
type Mode string

// The modes. The zero value means ModeDefault.
const (
	ModePlan    Mode = "plan"
	ModeDefault Mode = "default"
	ModeYolo    Mode = "yolo"
)

// ParseMode validates a mode name; "" is ModeDefault.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "", ModeDefault:
		return ModeDefault, nil
	case ModePlan, ModeYolo:
		return Mode(s), nil
	}
	return "", fmt.Errorf("mode: unknown mode %q (want plan, default or yolo)", s)
}
