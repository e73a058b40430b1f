package main

import (
	"strings"

	"github.com/retrylab/retrylab/engine/param"
)

// kindText is how --help writes what a parameter takes: "int 1 to 10",
// "one of off|per-intent|per-attempt", "number 0.001 to 100, at least base".
func kindText(p param.Param) string {
	switch p.Kind {
	case param.Bool:
		return "on|off"
	case param.Int:
		return "int " + p.Bounds()
	case param.Float:
		return "number " + p.Bounds()
	case param.Enum:
		return "one of " + strings.Join(p.Allowed, "|")
	case param.EnumList:
		s := "list of " + strings.Join(p.Allowed, "|")
		switch {
		case p.MinItems > 0:
			s += " (" + param.Number(float64(p.MinItems)) + " to " + param.Number(float64(p.MaxItems)) + " items)"
		case p.MaxItems > 0:
			s += " (at most " + param.Number(float64(p.MaxItems)) + " items)"
		}
		return s
	}
	return p.Kind.String()
}
