package engine

import (
	"bytes"
)

// TextRow writes a row of the engine's text: text as the server printed
// it, guarded and quoted as Row does, numbers as they are, bools as true
// or false, bytes as Row writes them.
func (c *csvWriter) TextRow(cells []TextCell) error {
	if c.err != nil {
		return c.err
	}
	for i, cell := range cells {
		if i > 0 {
			c.w.WriteByte(',')
		}
		b := cell.Text
		switch {
		case b == nil:
		case cell.Kind == KindBool:
			if len(b) > 0 && b[0] == 't' {
				c.w.WriteString("true")
			} else {
				c.w.WriteString("false")
			}
		case cell.Kind == KindBytea:
			c.field(byteaText(b), true)
		case cell.Kind != KindText && cell.Kind != KindJSON && numberText(b):
			c.w.Write(b)
		default:
			c.textField(b)
		}
	}
	_, c.err = c.w.WriteString("\r\n")
	return c.err
}

// textField writes text as field does, from bytes.
func (c *csvWriter) textField(b []byte) {
	guard := len(b) > 0 && formulaStart(string(b[:1]))
	if !guard && len(b) > 0 && !bytes.ContainsAny(b, ",\"\r\n") && b[0] != ' ' && b[len(b)-1] != ' ' {
		c.w.Write(b)
		return
	}
	c.field(string(b), true)
}

// TextRow writes the row's values (see TextCell.Value).
func (j *jsonWriter) TextRow(cells []TextCell) error { return j.Row(cellValues(cells)) }

// TextRow writes the row's values (see TextCell.Value).
func (m *markdownWriter) TextRow(cells []TextCell) error { return m.Row(cellValues(cells)) }
