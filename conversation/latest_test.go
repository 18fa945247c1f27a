package conversation

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/sessionio/sessiontest"
)

// writeListed writes a session of source with one turn, updated at
// updated, into dir as name, with the file's time written later by lag.
func writeListed(t testing.TB, dir, name, source string, updated time.Time, lag time.Duration, callLog bool) {
	t.Helper()
	s := NewSession(source, "sqlite", updated.Add(-time.Hour))
	s.Updated = updated
	s.Legacy = append(s.Legacy, sessionio.LegacyMessage{Role: "user", Content: "q " + name, Timestamp: updated})
	if callLog {
		s.SystemPrompt = callSystemPrompt("mcp", source)
	}
	data, _, err := s.Encode()
	require.NoError(t, err)
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, data, 0o600))
	require.NoError(t, os.Chtimes(path, updated.Add(lag), updated.Add(lag)))
}

// TestLatestSessionIsListsLatest: on folders of sessions of several
// sources, broken files and call logs, written in any order, LatestSession
// finds for each source the session ListSessions marks latest.
func TestLatestSessionIsListsLatest(t *testing.T) {
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 1))
		dir := t.TempDir()
		sources := []string{"shop", "crm", ""}
		for i := range 30 {
			name := fmt.Sprintf("s%02d.json", i)
			updated := base.Add(time.Duration(rng.IntN(1_000_000)) * time.Second)
			lag := time.Duration(rng.IntN(3)) * time.Hour
			switch rng.IntN(10) {
			case 0:
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("{"), 0o600))
				require.NoError(t, os.Chtimes(filepath.Join(dir, name), updated, updated))
			case 1:
				writeListed(t, dir, name, sources[rng.IntN(3)], updated, lag, true)
			default:
				writeListed(t, dir, name, sources[rng.IntN(3)], updated, lag, false)
			}
		}
		list, err := ListSessions(dir)
		require.NoError(t, err)
		for _, source := range append(sources, "nowhere") {
			want := ""
			for _, l := range list {
				if l.Latest && l.Source == source {
					want = l.Path
				}
			}
			got, ok, err := LatestSession(dir, source)
			require.NoError(t, err)
			assert.Equal(t, want != "", ok, "seed %d, source %q", seed, source)
			assert.Equal(t, want, got.Path, "seed %d, source %q", seed, source)
			assert.Equal(t, ok, got.Latest)
		}
	}
	_, ok, err := LatestSession(filepath.Join(t.TempDir(), "missing"), "shop")
	require.NoError(t, err)
	assert.False(t, ok)
}

// BenchmarkSessionList lists a sessions folder of 200 conversations, 4 of
// them near the 10 MiB limit, as an editor does on start to reopen the
// last one: the whole list (ListSessions) against LatestSession, with
// reading every file's bytes as the yardstick.
func BenchmarkSessionList(b *testing.B) {
	dir := b.TempDir()
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	big := sessiontest.GenerateCLIFile(9 << 20)
	for i := range 200 {
		updated := base.Add(time.Duration(i) * time.Hour)
		name := fmt.Sprintf("s%03d.json", i)
		if i%50 == 49 {
			path := filepath.Join(dir, name)
			require.NoError(b, os.WriteFile(path, big, 0o600))
			require.NoError(b, os.Chtimes(path, updated, updated))
			continue
		}
		writeListed(b, dir, name, []string{"shop", "crm"}[i%2], updated, time.Second, false)
	}
	b.Run("read every file", func(b *testing.B) {
		paths, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		for b.Loop() {
			for _, p := range paths {
				if _, err := os.ReadFile(p); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("ListSessions", func(b *testing.B) {
		for b.Loop() {
			if _, err := ListSessions(dir); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("LatestSession", func(b *testing.B) {
		for b.Loop() {
			if _, ok, err := LatestSession(dir, "shop"); err != nil || !ok {
				b.Fatal(ok, err)
			}
		}
	})
}
