package tap

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
)

// ReadModel reads a model capture: its header and its requests, in the
// order they came (N; lines are written as answers end). A last line
// its writer never finished is left out and said in the error, with
// what came before.
func ReadModel(path string) (record.Entry, []ModelEntry, error) {
	f, err := os.Open(path)
	if err != nil {
		return record.Entry{}, nil, fmt.Errorf("tap: %w", err)
	}
	defer func() { _ = f.Close() }()
	br := bufio.NewReaderSize(f, 256<<10)
	first, err := br.ReadBytes('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return record.Entry{}, nil, fmt.Errorf("tap: %s: %w", path, err)
	}
	heads, err := record.Read(bytes.NewReader(first))
	if err != nil || len(heads) == 0 {
		return record.Entry{}, nil, fmt.Errorf("tap: %s has no session header: %w", path, err)
	}
	head := heads[0]
	if head.Recorder != record.RecorderModelTap {
		return head, nil, fmt.Errorf("tap: %s is not a model tap's capture", path)
	}
	var out []ModelEntry
	for n := 2; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var m ModelEntry
			if uerr := json.Unmarshal(line, &m); uerr != nil {
				if errors.Is(err, io.EOF) { // no newline: its writer stopped in it
					sortModel(out)
					return head, out, &record.CutError{Lines: n - 1, Bytes: len(line), Err: uerr}
				}
				return head, out, fmt.Errorf("tap: %s line %d: %w", path, n, uerr)
			}
			if m.Type == "model" {
				out = append(out, m)
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return head, out, fmt.Errorf("tap: %s: %w", path, err)
		}
	}
	sortModel(out)
	return head, out, nil
}

// sortModel puts the requests in the order they came.
func sortModel(es []ModelEntry) {
	sort.SliceStable(es, func(i, j int) bool { return es[i].N < es[j].N })
}
