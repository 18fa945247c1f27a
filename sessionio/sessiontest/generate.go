package sessiontest

import (
	"encoding/json"
	"fmt"
	"time"
)

// GenerateCLIFile returns a session file of about size bytes written the
// way the AIQ CLI writes them (json.MarshalIndent of its structs, raw
// messages as maps with sorted keys, HTML escaped): turns of a question, an
// execute_sql call, its result of about 5 KB of rows, and an answer, in
// raw_messages and in the legacy list.
func GenerateCLIFile(size int) []byte {
	turns := size / ((len(generate(100)) - len(generate(0))) / 100)
	data := generate(turns)
	for len(data) > size && turns > 0 {
		turns -= (len(data)-size)/(len(data)/max(turns, 1)) + 1
		data = generate(max(turns, 0))
	}
	return data
}

func generate(turns int) []byte {
	start := time.Date(2026, 11, 22, 2, 29, 16, 513687782, time.UTC)
	var f CLIView
	f.Metadata.CreatedAt, f.Metadata.LastUpdated = start, start.Add(time.Duration(turns)*time.Minute)
	f.Metadata.DataSource, f.Metadata.DatabaseType = "local-mysql", "mysql"
	raw := []map[string]any{{"role": "system", "content": "You are a SQL assistant for the local-mysql database. <placeholder>"}}
	for i := range turns {
		at := start.Add(time.Duration(i) * time.Minute)
		question := fmt.Sprintf("question %d: which customers ordered most in week %d, and what did they spend?", i, i%52)
		sql := fmt.Sprintf("SELECT c.id, c.name, o.day, o.total FROM customers c JOIN orders o ON o.customer_id = c.id WHERE o.week = %d AND o.total > 10 ORDER BY o.total DESC LIMIT 50", i%52)
		args, _ := json.Marshal(map[string]string{"sql": sql})
		answer := fmt.Sprintf("The top customer in week %d was customer %d, who spent 199.90 over 3 orders; the next two spent less than half of that.", i%52, i)
		call := fmt.Sprintf("call_%d", i)
		raw = append(raw,
			map[string]any{"role": "user", "content": question},
			map[string]any{"role": "assistant", "content": "", "tool_calls": []map[string]any{
				{"id": call, "type": "function", "function": map[string]any{"name": "execute_sql", "arguments": string(args)}}}},
			map[string]any{"role": "tool", "content": result(i), "tool_call_id": call},
			map[string]any{"role": "assistant", "content": answer})
		f.Messages = append(f.Messages,
			CLIMessage{"user", question, at},
			CLIMessage{"assistant", answer, at.Add(2 * time.Second)})
	}
	for _, m := range raw {
		data, err := json.Marshal(m)
		if err != nil {
			panic(err) // plain values: cannot happen
		}
		f.RawMessages = append(f.RawMessages, data)
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		panic(err) // plain values: cannot happen
	}
	return data
}

// result is the JSON text of an execute_sql result of about 5 KB.
func result(turn int) string {
	rows := make([][]any, 0, 80)
	for r := range 80 {
		rows = append(rows, []any{turn*100 + r, fmt.Sprintf("customer %d <vip>", r), "2026-11-22", 19.99 + float64(r)})
	}
	data, _ := json.Marshal(map[string]any{"status": "success", "row_count": len(rows), "columns": []string{"id", "name", "day", "total"}, "rows": rows})
	return string(data)
}
