package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/conversation"
	"github.com/aiq/aiq-rpc/conversation/llm/llmtest"
)

// badConfig is a config.yaml whose model is a list, an error at line 3.
const badConfig = "llm:\n  url: http://127.0.0.1:1/v1\n  model: [not, a, name]\n"

// TestConfigReloadJSONRPC: config.yaml written while the server runs is
// used by the next request, without a restart; a broken one keeps the
// last good configuration and is said once, with its file, line and field.
func TestConfigReloadJSONRPC(t *testing.T) {
	first := llmtest.NewServer(t, llmtest.Step{Text: "From the first."}, llmtest.Step{Text: "Still the first."})
	second := llmtest.NewServer(t, llmtest.Step{Text: "From the second."})
	h := newHome(t)
	p := startProc(t, h, procOptions{})
	init := p.initialize(nil)
	assert.False(t, init.ModelConfigured)

	ask := func(q string) conversation.Answer {
		var ans conversation.Answer
		p.client.Result("chat/turn", map[string]any{"query": q}, &ans)
		return ans
	}
	h.withModel(t, first.URL)
	assert.Equal(t, "From the first.", ask("hello?").Answer, "the model written after start is used")
	changed := p.client.WaitNotification("config/changed", `"modelConfigured":true`)
	var params struct {
		ModelConfigured bool             `json:"modelConfigured"`
		Sources         []map[string]any `json:"sources"`
	}
	require.NoError(t, json.Unmarshal(changed.Params, &params))
	assert.True(t, params.ModelConfigured)
	assert.Len(t, params.Sources, 2, "the sources come with the change")

	h.writeFile(t, "config/config.yaml", badConfig)
	assert.Equal(t, "Still the first.", ask("again?").Answer, "the last good configuration stays")
	warn := p.client.WaitNotification("window/showMessage", "config.yaml")
	assert.Contains(t, string(warn.Params), "config.yaml:3: llm.model")
	p.client.Result("sources/list", nil, nil)
	assert.Equal(t, 1, countMessages(p, "window/showMessage", "config.yaml"), "the problem is said once")

	h.writeFile(t, "config/config.yaml", fmt.Sprintf("llm:\n  url: %s\n  api_key: %s\n  model: second-model\n", second.URL, testAPIKey))
	assert.Equal(t, "From the second.", ask("and now?").Answer, "the next request uses the new model server")
	assert.Equal(t, "second-model", second.Requests()[0].Model)
}

func countMessages(p *proc, method, substr string) int {
	n := 0
	for _, m := range p.client.Notifications(method) {
		if strings.Contains(string(m.Params), substr) {
			n++
		}
	}
	return n
}

// TestConfigReloadACP: the same in the ACP agent; the problem opens the
// next prompt's answer.
func TestConfigReloadACP(t *testing.T) {
	first := llmtest.NewServer(t, llmtest.Step{Text: "From the first."}, llmtest.Step{Text: "Still the first."})
	second := llmtest.NewServer(t, llmtest.Step{Text: "From the second."})
	h := newHome(t)
	a := startACP(t, h)
	a.call("initialize", map[string]any{"protocolVersion": 1})
	res, _ := a.call("session/new", map[string]any{"cwd": "/", "mcpServers": []any{}})
	var sess struct {
		SessionID string `json:"sessionId"`
	}
	require.NoError(t, json.Unmarshal(res, &sess))
	prompt := func(text string) string {
		_, updates := a.call("session/prompt", map[string]any{"sessionId": sess.SessionID,
			"prompt": []any{map[string]string{"type": "text", "text": text}}})
		var out strings.Builder
		for _, raw := range updates {
			if kind, chunk := acpUpdate(t, raw); kind == "agent_message_chunk" {
				out.WriteString(chunk)
			}
		}
		return out.String()
	}
	h.withModel(t, first.URL)
	assert.Contains(t, prompt("hello?"), "From the first.")
	h.writeFile(t, "config/config.yaml", badConfig)
	text := prompt("again?")
	assert.Contains(t, text, "Still the first.")
	assert.Contains(t, text, "config.yaml:3: llm.model")
	h.writeFile(t, "config/config.yaml", fmt.Sprintf("llm:\n  url: %s\n  api_key: %s\n  model: second-model\n", second.URL, testAPIKey))
	text = prompt("and now?")
	assert.Contains(t, text, "From the second.")
	assert.NotContains(t, text, "config.yaml:3", "the problem was said once")
}

// TestSourcesReload: sources.yaml written while the server runs is listed
// by the next request and announced; a broken one keeps the last good list.
func TestSourcesReload(t *testing.T) {
	h := newHome(t)
	p := startProc(t, h, procOptions{})
	p.initialize(nil)
	h.writeFile(t, "config/sources.yaml", "- name: only\n  type: sqlite\n  database: "+h.Dir+"/only.sqlite\n")
	var list struct {
		Sources []struct {
			Name string `json:"name"`
		} `json:"sources"`
	}
	p.client.Result("sources/list", nil, &list)
	require.Len(t, list.Sources, 1)
	assert.Equal(t, "only", list.Sources[0].Name)
	p.client.WaitNotification("config/changed", `"name":"only"`)

	h.writeFile(t, "config/sources.yaml", "- name: broken\n  type: oracle\n")
	p.client.Result("sources/list", nil, &list)
	require.Len(t, list.Sources, 1, "the last good list stays")
	assert.Equal(t, "only", list.Sources[0].Name)
	warn := p.client.WaitNotification("window/showMessage", "sources.yaml:2")
	assert.Contains(t, string(warn.Params), "type")
}

// TestConfigChangedWhileIdle: a label written into sources.yaml reaches a
// client that sends nothing: the server looks at the files on its own.
func TestConfigChangedWhileIdle(t *testing.T) {
	h := newHome(t)
	p := startProc(t, h, procOptions{})
	p.initialize(nil)
	written := time.Now()
	h.writeFile(t, "config/sources.yaml", "- name: idle\n  type: sqlite\n  database: "+h.Dir+"/idle.sqlite\n  label: production\n")
	// The wait is editortest.Timeout, minutes, so that only a hang ends it;
	// how long the change took is checked after.
	changed := p.client.WaitNotification("config/changed", `"name":"idle"`)
	took := time.Since(written)
	assert.Contains(t, string(changed.Params), `"label":"production"`, "the label comes with the change")
	// Issue 30 asks for 2 s; 5 s leaves 3 s for CI, which runs the tests
	// beside a CPU load.
	assert.Less(t, took, 5*time.Second, "config/changed came %v after sources.yaml was written: more than 2 s and CI's margin", took)
	t.Logf("config/changed %v after the write", took)
}
