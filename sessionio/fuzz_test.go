package sessionio_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/sessionio/sessiontest"
)

// FuzzDecode checks what aiq-rpc promises about any file a user may hand
// it: Decode never panics and either refuses the file with a classified
// error or reads it; and whatever it read, saving it gives a file that the
// CLI accepts and that reads back as the same session. Seeds: the CLI's own
// files, and testdata/fuzz/FuzzDecode (each refusal, odd but valid files).
func FuzzDecode(f *testing.F) {
	for _, file := range cliFiles(f) {
		f.Add(file.data)
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		first, warnings, err := sessionio.Decode(data)
		if err != nil {
			assert.Nil(t, first)
			assert.True(t, errors.Is(err, sessionio.ErrInvalid) || errors.Is(err, sessionio.ErrTooLarge),
				"an error that is neither ErrInvalid nor ErrTooLarge: %v", err)
			return
		}
		require.NotNil(t, first)
		for _, w := range warnings {
			// Every warning says where: the metadata, one legacy message,
			// a top-level key that is another spelling of a known one, or
			// the key whose value held invalid UTF-8.
			assert.True(t, strings.HasPrefix(w, "metadata") || strings.HasPrefix(w, "messages[") ||
				strings.Contains(w, ": another spelling of a known key") || strings.Contains(w, ": invalid UTF-8, read as U+FFFD"), "warning without a path: %q", w)
		}
		if first.Metadata.CreatedAt.IsZero() {
			// A file without a creation time is readable, but Encode
			// rightly refuses it; a caller sets the time when it saves.
			first.Metadata.CreatedAt = time.Date(2026, 2, 2, 7, 45, 51, 0, time.UTC)
		}

		out, err := sessionio.Encode(first)
		if err != nil {
			// Allowed here (a file that grows past the limit when
			// indented), but the error must say that saving failed.
			assert.True(t, strings.HasPrefix(err.Error(), "encode session: "), "unclear error: %v", err)
			assert.Nil(t, out)
			return
		}
		require.NoError(t, sessiontest.CheckCLILoadRules(out), "the CLI would refuse what Encode wrote:\n%s", out)

		second, warnings, err := sessionio.Decode(out)
		require.NoError(t, err, "Decode refuses what Encode wrote:\n%s", out)
		assert.Empty(t, warnings, "Encode wrote something that needs repair:\n%s", out)
		// ObjectsAreEqual is what testify's Equal compares with; the
		// failure is reported as JSON instead of Equal's diff, because the
		// fuzzer runs a failing input thousands of times while it
		// minimizes it, and a diff of a whole session each time is slow.
		if want, got := roundTripForm(t, first), roundTripForm(t, second); !assert.ObjectsAreEqual(want, got) {
			t.Fatalf("the session changed in a round trip\nbefore: %s\nafter:  %s\nwritten:\n%s", asJSON(want), asJSON(got), out)
		}

		// Saving what was read back changes nothing.
		again, err := sessionio.Encode(second)
		require.NoError(t, err)
		if string(again) != string(out) {
			t.Fatalf("a second save differs\nfirst:\n%s\nsecond:\n%s", out, again)
		}
	})
}

// asJSON shows f for a failure message: times, texts and kept JSON as they
// are, which %v would print as numbers.
func asJSON(f *sessionio.File) string {
	data, err := json.Marshal(f)
	if err != nil {
		return fmt.Sprintf("%+v", f)
	}
	return string(data)
}

// TestFuzzCorpus checks that the hand-written seeds in testdata/fuzz/FuzzDecode
// are what their names say: a seed that no longer reaches the code it was
// written for is dead weight. Names starting "refuse_" must be refused,
// "odd_" and "cli_" ones read; "cli_" ones are copies of the CLI's files.
// Inputs the fuzzer wrote (hash names) are left to FuzzDecode.
func TestFuzzCorpus(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzDecode", "*"))
	require.NoError(t, err)
	cli := sessiontest.CLIFiles()
	seen := map[string]int{}
	for _, path := range paths {
		name := filepath.Base(path)
		kind, _, ok := strings.Cut(name, "_")
		if !ok {
			continue
		}
		seen[kind]++
		t.Run(name, func(t *testing.T) {
			data := readCorpusFile(t, path)
			_, warnings, err := sessionio.Decode(data)
			switch kind {
			case "refuse":
				assert.ErrorIs(t, err, sessionio.ErrInvalid)
			case "odd":
				assert.NoError(t, err)
			case "cli":
				assert.NoError(t, err)
				assert.Empty(t, warnings)
				assert.True(t, containsValue(cli, data), "not a copy of a file in sessiontest/cli")
			default:
				t.Errorf("unknown kind of seed %q", kind)
			}
		})
	}
	// Eight kinds of refusal, the CLI's files and odd files, as the
	// corpus was written; fewer means seeds were lost.
	assert.GreaterOrEqual(t, seen["refuse"], 8)
	assert.GreaterOrEqual(t, seen["odd"], 3)
	assert.GreaterOrEqual(t, seen["cli"], 1)
}

// readCorpusFile reads a one-value []byte file in Go's fuzz corpus format.
func readCorpusFile(t *testing.T, path string) []byte {
	t.Helper()
	text, err := os.ReadFile(path)
	require.NoError(t, err)
	header, value, ok := strings.Cut(string(text), "\n")
	require.True(t, ok)
	require.Equal(t, "go test fuzz v1", header)
	value = strings.TrimSpace(value)
	require.True(t, strings.HasPrefix(value, "[]byte(") && strings.HasSuffix(value, ")"), "want one []byte value: %s", value)
	data, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(value, "[]byte("), ")"))
	require.NoError(t, err)
	return []byte(data)
}

func containsValue(files map[string][]byte, data []byte) bool {
	for _, f := range files {
		if bytes.Equal(f, data) {
			return true
		}
	}
	return false
}
