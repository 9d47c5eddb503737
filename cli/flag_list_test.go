package cli

import (
	"reflect"
	"runtime"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Every repeatable string flag reads and shows as pflag's StringArray did:
// the same line in --help, each use one value with its commas kept.
func TestStringListIsAStringArray(t *testing.T) {
	lists := 0
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if _, ok := f.Value.(stringList); !ok {
				return
			}
			lists++
			ours := pflag.NewFlagSet("ours", pflag.ContinueOnError)
			ours.AddFlag(f)
			ref := pflag.NewFlagSet("ref", pflag.ContinueOnError)
			var v []string
			ref.StringArrayVarP(&v, f.Name, f.Shorthand, nil, f.Usage)
			if got, want := ours.FlagUsages(), ref.FlagUsages(); got != want {
				t.Errorf("%s --%s in --help:\n got %q\nwant %q", c.CommandPath(), f.Name, got, want)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCommand())
	if lists < 8 {
		t.Fatalf("found %d repeatable string flags in the command tree; expected the connection, call, replay, policy and tap ones", lists)
	}

	args := []string{"--x", "A=1", "--x", "B=2,3", "--x", ""}
	var got, want []string
	fs := pflag.NewFlagSet("ours", pflag.ContinueOnError)
	stringListVar(fs, &got, "x", "")
	ref := pflag.NewFlagSet("ref", pflag.ContinueOnError)
	ref.StringArrayVar(&want, "x", nil, "")
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	if err := ref.Parse(args); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) || len(got) != 3 {
		t.Errorf("parsed %q, pflag's StringArray %q", got, want)
	}
}

// Building the command tree, which every start does, stays cheap: pflag's
// StringArray defaults cost a 4 KiB CSV buffer each (151 KB and 500
// allocations for the tree; 67 KB and 400 with stringList). A command with
// the connection flags adds about 50 allocations and 10 KB (mcpscope test:
// 400 -> 453, 67 -> 77 KB).
func TestRootCommandAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	allocs := testing.AllocsPerRun(20, func() { newRootCommand() })
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := 0; i < 20; i++ {
		newRootCommand()
	}
	runtime.ReadMemStats(&after)
	bytes := (after.TotalAlloc - before.TotalAlloc) / 20
	t.Logf("newRootCommand: %.0f allocations, %d bytes", allocs, bytes)
	if allocs > 500 || bytes > 96<<10 {
		t.Errorf("newRootCommand made %.0f allocations (%d bytes); budget 500 and 96 KiB", allocs, bytes)
	}
}
