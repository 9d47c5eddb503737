package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/mcp/config"
	"github.com/mcpscope/mcpscope/mcp/lib/plural"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/mcp/tap"
	"github.com/spf13/cobra"
)

// tapInstallOptions are the flags of `mcpscope tap install|uninstall`.
type tapInstallOptions struct {
	config  string
	servers []string
	all     bool
	command string // what the client runs for the tap
}

// backupSuffix names the copy tap install keeps next to a config file.
const backupSuffix = ".mcpscope-backup"

func newTapInstallCommands() []*cobra.Command {
	mk := func(install bool) *cobra.Command {
		var o tapInstallOptions
		use, short := "uninstall", "Undo `tap install`: give tapped servers back their own commands"
		if install {
			use, short = "install", "Rewrite a client's config so that its stdio servers run through the tap"
		}
		cmd := &cobra.Command{
			Use:   use + " --config FILE (--server NAME... | --all)",
			Short: short,
			Long: short + `.

Edits the configs of Claude Desktop, Claude Code (~/.claude.json: the user's
"mcpServers" and each project's; .mcp.json), Cursor, Windsurf, Cline, Gemini CLI,
Copilot CLI ("mcpServers"), Cline CLI ("mcpServers", each server's "transport"),
VS Code ("servers", or "mcp": {"servers"} in settings.json), opencode ("mcp",
the command and its args one list), Zed ("context_servers"), Codex (config.toml,
[mcp_servers.NAME]), Continue (config.yaml, "mcpServers") and Goose
(config.yaml, "extensions"). Servers in a shape it does not know are an error. Only each
server's command and the start of its args change; comments and formatting
stay. install saves the file as it was in FILE` + backupSuffix + ` each time it
changes it, and changes nothing when run twice. uninstall finds tapped servers
by what they run (tap [--name N] -- CMD ARGS...), whoever wrote them and however
the client has rewritten the file since, and gives them back CMD ARGS...,
changing nothing else: on a file nothing else touched, the original byte for
byte. Without --config, the usual config files of those clients are listed.`,
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				return runTapInstall(cmd.OutOrStdout(), install, o)
			},
		}
		cmd.Flags().StringVar(&o.config, "config", "", "the client's config file")
		cmd.Flags().StringArrayVar(&o.servers, "server", nil, "a server to change (repeatable)")
		cmd.Flags().BoolVar(&o.all, "all", false, "change every stdio server of the file")
		if install {
			cmd.Flags().StringVar(&o.command, "command", "", "the command the client runs for the tap (default: this mcpscope's full path)")
		}
		return cmd
	}
	return []*cobra.Command{mk(true), mk(false)}
}

