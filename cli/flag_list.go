package cli

import (
	"strings"

	"github.com/spf13/pflag"
)

// stringList is a repeatable string flag that behaves as pflag's
// StringArray (each use adds one value, commas and all) and shows the same
// in --help. pflag's own describes its default through encoding/csv, a
// 4 KiB buffer for every such flag of every command at every start: with
// the connection flags on most commands, that was about 100 KB and two
// thirds of the allocations of building the command tree (issue 16).
type stringList struct{ values *[]string }

// stringListVarP adds a stringList flag bound to p (its default empty).
func stringListVarP(fs *pflag.FlagSet, p *[]string, name, shorthand, usage string) {
	*p = nil
	fs.VarP(stringList{p}, name, shorthand, usage)
}

// stringListVar is stringListVarP without a shorthand.
func stringListVar(fs *pflag.FlagSet, p *[]string, name, usage string) {
	stringListVarP(fs, p, name, "", usage)
}

func (l stringList) Set(v string) error {
	*l.values = append(*l.values, v)
	return nil
}

// Type names the flag's kind as pflag's StringArray does (help, completion).
func (l stringList) Type() string { return "stringArray" }

// String is "" while empty, so that --help shows no default, as for pflag's
// StringArray; otherwise the values in brackets.
func (l stringList) String() string {
	if len(*l.values) == 0 {
		return ""
	}
	return "[" + strings.Join(*l.values, ",") + "]"
}
