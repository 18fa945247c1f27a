package sessionio

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
)

// redactedText stands in for a secret's value wherever a Secret is printed.
const redactedText = "[redacted]"

// Secret is a credential (API key, password) read from configuration. It
// formats as "[redacted]" under every fmt verb, in JSON and in slog, so it
// cannot leak by accident.
//
// The protection works through methods, so it holds only where they are
// called: fmt cannot call methods on an unexported struct field and prints
// such a field's raw value, so keep a Secret in an exported field or on its own.
type Secret string

// Reveal returns the real value, for the one place that needs it (a driver
// configuration or an HTTP header).
func (s Secret) Reveal() string {
	return string(s)
}

// String returns "[redacted]", or "" for an empty Secret so that a missing
// credential still shows as missing.
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return redactedText
}

// GoString returns the same text as String, for %#v.
func (s Secret) GoString() string {
	return s.String()
}

// Format writes String for every verb. Without it, verbs such as %x and %q
// would bypass String and print the value.
func (s Secret) Format(f fmt.State, verb rune) {
	// A failed write cannot be reported through fmt.Formatter; fmt itself
	// ignores such errors too.
	_, _ = io.WriteString(f, s.String())
}

// MarshalJSON encodes String as a JSON string.
func (s Secret) MarshalJSON() ([]byte, error) {
	return json.Marshal(s.String())
}

// LogValue makes slog handlers log String instead of the value.
func (s Secret) LogValue() slog.Value {
	return slog.StringValue(s.String())
}