func runTapInstall(out io.Writer, install bool, o tapInstallOptions) error {
	if o.config == "" {
		listClientFiles(out)
		return nil
	}
	if !o.all && len(o.servers) == 0 {
		return withCode(exitUsage, fmt.Errorf("name the servers with --server NAME, or give --all"))
	}
	self := o.command
	if install && self == "" {
		var err error
		if self, err = os.Executable(); err != nil {
			self = "mcpscope"
		}
	}
	shown := termsafe.String(o.config)
	// The file may be a link (dotfiles): the edit goes to what it names.
	path, err := filepath.EvalSymlinks(o.config)
	if err != nil {
		return withCode(exitUsage, err)
	}
	syntax := config.SyntaxFor(o.config)
	backup := o.config + backupSuffix
	// A client may rewrite its file while we edit it (Claude Code does, as
	// it runs, by a new file renamed over it): the edit is redone on what
	// is there now when that happens, and given up after a few tries
	// rather than written over the client's.
	var res *tap.Edited
	for attempt := 1; ; attempt++ {
		f, readOnly, err := openInPlace(path)
		if err != nil {
			return withCode(exitUsage, fmt.Errorf("%s: %w", shown, err))
		}
		data, fi, err := readOpen(f)
		if err != nil {
			_ = f.Close()
			return withCode(exitUsage, fmt.Errorf("%s: %w", shown, err))
		}
		if install {
			res, err = tap.Install(syntax, data, self, o.servers)
		} else {
			// The backup settles whether an emptied list was there before.
			prev, _ := os.ReadFile(backup)
			res, err = tap.Uninstall(syntax, data, o.servers, prev)
		}
		if err != nil {
			_ = f.Close()
			return withCode(exitUsage, installError(shown, o.config, syntax, backup, install, err))
		}
		if len(res.Changed) == 0 && len(res.Unknown) > 0 {
			_ = f.Close()
			// Servers in a shape install does not know: saying "nothing
			// to change" would pass for success.
			return withCode(exitUsage, fmt.Errorf("%s: nothing changed: %s: not a shape tap install edits.\nTo tap a server by hand, run mcpscope in front of its command; %s",
				shown, termsafe.String(strings.Join(res.Unknown, ", ")), handWritten(o.config, syntax)))
		}
		if len(res.Changed) == 0 {
			_ = f.Close()
			break
		}
		if readOnly != nil {
			_ = f.Close()
			return withCode(exitUsage, fmt.Errorf("%s: %w", shown, readOnly))
		}
		if install {
			// The file as it was before this change; an older backup
			// would lose what was edited since.
			if err := writeAtomic(backup, data, 0o600); err != nil {
				_ = f.Close()
				return withCode(exitUsage, fmt.Errorf("%s: no backup written, so the file was left as it was: %w", shown, err))
			}
		}
		err = writeInPlace(f, path, fi, data, res.Data)
		if cerr := f.Close(); err == nil && cerr != nil {
			err = cerr
		}
		if errors.Is(err, errChangedMeanwhile) && attempt < editAttempts {
			continue
		}
		if errors.Is(err, errChangedMeanwhile) {
			return withCode(exitUsage, fmt.Errorf("%s: %w %d times in a row (a client rewriting it?); what it wrote was kept and this edit was not made: try again once the client is idle", shown, err, editAttempts))
		}
		if err != nil {
			return withCode(exitUsage, fmt.Errorf("%s: %w", shown, err))
		}
		break
	}
	if install {
		for _, s := range res.Skipped {
			_, _ = fmt.Fprintf(out, "%s: not tapped: %s\n", shown, termsafe.String(s))
		}
	}
	if len(res.Changed) == 0 {
		what := "no stdio server to tap"
		if !install {
			what = "no tapped server"
		} else if o.all {
			what = "every stdio server already runs through the tap, or there is none"
		}
		_, _ = fmt.Fprintf(out, "%s: nothing to change (%s)\n", shown, what)
		return nil
	}
	names := termsafe.String(joinNames(res.Changed))
	if install {
		verb := "now runs through the tap"
		if len(res.Changed) > 1 {
			verb = "now run through the tap"
		}
		_, _ = fmt.Fprintf(out, "%s: %s %s; restart the client.\n  The file as it was is in %s (written just now).\n", shown, names, verb, termsafe.String(backup))
	} else {
		verb := "runs its own command again"
		if len(res.Changed) > 1 {
			verb = "run their own commands again"
		}
		_, _ = fmt.Fprintf(out, "%s: %s %s; restart the client.\n", shown, names, verb)
	}
	return nil
}

// joinNames is "a", "a and b", "a, b and c".
func joinNames(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// installError says what went wrong and what the user can do: for a
// file tap install cannot edit, the line to write by hand; for an
// uninstall that cannot go on, the backup and how old it is.
func installError(file, path string, syntax config.Syntax, backup string, install bool, err error) error {
	msg := fmt.Sprintf("%s: %v", file, err)
	var ns *config.NoServersError
	if errors.As(err, &ns) || errors.Is(err, tap.ErrUnknownShape) {
		msg += ".\nTo tap a server by hand, run mcpscope in front of its command; " + handWritten(path, syntax)
	}
	if !install {
		if fi, serr := os.Stat(backup); serr == nil {
			msg += fmt.Sprintf(".\n%s holds the file as it was before the last tap install that changed it, %s: whatever changed in the file since is not in it",
				termsafe.String(backup), age(fi.ModTime()))
		}
	}
	return errors.New(msg)
}

// handWritten is the entry to write by hand, in the file's language and
// the shape its client reads (told by the file's name).
func handWritten(path string, syntax config.Syntax) string {
	base := strings.ToLower(filepath.Base(path))
	switch {
	case base == "opencode.json" || base == "opencode.jsonc":
		return `in "mcp" (opencode: the command and its args are one list):
  "NAME": {"type": "local", "command": ["mcpscope", "tap", "--name", "NAME", "--", "CMD", "ARG"]}`
	case base == "cline_mcp_settings.json" && strings.Contains(filepath.ToSlash(path), ".cline/"):
		return `in "mcpServers" (Cline CLI: inside the server's "transport"):
  "NAME": {"transport": {"type": "stdio", "command": "mcpscope", "args": ["tap", "--name", "NAME", "--", "CMD", "ARG"]}}`
	}
	switch syntax {
	case config.TOML:
		return `in a [mcp_servers.NAME] table:
  command = "mcpscope"
  args = ["tap", "--name", "NAME", "--", "CMD", "ARG"]`
	case config.YAML:
		return `in the server's entry:
  command: mcpscope      (Goose: cmd: mcpscope)
  args: [tap, --name, NAME, --, CMD, ARG]`
	}
	return `in the server's entry:
  "command": "mcpscope",
  "args": ["tap", "--name", "NAME", "--", "CMD", "ARG"]`
}

// age says how long ago t was, and when.
func age(t time.Time) string {
	d := time.Since(t)
	var ago string
	switch {
	case d < time.Minute:
		ago = "written just now"
	case d < time.Hour:
		ago = plural.S(int(d/time.Minute), "minute") + " ago"
	case d < 48*time.Hour:
		ago = plural.S(int(d/time.Hour), "hour") + " ago"
	default:
		ago = plural.S(int(d/(24*time.Hour)), "day") + " ago"
	}
	return ago + " (" + t.Local().Format("2006-01-02 15:04") + ")"
}

var errChangedMeanwhile = errors.New("the file changed while it was being edited")

// editAttempts is how many times an edit is redone on a file a client
// keeps rewriting before tap install gives up.
const editAttempts = 5

// openInPlace opens a config file for an edit in place: for reading and
// writing, or, when it cannot be written, for reading with why (readOnly)
// for when there is something to write. A file no one may write (0444)
// counts as read-only even where the system would let root write it:
// its owner made it so on purpose.
func openInPlace(path string) (f *os.File, readOnly error, err error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if fi.Mode().Perm()&0o222 == 0 {
		readOnly = fmt.Errorf("the file is read-only (mode %04o); nothing was written: make it writable (chmod u+w) to let tap install edit it", fi.Mode().Perm())
	} else if f, err = os.OpenFile(path, os.O_RDWR, 0); !errors.Is(err, os.ErrPermission) {
		return f, nil, err
	} else {
		readOnly = fmt.Errorf("cannot write the file (%w); nothing was written", err)
	}
	f, err = os.Open(path)
	return f, readOnly, err
}

// readOpen reads an open file whole, with what it was when read.
func readOpen(f *os.File) ([]byte, os.FileInfo, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, nil, err
	}
	// Read into a buffer of the file's size (and a byte, to see it end):
	// io.ReadAll's doublings would leave a big file's copies behind.
	data := make([]byte, 0, fi.Size()+1)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if errors.Is(err, io.EOF) {
			return data, fi, nil
		}
		if err != nil {
			return nil, nil, err
		}
		if len(data) == cap(data) {
			// It grew since the stat: the compare before the write
			// will see that.
			data = append(data, 0)[:len(data)]
		}
	}
}

