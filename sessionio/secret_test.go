package sessionio

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// secretTestValue is a password distinctive enough that finding it in any
// output can only mean a leak.
const secretTestValue = "hunter2-S3cret"

// secretHolder is a struct holding a Secret, as a driver config would.
type secretHolder struct {
	Name     string
	Password Secret
}

// assertNoSecret checks out for the value itself and for the hex forms %x and
// %X would give it.
func assertNoSecret(t *testing.T, out string) {
	t.Helper()
	hexValue := hex.EncodeToString([]byte(secretTestValue))
	assert.NotContains(t, out, secretTestValue)
	assert.NotContains(t, strings.ToLower(out), hexValue)
}

func TestSecretReveal(t *testing.T) {
	assert.Equal(t, secretTestValue, Secret(secretTestValue).Reveal())
	assert.Equal(t, "", Secret("").Reveal())
}

func TestSecretString(t *testing.T) {
	assert.Equal(t, "[redacted]", Secret(secretTestValue).String())
	assert.Equal(t, "[redacted]", Secret(secretTestValue).GoString())
	assert.Equal(t, "", Secret("").String(), "an empty secret must show as missing")
}

func TestSecretFormat(t *testing.T) {
	h := secretHolder{Name: "prod", Password: secretTestValue}
	verbs := []string{"%v", "%s", "%q", "%+v", "%#v", "%x", "%X", "%d", "%10.3s", "%-20v"}
	for _, verb := range verbs {
		t.Run(verb, func(t *testing.T) {
			for _, v := range []any{h, &h, h.Password, []Secret{h.Password}, map[string]Secret{"k": h.Password}} {
				out := fmt.Sprintf(verb, v)
				assertNoSecret(t, out)
				assert.Contains(t, out, "[redacted]", "for %T", v)
			}
		})
	}
	assertNoSecret(t, fmt.Sprint(h, h.Password))
	assertNoSecret(t, fmt.Sprintln(h, h.Password))
	assertNoSecret(t, fmt.Errorf("connect %v: %w", h, assert.AnError).Error())
}

func TestSecretJSON(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"struct", secretHolder{Name: "prod", Password: secretTestValue}, `{"Name":"prod","Password":"[redacted]"}`},
		{"pointer", &secretHolder{Password: secretTestValue}, `{"Name":"","Password":"[redacted]"}`},
		{"alone", Secret(secretTestValue), `"[redacted]"`},
		{"empty", Secret(""), `""`},
		{"map", map[string]Secret{"pw": secretTestValue}, `{"pw":"[redacted]"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := json.Marshal(tt.in)
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(out))
			assertNoSecret(t, string(out))
		})
	}
}

func TestSecretSlog(t *testing.T) {
	h := secretHolder{Name: "prod", Password: secretTestValue}
	handlers := map[string]func(*bytes.Buffer) slog.Handler{
		"json": func(b *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(b, nil) },
		"text": func(b *bytes.Buffer) slog.Handler { return slog.NewTextHandler(b, nil) },
	}
	for name, newHandler := range handlers {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			log := slog.New(newHandler(&b))
			log.Info("connect", "password", h.Password, "source", h, slog.Any("ptr", &h))
			log.With("key", h.Password).Info("again", slog.Group("g", "password", h.Password))
			assertNoSecret(t, b.String())
			assert.Equal(t, 5, strings.Count(b.String(), "[redacted]"), b.String())
		})
	}
}
