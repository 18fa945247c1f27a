package conversation_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/sessionio"
)

// BenchmarkAutosave is what the autosave of a turn costs the session: a
// text turn added to a session of 1, 20 and 200 turns of history (the
// oldest trimmed, as Runner does), then encoded and written atomically
// with its fsyncs. The sessions folder is in memory (/dev/shm) where there
// is one, so that the figure is the work and not the disk; the binary's
// BenchmarkAutosaveTurn gives the disk's wait on its own line.
//
//	go test -run '^$' -bench Autosave -count 6 ./conversation/
func BenchmarkAutosave(b *testing.B) {
	answer := strings.Repeat("Most orders of last week were paid by card; the rest by transfer. ", 32)
	dir := b.TempDir()
	if shm, err := os.MkdirTemp("/dev/shm", "aiq-bench-"); err == nil {
		b.Cleanup(func() { os.RemoveAll(shm) })
		dir = shm
	}
	for _, turns := range []int{1, 20, 200} {
		b.Run(fmt.Sprintf("history=%d", turns), func(b *testing.B) {
			s := conversation.NewSession("", "", time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC))
			s.SystemPrompt = strings.Repeat("You answer questions about the shop database. ", 100)
			path := filepath.Join(dir, fmt.Sprintf("history-%d.json", turns))
			n := 0
			turn := func() {
				q := fmt.Sprintf("question %d: how were last week's orders paid?", n)
				at := s.Created.Add(time.Duration(n) * time.Minute)
				s.History = append(s.History,
					conversation.Message{Role: conversation.RoleUser, Content: q},
					conversation.Message{Role: conversation.RoleAssistant, Content: answer})
				s.Legacy = append(s.Legacy,
					sessionio.LegacyMessage{Role: "user", Content: q, Timestamp: at},
					sessionio.LegacyMessage{Role: "assistant", Content: answer, Timestamp: at})
				s.Updated = at
				s.Trim(turns)
				n++
				data, _, err := s.Encode()
				if err != nil {
					b.Fatal(err)
				}
				if err := sessionio.WriteFile(path, data); err != nil {
					b.Fatal(err)
				}
			}
			for range turns {
				turn()
			}
			b.ReportAllocs()
			for b.Loop() {
				turn()
			}
		})
	}
}