// writeInPlace writes data into the open file f, the same file (inode)
// path named when it was read, so that its owner, mode and hard links
// stay. Right before the write it checks that path still names f and
// that f still holds was, unchanged since fi; right after, that path
// still names f (a client that renamed a new file over it meanwhile keeps
// its write, and this edit is redone on it). Either is
// errChangedMeanwhile.
func writeInPlace(f *os.File, path string, fi os.FileInfo, was, data []byte) error {
	still := func() bool {
		now, err := os.Stat(path)
		return err == nil && os.SameFile(now, fi)
	}
	now, err := f.Stat()
	if err != nil {
		return err
	}
	if !still() || now.Size() != fi.Size() || !now.ModTime().Equal(fi.ModTime()) {
		return errChangedMeanwhile
	}
	// Compared a piece at a time: a copy of a big file would double it.
	cur := make([]byte, 256<<10)
	for off := 0; ; {
		n, err := f.ReadAt(cur, int64(off))
		if n > len(was)-off || !bytes.Equal(cur[:n], was[off:off+n]) {
			return errChangedMeanwhile
		}
		off += n
		if errors.Is(err, io.EOF) {
			if off != len(was) {
				return errChangedMeanwhile
			}
			break
		}
		if err != nil {
			return err
		}
	}
	if _, err := f.WriteAt(data, 0); err != nil {
		return fmt.Errorf("writing the file failed part way, it may be damaged: %w", err)
	}
	if len(data) < len(was) {
		if err := f.Truncate(int64(len(data))); err != nil {
			return err
		}
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if !still() {
		return errChangedMeanwhile
	}
	return nil
}

// writeAtomic writes a new file of ours (the backup) through a
// temporary file in the same directory, so that it is never half written.
func writeAtomic(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	if _, err := tmp.Write(data); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil && runtime.GOOS != "windows" {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// listClientFiles prints the usual config files of the clients tap
// install edits, on this system, and which of them are here.
func listClientFiles(out io.Writer) {
	home, _ := os.UserHomeDir()
	files := config.ClientFiles(runtime.GOOS, home, os.Getenv)
	_, _ = fmt.Fprintln(out, "The config files tap install edits, where each client keeps them on this system")
	_, _ = fmt.Fprintln(out, "(● found; project files are looked for in the current directory):")
	width := 0
	for _, f := range files {
		width = max(width, len(f.Client))
	}
	found := 0
	for _, f := range files {
		mark := " "
		if matches, _ := filepath.Glob(f.Path); len(matches) > 0 {
			mark = "●"
			found++
		}
		what := ""
		if f.What != "" {
			what = "  " + f.What
		}
		_, _ = fmt.Fprintf(out, "%s %-*s  %s%s\n", mark, width, f.Client, termsafe.String(f.Path), what)
	}
	if found == 0 {
		_, _ = fmt.Fprintln(out, "None of them is here.")
	}
	_, _ = fmt.Fprintln(out, "Then: mcpscope tap install --config FILE --server NAME (or --all).")
}
