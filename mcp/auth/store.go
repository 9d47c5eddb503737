package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Record is one stored authorization: the token for a resource from an
// authorization server, and the client that obtained it (needed to
// refresh). It holds secrets; its String method does not show them.
type Record struct {
	Issuer       string    `json:"issuer"`
	Resource     string    `json:"resource,omitempty"`
	ServerURL    string    `json:"server_url"`
	AccessToken  string    `json:"access_token"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	TokenType    string    `json:"token_type,omitempty"`
	Scope        string    `json:"scope,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
	ClientID     string    `json:"client_id,omitempty"`
	ClientSecret string    `json:"client_secret,omitempty"`
	AuthMethod   string    `json:"token_endpoint_auth_method,omitempty"`
	RedirectURI  string    `json:"redirect_uri,omitempty"`
}

// String describes the record without its secrets, so a stray %v cannot
// print a token.
func (r *Record) String() string {
	if r == nil {
		return "<no token>"
	}
	return fmt.Sprintf("token for %s from %s (scope %q, expires %s, access token %s)",
		r.Resource, r.Issuer, r.Scope, r.Expiry.Format(time.RFC3339), redacted)
}

// Key is the store key: issuer and resource.
func (r *Record) Key() string { return r.Issuer + " " + r.Resource }

// Store keeps tokens between runs.
type Store interface {
	// Find returns the most recently saved record for an MCP server URL,
	// or nil.
	Find(ctx context.Context, serverURL string) (*Record, error)
	// Save replaces the record with the same issuer and resource.
	Save(ctx context.Context, rec *Record) error
	// Delete forgets every record for an MCP server URL ("clear OAuth
	// state").
	Delete(ctx context.Context, serverURL string) error
}

// MemoryStore keeps tokens for the life of the process.
type MemoryStore struct {
	mu      sync.Mutex
	records map[string]Record
	order   []string // keys, least recently saved first
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore { return &MemoryStore{records: map[string]Record{}} }

// Find returns the record last saved for serverURL, or nil.
func (m *MemoryStore) Find(_ context.Context, serverURL string) (*Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := len(m.order) - 1; i >= 0; i-- {
		if r := m.records[m.order[i]]; r.ServerURL == serverURL {
			return &r, nil
		}
	}
	return nil, nil
}

// Save keeps rec, replacing a record with the same key.
func (m *MemoryStore) Save(_ context.Context, rec *Record) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := rec.Key()
	m.records[k] = *rec
	m.order = append(deleteKey(m.order, k), k)
	return nil
}

// Delete forgets every record for serverURL.
func (m *MemoryStore) Delete(_ context.Context, serverURL string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, r := range m.records {
		if r.ServerURL == serverURL {
			delete(m.records, k)
			m.order = deleteKey(m.order, k)
		}
	}
	return nil
}

func deleteKey(keys []string, k string) []string {
	out := keys[:0]
	for _, x := range keys {
		if x != k {
			out = append(out, x)
		}
	}
	return out
}

// FileStore keeps tokens in one JSON file readable only by the user (mode
// 0600, in a 0700 directory). Writes replace the file atomically.
type FileStore struct {
	Path string
	mu   sync.Mutex
}

// DefaultTokenPath is $XDG_STATE_HOME/mcpscope/tokens.json, or
// ~/.local/state/mcpscope/tokens.json.
func DefaultTokenPath() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "mcpscope", "tokens.json"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("cannot find a state directory for tokens (set XDG_STATE_HOME): %w", err)
	}
	return filepath.Join(home, ".local", "state", "mcpscope", "tokens.json"), nil
}

// tokenFile is the file's shape; entries are keyed by "issuer resource".
type tokenFile struct {
	Version int               `json:"version"`
	Entries map[string]Record `json:"entries"`
}

func (f *FileStore) load() (*tokenFile, error) {
	tf := &tokenFile{Version: 1, Entries: map[string]Record{}}
	b, err := os.ReadFile(f.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return tf, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the token file %s: %w", f.Path, err)
	}
	if err := json.Unmarshal(b, tf); err != nil {
		return nil, fmt.Errorf("the token file %s is damaged (delete it to start over): %w", f.Path, err)
	}
	if tf.Entries == nil {
		tf.Entries = map[string]Record{}
	}
	return tf, nil
}

func (f *FileStore) write(tf *tokenFile) error {
	dir := filepath.Dir(f.Path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating the token directory %s: %w", dir, err)
	}
	b, err := json.MarshalIndent(tf, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".tokens-*.json")
	if err != nil {
		return fmt.Errorf("writing the token file: %w", err)
	}
	defer func() { _ = os.Remove(tmp.Name()) }() // after a successful rename this is a no-op
	if err := tmp.Chmod(0o600); err != nil {
		_ = tmp.Close() // the Chmod error is the one to report
		return fmt.Errorf("protecting the token file: %w", err)
	}
	if _, err := tmp.Write(b); err != nil {
		_ = tmp.Close() // the Write error is the one to report
		return fmt.Errorf("writing the token file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing the token file: %w", err)
	}
	if err := os.Rename(tmp.Name(), f.Path); err != nil {
		return fmt.Errorf("replacing the token file %s: %w", f.Path, err)
	}
	return nil
}

// Find returns the record for serverURL that expires last, or nil.
func (f *FileStore) Find(_ context.Context, serverURL string) (*Record, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	tf, err := f.load()
	if err != nil {
		return nil, err
	}
	var best *Record
	for _, r := range tf.Entries {
		if r.ServerURL == serverURL && (best == nil || r.Expiry.After(best.Expiry)) {
			r := r
			best = &r
		}
	}
	return best, nil
}

// Save writes rec to the file (mode 0600, replaced atomically).
func (f *FileStore) Save(_ context.Context, rec *Record) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	tf, err := f.load()
	if err != nil {
		return err
	}
	tf.Entries[rec.Key()] = *rec
	return f.write(tf)
}

// Delete removes every record for serverURL from the file.
func (f *FileStore) Delete(_ context.Context, serverURL string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	tf, err := f.load()
	if err != nil {
		return err
	}
	for k, r := range tf.Entries {
		if r.ServerURL == serverURL {
			delete(tf.Entries, k)
		}
	}
	return f.write(tf)
}
