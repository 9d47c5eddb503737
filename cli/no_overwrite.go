package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
)

// namedFile is a file a command reads or writes, with what names it for
// the person: a flag, or "the session file".
type namedFile struct{ what, path string }

// connectInputs are the files the connect flags read.
func connectInputs(cf *connectFlags) []namedFile {
	return []namedFile{{"--config", cf.configPath}, {"--ca", cf.caFile}}
}

// refuseOverwrite fails (a usage error) when a file a command would write
// is a file it reads, or another file it writes: the same path, or the
// same file through a symbolic or a hard link. Writing would destroy the
// input (export same.jsonl -o same.jsonl did) before it is read, or mix
// two outputs in one file. Empty paths are left out.
func refuseOverwrite(outputs []namedFile, inputs ...namedFile) error {
	for i, out := range outputs {
		if out.path == "" {
			continue
		}
		others := append(append([]namedFile(nil), inputs...), outputs[i+1:]...)
		for _, in := range others {
			if in.path == "" || !sameFile(out.path, in.path) {
				continue
			}
			return withCode(exitUsage, fmt.Errorf("%s %s is the same file as %s %s: mcpscope never writes over a file it reads or writes; give %s another path",
				out.what, termsafe.String(out.path), in.what, termsafe.String(in.path), out.what))
		}
	}
	return nil
}

// sameFile reports whether a and b name one file: the same path, or, when
// both exist, the same file (os.SameFile, which follows symbolic links and
// sees hard links).
func sameFile(a, b string) bool {
	if absA, err := filepath.Abs(a); err == nil {
		if absB, err := filepath.Abs(b); err == nil && absA == absB {
			return true
		}
	}
	ia, err := os.Stat(a)
	if err != nil {
		return false
	}
	ib, err := os.Stat(b)
	return err == nil && os.SameFile(ia, ib)
}
